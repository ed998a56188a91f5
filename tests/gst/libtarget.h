/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A library target for mxlfabricssink to send to, in this process: its own
 * private MXL domain, the flow the caller creates in it (writer), a reader
 * of that flow, a target on tcp at 127.0.0.1 set up with the caller's
 * options, and its TargetInfo in a file of the domain (target-info=@file).
 * Used by the credit tests (test-credits-sink.c, test-credits-sink-audio.c).
 */
#pragma once

#include <string.h>

#include <glib/gstdio.h>

#include <mxl/fabrics.h>
#include <mxl/flow.h>
#include <mxl/flow-ext.h>

#include "../hardening/hgst.h"

typedef struct {
  mxlPrivateDomain domain;
  mxlInstance mxl;
  mxlFabricsInstance fab;
  mxlFlowWriter writer;         /* the caller's, created between _domain
                                   and _setup */
  mxlFlowReader reader;
  mxlFabricsTarget target;
  gchar *file;                  /* its TargetInfo, for target-info=@file */
} LibTarget;

/* The domain, its instance and the fabrics instance. */
static inline void
lib_target_domain (LibTarget * lt)
{
  g_assert_cmpint (mxlPrivateDomainCreate (NULL, &lt->domain), ==,
      MXL_STATUS_OK);
  lt->mxl = mxlCreateInstance (mxlPrivateDomainGetPath (lt->domain), NULL);
  g_assert_nonnull (lt->mxl);
  g_assert_cmpint (mxlFabricsCreateInstance (lt->mxl, NULL, &lt->fab), ==,
      MXL_STATUS_OK);
}

/* Once lt->writer of flow @flow_id exists: its reader, the target set up
 * with @options (tcp, 127.0.0.1) and the TargetInfo file; returns the
 * TargetInfo as JSON (g_free()). */
static inline gchar *
lib_target_setup (LibTarget * lt, const gchar * flow_id, const gchar * options)
{
  mxlFabricsTargetConfig cfg;
  mxlFabricsTargetInfo info = NULL;
  gchar json[8192];
  size_t size = sizeof json;

  g_assert_cmpint (mxlCreateFlowReader (lt->mxl, flow_id, NULL, &lt->reader),
      ==, MXL_STATUS_OK);
  memset (&cfg, 0, sizeof cfg);
  cfg.interface.provider = MXL_FABRICS_PROVIDER_TCP;
  cfg.interface.caps.flags = MXL_FABRICS_IFACE_CAP_REMOTE_WRITE
      | MXL_FABRICS_IFACE_CAP_BLOCKING_OPERATIONS;
  cfg.interface.address.node = HGST_NODE;
  cfg.writer = lt->writer;
  g_assert_cmpint (mxlFabricsCreateTarget (lt->fab, &lt->target), ==,
      MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsTargetSetup (lt->target, &cfg, options, &info),
      ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsTargetInfoToString (info, json, &size), ==,
      MXL_STATUS_OK);
  mxlFabricsFreeTargetInfo (info);
  lt->file = g_build_filename (mxlPrivateDomainGetPath (lt->domain),
      "target-info.json", NULL);
  g_assert_true (g_file_set_contents (lt->file, json, -1, NULL));
  return g_strdup (json);
}

/* Destroys all of it (the caller's threads stopped). */
static inline void
lib_target_clear (LibTarget * lt)
{
  g_assert_cmpint (mxlFabricsDestroyTarget (lt->fab, lt->target), ==,
      MXL_STATUS_OK);
  g_assert_cmpint (mxlReleaseFlowReader (lt->mxl, lt->reader), ==,
      MXL_STATUS_OK);
  g_assert_cmpint (mxlReleaseFlowWriter (lt->mxl, lt->writer), ==,
      MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsDestroyInstance (lt->fab), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlDestroyInstance (lt->mxl), ==, MXL_STATUS_OK);
  g_unlink (lt->file);
  g_assert_cmpint (mxlPrivateDomainDestroy (lt->domain), ==, MXL_STATUS_OK);
  g_free (lt->file);
}
