/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Credits (src/fabrics/wire/credit.h): the release and announce messages
 * and what survives decoding, the initiator's window per target with
 * hostile releases (ahead, backwards, another initiator's) counted and
 * ignored, and the target's holds.
 */
#include <string.h>

#include "fabrics/wire/credit.h"

static void
test_release_message (void)
{
  MxlCreditRelease r = { .initiator_id = 0x1122334455667788u, .index = G_MAXUINT64 - 3 };
  MxlCreditRelease back = { 0 };
  uint8_t buf[MXL_CREDIT_RELEASE_SIZE + 1];

  mxl_credit_release_encode (&r, buf);
  g_assert_cmpmem (buf, 4, "MXR1", 4);
  g_assert_true (mxl_credit_release_decode (buf, MXL_CREDIT_RELEASE_SIZE, &back));
  g_assert_cmpuint (back.initiator_id, ==, r.initiator_id);
  g_assert_cmpuint (back.index, ==, r.index);
  /* every length but the exact one, a bad magic, reserved bits, id 0 */
  for (size_t len = 0; len <= sizeof buf; len++)
    if (len != MXL_CREDIT_RELEASE_SIZE)
      g_assert_false (mxl_credit_release_decode (buf, len, &back));
  g_assert_false (mxl_credit_release_decode (NULL, MXL_CREDIT_RELEASE_SIZE, &back));
  buf[0] ^= 1;
  g_assert_false (mxl_credit_release_decode (buf, MXL_CREDIT_RELEASE_SIZE, &back));
  buf[0] ^= 1;
  buf[5] = 1;
  g_assert_false (mxl_credit_release_decode (buf, MXL_CREDIT_RELEASE_SIZE, &back));
  r.initiator_id = 0;
  mxl_credit_release_encode (&r, buf);
  g_assert_false (mxl_credit_release_decode (buf, MXL_CREDIT_RELEASE_SIZE, &back));
}

static void
test_announce_message (void)
{
  MxlCreditAnnounce a = { .initiator_id = 42, .addr_len = 3, .addr = { 7, 8, 9 } };
  MxlCreditAnnounce back;
  uint8_t buf[MXL_CREDIT_ANNOUNCE_HEADER + MXL_CREDIT_ADDR_MAX + 1];
  size_t len;

  len = mxl_credit_announce_encode (&a, buf, sizeof buf);
  g_assert_cmpuint (len, ==, MXL_CREDIT_ANNOUNCE_HEADER + 3);
  g_assert_cmpmem (buf, 4, "MXN1", 4);
  memset (&back, 0, sizeof back);
  g_assert_true (mxl_credit_announce_decode (buf, len, &back));
  g_assert_cmpuint (back.initiator_id, ==, 42);
  g_assert_cmpmem (back.addr, back.addr_len, a.addr, 3);
  /* the length must be exactly header + address */
  g_assert_false (mxl_credit_announce_decode (buf, len - 1, &back));
  g_assert_false (mxl_credit_announce_decode (buf, len + 1, &back));
  g_assert_false (mxl_credit_announce_decode (buf, 3, &back));
  /* an address length beyond the maximum, even with the bytes present */
  buf[4] = (uint8_t) (MXL_CREDIT_ADDR_MAX + 1);
  g_assert_false (mxl_credit_announce_decode (buf,
          MXL_CREDIT_ANNOUNCE_HEADER + MXL_CREDIT_ADDR_MAX + 1, &back));
  buf[4] = 3;
  buf[7] = 1;
  g_assert_false (mxl_credit_announce_decode (buf, len, &back));
  /* a connected endpoint announces no address */
  a.addr_len = 0;
  len = mxl_credit_announce_encode (&a, buf, sizeof buf);
  g_assert_cmpuint (len, ==, MXL_CREDIT_ANNOUNCE_HEADER);
  g_assert_true (mxl_credit_announce_decode (buf, len, &back));
  g_assert_cmpuint (back.addr_len, ==, 0);
  /* what cannot be encoded */
  g_assert_cmpuint (mxl_credit_announce_encode (&a, buf, 15), ==, 0);
  a.addr_len = MXL_CREDIT_ADDR_MAX + 1;
  g_assert_cmpuint (mxl_credit_announce_encode (&a, buf, sizeof buf), ==, 0);
  a.addr_len = 0;
  a.initiator_id = 0;
  g_assert_cmpuint (mxl_credit_announce_encode (&a, buf, sizeof buf), ==, 0);
}

/* A sender writing ahead of the reader: index i waits for i - ring. */
static void
test_window (void)
{
  MxlCreditWindow w;
  MxlCreditRelease r = { .initiator_id = 99 };
  const guint ring = 4;
  uint64_t base = 1000000;

  g_assert_cmpint (mxl_credit_window_init (&w, 0, 99), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxl_credit_window_init (&w, MXL_CREDIT_RING_MAX + 1, 99), ==,
      MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxl_credit_window_init (&w, ring, 0), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxl_credit_window_init (&w, ring, 99), ==, MXL_STATUS_OK);
  for (uint64_t i = base; i < base + ring; i++) {
    g_assert_true (mxl_credit_window_may_write (&w, i));   /* never used */
    mxl_credit_window_note_written (&w, i);
  }
  /* another slice range of a grain in its slot is no new write */
  g_assert_true (mxl_credit_window_may_write (&w, base + 1));
  for (uint64_t i = base + ring; i < base + 2 * ring; i++)
    g_assert_false (mxl_credit_window_may_write (&w, i));
  r.index = base + 1;
  g_assert_cmpint (mxl_credit_window_on_release (&w, &r), ==, MXL_CREDIT_RELEASED);
  g_assert_true (mxl_credit_window_may_write (&w, base + 1 + ring));
  g_assert_false (mxl_credit_window_may_write (&w, base + ring));
  /* releases out of order free exactly their slots */
  r.index = base + 3;
  g_assert_cmpint (mxl_credit_window_on_release (&w, &r), ==, MXL_CREDIT_RELEASED);
  g_assert_true (mxl_credit_window_may_write (&w, base + 3 + ring));
  g_assert_false (mxl_credit_window_may_write (&w, base + 2 + ring));
  /* a slot may skip indices: base + 1 + 2 ring goes where base + 1 was */
  g_assert_true (mxl_credit_window_may_write (&w, base + 1 + 2 * ring));
  mxl_credit_window_note_written (&w, base + 1 + 2 * ring);
  g_assert_false (mxl_credit_window_may_write (&w, base + 1 + 3 * ring));
  g_assert_cmpuint (w.releases, ==, 2);
  g_assert_cmpuint (w.releases_ahead + w.releases_backwards + w.releases_unknown, ==, 0);
  mxl_credit_window_clear (&w);
}

/* Releases from the network that do not fit what was written are counted
 * and change nothing. */
static void
test_window_hostile (void)
{
  MxlCreditWindow w;
  MxlCreditRelease r = { .initiator_id = 7 };
  const guint ring = 3;

  g_assert_cmpint (mxl_credit_window_init (&w, ring, 7), ==, MXL_STATUS_OK);
  for (uint64_t i = 10; i < 13; i++)
    mxl_credit_window_note_written (&w, i);
  /* ahead: beyond the highest written (slot holds 10, 11, 12) */
  r.index = 13;
  g_assert_cmpint (mxl_credit_window_on_release (&w, &r), ==, MXL_CREDIT_AHEAD);
  r.index = G_MAXUINT64;
  g_assert_cmpint (mxl_credit_window_on_release (&w, &r), ==, MXL_CREDIT_AHEAD);
  /* backwards: an older occupant of a slot */
  r.index = 9;
  g_assert_cmpint (mxl_credit_window_on_release (&w, &r), ==, MXL_CREDIT_BACKWARDS);
  r.index = 0;
  g_assert_cmpint (mxl_credit_window_on_release (&w, &r), ==, MXL_CREDIT_BACKWARDS);
  /* another initiator's id, even for an index that is held */
  r.initiator_id = 8;
  r.index = 11;
  g_assert_cmpint (mxl_credit_window_on_release (&w, &r), ==, MXL_CREDIT_UNKNOWN);
  g_assert_cmpuint (w.releases_ahead, ==, 2);
  g_assert_cmpuint (w.releases_backwards, ==, 2);
  g_assert_cmpuint (w.releases_unknown, ==, 1);
  /* nothing was freed by them */
  for (uint64_t i = 13; i < 16; i++)
    g_assert_false (mxl_credit_window_may_write (&w, i));
  /* a true release, then the same again: backwards */
  r.initiator_id = 7;
  g_assert_cmpint (mxl_credit_window_on_release (&w, &r), ==, MXL_CREDIT_RELEASED);
  g_assert_cmpint (mxl_credit_window_on_release (&w, &r), ==, MXL_CREDIT_BACKWARDS);
  g_assert_cmpuint (w.releases_backwards, ==, 3);
  g_assert_true (mxl_credit_window_may_write (&w, 14));
  g_assert_false (mxl_credit_window_may_write (&w, 13));
  /* a never-used slot of a fresh window: ahead */
  mxl_credit_window_clear (&w);
  g_assert_cmpint (mxl_credit_window_init (&w, ring, 7), ==, MXL_STATUS_OK);
  r.index = 0;
  g_assert_cmpint (mxl_credit_window_on_release (&w, &r), ==, MXL_CREDIT_AHEAD);
  g_assert_cmpuint (w.releases, ==, 0);
  mxl_credit_window_clear (&w);
}

/* Two windows of one initiator, one per target: a target that never
 * releases holds back only its own. */
static void
test_windows_independent (void)
{
  MxlCreditWindow a, b;
  MxlCreditRelease r = { .initiator_id = 5 };
  guint written_a = 0, written_b = 0;

  g_assert_cmpint (mxl_credit_window_init (&a, 2, 5), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxl_credit_window_init (&b, 2, 5), ==, MXL_STATUS_OK);
  for (uint64_t i = 0; i < 20; i++) {
    if (mxl_credit_window_may_write (&a, i)) {
      mxl_credit_window_note_written (&a, i);
      written_a++;
    }
    if (mxl_credit_window_may_write (&b, i)) {
      mxl_credit_window_note_written (&b, i);
      written_b++;
      r.index = i;           /* b's reader releases each grain at once */
      g_assert_cmpint (mxl_credit_window_on_release (&b, &r), ==, MXL_CREDIT_RELEASED);
    }
  }
  g_assert_cmpuint (written_a, ==, 2);
  g_assert_cmpuint (written_b, ==, 20);
  mxl_credit_window_clear (&a);
  mxl_credit_window_clear (&b);
}

static void
test_holds (void)
{
  MxlCreditHolds h;

  g_assert_cmpint (mxl_credit_holds_init (&h, 0), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxl_credit_holds_init (&h, 4), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxl_credit_holds_release (&h, 0), ==, MXL_ERR_INVALID_ARG);
  mxl_credit_holds_commit (&h, 100);
  g_assert_cmpint (mxl_credit_holds_release (&h, 104), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxl_credit_holds_release (&h, 96), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxl_credit_holds_release (&h, 100), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxl_credit_holds_release (&h, 100), ==, MXL_ERR_INVALID_STATE);
  mxl_credit_holds_commit (&h, 104);
  g_assert_cmpint (mxl_credit_holds_release (&h, 100), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxl_credit_holds_release (&h, 104), ==, MXL_STATUS_OK);
  mxl_credit_holds_clear (&h);
}

static void
test_versions (void)
{
  g_assert_false (mxl_credit_version_usable (0));
  g_assert_true (mxl_credit_version_usable (MXL_CREDIT_VERSION));
  g_assert_false (mxl_credit_version_usable (MXL_CREDIT_VERSION + 1));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/credit/release-message", test_release_message);
  g_test_add_func ("/fabrics/credit/announce-message", test_announce_message);
  g_test_add_func ("/fabrics/credit/window", test_window);
  g_test_add_func ("/fabrics/credit/window-hostile", test_window_hostile);
  g_test_add_func ("/fabrics/credit/windows-independent", test_windows_independent);
  g_test_add_func ("/fabrics/credit/holds", test_holds);
  g_test_add_func ("/fabrics/credit/versions", test_versions);
  return g_test_run ();
}
