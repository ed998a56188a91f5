/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Setup options JSON (docs/wire-format.md §7.3, §8.1 B9, and our keys). */
#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>

#include "fabrics/protocol/options.h"
#include "fabrics/protocol/protocol.h"

#include <mxl/fabrics-ext.h>

static void
assert_defaults (const MxlSetupOptions *o)
{
  g_assert_cmpuint (o->cq_depth, ==, MXL_DEFAULT_CQ_DEPTH);
  g_assert_cmpuint (o->max_message_size, ==, 0);
  g_assert_cmpuint (o->iov_limit, ==, 0);
  g_assert_false (o->protocol_set);
  g_assert_cmpstr (o->protocol->name, ==, "write");
  g_assert_false (o->progress_thread);
  g_assert_true (o->samples_staging);
  g_assert_true (o->exclusive);
  g_assert_false (o->reconnect);
  g_assert_cmpuint (o->post_ring_capacity, ==, MXL_DEFAULT_POST_RING_CAPACITY);
}

/* B9: the reference's cqDepth cases. */
static void
test_b9 (void)
{
  MxlSetupOptions o;
  GError *error = NULL;

  g_assert_cmpint (mxl_setup_options_parse ("{\"cqDepth\": 64}", &o, &error), ==,
      MXL_STATUS_OK);
  g_assert_no_error (error);
  g_assert_cmpuint (o.cq_depth, ==, 64);
  g_assert_cmpint (mxl_setup_options_parse ("{\"cqDepth\": 3}", &o, &error), ==,
      MXL_STATUS_OK);
  g_assert_cmpuint (o.cq_depth, ==, 3);

  g_assert_cmpint (mxl_setup_options_parse (NULL, &o, &error), ==, MXL_STATUS_OK);
  assert_defaults (&o);
  g_assert_cmpint (mxl_setup_options_parse ("", &o, &error), ==, MXL_STATUS_OK);
  assert_defaults (&o);
  g_assert_cmpint (mxl_setup_options_parse ("{}", &o, &error), ==, MXL_STATUS_OK);
  assert_defaults (&o);
  g_assert_no_error (error);

  g_assert_cmpint (mxl_setup_options_parse ("{\"cqDepth\": 0}", &o, &error), ==,
      MXL_ERR_INVALID_ARG);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "\"cqDepth\""));
  g_clear_error (&error);
  assert_defaults (&o);

  g_assert_cmpint (mxl_setup_options_parse ("{\"cqDepth\": \"big\"}", &o, &error), ==,
      MXL_ERR_INVALID_ARG);
  g_assert_nonnull (strstr (error->message, "\"cqDepth\""));
  g_clear_error (&error);

  g_assert_cmpint (mxl_setup_options_parse ("{not json", &o, &error), ==,
      MXL_ERR_INVALID_ARG);
  g_assert_nonnull (strstr (error->message, "not valid JSON"));
  g_clear_error (&error);
}

typedef struct {
  const char *json;
  const char *key;   /* named in the error */
} Bad;

static void
test_rejects (void)
{
  static const Bad bad[] = {
    { "[]", "root must be an object" },
    { "42", "root must be an object" },
    { "\"cqDepth\"", "root must be an object" },
    { "{\"cqDepth\": -1}", "\"cqDepth\"" },
    { "{\"cqDepth\": 2.5}", "\"cqDepth\"" },
    { "{\"cqDepth\": true}", "\"cqDepth\"" },
    { "{\"cqDepth\": null}", "\"cqDepth\"" },
    { "{\"cqDepth\": [64]}", "\"cqDepth\"" },
    { "{\"cqDepth\": 1048577}", "\"cqDepth\"" },
    { "{\"cqDepth\": 1e300}", "\"cqDepth\"" },
    { "{\"maxMessageSize\": 0}", "\"maxMessageSize\"" },
    { "{\"maxMessageSize\": -4096}", "\"maxMessageSize\"" },
    { "{\"maxMessageSize\": \"4096\"}", "\"maxMessageSize\"" },
    { "{\"maxMessageSize\": 4096.5}", "\"maxMessageSize\"" },
    { "{\"iovLimit\": 0}", "\"iovLimit\"" },
    { "{\"iovLimit\": 1025}", "\"iovLimit\"" },
    { "{\"iovLimit\": 1.5}", "\"iovLimit\"" },
    { "{\"protocol\": \"rdma\"}", "\"protocol\"" },
    { "{\"protocol\": \"Write\"}", "\"protocol\"" },
    { "{\"protocol\": 0}", "\"protocol\"" },
    { "{\"progressThread\": 1}", "\"progressThread\"" },
    { "{\"progressThread\": \"true\"}", "\"progressThread\"" },
    { "{\"samplesStaging\": 0}", "\"samplesStaging\"" },
    { "{\"exclusive\": \"no\"}", "\"exclusive\"" },
    { "{\"reconnect\": 1}", "\"reconnect\"" },
    { "{\"postRingCapacity\": 0}", "\"postRingCapacity\"" },
    { "{\"postRingCapacity\": 1}", "\"postRingCapacity\"" },
    { "{\"postRingCapacity\": 3}", "\"postRingCapacity\"" },
    { "{\"postRingCapacity\": 1000}", "\"postRingCapacity\"" },
    { "{\"postRingCapacity\": 2097152}", "\"postRingCapacity\"" },
    { "{\"postRingCapacity\": -2}", "\"postRingCapacity\"" },
    /* A bad key after a good one: defaults remain. */
    { "{\"cqDepth\": 8, \"iovLimit\": 0}", "\"iovLimit\"" },
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    MxlSetupOptions o;
    g_autoptr (GError) error = NULL;

    if (mxl_setup_options_parse (bad[i].json, &o, &error) != MXL_ERR_INVALID_ARG)
      g_error ("case %u accepted: %s", i, bad[i].json);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    if (strstr (error->message, bad[i].key) == NULL)
      g_error ("case %u: \"%s\" does not name %s", i, error->message, bad[i].key);
    assert_defaults (&o);
  }
}

static void
test_all_keys (void)
{
  MxlSetupOptions o;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (mxl_setup_options_parse (
          "{\"cqDepth\":128,\"maxMessageSize\":9007199254740993,\"iovLimit\":4,"
          "\"protocol\":\"tagged\",\"progressThread\":true,\"postRingCapacity\":2,"
          "\"samplesStaging\":false,\"exclusive\":false,\"reconnect\":true,"
          "\"unknown\":{\"x\":[1,2]},\"cqdepth\":0}",
          &o, &error), ==, MXL_STATUS_OK);
  g_assert_no_error (error);
  g_assert_cmpuint (o.cq_depth, ==, 128);
  g_assert_cmpuint (o.max_message_size, ==, G_GUINT64_CONSTANT (9007199254740993));
  g_assert_cmpuint (o.iov_limit, ==, 4);
  g_assert_true (o.protocol_set);
  g_assert_cmpstr (o.protocol->name, ==, "tagged");
  g_assert_true (o.progress_thread);
  g_assert_cmpuint (o.post_ring_capacity, ==, 2);
  g_assert_false (o.samples_staging);
  g_assert_false (o.exclusive);
  g_assert_true (o.reconnect);
  mxl_setup_options_defaults (&o);
  assert_defaults (&o);

  /* Limits are inclusive; 64.0 is the integer 64. */
  g_assert_cmpint (mxl_setup_options_parse (
          "{\"cqDepth\":1048576,\"iovLimit\":1024,\"postRingCapacity\":1048576,"
          "\"protocol\":\"send\",\"progressThread\":false,\"maxMessageSize\":1}",
          &o, &error), ==, MXL_STATUS_OK);
  g_assert_cmpuint (o.cq_depth, ==, 1048576);
  g_assert_cmpuint (o.iov_limit, ==, 1024);
  g_assert_cmpuint (o.post_ring_capacity, ==, 1048576);
  g_assert_cmpstr (o.protocol->name, ==, "send");
  g_assert_false (o.progress_thread);
  g_assert_cmpuint (o.max_message_size, ==, 1);
  g_assert_cmpint (mxl_setup_options_parse ("{\"cqDepth\":64.0,\"protocol\":\"write\"}",
          &o, &error), ==, MXL_STATUS_OK);
  g_assert_cmpuint (o.cq_depth, ==, 64);
  g_assert_true (o.protocol_set);
  g_assert_cmpstr (o.protocol->name, ==, "write");
}

/* The strict check elements use: unknown keys are errors there. */
static void
test_validate (void)
{
  char reason[256];

  g_assert_cmpint (mxlFabricsExtValidateOptions (NULL, reason, sizeof reason), ==,
      MXL_STATUS_OK);
  g_assert_cmpstr (reason, ==, "");
  g_assert_cmpint (mxlFabricsExtValidateOptions ("", NULL, 0), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtValidateOptions ("{\"cqDepth\":128,\"protocol\":\"tagged\","
          "\"progressThread\":true,\"postRingCapacity\":2,\"maxMessageSize\":4096,"
          "\"iovLimit\":4,\"samplesStaging\":false,\"exclusive\":true}",
          reason, sizeof reason), ==, MXL_STATUS_OK);

  /* issue 15: "providerName" is gone (setup never used it, and its string
   * leaked): now an unknown key like any other */
  g_assert_cmpint (mxlFabricsExtValidateOptions ("{\"providerName\":\"tcp\"}",
          reason, sizeof reason), ==, MXL_ERR_INVALID_ARG);
  g_assert_nonnull (strstr (reason, "unknown key \"providerName\""));

  /* an unknown key (accepted and ignored by setup) names itself and the
   * known ones */
  g_assert_cmpint (mxlFabricsExtValidateOptions ("{\"cqdepth\":4}", reason, sizeof reason),
      ==, MXL_ERR_INVALID_ARG);
  g_assert_nonnull (strstr (reason, "unknown key \"cqdepth\""));
  g_assert_nonnull (strstr (reason, "samplesStaging"));
  /* a bad value: setup's own message */
  g_assert_cmpint (mxlFabricsExtValidateOptions ("{\"cqDepth\":0}", reason, sizeof reason),
      ==, MXL_ERR_INVALID_ARG);
  g_assert_nonnull (strstr (reason, "cqDepth"));
  g_assert_cmpint (mxlFabricsExtValidateOptions ("[1]", reason, sizeof reason), ==,
      MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsExtValidateOptions ("{", reason, sizeof reason), ==,
      MXL_ERR_INVALID_ARG);
  /* a short buffer is truncated and terminated */
  g_assert_cmpint (mxlFabricsExtValidateOptions ("{\"x\":1}", reason, 8), ==,
      MXL_ERR_INVALID_ARG);
  g_assert_cmpuint (strlen (reason), ==, 7);
}

/* issue 15: the library builds the options an element passes (the element
 * no longer edits the JSON): its own keys kept, the defaults applied. */
static void
test_with_defaults (void)
{
  char *out = NULL;
  bool on = FALSE;

  g_assert_cmpint (mxlFabricsExtOptionsWithDefaults (NULL, TRUE, FALSE, &out, &on),
      ==, MXL_STATUS_OK);
  g_assert_cmpstr (out, ==, "{\"progressThread\":true}");
  g_assert_true (on);
  free (out);
  /* the application's own value wins over the default; reconnect is forced */
  g_assert_cmpint (mxlFabricsExtOptionsWithDefaults (
          "{\"cqDepth\":64,\"progressThread\":true,\"reconnect\":false}", FALSE,
          TRUE, &out, &on), ==, MXL_STATUS_OK);
  g_assert_cmpstr (out, ==,
      "{\"cqDepth\":64,\"progressThread\":true,\"reconnect\":true}");
  g_assert_true (on);
  g_assert_cmpint (mxlFabricsExtValidateOptions (out, NULL, 0), ==, MXL_STATUS_OK);
  free (out);
  g_assert_cmpint (mxlFabricsExtOptionsWithDefaults ("", FALSE, TRUE, &out, &on),
      ==, MXL_STATUS_OK);
  g_assert_cmpstr (out, ==, "{\"progressThread\":false,\"reconnect\":true}");
  g_assert_false (on);
  free (out);
  /* malformed or not an object: nothing built, the caller passes its own */
  on = TRUE;
  g_assert_cmpint (mxlFabricsExtOptionsWithDefaults ("{", FALSE, FALSE, &out, &on),
      ==, MXL_ERR_INVALID_ARG);
  g_assert_null (out);
  g_assert_false (on);
  g_assert_cmpint (mxlFabricsExtOptionsWithDefaults ("[1]", TRUE, FALSE, &out, NULL),
      ==, MXL_ERR_INVALID_ARG);
  g_assert_null (out);
  g_assert_cmpint (mxlFabricsExtOptionsWithDefaults ("{}", TRUE, FALSE, NULL, NULL),
      ==, MXL_ERR_INVALID_ARG);
}

/* The options table (mxlFabricsExtGetOption()): every key it lists is one
 * the validator accepts, a key it does not list is refused, and each
 * integer or boolean default it states for a role is the parser's own
 * (mxl_setup_options_defaults()), so an element's help built from it tells
 * the truth. */
static void
test_option_table (void)
{
  MxlSetupOptions d;
  mxlFabricsExtOptionInfo info;
  g_autoptr (GString) names = g_string_new (NULL);
  struct {
    const char *name;
    const char *value;          /* the parser's default as text */
  } expect[] = {
    { "cqDepth", NULL }, { "progressThread", NULL },
    { "postRingCapacity", NULL }, { "samplesStaging", NULL },
    { "exclusive", NULL }, { "reconnect", NULL },
  };
  g_autofree char *cq = NULL, *ring = NULL;
  size_t i, n, found = 0;

  mxl_setup_options_defaults (&d);
  cq = g_strdup_printf ("%u", d.cq_depth);
  ring = g_strdup_printf ("%u", d.post_ring_capacity);
  expect[0].value = cq;
  expect[1].value = d.progress_thread ? "true" : "false";
  expect[2].value = ring;
  expect[3].value = d.samples_staging ? "true" : "false";
  expect[4].value = d.exclusive ? "true" : "false";
  expect[5].value = d.reconnect ? "true" : "false";

  for (n = 0; mxlFabricsExtGetOption (n, &info) == MXL_STATUS_OK; n++) {
    g_autofree char *json = g_strdup_printf ("{\"%s\": %s}", info.name,
        g_str_equal (info.type, "boolean") ? "true" :
        g_str_equal (info.type, "string") ? "\"write\"" : "2");
    char err[256] = "";

    g_assert_nonnull (info.meaning);
    g_assert_true (info.targetDefault != NULL || info.initiatorDefault != NULL);
    g_assert_cmpint (mxlFabricsExtValidateOptions (json, err, sizeof err), ==,
        MXL_STATUS_OK);
    g_string_append_printf (names, "%s%s", n ? ", " : "", info.name);
    for (i = 0; i < G_N_ELEMENTS (expect); i++) {
      if (!g_str_equal (expect[i].name, info.name))
        continue;
      found++;
      if (info.targetDefault)
        g_assert_cmpstr (info.targetDefault, ==, expect[i].value);
      if (info.initiatorDefault)
        g_assert_cmpstr (info.initiatorDefault, ==, expect[i].value);
    }
  }
  g_assert_cmpuint (found, ==, G_N_ELEMENTS (expect));
  g_assert_cmpstr (names->str, ==, "cqDepth, maxMessageSize, iovLimit, "
      "protocol, progressThread, postRingCapacity, samplesStaging, "
      "exclusive, reconnect");
  g_assert_cmpint (mxlFabricsExtGetOption (n, &info), ==, MXL_ERR_NOT_FOUND);
  g_assert_cmpint (mxlFabricsExtGetOption (0, NULL), ==, MXL_ERR_INVALID_ARG);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/options/b9-cq-depth", test_b9);
  g_test_add_func ("/fabrics/options/rejects", test_rejects);
  g_test_add_func ("/fabrics/options/all-keys", test_all_keys);
  g_test_add_func ("/fabrics/options/validate", test_validate);
  g_test_add_func ("/fabrics/options/with-defaults", test_with_defaults);
  g_test_add_func ("/fabrics/options/table", test_option_table);
  return g_test_run ();
}
