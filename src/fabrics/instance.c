/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fabrics instances own their targets and initiators. */
#include "fabrics/instance.h"

#include <stdlib.h>

#include "fabrics/setup.h"

mxlStatus
mxl_instance_create (mxlInstance mxl, mxlFabricsInstance *out)
{
  mxlFabricsInstance inst;

  /* Before any libfabric call: the MR cache's memory monitor would hook
   * every munmap of the process (docs/wire-format.md §3.1). */
  setenv ("FI_MR_CACHE_MONITOR", "disabled", 1);
  inst = g_new0 (struct mxlFabricsInstance_t, 1);
  inst->mxl = mxl;
  inst->targets = g_ptr_array_new_with_free_func ((GDestroyNotify) mxl_target_destroy);
  inst->initiators = g_ptr_array_new_with_free_func ((GDestroyNotify) mxl_initiator_destroy);
  *out = inst;
  return MXL_STATUS_OK;
}

void
mxl_instance_destroy (mxlFabricsInstance inst)
{
  /* Initiators first: their connections close before the targets go. */
  g_ptr_array_free (inst->initiators, TRUE);
  g_ptr_array_free (inst->targets, TRUE);
  g_free (inst);
}

MxlTarget *
mxl_instance_new_target (mxlFabricsInstance inst)
{
  MxlTarget *t = g_new0 (MxlTarget, 1);

  mxl_endpoint_init (&t->base, inst);
  mxl_poll_nap_init (&t->nap, 0);
  g_ptr_array_add (inst->targets, t);
  return t;
}

mxlStatus
mxl_instance_destroy_target (mxlFabricsInstance inst, MxlTarget *target)
{
  return g_ptr_array_remove (inst->targets, target) ? MXL_STATUS_OK : MXL_ERR_INVALID_ARG;
}

MxlInitiator *
mxl_instance_new_initiator (mxlFabricsInstance inst)
{
  MxlInitiator *init = g_new0 (MxlInitiator, 1);

  mxl_endpoint_init (&init->base, inst);
  g_ptr_array_add (inst->initiators, init);
  return init;
}

mxlStatus
mxl_instance_destroy_initiator (mxlFabricsInstance inst, MxlInitiator *initiator)
{
  return g_ptr_array_remove (inst->initiators, initiator) ? MXL_STATUS_OK
      : MXL_ERR_INVALID_ARG;
}
