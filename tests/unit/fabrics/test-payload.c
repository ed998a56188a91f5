/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of grain payloads read from caller memory
 * (mxlFabricsExtInitiatorSetGrainPayload, initiator_payload.c): which
 * settings are refused, and the exact iovecs a write of an overridden slot
 * gets (header from the flow region, payload from the caller), on an
 * initiator built by hand (no provider needed).
 */
#include <string.h>

#include <glib.h>
#include <rdma/fabric.h>

#include <mxl/fabrics-ext.h>

#include "fabrics/initiator.h"
#include "flow/flow-internal.h"

#define PAYLOAD 1000u
#define SLOTS 3u

typedef struct {
  MxlInitiator init;
  MxlOfiDomain dom;
  MxlOfiRegion regions[SLOTS];
  guint8 flow[SLOTS][MXL_GRAIN_HEADER_SIZE + PAYLOAD];
  guint8 caller[PAYLOAD];
  int desc_token;
} Fake;

static Fake *
fake_new (uint64_t mr_mode)
{
  Fake *f = g_new0 (Fake, 1);

  f->dom.info = fi_allocinfo ();
  f->dom.info->domain_attr->mr_mode = (int) mr_mode;
  f->init.base.dom = &f->dom;
  f->init.base.setup_done = TRUE;
  f->init.mode = &mxl_initiator_inline_mode;     /* as setup installs it */
  f->init.base.grain_count = SLOTS;
  f->init.base.layout.grain_size = PAYLOAD;
  f->init.conns = g_ptr_array_new ();
  for (guint i = 0; i < SLOTS; i++) {
    f->regions[i].base = f->flow[i];
    f->regions[i].len = sizeof f->flow[i];
    f->regions[i].desc = &f->desc_token;
  }
  f->init.base.regions = f->regions;
  mxl_lock_init (&f->init.base.lock);
  /* The overrides are the grain source's state, as setup makes it. */
  f->init.base.desc = mxl_provider_lookup (MXL_FABRICS_PROVIDER_TCP);
  f->init.chunks = &mxl_grain_chunks;
  g_assert_cmpint (mxl_grain_source_setup (&f->init, NULL, NULL), ==, MXL_STATUS_OK);
  return f;
}

static void
fake_free (Fake * f)
{
  mxl_initiator_payload_free (&f->init);
  mxl_grain_source_teardown (&f->init);
  mxl_lock_clear (&f->init.base.lock);
  g_ptr_array_unref (f->init.conns);
  fi_freeinfo (f->dom.info);
  g_free (f);
}

static void
test_refused (void)
{
  Fake *f = fake_new (0);
  Fake *local = fake_new (FI_MR_LOCAL);

  g_assert_cmpint (mxlFabricsExtInitiatorSetGrainPayload (NULL, 0, f->caller,
          PAYLOAD), ==, MXL_ERR_INVALID_ARG);
  /* shorter than a grain payload */
  g_assert_cmpint (mxlFabricsExtInitiatorSetGrainPayload (&f->init, 4,
          f->caller, PAYLOAD - 1), ==, MXL_ERR_INVALID_ARG);
  g_assert_false (mxl_initiator_payload_overridden (&f->init, 1));
  /* verbs/efa style: caller memory has no descriptor */
  g_assert_cmpint (mxlFabricsExtInitiatorSetGrainPayload (&local->init, 4,
          local->caller, PAYLOAD), ==, MXL_ERR_UNSUPPORTED_OPERATION);
  /* audio initiators have no grain slots */
  f->init.base.continuous = TRUE;
  g_assert_cmpint (mxlFabricsExtInitiatorSetGrainPayload (&f->init, 4,
          f->caller, PAYLOAD), ==, MXL_ERR_INVALID_STATE);
  f->init.base.continuous = FALSE;
  f->init.base.setup_done = FALSE;
  g_assert_cmpint (mxlFabricsExtInitiatorSetGrainPayload (&f->init, 4,
          f->caller, PAYLOAD), ==, MXL_ERR_INVALID_STATE);
  f->init.base.setup_done = TRUE;
  /* accepted: slot 4 % 3 = 1 only; NULL gives it back to the flow */
  g_assert_cmpint (mxlFabricsExtInitiatorSetGrainPayload (&f->init, 4,
          f->caller, PAYLOAD), ==, MXL_STATUS_OK);
  g_assert_true (mxl_initiator_payload_overridden (&f->init, 1));
  g_assert_false (mxl_initiator_payload_overridden (&f->init, 0));
  g_assert_false (mxl_initiator_payload_overridden (&f->init, 2));
  g_assert_cmpint (mxlFabricsExtInitiatorSetGrainPayload (&f->init, 7, NULL,
          0), ==, MXL_STATUS_OK);
  g_assert_false (mxl_initiator_payload_overridden (&f->init, 1));
  fake_free (f);
  fake_free (local);
}

static MxlChunk
chunk (guint n, const uint64_t * off_len)
{
  MxlChunk c;

  memset (&c, 0, sizeof c);
  c.n_iov = n;
  for (guint i = 0; i < n; i++)
    c.iov[i] = (MxlRun) { off_len[2 * i], off_len[2 * i + 1] };
  return c;
}

static void
test_iovecs (void)
{
  Fake *f = fake_new (0);
  struct iovec iov[MXL_LAYOUT_MAX_IOV];
  void *desc[MXL_LAYOUT_MAX_IOV];
  guint n = 99;
  MxlChunk c;

  g_assert_cmpint (mxlFabricsExtInitiatorSetGrainPayload (&f->init, 2,
          f->caller, PAYLOAD), ==, MXL_STATUS_OK);
  /* a whole slot in one piece: header from the flow, payload from the
   * caller */
  c = chunk (1, (uint64_t[]) { 0, MXL_GRAIN_HEADER_SIZE + PAYLOAD });
  g_assert_true (mxl_initiator_payload_iov (&f->init, 2, &c, 4, iov, desc,
          &n));
  g_assert_cmpuint (n, ==, 2);
  g_assert_true (iov[0].iov_base == f->flow[2]);
  g_assert_cmpuint (iov[0].iov_len, ==, MXL_GRAIN_HEADER_SIZE);
  g_assert_true (desc[0] == &f->desc_token);
  g_assert_true (iov[1].iov_base == f->caller);
  g_assert_cmpuint (iov[1].iov_len, ==, PAYLOAD);
  g_assert_null (desc[1]);
  /* two pieces: the end of the header, then payload bytes 100..299 */
  c = chunk (2, (uint64_t[]) { MXL_GRAIN_HEADER_SIZE - 8, 8,
        MXL_GRAIN_HEADER_SIZE + 100, 200 });
  g_assert_true (mxl_initiator_payload_iov (&f->init, 2, &c, 4, iov, desc,
          &n));
  g_assert_cmpuint (n, ==, 2);
  g_assert_true (iov[0].iov_base == f->flow[2] + MXL_GRAIN_HEADER_SIZE - 8);
  g_assert_cmpuint (iov[0].iov_len, ==, 8);
  g_assert_true (iov[1].iov_base == f->caller + 100);
  g_assert_cmpuint (iov[1].iov_len, ==, 200);
  /* a piece across the header end needs two iovecs: refused with one */
  c = chunk (1, (uint64_t[]) { MXL_GRAIN_HEADER_SIZE - 8, 16 });
  g_assert_false (mxl_initiator_payload_iov (&f->init, 2, &c, 1, iov, desc,
          &n));
  /* past the slot */
  c = chunk (1, (uint64_t[]) { MXL_GRAIN_HEADER_SIZE + 900, 101 });
  g_assert_false (mxl_initiator_payload_iov (&f->init, 2, &c, 4, iov, desc,
          &n));
  fake_free (f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/payload/refused", test_refused);
  g_test_add_func ("/fabrics/payload/iovecs", test_iovecs);
  return g_test_run ();
}
