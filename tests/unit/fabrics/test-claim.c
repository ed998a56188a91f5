/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Claims of connectionless targets (src/fabrics/wire/claim.h), the target's
 * side: who becomes the owner, who is refused and counted, lapses,
 * releases, and claims that do not hold together.
 */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fabrics/wire/claim.h"

/* Writes @value into the mailbox its token names, as an initiator would,
 * and hands the target the completion. */
static void
claim (MxlClaimTarget *c, uint64_t value, uint64_t *refused)
{
  uint64_t token = value & ~MXL_CLAIM_RELEASE;

  c->words[mxl_claim_mailbox (token)] = value;
  g_assert_true (mxl_claim_is_imm (mxl_claim_imm (token)));
  mxl_claim_target_on_claim (c, mxl_claim_imm (token), refused);
}

static void
test_owner_and_refusals (void)
{
  MxlClaimTarget c;
  uint64_t refused = 0, a = 0x1234567890abcdefu, b = 0x0fedcba987654321u;

  memset (&c, 0, sizeof c);
  c.words = g_new0 (uint64_t, MXL_CLAIM_WORDS);
  g_assert_cmpuint (mxl_claim_mailbox (a), !=, mxl_claim_mailbox (b));
  claim (&c, a, &refused);
  g_assert_cmpuint (c.words[0], ==, a);
  claim (&c, a, &refused);                /* the heartbeat of the owner */
  g_assert_cmpuint (c.words[0], ==, a);
  claim (&c, b, &refused);
  claim (&c, b, &refused);                /* its retries: counted once */
  g_assert_cmpuint (c.words[0], ==, a);
  g_assert_cmpuint (refused, ==, 1);
  /* a release by someone else is ignored, the owner's frees the target */
  claim (&c, b | MXL_CLAIM_RELEASE, &refused);
  g_assert_cmpuint (c.words[0], ==, a);
  claim (&c, a | MXL_CLAIM_RELEASE, &refused);
  g_assert_cmpuint (c.words[0], ==, 0);
  claim (&c, b, &refused);
  g_assert_cmpuint (c.words[0], ==, b);
  /* an owner silent for longer than the lapse is replaced */
  c.owner_seen -= (MXL_CLAIM_LAPSE_MS + 1) * (gint64) 1000;
  claim (&c, a, &refused);
  g_assert_cmpuint (c.words[0], ==, a);
  g_assert_cmpuint (refused, ==, 1);
  mxl_claim_target_close (&c, NULL);
}

/* shm: a claimant takes over at once from an owner whose process is gone. */
static void
test_owner_process_gone (void)
{
  MxlClaimTarget c;
  uint64_t refused = 0, mine = mxl_claim_token (TRUE), dead, other;
  pid_t pid = fork ();

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    _exit (0);
  g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);
  g_assert_cmpuint (mine >> 32, ==, (guint64) getpid ());
  dead = ((uint64_t) pid << 32) | 0x1234u;
  other = ((uint64_t) getpid () << 32) | 0x5678u;
  memset (&c, 0, sizeof c);
  c.words = g_new0 (uint64_t, MXL_CLAIM_WORDS);
  c.check_pid = TRUE;
  claim (&c, other, &refused);          /* a live owner keeps the target */
  claim (&c, mine, &refused);
  g_assert_cmpuint (c.words[0], ==, other);
  g_assert_cmpuint (refused, ==, 1);
  c.words[0] = 0;
  c.owner = 0;
  claim (&c, dead, &refused);
  g_assert_cmpuint (c.words[0], ==, dead);
  claim (&c, mine, &refused);           /* its process is gone */
  g_assert_cmpuint (c.words[0], ==, mine);
  g_assert_cmpuint (refused, ==, 1);
  mxl_claim_target_close (&c, NULL);
}

static void
test_bad_claims (void)
{
  MxlClaimTarget c;
  uint64_t refused = 0, a = 0x1234567890abcdefu;

  memset (&c, 0, sizeof c);
  c.words = g_new0 (uint64_t, MXL_CLAIM_WORDS);
  /* not claims: other slots, mailbox 0 or past the region, upper bits */
  g_assert_false (mxl_claim_is_imm (0xFFFFFFFFu));
  g_assert_false (mxl_claim_is_imm (0x0000FFFFu));
  g_assert_false (mxl_claim_is_imm (0x0040FFFFu));
  g_assert_false (mxl_claim_is_imm (0x0001FFFEu));
  g_assert_false (mxl_claim_is_imm (UINT64_C (0x10001FFFF)));
  g_assert_true (mxl_claim_is_imm (0x003FFFFFu));
  /* a mailbox holding nothing, or a token that belongs elsewhere */
  mxl_claim_target_on_claim (&c, mxl_claim_imm (a), &refused);
  g_assert_cmpuint (c.words[0], ==, 0);
  c.words[mxl_claim_mailbox (a)] = a + 1;
  mxl_claim_target_on_claim (&c, mxl_claim_imm (a), &refused);
  g_assert_cmpuint (c.words[0], ==, 0);
  g_assert_cmpuint (refused, ==, 0);
  /* refusals without a token (reference initiators) are always counted */
  g_assert_true (mxl_claim_note_refused (&c, 0));
  g_assert_true (mxl_claim_note_refused (&c, 0));
  g_assert_true (mxl_claim_note_refused (&c, 7));
  g_assert_false (mxl_claim_note_refused (&c, 7));
  mxl_claim_target_close (&c, NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/claim/owner-and-refusals", test_owner_and_refusals);
  g_test_add_func ("/fabrics/claim/owner-process-gone", test_owner_process_gone);
  g_test_add_func ("/fabrics/claim/bad-claims", test_bad_claims);
  return g_test_run ();
}
