/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The plugin as users see it (loaded from GST_PLUGIN_PATH): properties with
 * their defaults and blurbs, enum values, pad templates, action signals, and
 * the clear failures of start(). */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/base/gstbasesrc.h>

typedef struct {
  const gchar *name;
  GType type;
  gboolean writable;
} PropSpec;

static const PropSpec common_props[] = {
  {"provider", G_TYPE_ENUM, TRUE},
  {"node", G_TYPE_STRING, TRUE},
  {"service", G_TYPE_STRING, TRUE},
  {"domain", G_TYPE_STRING, TRUE},
  {"flow-id", G_TYPE_STRING, TRUE},
  {"options", G_TYPE_STRING, TRUE},
  {"connection-state", G_TYPE_ENUM, FALSE},
  {"stats", G_TYPE_BOXED, FALSE},
};

static const PropSpec src_props[] = {
  {"caps", G_TYPE_BOXED, TRUE},
  {"flow-def", G_TYPE_STRING, TRUE},
  {"target-info", G_TYPE_STRING, FALSE},
  {"target-info-file", G_TYPE_STRING, TRUE},
  {"timeout", G_TYPE_UINT64, TRUE},
};

static const PropSpec sink_props[] = {
  {"target-info", G_TYPE_STRING, TRUE},
  {"auto-reconnect", G_TYPE_BOOLEAN, TRUE},
  {"wait-for-connection", G_TYPE_BOOLEAN, TRUE},
  {"wait-timeout", G_TYPE_UINT, TRUE},
};

static GstElement *
make (const gchar * factory)
{
  GstElement *e = gst_element_factory_make (factory, NULL);
  if (e == NULL)
    g_error ("%s not found: is GST_PLUGIN_PATH set to the build's gst/?",
        factory);
  return e;
}

static void
check_props (GstElement * e, const PropSpec * props, guint n)
{
  GObjectClass *klass = G_OBJECT_GET_CLASS (e);
  guint i;

  for (i = 0; i < n; i++) {
    GParamSpec *p = g_object_class_find_property (klass, props[i].name);
    gchar *blurb;

    if (p == NULL)
      g_error ("%s has no property %s", GST_ELEMENT_NAME (e), props[i].name);
    g_assert_true (g_type_is_a (p->value_type, props[i].type));
    g_assert_cmpint (! !(p->flags & G_PARAM_WRITABLE), ==, props[i].writable);
    g_assert_true (p->flags & G_PARAM_READABLE);
    /* every blurb states its default */
    blurb = g_ascii_strdown (g_param_spec_get_blurb (p), -1);
    if (strstr (blurb, "default") == NULL)
      g_error ("blurb of %s lacks its default: %s", props[i].name, blurb);
    g_free (blurb);
  }
}

static void
assert_string_prop (GstElement * e, const gchar * name, const gchar * expect)
{
  gchar *v = NULL;
  g_object_get (e, name, &v, NULL);
  g_assert_cmpstr (v, ==, expect);
  g_free (v);
}

static void
check_common_defaults (GstElement * e)
{
  gint provider = -1, state = -1;
  GstStructure *stats = NULL;
  guint64 v = 1;
  const GValue *targets;

  g_object_get (e, "provider", &provider, "connection-state", &state,
      "stats", &stats, NULL);
  g_assert_cmpint (provider, ==, 0);
  g_assert_cmpint (state, ==, 0);
  assert_string_prop (e, "node", "");
  assert_string_prop (e, "service", "");
  assert_string_prop (e, "domain", "");
  assert_string_prop (e, "flow-id", "");
  assert_string_prop (e, "options", "");
  g_assert_nonnull (stats);
  g_assert_true (gst_structure_has_name (stats,
          "application/x-mxl-fabrics-stats"));
  g_assert_true (gst_structure_get_uint64 (stats, "dropped", &v));
  g_assert_cmpuint (v, ==, 0);
  g_assert_true (gst_structure_get_uint64 (stats, "grains", &v));
  g_assert_cmpuint (v, ==, 0);
  targets = gst_structure_get_value (stats, "targets");
  g_assert_true (GST_VALUE_HOLDS_ARRAY (targets));
  g_assert_cmpuint (gst_value_array_get_size (targets), ==, 0);
  gst_structure_free (stats);
}

static void
test_src_properties (void)
{
  GstElement *e = make ("mxlfabricssrc");
  guint64 timeout = 1;
  GstCaps *caps = (GstCaps *) 1;
  gchar *ti = (gchar *) "x";

  check_props (e, common_props, G_N_ELEMENTS (common_props));
  check_props (e, src_props, G_N_ELEMENTS (src_props));
  check_common_defaults (e);
  g_object_get (e, "timeout", &timeout, "caps", &caps, "target-info", &ti,
      NULL);
  g_assert_cmpuint (timeout, ==, 0);
  g_assert_null (caps);
  g_assert_null (ti);
  assert_string_prop (e, "flow-def", "");
  assert_string_prop (e, "target-info-file", "");
  g_assert_true (gst_base_src_is_live (GST_BASE_SRC (e)));
  gst_object_unref (e);
}

static void
test_sink_properties (void)
{
  GstElement *e = make ("mxlfabricssink");
  gboolean reconnect = FALSE, wait = FALSE, sync = FALSE;
  guint wait_timeout = 0;

  check_props (e, common_props, G_N_ELEMENTS (common_props));
  check_props (e, sink_props, G_N_ELEMENTS (sink_props));
  check_common_defaults (e);
  g_object_get (e, "auto-reconnect", &reconnect, "wait-for-connection", &wait,
      "wait-timeout", &wait_timeout, "sync", &sync, NULL);
  g_assert_true (reconnect);
  /* as shmsink and srtsink: render waits for a receiver (issue 13 item 6) */
  g_assert_true (wait);
  g_assert_cmpuint (wait_timeout, ==, 2000);
  g_assert_true (sync);
  assert_string_prop (e, "target-info", "");
  gst_object_unref (e);
}

static void
check_enum (GType type, const gchar * const *nicks)
{
  GEnumClass *klass = g_type_class_ref (type);
  guint i;

  for (i = 0; nicks[i]; i++) {
    GEnumValue *v = g_enum_get_value (klass, i);
    g_assert_nonnull (v);
    g_assert_cmpstr (v->value_nick, ==, nicks[i]);
  }
  g_assert_cmpuint (klass->n_values, ==, i);
  g_type_class_unref (klass);
}

/* The provider enum: the library's list (mxlFabricsExtGetProvider()) after
 * auto, by value, with the library's names as nicks. */
static void
check_provider_enum (void)
{
  static const struct { gint value; const gchar *nick; } want[] = {
    {0, "auto"}, {1, "tcp"}, {2, "verbs"}, {3, "efa"}, {4, "shm"},
    {101, "tcp;ofi_rxm"},
  };
  GEnumClass *klass = g_type_class_ref (g_type_from_name
      ("GstMxlFabricsProvider"));
  guint i;

  g_assert_cmpuint (klass->n_values, ==, G_N_ELEMENTS (want));
  for (i = 0; i < G_N_ELEMENTS (want); i++) {
    GEnumValue *v = g_enum_get_value (klass, want[i].value);
    g_assert_nonnull (v);
    g_assert_cmpstr (v->value_nick, ==, want[i].nick);
  }
  g_assert_cmpstr (g_enum_get_value (klass, 0)->value_name, ==,
      "Best interface present: efa, verbs, tcp, shm in that order");
  g_type_class_unref (klass);
  /* The property text gives the same order, from the library's ranking. */
  {
    GstElement *e = make ("mxlfabricssink");
    GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
        "provider");

    g_assert_cmpstr (g_param_spec_get_blurb (p), ==, "libfabric provider: "
        "auto picks the best interface present (efa, verbs, tcp, shm in that "
        "order). Default: auto");
    gst_object_unref (e);
  }
}

static void
test_enums (void)
{
  GstElement *e = make ("mxlfabricssrc");
  static const gchar *const states[] = {
    "disconnected", "listening", "connecting", "connected", "stalled",
    "error", NULL
  };

  check_provider_enum ();
  check_enum (g_type_from_name ("GstMxlFabricsConnectionState"), states);
  /* settable by nick, as from gst-launch */
  gst_util_set_object_arg (G_OBJECT (e), "provider", "shm");
  {
    gint p;
    g_object_get (e, "provider", &p, NULL);
    g_assert_cmpint (p, ==, 4);
    gst_util_set_object_arg (G_OBJECT (e), "provider", "tcp;ofi_rxm");
    g_object_get (e, "provider", &p, NULL);
    g_assert_cmpint (p, ==, 101);
  }
  gst_object_unref (e);
}

/* @caps_str can (@in) or cannot link to both templates. */
static void
assert_in_both_templates (const gchar * caps_str, GstCaps * sink_caps,
    GstCaps * src_caps, gboolean in)
{
  GstCaps *c = gst_caps_from_string (caps_str);

  g_assert_cmpint (gst_caps_can_intersect (c, sink_caps), ==, in);
  g_assert_cmpint (gst_caps_can_intersect (c, src_caps), ==, in);
  gst_caps_unref (c);
}

static void
test_templates (void)
{
  GstElement *src = make ("mxlfabricssrc"), *sink = make ("mxlfabricssink");
  GstPad *sp = gst_element_get_static_pad (src, "src");
  GstPad *kp = gst_element_get_static_pad (sink, "sink");
  GstCaps *sc = gst_pad_get_pad_template_caps (sp);
  GstCaps *kc = gst_pad_get_pad_template_caps (kp);
  GstCaps *c;

  /* get_static_pad() returns a reference (found by valgrind-gst). */
  gst_object_unref (sp);
  gst_object_unref (kp);

  c = gst_caps_from_string ("audio/x-raw,format=F32LE,layout=interleaved,"
      "rate=48000,channels=2");
  g_assert_true (gst_caps_can_intersect (c, kc));
  g_assert_false (gst_caps_can_intersect (c, sc));
  gst_caps_unref (c);
  c = gst_caps_from_string ("meta/x-st-2038,alignment=frame,framerate=25/1");
  g_assert_true (gst_caps_can_intersect (c, kc));
  g_assert_true (gst_caps_can_intersect (c, sc));
  gst_caps_unref (c);
  c = gst_caps_from_string ("video/x-raw,format=UYVY,width=1920,height=1080");
  g_assert_false (gst_caps_can_intersect (c, kc));
  gst_caps_unref (c);
  /* issue 20: channels as the library's flows allow, 1 … 1024 */
  assert_in_both_templates ("audio/x-raw,format=F32LE,layout=non-interleaved,"
      "rate=48000,channels=1024", kc, sc, TRUE);
  assert_in_both_templates ("audio/x-raw,format=F32LE,layout=non-interleaved,"
      "rate=48000,channels=1025", kc, sc, FALSE);
  /* issue 20: rates as the library's flows allow (flow-ext.h) */
  {
    static const struct { const gchar *caps; gboolean in; } rates[] = {
      { "video/x-raw,format=v210,width=64,height=16,framerate=1000/1", TRUE },
      { "video/x-raw,format=v210,width=64,height=16,framerate=1/3600", TRUE },
      { "video/x-raw,format=v210,width=64,height=16,framerate=1001/1", FALSE },
      { "video/x-raw,format=v210,width=64,height=16,framerate=1/3601", FALSE },
      { "audio/x-raw,format=F32LE,layout=non-interleaved,rate=768000,"
          "channels=2", TRUE },
      { "audio/x-raw,format=F32LE,layout=non-interleaved,rate=768001,"
          "channels=2", FALSE },
    };
    for (guint i = 0; i < G_N_ELEMENTS (rates); i++)
      assert_in_both_templates (rates[i].caps, kc, sc, rates[i].in);
  }
  /* issue 19: both templates show each interlace-mode the elements take
   * (a user reads them in gst-inspect-1.0): progressive (no field),
   * alternate and interleaved, at the flow format's interlaced rates */
  {
    static const gchar *modes[] = { "alternate", "interleaved" };

    for (guint i = 0; i < G_N_ELEMENTS (modes); i++) {
      for (guint t = 0; t < 2; t++) {
        GstCaps *templ = t == 0 ? kc : sc;
        gboolean shown = FALSE;

        for (guint j = 0; j < gst_caps_get_size (templ); j++)
          shown |= g_strcmp0 (gst_structure_get_string
              (gst_caps_get_structure (templ, j), "interlace-mode"),
              modes[i]) == 0;
        g_assert_true (shown);
      }
    }
    assert_in_both_templates ("video/x-raw,format=v210,width=1920,"
        "height=1080,framerate=25/1,interlace-mode=interleaved", kc, sc,
        TRUE);
  }
  {
    /* ring-length is bounded by the library's grain limit */
    GParamSpecUInt *p = G_PARAM_SPEC_UINT (g_object_class_find_property
        (G_OBJECT_GET_CLASS (src), "ring-length"));
    g_assert_cmpuint (p->maximum, ==, 4096);     /* MXL_FLOW_MAX_GRAIN_COUNT */
  }
  gst_caps_unref (sc);
  gst_caps_unref (kc);
  gst_object_unref (src);
  gst_object_unref (sink);
}

/* issue 20: the origin was https://example.invalid; it is what the build
 * was given (meson option package-origin), by default GStreamer's "Unknown
 * package origin", never a made-up address. */
static void
test_plugin_origin (void)
{
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (),
      "mxlfabrics");

  g_assert_nonnull (plugin);
  g_assert_cmpstr (gst_plugin_get_origin (plugin), ==, PACKAGE_ORIGIN);
  g_assert_null (strstr (gst_plugin_get_origin (plugin), ".invalid"));
  gst_object_unref (plugin);
}

/* A well-formed TargetInfo (docs/wire-format.md §1.3 a, one region) with
 * id @id. */
#define TARGET_INFO(id) "{\"addressFormat\":2,\"fabricAddress\":" \
    "\"AgCJ0X8AAAEAAAAAAAAAAA==\",\"id\":\"" id "\",\"provider\":\"tcp\"," \
    "\"regions\":[{\"addr\":\"0\",\"len\":\"5537792\",\"rkey\":\"1\"}]}"

static void
test_add_remove_target (void)
{
  GstElement *e = make ("mxlfabricssink");
  gboolean ok = FALSE;
  const gchar *a = TARGET_INFO ("1"), *b = TARGET_INFO ("2");
  gchar *a64 = g_base64_encode ((const guchar *) a, strlen (a));
  gchar *b64 = g_base64_encode ((const guchar *) b, strlen (b));

  g_signal_emit_by_name (e, "add-target", a, &ok);
  g_assert_true (ok);
  g_signal_emit_by_name (e, "add-target", a, &ok);
  g_assert_false (ok);          /* already added */
  g_signal_emit_by_name (e, "add-target", a64, &ok);
  g_assert_false (ok);          /* the same target, as base64 */
  g_signal_emit_by_name (e, "add-target", b64, &ok);
  g_assert_true (ok);
  g_signal_emit_by_name (e, "add-target", "@/nonexistent/yet.json", &ok);
  g_assert_true (ok);           /* waited for */
  g_signal_emit_by_name (e, "add-target", "{\"id\":1}", &ok);
  g_assert_false (ok);          /* malformed: the library refuses it */
  g_signal_emit_by_name (e, "add-target", "not a target info", &ok);
  g_assert_false (ok);
  g_signal_emit_by_name (e, "add-target", "[1,2]", &ok);
  g_assert_false (ok);
  g_signal_emit_by_name (e, "remove-target", a, &ok);
  g_assert_true (ok);
  g_signal_emit_by_name (e, "remove-target", a, &ok);
  g_assert_false (ok);
  g_free (a64);
  g_free (b64);
  gst_object_unref (e);
}

/* issue 15: a TargetInfo file is read by the library's resolver, which
 * reads at most 4 MiB (a FIFO or a device cannot make the sink read
 * forever): the same valid document padded beyond that is refused. */
static void
test_target_info_file_bounded (void)
{
  GstElement *e = make ("mxlfabricssink");
  gchar *dir = g_dir_make_tmp ("mxlfab-ti-XXXXXX", NULL);
  gchar *small = g_build_filename (dir, "small.json", NULL);
  gchar *big = g_build_filename (dir, "big.json", NULL);
  gchar *at_small = g_strconcat ("@", small, NULL);
  gchar *at_big = g_strconcat ("@", big, NULL);
  gsize pad = (4u << 20) + 1;
  GString *text = g_string_new (TARGET_INFO ("3"));
  gboolean ok = FALSE;

  g_string_append (text, "\n");
  g_assert_true (g_file_set_contents (small, text->str, -1, NULL));
  g_string_set_size (text, text->len + pad);
  memset (text->str + text->len - pad, ' ', pad);
  g_assert_true (g_file_set_contents (big, text->str, text->len, NULL));
  g_signal_emit_by_name (e, "add-target", at_big, &ok);
  g_assert_false (ok);
  g_signal_emit_by_name (e, "add-target", at_small, &ok);
  g_assert_true (ok);
  g_signal_emit_by_name (e, "remove-target", at_small, &ok);
  g_assert_true (ok);
  gst_object_unref (e);
  g_assert_cmpint (g_unlink (small), ==, 0);
  g_assert_cmpint (g_unlink (big), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  g_string_free (text, TRUE);
  g_free (at_small);
  g_free (at_big);
  g_free (small);
  g_free (big);
  g_free (dir);
}

/* Drives @e to PAUSED, expects the state change to fail with exactly one
 * ERROR (ours, not also the base class's "failed to post a proper error
 * message"), of @domain/@code, whose text contains @needle; connection-state
 * ends "error" and was notified. @prepare (nullable) runs just before the
 * state change, in the pipeline made for it. */
static void
expect_start_error_after (GstElement * e, void (*prepare) (void),
    GQuark domain, gint code, const gchar * needle)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstBus *bus = gst_pipeline_get_bus (GST_PIPELINE (pipeline));
  GstMessage *msg;
  GError *error = NULL;
  gchar *debug = NULL;
  gint state = -1;
  gboolean saw_connection = FALSE;
  guint errors = 0;

  gst_bin_add (GST_BIN (pipeline), e);
  if (prepare)
    prepare ();
  g_assert_cmpint (gst_element_set_state (e, GST_STATE_PAUSED), ==,
      GST_STATE_CHANGE_FAILURE);
  while ((msg = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR && errors++ == 0)
      gst_message_parse_error (msg, &error, &debug);
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT
        && gst_structure_has_name (gst_message_get_structure (msg),
            "mxl-fabrics-connection"))
      saw_connection = TRUE;
    gst_message_unref (msg);
  }
  g_assert_nonnull (error);
  g_assert_cmpuint (errors, ==, 1);
  g_assert_true (error->domain == domain);
  g_assert_cmpint (error->code, ==, code);
  if (strstr (error->message, needle) == NULL)
    g_error ("\"%s\" not in \"%s\"", needle, error->message);
  g_object_get (e, "connection-state", &state, NULL);
  g_assert_cmpint (state, ==, 5);
  g_assert_true (saw_connection);
  g_error_free (error);
  g_free (debug);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

static void
expect_start_error (GstElement * e, GQuark domain, gint code,
    const gchar * needle)
{
  expect_start_error_after (e, NULL, domain, code, needle);
}

/* Leaves no file descriptor free: the soft RLIMIT_NOFILE lowered to 64 and
 * every number below it taken (by copies of stdin). */
static void
use_up_fds (void)
{
  struct rlimit lim;

  g_assert_cmpint (getrlimit (RLIMIT_NOFILE, &lim), ==, 0);
  lim.rlim_cur = 64;
  g_assert_cmpint (setrlimit (RLIMIT_NOFILE, &lim), ==, 0);
  for (guint i = 0; i < 64 && dup (0) >= 0; i++);
  g_assert_cmpint (dup (0), <, 0);
  g_assert_cmpint (errno, ==, EMFILE);
}

/* issue 15: a sink that could not create its engine thread's eventfd
 * aborted on a g_assert; now it refuses to start with an ERROR that says
 * why (in a child process: the lowered limit stays there). */
static void
test_sink_no_eventfd (void)
{
  if (g_test_subprocess ()) {
    gchar *needle = g_strdup_printf ("cannot create the eventfd that wakes "
        "the sink's engine thread: %s", g_strerror (EMFILE));

    expect_start_error_after (make ("mxlfabricssink"), use_up_fds,
        GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ_WRITE, needle);
    g_free (needle);
    return;
  }
  g_test_trap_subprocess (NULL, 20 * G_USEC_PER_SEC, 0);
  g_test_trap_assert_passed ();
}

/* A src whose flow-def is "@@path": its start must fail with @code and a
 * message containing @needle. */
static void
expect_flow_def_file_error (const gchar * path, gint code,
    const gchar * needle)
{
  GstElement *e = make ("mxlfabricssrc");
  gchar *at = g_strconcat ("@", path, NULL);

  g_object_set (e, "flow-def", at, NULL);
  expect_start_error (e, GST_RESOURCE_ERROR, code, needle);
  g_free (at);
}

/* issue 15: flow-def="@path" was read with no bound: /dev/zero filled
 * memory, a FIFO without a writer hung start(). At most the library's
 * TargetInfo file bound (MXL_FABRICS_EXT_TARGET_INFO_MAX_FILE_BYTES, 4 MiB)
 * is read now; one byte more is a READ error naming the file and the
 * limit, and what is not a regular file (/dev/zero, a FIFO) is a READ
 * error naming the file at once. */
static void
test_flow_def_file_bounded (void)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-fd-XXXXXX", NULL);
  gchar *big = g_build_filename (dir, "big.json", NULL);
  gchar *fifo = g_build_filename (dir, "fifo", NULL);
  gsize limit = 4u << 20;
  gchar *pad = g_malloc (limit + 1);
  gchar *needle;

  memset (pad, ' ', limit + 1);
  g_assert_true (g_file_set_contents (big, pad, limit + 1, NULL));
  needle = g_strdup_printf ("cannot read \"%s\": larger than %" G_GSIZE_FORMAT
      " bytes, the limit of an @path value", big, limit);
  expect_flow_def_file_error (big, GST_RESOURCE_ERROR_READ, needle);
  g_free (needle);
  expect_flow_def_file_error ("/dev/zero", GST_RESOURCE_ERROR_READ,
      "cannot read \"/dev/zero\": not a regular file (a character device)");
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  needle = g_strdup_printf ("cannot read \"%s\": not a regular file (a "
      "FIFO)", fifo);
  expect_flow_def_file_error (fifo, GST_RESOURCE_ERROR_READ, needle);
  g_free (needle);
  g_assert_cmpint (g_unlink (fifo), ==, 0);
  g_assert_cmpint (g_unlink (big), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  g_free (pad);
  g_free (fifo);
  g_free (big);
  g_free (dir);
}

static void
test_start_errors (void)
{
  GstElement *e;

  /* No flow given: a settings error that says what to set. */
  e = make ("mxlfabricssrc");
  expect_start_error (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "set the caps property");
  /* Bad flow-id. */
  e = make ("mxlfabricssrc");
  g_object_set (e, "flow-id", "nope", NULL);
  gst_util_set_object_arg (G_OBJECT (e), "caps",
      "video/x-raw,format=v210,width=1920,height=1080,framerate=50/1");
  expect_start_error (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "flow-id");
  /* Unknown option key. */
  e = make ("mxlfabricssink");
  g_object_set (e, "options", "{\"cqdepth\": 4}", NULL);
  expect_start_error (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "unknown key \"cqdepth\"");
  /* A protocol the provider lacks (tcp has no FI_TAGGED): named as such. */
  e = make ("mxlfabricssrc");
  g_object_set (e, "node", "127.0.0.1", "options", "{\"protocol\": \"tagged\"}", NULL);
  gst_util_set_object_arg (G_OBJECT (e), "provider", "tcp");
  gst_util_set_object_arg (G_OBJECT (e), "caps",
      "video/x-raw,format=v210,width=640,height=360,framerate=25/1");
  g_test_expect_message ("mxlfabrics", G_LOG_LEVEL_WARNING,
      "*does not offer the \"tagged\" protocol*");
  expect_start_error (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "does not offer the transfer protocol");
  g_test_assert_expected_messages ();
  /* A known key with a bad value: the library's rule, named. */
  e = make ("mxlfabricssink");
  g_object_set (e, "options", "{\"protocol\": \"rdma\"}", NULL);
  expect_start_error (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "one of \"write\", \"send\", \"tagged\"");
  /* Malformed TargetInfo on the sink. */
  e = make ("mxlfabricssink");
  g_object_set (e, "target-info", "%%%", NULL);
  expect_start_error (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "TargetInfo");
  /* caps and flow-def that disagree. */
  e = make ("mxlfabricssrc");
  gst_util_set_object_arg (G_OBJECT (e), "caps",
      "video/x-raw,format=v210,width=1280,height=720,framerate=50/1");
  g_object_set (e, "flow-def", "{\"id\":\"5fbec3b1-1b0f-417d-9059-"
      "8b94a47197ed\",\"format\":\"urn:x-nmos:format:video\",\"label\":\"l\","
      "\"tags\":{\"urn:x-nmos:tag:grouphint/v1.0\":[\"g:Video\"]},"
      "\"grain_rate\":{\"numerator\":50},\"frame_width\":1920,"
      "\"frame_height\":1080,\"media_type\":\"video/v210\"}", NULL);
  expect_start_error (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "caps width 1280 does not match the flow's frame_width 1920");
  /* A provider this host does not have: a NOT_FOUND error naming it. */
  e = make ("mxlfabricssrc");
  gst_util_set_object_arg (G_OBJECT (e), "provider", "verbs");
  gst_util_set_object_arg (G_OBJECT (e), "caps",
      "video/x-raw,format=v210,width=1920,height=1080,framerate=50/1");
  expect_start_error (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
      "no libfabric interface for provider verbs");
  /* issue 20: caps the library refuses name the quantity and its range,
   * not a bare INVALID_ARG */
  e = make ("mxlfabricssrc");
  gst_util_set_object_arg (G_OBJECT (e), "caps", "audio/x-raw,format=F32LE,"
      "layout=non-interleaved,rate=48000,channels=100000");
  expect_start_error (e, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "channels=100000 is outside 1 … 1024");
  e = make ("mxlfabricssrc");
  gst_util_set_object_arg (G_OBJECT (e), "caps", "audio/x-raw,format=F32LE,"
      "layout=non-interleaved,rate=1,channels=2");
  g_test_expect_message ("mxlfabrics", G_LOG_LEVEL_WARNING,
      "*sample_rate*too low*");
  expect_start_error (e, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_READ_WRITE, "INVALID_ARG: flow definition: "
      "sample_rate: rate 1/1 is too low for a 200000000 ns history (at least "
      "2.5 per second)");
  g_test_assert_expected_messages ();
  /* issue 20: 2^31 - 1 fps hung in PAUSED filling /dev/shm (a 429 M grain
   * ring): the library's rate limit is the ERROR */
  e = make ("mxlfabricssrc");
  g_object_set (e, "node", "127.0.0.1", NULL);
  gst_util_set_object_arg (G_OBJECT (e), "provider", "tcp");
  gst_util_set_object_arg (G_OBJECT (e), "caps", "video/x-raw,format=v210,"
      "width=1280,height=720,framerate=2147483647/1");
  g_test_expect_message ("mxlfabrics", G_LOG_LEVEL_WARNING,
      "*grain_rate*outside*");
  expect_start_error (e, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_READ_WRITE, "INVALID_ARG: flow definition: "
      "grain_rate: 2147483647/1 is outside 1/3600 … 1000/1 grains per second");
  g_test_assert_expected_messages ();
  e = make ("mxlfabricssrc");
  gst_util_set_object_arg (G_OBJECT (e), "caps", "audio/x-raw,format=F32LE,"
      "layout=non-interleaved,rate=2147483647,channels=2");
  g_test_expect_message ("mxlfabrics", G_LOG_LEVEL_WARNING,
      "*sample_rate*above*");
  expect_start_error (e, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_READ_WRITE, "sample_rate: 2147483647/1 is above "
      "768000 samples per second");
  g_test_assert_expected_messages ();
}

/* A tcp src on 127.0.0.1 with @service: expects a setup ERROR whose text
 * contains @needle (the library's reason, also logged as a warning), and
 * @in_error too unless NULL. */
static void
expect_service_error (const gchar * service, const gchar * needle,
    const gchar * in_error)
{
  GstElement *e = make ("mxlfabricssrc");
  gchar *pattern = g_strdup_printf ("*target setup failed*%s*", needle);

  g_object_set (e, "node", "127.0.0.1", "service", service, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "provider", "tcp");
  gst_util_set_object_arg (G_OBJECT (e), "caps",
      "video/x-raw,format=v210,width=64,height=16,framerate=25/1");
  g_test_expect_message ("mxlfabrics", G_LOG_LEVEL_WARNING, pattern);
  expect_start_error (e, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_READ_WRITE, in_error ? in_error : needle);
  g_test_assert_expected_messages ();
  g_free (pattern);
}

/* issue 20: service=80000 listened on 14464; a port in use was only a
 * stderr warning while the ERROR said UNKNOWN. */
static void
test_service_errors (void)
{
  struct sockaddr_in sin = { .sin_family = AF_INET };
  socklen_t len = sizeof sin;
  gchar *port;
  int fd;

  expect_service_error ("80000",
      "service \"80000\" is not a port number in 0 … 65535", NULL);
  expect_service_error ("no-such-service-x",
      "service \"no-such-service-x\" is neither a port number", NULL);

  /* A port another socket listens on: the ERROR says so, naming it. */
  fd = socket (AF_INET, SOCK_STREAM, 0);
  g_assert_cmpint (fd, >=, 0);
  sin.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (bind (fd, (struct sockaddr *) &sin, sizeof sin), ==, 0);
  g_assert_cmpint (listen (fd, 1), ==, 0);
  g_assert_cmpint (getsockname (fd, (struct sockaddr *) &sin, &len), ==, 0);
  port = g_strdup_printf ("%u", ntohs (sin.sin_port));
  /* in words, not "UNKNOWN:" (the status the library gives a refusal) */
  expect_service_error (port, "Address already in use",
      "target (fi_passive_ep: Address already in use");
  g_free (port);
  close (fd);
}

/* Pushes stream-start, v210 caps, a segment and 5 buffers into the sink @e
 * (in a PLAYING pipeline): returns the ERRORs posted by then (an app whose
 * main loop keeps running sees them all); the first one's text must
 * contain @needle. */
static guint
count_push_errors (GstElement * e, const gchar * needle)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstBus *bus = gst_pipeline_get_bus (GST_PIPELINE (pipeline));
  GstPad *src = gst_pad_new ("src", GST_PAD_SRC), *sinkpad;
  GstCaps *caps;
  GstSegment segment;
  GstMessage *msg;
  guint errors = 0;

  gst_bin_add (GST_BIN (pipeline), e);
  sinkpad = gst_element_get_static_pad (e, "sink");
  g_assert_cmpint (gst_pad_link (src, sinkpad), ==, GST_PAD_LINK_OK);
  gst_object_unref (sinkpad);
  gst_pad_set_active (src, TRUE);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  gst_pad_push_event (src, gst_event_new_stream_start ("s"));
  caps = gst_caps_from_string
      ("video/x-raw,format=v210,width=64,height=16,framerate=25/1");
  gst_pad_push_event (src, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_pad_push_event (src, gst_event_new_segment (&segment));
  for (guint i = 0; i < 5; i++) {
    GstBuffer *b = gst_buffer_new_allocate (NULL, 4096, NULL);

    GST_BUFFER_PTS (b) = i * GST_SECOND / 25;
    g_assert_cmpint (gst_pad_push (src, b), !=, GST_FLOW_OK);
  }
  /* (before NULL, which flushes the bus) */
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    if (errors++ == 0) {
      GError *error = NULL;

      gst_message_parse_error (msg, &error, NULL);
      if (strstr (error->message, needle) == NULL)
        g_error ("\"%s\" not in \"%s\"", needle, error->message);
      g_error_free (error);
    }
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_pad_set_active (src, FALSE);
  gst_object_unref (src);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return errors;
}

/* issue 20: a sink whose setup fails (at caps) posted the ERROR again for
 * every buffer that re-sent the caps: twice in gst-launch, 7 in an app. */
static void
test_sink_setup_error_once (void)
{
  GstElement *e = make ("mxlfabricssink");

  gst_util_set_object_arg (G_OBJECT (e), "provider", "verbs");
  g_assert_cmpuint (count_push_errors (e,
          "no libfabric interface for provider verbs"), ==, 1);
  e = make ("mxlfabricssink");
  g_object_set (e, "node", "127.0.0.1", "service", "99999", NULL);
  gst_util_set_object_arg (G_OBJECT (e), "provider", "tcp");
  g_test_expect_message ("mxlfabrics", G_LOG_LEVEL_WARNING, "*99999*");
  g_assert_cmpuint (count_push_errors (e,
          "service \"99999\" is not a port number"), ==, 1);
  g_test_assert_expected_messages ();
  /* issue 20: a node that is not an address of this host (TEST-NET) was
   * only a stderr warning per connection attempt, then EOS: an ERROR now,
   * naming the node */
  e = make ("mxlfabricssink");
  g_object_set (e, "node", "192.0.2.254", NULL);
  gst_util_set_object_arg (G_OBJECT (e), "provider", "tcp");
  g_test_expect_message ("mxlfabrics", G_LOG_LEVEL_WARNING, "*fi_endpoint*");
  g_assert_cmpuint (count_push_errors (e, "(fi_endpoint: Cannot "
          "assign requested address (-99)) on node \"192.0.2.254\""), ==, 1);
  g_test_assert_expected_messages ();
}

int
main (int argc, char **argv)
{
  /* Scan the plugin in this process: under ASan the scanner child has no
   * sanitizer runtime loaded and could not load the instrumented plugin. */
  gst_registry_fork_set_enabled (FALSE);
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gst/elements/src-properties", test_src_properties);
  g_test_add_func ("/gst/elements/sink-properties", test_sink_properties);
  g_test_add_func ("/gst/elements/enums", test_enums);
  g_test_add_func ("/gst/elements/templates", test_templates);
  g_test_add_func ("/gst/elements/plugin-origin", test_plugin_origin);
  g_test_add_func ("/gst/elements/add-remove-target", test_add_remove_target);
  g_test_add_func ("/gst/elements/target-info-file-bounded",
      test_target_info_file_bounded);
  g_test_add_func ("/gst/elements/start-errors", test_start_errors);
  g_test_add_func ("/gst/elements/sink-no-eventfd", test_sink_no_eventfd);
  g_test_add_func ("/gst/elements/flow-def-file-bounded",
      test_flow_def_file_bounded);
  g_test_add_func ("/gst/elements/service-errors", test_service_errors);
  g_test_add_func ("/gst/elements/sink-setup-error-once",
      test_sink_setup_error_once);
  return g_test_run ();
}
