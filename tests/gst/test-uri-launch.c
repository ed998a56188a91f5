/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Two processes set up by URI alone (issue 19 item "A URI handler"), as
 * gst-launch-1.0 users write them: the receiver (this binary re-executed
 * with --child-src) is `mxlfabricssrc uri=mxlfabrics://127.0.0.1:PORT?
 * provider=tcp&caps=...&target-info-file=...`, the sender `appsrc !
 * mxlfabricssink uri=mxlfabrics://127.0.0.1:PORT?provider=tcp&node=...&
 * target-info=%40FILE`, both built with gst_parse_launch. The src listens
 * on the URI's port (its TargetInfo's address says so), the sink connects,
 * and every frame arrives bit-exact (SHA-1 of each), in order.
 *
 * tcp on 127.0.0.1 only; the child is reaped by PID; every wait is
 * bounded (about 4 s in all).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "../hardening/hgst.h"

#define WIDTH 320
#define HEIGHT 180
#define CAPS "video/x-raw,format=v210,width=320,height=180,framerate=50/1"
#define FRAME_BYTES (((WIDTH + 47) / 48) * 128 * HEIGHT)
#define FRAME_NS (20 * GST_MSECOND)
#define N_FRAMES 50

/* Child: the src of @uri pulls buffers until none came for 2 s (10 s for
 * the first) and writes their SHA-1s to @out. */
static int
child_src (const gchar * uri, const gchar * out)
{
  gchar *desc = g_strdup_printf ("mxlfabricssrc name=src uri=\"%s\" ! "
      "appsink name=out sync=false", uri);
  GstElement *p = hgst_parse (desc);

  if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    return 3;
  hgst_write_checksums (p, out, 0, 10000, 2000);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
  return 0;
}

/* The port of the sockaddr_in in the TargetInfo file @file
 * (docs/wire-format.md §1.2: fabricAddress, base64 of the bytes). */
static guint
target_info_port (const gchar * file)
{
  JsonParser *parser = json_parser_new ();
  JsonObject *root;
  guchar *addr;
  gsize len = 0;
  struct sockaddr_in a;

  g_assert_true (json_parser_load_from_file (parser, file, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (root, "addressFormat"), ==, 2);
  addr = g_base64_decode (json_object_get_string_member (root,
          "fabricAddress"), &len);
  g_assert_cmpuint (len, ==, sizeof a);
  memcpy (&a, addr, sizeof a);
  g_assert_cmpuint (ntohl (a.sin_addr.s_addr), ==, INADDR_LOOPBACK);
  g_free (addr);
  g_object_unref (parser);
  return ntohs (a.sin_port);
}

static void
test_launch_by_uri (void)
{
  gchar *dir = g_dir_make_tmp ("mxl-uri-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target info.json", NULL);
  gchar *out = g_build_filename (dir, "rx.sums", NULL);
  gchar *file_escaped = g_uri_escape_string (file, NULL, FALSE);
  gchar *caps_escaped = g_uri_escape_string (CAPS, NULL, FALSE);
  guint port = hgst_free_port ();
  gchar *src_uri = g_strdup_printf ("mxlfabrics://127.0.0.1:%u?provider=tcp"
      "&caps=%s&target-info-file=%s", port, caps_escaped, file_escaped);
  gchar *desc;
  GPtrArray *sent;
  GPid pid;

  pid = hgst_spawn_child (src_uri, out, NULL);
  g_assert_true (hgst_wait_file (file));
  g_assert_cmpuint (target_info_port (file), ==, port);

  /* percent-encoded @path (the name has a space) as target-info */
  desc = g_strdup_printf ("appsrc name=in is-live=true format=time caps=\""
      CAPS "\" ! mxlfabricssink name=sink uri=\"mxlfabrics://127.0.0.1:%u?"
      "provider=tcp&node=127.0.0.1&target-info=%%40%s\"", port, file_escaped);
  sent = hgst_connect_and_send (desc, N_FRAMES, FRAME_BYTES, FRAME_NS, 5000);

  hgst_assert_child_ok (pid, 10000);
  hgst_assert_sums (out, sent);

  g_ptr_array_unref (sent);
  g_free (desc);
  g_free (src_uri);
  g_free (file_escaped);
  g_free (caps_escaped);
  hgst_remove_files (dir, file, out);
}

int
main (int argc, char **argv)
{
  if (hgst_init (&argc, &argv, 4))
    return child_src (argv[2], argv[3]);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/uri/launch-by-uri", test_launch_by_uri);
  return g_test_run ();
}
