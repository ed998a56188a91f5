/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A fabrics instance: the MXL instance it serves and the targets and
 * initiators it owns (destroyed with it). */
#pragma once

#include <glib.h>

#include <mxl/fabrics.h>

#include "fabrics/initiator.h"
#include "fabrics/target.h"

struct mxlFabricsInstance_t {
  mxlInstance mxl;
  GPtrArray *targets;      /* MxlTarget*, owned */
  GPtrArray *initiators;   /* MxlInitiator*, owned */
};

mxlStatus mxl_instance_create (mxlInstance mxl, mxlFabricsInstance *out);
void mxl_instance_destroy (mxlFabricsInstance instance);

MxlTarget *mxl_instance_new_target (mxlFabricsInstance instance);
/** Returns: MXL_STATUS_OK, or MXL_ERR_INVALID_ARG when @target is not one of
 * @instance's. */
mxlStatus mxl_instance_destroy_target (mxlFabricsInstance instance, MxlTarget *target);

MxlInitiator *mxl_instance_new_initiator (mxlFabricsInstance instance);
mxlStatus mxl_instance_destroy_initiator (mxlFabricsInstance instance,
    MxlInitiator *initiator);
