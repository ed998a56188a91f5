/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxl-fabrics-interfaces: lists this host's fabric interfaces usable for
 * MXL Fabrics (provider, node, capabilities, maximum message size), with
 * the libfabric version in use (mxlFabricsGetInterfaces(), docs/wire-format.md §5.4).
 *
 *   mxl-fabrics-interfaces [--provider tcp|verbs|efa|shm|tcp;ofi_rxm]
 *                          [--node ADDRESS] [--attr]
 */
#include <stdio.h>
#include <stdlib.h>

#include <glib.h>
#include <glib/gstdio.h>

#include <mxl/fabrics.h>
#include <mxl/fabrics-ext.h>
#include <mxl/mxl.h>

static char *
caps_text (uint64_t flags)
{
  GString *s = g_string_new (NULL);

  if (flags & MXL_FABRICS_IFACE_CAP_REMOTE_WRITE)
    g_string_append (s, "remote-write,");
  if (flags & MXL_FABRICS_IFACE_CAP_SEND_RECEIVE)
    g_string_append (s, "send-receive,");
  if (flags & MXL_FABRICS_IFACE_CAP_BLOCKING_OPERATIONS)
    g_string_append (s, "blocking,");
  if (s->len > 0)
    g_string_truncate (s, s->len - 1);
  else
    g_string_append (s, "-");
  return g_string_free (s, FALSE);
}

int
main (int argc, char **argv)
{
  g_autofree char *provider = NULL;
  g_autofree char *node = NULL;
  gboolean show_attr = FALSE;
  GOptionEntry entries[] = {
    { "provider", 'p', 0, G_OPTION_ARG_STRING, &provider,
      "Only this provider: tcp, verbs, efa, shm or tcp;ofi_rxm", "NAME" },
    { "node", 'n', 0, G_OPTION_ARG_STRING, &node,
      "Only interfaces with this address (IP literal; host name for shm)", "ADDRESS" },
    { "attr", 'a', 0, G_OPTION_ARG_NONE, &show_attr,
      "Also print each interface's attributes (JSON)", NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- list MXL Fabrics interfaces");
  g_autoptr (GError) error = NULL;
  mxlFabricsInterfaceConfig query = { 0 };
  mxlFabricsInterfaceList *list = NULL;
  mxlFabricsInstance fab = NULL;
  mxlInstance mxl;
  uint32_t major = 0, minor = 0;
  char *domain;
  guint count = 0;
  mxlStatus st;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx,
      "Lists libfabric interfaces that carry remote writes with immediate data\n"
      "(providers whose cq_data_size is below 4 bytes are left out).");
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    fprintf (stderr, "%s\n", error->message);
    return 2;
  }
  query.provider = MXL_FABRICS_PROVIDER_ANY;
  if (provider != NULL && mxlFabricsExtProviderFromString (provider, &query.provider) != MXL_STATUS_OK) {
    fprintf (stderr, "unknown provider \"%s\" (tcp, verbs, efa, shm, tcp;ofi_rxm)\n", provider);
    return 2;
  }
  query.address.node = node;

  /* A fabrics instance needs an MXL instance; a throw-away domain serves. */
  domain = g_dir_make_tmp ("mxl-fabrics-interfaces-XXXXXX", &error);
  if (domain == NULL) {
    fprintf (stderr, "%s\n", error->message);
    return 1;
  }
  mxl = mxlCreateInstance (domain, NULL);
  if (mxl == NULL || mxlFabricsCreateInstance (mxl, NULL, &fab) != MXL_STATUS_OK) {
    fprintf (stderr, "cannot create an MXL instance\n");
    return 1;
  }
  mxlFabricsExtGetLibfabricVersion (&major, &minor);
  printf ("libfabric %u.%u\n", major, minor);
  st = mxlFabricsGetInterfaces (fab, &query, &list);
  if (st != MXL_STATUS_OK) {
    fprintf (stderr, "listing interfaces failed (status %d)\n", st);
  } else {
    printf ("%-12s %-28s %-12s %-34s %s\n", "PROVIDER", "NODE", "SERVICE", "CAPS",
        "MAX MESSAGE");
    for (mxlFabricsInterfaceList *e = list; e != NULL; e = e->next, count++) {
      char name[32] = "?";
      size_t size = sizeof (name);
      char *caps = caps_text (e->interface.caps.flags);

      mxlFabricsProviderToString (e->interface.provider, name, &size);
      printf ("%-12s %-28s %-12s %-34s %" G_GUINT64_FORMAT "\n", name,
          e->interface.address.node ? e->interface.address.node : "",
          e->interface.address.service ? e->interface.address.service : "",
          caps, (guint64) e->interface.caps.maxMessageSize);
      if (show_attr && e->interface.attr != NULL)
        printf ("  %s\n", e->interface.attr);
      g_free (caps);
    }
    printf ("%u interface(s)\n", count);
  }
  mxlFabricsFreeInterfaceList (list);
  mxlFabricsDestroyInstance (fab);
  mxlDestroyInstance (mxl);
  g_rmdir (domain);
  g_free (domain);
  return st == MXL_STATUS_OK ? 0 : 1;
}
