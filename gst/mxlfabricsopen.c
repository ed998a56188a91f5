/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Open and close of an initiator or a target; see mxlfabricsopen.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mxlfabricsopen.h"

#include <stdlib.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include <gio/gio.h>

/* The settings an open uses, copied under the object lock. */
typedef struct {
  GstMxlFabricsProvider want;
  gchar *domain;
  gchar *node;
  gchar *service;
  gchar *options;
} Settings;

static void
settings_copy (GstMxlFabricsObject * obj, Settings * s)
{
  GST_OBJECT_LOCK (obj->element);
  s->want = obj->provider;
  s->domain = g_strdup (obj->domain);
  s->node = g_strdup (obj->resolved_node ? obj->resolved_node : obj->node);
  s->service = g_strdup (obj->service);
  s->options = g_strdup (obj->options);
  GST_OBJECT_UNLOCK (obj->element);
}

static void
settings_clear (Settings * s)
{
  g_free (s->domain);
  g_free (s->node);
  g_free (s->service);
  g_free (s->options);
}

/* The state of one bounded lookup (gst_mxl_fabrics_open_resolve_node()). */
typedef struct {
  GList *addresses;             /* GInetAddress, owned */
  GError *error;
  gboolean done;
} Lookup;

static void
lookup_done (GObject * resolver, GAsyncResult * res, gpointer data)
{
  Lookup *l = data;

  l->addresses = g_resolver_lookup_by_name_finish (G_RESOLVER (resolver), res,
      &l->error);
  l->done = TRUE;
}

static gboolean
lookup_timed_out (gpointer cancellable)
{
  g_cancellable_cancel (cancellable);
  return G_SOURCE_REMOVE;
}

/* TRUE when a node of provider @want is an address that a host name
 * resolves to (everything but shm's names; auto is tcp on any host with
 * an interface, docs/fabrics-engine.md "The list applications see"). */
static gboolean
node_is_address (GstMxlFabricsProvider want)
{
  bool is_name = false;

  /* GST_MXL_FABRICS_PROVIDER_AUTO is MXL_FABRICS_PROVIDER_ANY: refused */
  if (mxlFabricsExtProviderNodeIsName ((mxlFabricsProvider) want,
          &is_name) != MXL_STATUS_OK)
    return TRUE;
  return !is_name;
}

gboolean
gst_mxl_fabrics_open_resolve_node (GstMxlFabricsObject * obj, GError ** error)
{
  g_autoptr (GResolver) resolver = NULL;
  g_autoptr (GCancellable) cancellable = NULL;
  g_autofree gchar *node = NULL;
  GMainContext *ctx;
  GSource *timeout;
  GstMxlFabricsProvider want;
  Lookup l = { NULL, NULL, FALSE };
  GInetAddress *pick = NULL;

  GST_OBJECT_LOCK (obj->element);
  g_clear_pointer (&obj->resolved_node, g_free);
  node = g_strdup (obj->node);
  want = obj->provider;
  GST_OBJECT_UNLOCK (obj->element);
  if (node == NULL || node[0] == '\0' || g_hostname_is_ip_address (node)
      || !node_is_address (want))
    return TRUE;

  /* The lookup on a context of this call, so that its end and the timeout
   * are the only events waited for. */
  ctx = g_main_context_new ();
  g_main_context_push_thread_default (ctx);
  resolver = g_resolver_get_default ();
  cancellable = g_cancellable_new ();
  g_resolver_lookup_by_name_async (resolver, node, cancellable, lookup_done,
      &l);
  timeout = g_timeout_source_new (GST_MXL_FABRICS_RESOLVE_TIMEOUT_MS);
  g_source_set_callback (timeout, lookup_timed_out, cancellable, NULL);
  g_source_attach (timeout, ctx);
  while (!l.done)
    g_main_context_iteration (ctx, TRUE);
  g_source_destroy (timeout);
  g_source_unref (timeout);
  g_main_context_pop_thread_default (ctx);
  g_main_context_unref (ctx);

  if (l.error != NULL) {
    gboolean late = g_error_matches (l.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "cannot resolve node \"%s\": %s", node, late ?
        "no answer within " G_STRINGIFY (GST_MXL_FABRICS_RESOLVE_TIMEOUT_MS)
        " ms" : l.error->message);
    g_error_free (l.error);
    return FALSE;
  }
  for (GList * a = l.addresses; a != NULL && pick == NULL; a = a->next)
    if (g_inet_address_get_family (a->data) == G_SOCKET_FAMILY_IPV4)
      pick = a->data;
  if (pick == NULL && l.addresses != NULL)
    pick = l.addresses->data;
  if (pick != NULL) {
    gchar *text = g_inet_address_to_string (pick);

    GST_OBJECT_LOCK (obj->element);
    obj->resolved_node = text;
    GST_OBJECT_UNLOCK (obj->element);
  }
  g_resolver_free_addresses (l.addresses);
  if (pick == NULL) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "cannot resolve node \"%s\": no address", node);
    return FALSE;
  }
  return TRUE;
}

/* The provider of @s->want (auto: the library's choice among the
 * interfaces present, mxlFabricsExtChooseInterface()) and, when @s->node
 * is empty, the library's default node for it (shm: a name unique to this
 * element instance). Fails with GST_RESOURCE_ERROR_NOT_FOUND naming the
 * provider that is absent. */
static gboolean
choose_provider (Settings * s, mxlFabricsInstance fabrics,
    mxlFabricsProvider * provider, GError ** error)
{
  gchar node[256];
  GEnumClass *klass;
  GEnumValue *v;

  /* GST_MXL_FABRICS_PROVIDER_AUTO is MXL_FABRICS_PROVIDER_ANY */
  if (mxlFabricsExtChooseInterface (fabrics, (mxlFabricsProvider) s->want,
          provider, node, sizeof node) == MXL_STATUS_OK) {
    if (s->node == NULL || s->node[0] == '\0') {
      g_free (s->node);
      s->node = g_strdup (node);
    }
    return TRUE;
  }
  klass = g_type_class_ref (GST_TYPE_MXL_FABRICS_PROVIDER);
  v = g_enum_get_value (klass, s->want);
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
      "no libfabric interface for provider %s on this host: choose another "
      "provider (fi_info -l lists what libfabric finds)",
      v ? v->value_nick : "?");
  g_type_class_unref (klass);
  return FALSE;
}

/* The local flow, the provider (node defaulted) and the interface config
 * for it with @s->node and @s->service ("" = NULL: libfabric chooses). */
static gboolean
open_local (Settings * s, GstMxlFabricsLocalFlow * flow, const gchar * flow_def,
    guint ring_length, mxlFabricsInterfaceConfig * iface,
    mxlFabricsProvider * provider, GError ** error)
{
  if (!gst_mxl_fabrics_local_flow_open_ring (flow, s->domain, flow_def,
          ring_length, error))
    return FALSE;
  if (!choose_provider (s, flow->fabrics, provider, error)) {
    gst_mxl_fabrics_local_flow_close (flow);
    return FALSE;
  }
  memset (iface, 0, sizeof *iface);
  iface->version = MXL_FABRICS_API_VERSION;
  iface->provider = *provider;
  iface->caps.version = MXL_FABRICS_API_VERSION;
  /* Remote write with immediate data (the "write" protocol); blocking reads
   * let the src wait on the completion queue instead of spinning. */
  iface->caps.flags = MXL_FABRICS_IFACE_CAP_REMOTE_WRITE
      | MXL_FABRICS_IFACE_CAP_BLOCKING_OPERATIONS;
  iface->address.node = s->node[0] ? s->node : NULL;
  iface->address.service = s->service && s->service[0] ? s->service : NULL;
  return TRUE;
}

/* A refused setup of @role ("initiator", "target"): the library's reason
 * (e.g. "fi_passive_ep: Address already in use"), and what to check. The
 * status name goes first when it says something: MXL_ERR_UNKNOWN (what the
 * library returns for a provider's refusal, mxlExtStatusName() "UNKNOWN")
 * with a reason is the reason alone. */
static void
setup_error (GError ** error, mxlStatus st, const gchar * role, gint code,
    const Settings * s, const gchar * check, const gchar * hint)
{
  const gchar *why = mxlGetLastErrorMessage ();
  const gchar *name = st == MXL_ERR_UNKNOWN && why != NULL ? NULL :
      gst_mxl_fabrics_status_name (st);

  g_set_error (error, GST_RESOURCE_ERROR, st == MXL_ERR_NO_FABRIC ?
      GST_RESOURCE_ERROR_NOT_FOUND : code,
      "cannot set up the MXL Fabrics %s (%s%s%s) on node \"%s\" service "
      "\"%s\": %s%s", role, name ? name : "", name && why ? ": " : "",
      why ? why : "", s->node, s->service, check, hint);
}

/* The setup options: the element's `options` with "progressThread" set to
 * @default_on unless they set it, built by the library
 * (mxlFabricsExtOptionsWithDefaults(); a malformed document is passed on
 * as it is, for setup to refuse); *@on says whether it is on. With
 * @reconnect (the sink's initiator) "reconnect" is true whatever they say:
 * the library retries a lost target with its back-off, and the sink
 * removes a lost target itself when its auto-reconnect is off. On a target
 * the thread drains the completion queue and commits grains while the
 * streaming thread is blocked downstream: without it a slow downstream
 * stopped the target's progress, so the sender's writes to it did not
 * complete and held the sender's ring (docs/fabrics-engine.md, "Progress
 * thread"). An initiator has it only when asked: then the sink's engine
 * thread waits for its news (mxlFabricsExtInitiatorSetNotify); without
 * it render drives progress itself while it waits for a ring slot, which
 * a SCHED_BATCH progress thread starved on a busy machine could not
 * guarantee (a burst of late buffers then met slots still in flight).
 * Returns: (transfer full). */
static gchar *
with_progress_thread (const gchar * options, gboolean default_on,
    gboolean reconnect, gboolean * on)
{
  char *built = NULL;
  bool threaded = default_on;
  gchar *out;

  if (mxlFabricsExtOptionsWithDefaults (options, default_on, reconnect,
          &built, &threaded) != MXL_STATUS_OK)
    built = NULL;
  *on = threaded;
  out = g_strdup (built ? built : options);
  free (built);
  return out;
}

gboolean
gst_mxl_fabrics_open_initiator (GstMxlFabricsObject * obj,
    GstMxlFabricsLocalFlow * flow, const gchar * flow_def,
    mxlFabricsInitiator * initiator, mxlFabricsProvider * provider,
    gboolean * progress_thread, GError ** error)
{
  mxlFabricsInitiatorConfig config;
  gchar *options;
  Settings s;
  mxlStatus st;

  *initiator = NULL;
  settings_copy (obj, &s);
  memset (&config, 0, sizeof config);
  config.version = MXL_FABRICS_API_VERSION;
  if (!open_local (&s, flow, flow_def, 0, &config.interface, provider,
          error)) {
    settings_clear (&s);
    return FALSE;
  }
  config.reader = flow->reader;
  options = with_progress_thread (s.options,
      GST_MXL_FABRICS_SINK_PROGRESS_THREAD, TRUE, progress_thread);
  st = mxlFabricsCreateInitiator (flow->fabrics, initiator);
  if (st == MXL_STATUS_OK)
    st = mxlFabricsInitiatorSetup (*initiator, &config, options);
  g_free (options);
  if (st != MXL_STATUS_OK) {
    gboolean unsupported = st == MXL_ERR_UNSUPPORTED_OPERATION;

    setup_error (error, st, "initiator", unsupported ?
        GST_RESOURCE_ERROR_SETTINGS : GST_RESOURCE_ERROR_OPEN_WRITE, &s,
        "check provider and node (an address of this host)", unsupported ?
        "; this library cannot send this media type yet" : "");
    gst_mxl_fabrics_close_initiator (flow, initiator);
  }
  settings_clear (&s);
  return st == MXL_STATUS_OK;
}

void
gst_mxl_fabrics_close_initiator (GstMxlFabricsLocalFlow * flow,
    mxlFabricsInitiator * initiator)
{
  if (*initiator)
    mxlFabricsDestroyInitiator (flow->fabrics, *initiator);
  *initiator = NULL;
  gst_mxl_fabrics_local_flow_close (flow);
}

/* "write needs FI_RMA, send needs FI_MSG, ...": what each protocol of the
 * library's list (mxlFabricsExtGetProtocol()) asks of a provider. */
static gchar *
protocol_needs (void)
{
  GString *out = g_string_new (NULL);
  mxlFabricsExtProtocolInfo pi;

  for (size_t i = 0; mxlFabricsExtGetProtocol (i, &pi) == MXL_STATUS_OK; i++)
    g_string_append_printf (out, "%s%s needs %s", i == 0 ? "" : ", ", pi.name,
        pi.capability);
  return g_string_free (out, FALSE);
}

/* The setup options @options with "credits": true unless they set it
 * (docs/fabrics-engine.md "Credits"); an empty string is no options.
 * Options that are not a JSON object are returned as they are, for setup
 * to refuse. Returns: (transfer full). */
static gchar *
with_credits (const gchar * options)
{
  JsonParser *parser;
  JsonNode *root;
  gchar *out = NULL;

  if (options == NULL || options[0] == '\0')
    return g_strdup ("{\"credits\": true}");
  parser = json_parser_new ();
  if (json_parser_load_from_data (parser, options, -1, NULL)
      && (root = json_parser_get_root (parser)) != NULL
      && JSON_NODE_HOLDS_OBJECT (root)) {
    JsonObject *o = json_node_get_object (root);

    if (!json_object_has_member (o, "credits"))
      json_object_set_boolean_member (o, "credits", TRUE);
    out = json_to_string (root, FALSE);
  }
  g_object_unref (parser);
  return out ? out : g_strdup (options);
}

gboolean
gst_mxl_fabrics_open_target (GstMxlFabricsObject * obj,
    GstMxlFabricsLocalFlow * flow, const gchar * flow_def, guint ring_length,
    gboolean credits, mxlFabricsTarget * target, gchar ** target_info,
    GError ** error)
{
  mxlFabricsTargetConfig config;
  mxlFabricsTargetInfo info = NULL;
  mxlFabricsProvider provider;
  gchar *options;
  gboolean threaded;
  Settings s;
  mxlStatus st;

  *target = NULL;
  *target_info = NULL;
  settings_copy (obj, &s);
  memset (&config, 0, sizeof config);
  config.version = MXL_FABRICS_API_VERSION;
  if (!open_local (&s, flow, flow_def, ring_length, &config.interface,
          &provider, error)) {
    settings_clear (&s);
    return FALSE;
  }
  config.writer = flow->writer;
  if (credits) {
    gchar *asked = with_credits (s.options);

    g_free (s.options);
    s.options = asked;
  }
  options = with_progress_thread (s.options,
      GST_MXL_FABRICS_SRC_PROGRESS_THREAD, FALSE, &threaded);
  st = mxlFabricsCreateTarget (flow->fabrics, target);
  if (st == MXL_STATUS_OK)
    st = mxlFabricsTargetSetup (*target, &config, options, &info);
  g_free (options);
  if (st == MXL_ERR_UNSUPPORTED_OPERATION) {
    g_autofree gchar *needs = protocol_needs ();

    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "cannot set up the MXL Fabrics target (%s): the provider does not "
        "offer the transfer protocol asked for in options (%s)",
        gst_mxl_fabrics_status_name (st), needs);
  } else if (st != MXL_STATUS_OK) {
    bool is_name = FALSE;

    /* shm: the node names the endpoint's file in /dev/shm, so another
     * receiver given the same node holds it (fi_enable: EBUSY) */
    if (mxlFabricsExtProviderNodeIsName (provider, &is_name) != MXL_STATUS_OK)
      is_name = FALSE;
    setup_error (error, st, "target", GST_RESOURCE_ERROR_OPEN_READ_WRITE, &s,
        is_name ? "check provider and node (a name: the endpoint's file in "
        "/dev/shm is named after it, so each receiver needs a node of its "
        "own, or none)" : "check provider, node (an address of this host) "
        "and service (a free port)", "");
  } else if (!(*target_info = gst_mxl_fabrics_target_info_to_json (info)))
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "cannot serialise the TargetInfo");
  if (info)
    mxlFabricsFreeTargetInfo (info);
  settings_clear (&s);
  if (*target_info == NULL) {
    gst_mxl_fabrics_close_target (flow, target);
    return FALSE;
  }
  return TRUE;
}

void
gst_mxl_fabrics_close_target (GstMxlFabricsLocalFlow * flow,
    mxlFabricsTarget * target)
{
  if (*target)
    mxlFabricsDestroyTarget (flow->fabrics, *target);
  *target = NULL;
  gst_mxl_fabrics_local_flow_close (flow);
}
