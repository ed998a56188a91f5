/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sink's target states (gst/sinktargetstate.c): a move its table does
 * not allow is refused (a critical, the state and its data unchanged), an
 * allowed one says so as before; a TargetInfo that fails to parse when the
 * engine puts it on the initiator (gst/mxlfabricssinktarget.c) fails the
 * target with the WARNING and the connection message it always had. */
#include <string.h>

#include <gst/gst.h>

#include "mxlfabricssink.h"
#include "mxlfabricssinkconn.h"
#include "mxlfabricssinktarget.h"
#include "sinktargetlist.h"

typedef struct {
  GstElement *element;
  GstMxlFabricsSink *sink;
  GstMxlFabricsSinkTarget *t;
  GPtrArray *notices;
} Fixture;

/* A sink with one target given as @value (not started: no initiator), its
 * TargetInfo JSON @json. */
static void
fixture_init (Fixture * f, const gchar * value, const gchar * json)
{
  f->element = gst_object_ref_sink (g_object_new (GST_TYPE_MXL_FABRICS_SINK,
          NULL));
  f->sink = GST_MXL_FABRICS_SINK (f->element);
  f->t = g_new0 (GstMxlFabricsSinkTarget, 1);
  f->t->value = g_strdup (value);
  f->t->json = g_strdup (json);
  g_ptr_array_add (f->sink->targets, f->t);
  f->notices = gst_mxl_fabrics_sink_notices_new ();
}

static void
fixture_clear (Fixture * f)
{
  g_ptr_array_unref (f->notices);
  gst_object_unref (f->element);
}

static const GstMxlFabricsSinkNotice *
notice (Fixture * f, guint i)
{
  g_assert_cmpuint (i, <, f->notices->len);
  return g_ptr_array_index (f->notices, i);
}

/* @next refused from @t's state: a critical, no change, no message. */
static void
expect_refused (Fixture * f, GstMxlFabricsSinkTargetState * next,
    const gchar * pattern)
{
  GstMxlFabricsSinkTargetState was = f->t->state;

  g_test_expect_message (NULL, G_LOG_LEVEL_CRITICAL, pattern);
  gst_mxl_fabrics_sink_target_set_state (f->sink, f->t, next, "test",
      f->notices);
  g_test_assert_expected_messages ();
  g_assert_cmpint (f->t->state.kind, ==, was.kind);
  g_assert_true (memcmp (&f->t->state, &was, sizeof was) == 0);
  g_assert_cmpuint (f->notices->len, ==, 0);
}

static void
test_illegal_refused (void)
{
  Fixture f;
  GstMxlFabricsSinkTargetState next = {.kind =
        GST_MXL_FABRICS_SINK_TARGET_CONNECTED };
  const GError *kept;

  fixture_init (&f, "target-a", NULL);
  g_assert_cmpint (f.t->state.kind, ==, GST_MXL_FABRICS_SINK_TARGET_IDLE);
  /* only CONNECTING goes onto the initiator, and only with a TargetInfo */
  expect_refused (&f, &next, "*no move from idle to connected*");
  next.kind = GST_MXL_FABRICS_SINK_TARGET_LOST;
  expect_refused (&f, &next, "*no move from idle to lost*");
  next.kind = GST_MXL_FABRICS_SINK_TARGET_CONNECTING;
  expect_refused (&f, &next, "*no move from idle to connecting without a "
      "TargetInfo*");
  g_assert_cmpuint (f.sink->n_connected, ==, 0);

  /* an allowed move: IDLE → FAILED, its WARNING then its message */
  next.kind = GST_MXL_FABRICS_SINK_TARGET_FAILED;
  next.u.failed.error = g_error_new_literal (GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS, "bad");
  g_assert_true (gst_mxl_fabrics_sink_target_set_state (f.sink, f.t, &next,
          NULL, f.notices));
  g_assert_cmpint (f.t->state.kind, ==, GST_MXL_FABRICS_SINK_TARGET_FAILED);
  g_assert_cmpuint (f.notices->len, ==, 2);
  g_assert_cmpint (notice (&f, 0)->type, ==, GST_MESSAGE_WARNING);
  g_assert_cmpstr (notice (&f, 0)->error->message, ==,
      "a target failed: bad; the other targets go on");
  g_assert_cmpint (notice (&f, 1)->type, ==, GST_MESSAGE_ELEMENT);
  g_assert_cmpint (notice (&f, 1)->target_state, ==,
      GST_MXL_FABRICS_CONNECTION_ERROR);
  g_ptr_array_set_size (f.notices, 0);

  /* a FAILED target waits for IDLE (its file changed): nothing else,
   * and its error stays */
  kept = f.t->state.u.failed.error;
  next = (GstMxlFabricsSinkTargetState) {
  .kind = GST_MXL_FABRICS_SINK_TARGET_CONNECTED};
  expect_refused (&f, &next, "*no move from failed to connected*");
  next.kind = GST_MXL_FABRICS_SINK_TARGET_AWAITING_FILE;
  expect_refused (&f, &next, "*no move from failed to awaiting-file*");
  /* a refused FAILED → FAILED frees the error it was given */
  next.kind = GST_MXL_FABRICS_SINK_TARGET_FAILED;
  next.u.failed.error = g_error_new_literal (GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS, "again");
  expect_refused (&f, &next, "*no move from failed to failed*");
  g_assert_true (f.t->state.u.failed.error == kept);
  g_assert_cmpstr (kept->message, ==, "bad");

  /* FAILED → IDLE is allowed (quiet here) */
  next.kind = GST_MXL_FABRICS_SINK_TARGET_IDLE;
  g_assert_true (gst_mxl_fabrics_sink_target_set_state (f.sink, f.t, &next,
          NULL, NULL));
  g_assert_cmpint (f.t->state.kind, ==, GST_MXL_FABRICS_SINK_TARGET_IDLE);
  fixture_clear (&f);
}

/* The engine's pass puts an IDLE target with JSON on the initiator; JSON
 * the library does not parse fails the target before the initiator is
 * used (the element is not started: it has none). */
static void
test_unparsable_target_info (void)
{
  Fixture f;
  const GstMxlFabricsSinkNotice *n;
  const gchar *expect = "malformed TargetInfo (TargetInfo: "
      "\"addressFormat\" is missing): give the src's target-info or @ its "
      "target-info-file";
  gchar *warning = g_strdup_printf ("a target failed: %s; the other "
      "targets go on", expect);

  fixture_init (&f, "target-b", "{\"provider\":\"tcp\"}");
  g_mutex_lock (&f.sink->obj->lock);
  gst_mxl_fabrics_sink_targets_tick (f.sink, f.notices);
  g_mutex_unlock (&f.sink->obj->lock);

  g_assert_cmpint (f.t->state.kind, ==, GST_MXL_FABRICS_SINK_TARGET_FAILED);
  g_assert_error (f.t->state.u.failed.error, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS);
  g_assert_cmpstr (f.t->state.u.failed.error->message, ==, expect);
  g_assert_cmpstr (f.t->id_str, ==, "");
  g_assert_cmpuint (f.notices->len, ==, 2);
  n = notice (&f, 0);
  g_assert_cmpint (n->type, ==, GST_MESSAGE_WARNING);
  g_assert_error (n->error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS);
  g_assert_cmpstr (n->error->message, ==, warning);
  g_assert_cmpstr (n->debug, ==, "target-b");
  n = notice (&f, 1);
  g_assert_cmpint (n->type, ==, GST_MESSAGE_ELEMENT);
  g_assert_cmpint (n->state, ==, GST_MXL_FABRICS_CONNECTION_ERROR);
  g_assert_cmpstr (n->target_id, ==, "");
  g_assert_cmpint (n->target_state, ==, GST_MXL_FABRICS_CONNECTION_ERROR);
  g_assert_cmpstr (n->reason, ==, expect);
  g_free (warning);
  fixture_clear (&f);
}

/* @value splits into exactly the NULL-terminated @want. */
static void
check_split (const gchar * value, const gchar * const *want)
{
  gchar **got = gst_mxl_fabrics_sink_split_target_info (value);
  guint i;

  for (i = 0; want[i]; i++) {
    if (got[i] == NULL)
      g_error ("\"%s\": %u sources, wanted more", value, i);
    g_assert_cmpstr (got[i], ==, want[i]);
  }
  g_assert_null (got[i]);
  g_strfreev (got);
}

/* target-info lists (sinktargetlist.h): ';' and ',' separate, never
 * inside a JSON source; a ',' ends an @path only before a new source. */
static void
test_split_list (void)
{
  const gchar *none[] = { NULL };
  const gchar *one_json[] = { "{\"provider\":\"tcp;ofi_rxm\",\"a\":[1,2]}",
    NULL
  };
  const gchar *two_json[] = { "{\"p\":\"a;b\",\"x\":\"}\\\"{\"}", "{\"q\":1}",
    NULL
  };
  const gchar *paths[] = { "@/tmp/a.json", "@/tmp/b.json", NULL };
  const gchar *comma_path[] = { "@/tmp/a,b.json", NULL };
  const gchar *mixed[] = { "@/tmp/a,b.json", "{\"q\":1}", "ZXlK", "@/c",
    NULL
  };
  const gchar *spaced[] = { " @/tmp/a.json ", NULL };

  check_split ("", none);
  check_split (" ; , ", none);
  check_split (one_json[0], one_json);
  check_split ("{\"p\":\"a;b\",\"x\":\"}\\\"{\"} ; {\"q\":1}", two_json);
  check_split ("{\"p\":\"a;b\",\"x\":\"}\\\"{\"},{\"q\":1}", two_json);
  check_split ("@/tmp/a.json;@/tmp/b.json", paths);
  check_split ("@/tmp/a.json, @/tmp/b.json", paths);
  check_split ("@/tmp/a.json,@/tmp/b.json;", paths);
  check_split ("@/tmp/a,b.json", comma_path);
  check_split ("@/tmp/a,b.json,{\"q\":1},ZXlK;@/c", mixed);
  /* one source: as given */
  check_split (" @/tmp/a.json ", spaced);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sink-targets/illegal-move-refused", test_illegal_refused);
  g_test_add_func ("/sink-targets/split-list", test_split_list);
  g_test_add_func ("/sink-targets/unparsable-target-info",
      test_unparsable_target_info);
  return g_test_run ();
}
