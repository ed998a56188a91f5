/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* See tcprelay.h. One thread polls the listening socket, the wake pipe and
 * every carried pair; each wait is bounded (100 ms). */
#include "tcprelay.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <json-glib/json-glib.h>

#define MAX_PAIRS 8

struct TcpRelay {
  GThread *thread;
  int listen_fd, wake[2];
  guint16 port, to_port;
  gint stop, drop, accepted, delay_ms;
  int fds[MAX_PAIRS][2];        /* client, server; -1 when free */
  gint64 start_at[MAX_PAIRS];   /* µs, monotonic: carried from then on */
};

static void
close_pair (int *p)
{
  close (p[0]);
  close (p[1]);
  p[0] = p[1] = -1;
}

static void
accept_one (TcpRelay * r)
{
  struct sockaddr_in to = {.sin_family = AF_INET,.sin_port = htons (r->to_port) };
  int c = accept (r->listen_fd, NULL, NULL), s, i;

  if (c < 0)
    return;
  to.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  s = socket (AF_INET, SOCK_STREAM, 0);
  for (i = 0; i < MAX_PAIRS && r->fds[i][0] >= 0; i++);
  if (i == MAX_PAIRS || connect (s, (struct sockaddr *) &to, sizeof to) != 0) {
    close (c);
    close (s);
    return;
  }
  r->fds[i][0] = c;
  r->fds[i][1] = s;
  r->start_at[i] = g_get_monotonic_time () +
      (gint64) g_atomic_int_get (&r->delay_ms) * 1000;
  g_atomic_int_inc (&r->accepted);
}

static gpointer
relay_main (gpointer data)
{
  TcpRelay *r = data;
  char buf[65536];

  while (!g_atomic_int_get (&r->stop)) {
    struct pollfd p[2 + 2 * MAX_PAIRS];
    gint64 now = g_get_monotonic_time ();
    int n = 0, i, timeout = 100;

    if (g_atomic_int_compare_and_exchange (&r->drop, 1, 0))
      for (i = 0; i < MAX_PAIRS; i++)
        if (r->fds[i][0] >= 0)
          close_pair (r->fds[i]);
    p[n++] = (struct pollfd) {.fd = r->listen_fd,.events = POLLIN };
    p[n++] = (struct pollfd) {.fd = r->wake[0],.events = POLLIN };
    for (i = 0; i < MAX_PAIRS; i++) {
      /* a pair still held back (tcp_relay_set_delay()) is not read yet */
      gboolean held = r->fds[i][0] >= 0 && now < r->start_at[i];

      if (held)
        timeout = MIN (timeout, (int) ((r->start_at[i] - now) / 1000) + 1);
      p[n++] = (struct pollfd) {.fd = held ? -1 : r->fds[i][0],.events = POLLIN };
      p[n++] = (struct pollfd) {.fd = held ? -1 : r->fds[i][1],.events = POLLIN };
    }
    if (poll (p, n, timeout) <= 0)
      continue;
    if (p[1].revents)
      while (read (r->wake[0], buf, sizeof buf) < 0 && errno == EINTR);
    for (i = 0; i < MAX_PAIRS; i++) {
      int k;
      for (k = 0; k < 2 && r->fds[i][0] >= 0; k++) {
        ssize_t got;
        if (!p[2 + 2 * i + k].revents)
          continue;
        got = read (r->fds[i][k], buf, sizeof buf);
        /* a relay in the test process: a short write only ends the pair */
        if (got <= 0 || write (r->fds[i][1 - k], buf, got) != got)
          close_pair (r->fds[i]);
      }
    }
    if (p[0].revents)
      accept_one (r);
  }
  return NULL;
}

TcpRelay *
tcp_relay_new (guint16 to_port)
{
  TcpRelay *r = g_new0 (TcpRelay, 1);
  struct sockaddr_in a = {.sin_family = AF_INET };
  socklen_t len = sizeof a;

  memset (r->fds, -1, sizeof r->fds);
  r->to_port = to_port;
  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  r->listen_fd = socket (AF_INET, SOCK_STREAM, 0);
  g_assert_cmpint (bind (r->listen_fd, (struct sockaddr *) &a, sizeof a), ==, 0);
  g_assert_cmpint (listen (r->listen_fd, 8), ==, 0);
  g_assert_cmpint (getsockname (r->listen_fd, (struct sockaddr *) &a, &len), ==, 0);
  r->port = ntohs (a.sin_port);
  g_assert_cmpint (pipe (r->wake), ==, 0);
  r->thread = g_thread_new ("tcprelay", relay_main, r);
  return r;
}

guint16
tcp_relay_port (const TcpRelay * r)
{
  return r->port;
}

guint
tcp_relay_accepted (TcpRelay * r)
{
  return (guint) g_atomic_int_get (&r->accepted);
}

static void
wake (TcpRelay * r)
{
  if (write (r->wake[1], "x", 1) != 1)
    g_warning ("tcprelay: wake: %s", g_strerror (errno));
}

void
tcp_relay_set_delay (TcpRelay * r, guint ms)
{
  g_atomic_int_set (&r->delay_ms, (gint) ms);
}

void
tcp_relay_drop (TcpRelay * r)
{
  g_atomic_int_set (&r->drop, 1);
  wake (r);
}

void
tcp_relay_free (TcpRelay * r)
{
  int i;

  g_atomic_int_set (&r->stop, 1);
  wake (r);
  g_thread_join (r->thread);
  for (i = 0; i < MAX_PAIRS; i++)
    if (r->fds[i][0] >= 0)
      close_pair (r->fds[i]);
  close (r->listen_fd);
  close (r->wake[0]);
  close (r->wake[1]);
  g_free (r);
}

gchar *
tcp_relay_free_port (void)
{
  struct sockaddr_in a = {.sin_family = AF_INET };
  socklen_t len = sizeof a;
  int fd = socket (AF_INET, SOCK_STREAM, 0);

  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (bind (fd, (struct sockaddr *) &a, sizeof a), ==, 0);
  g_assert_cmpint (getsockname (fd, (struct sockaddr *) &a, &len), ==, 0);
  close (fd);
  return g_strdup_printf ("%u", ntohs (a.sin_port));
}

gchar *
tcp_relay_retarget (const gchar * json, guint16 port)
{
  JsonNode *root = json_from_string (json, NULL);
  JsonObject *o = json_node_get_object (root);
  gsize len = 0;
  guchar *addr = g_base64_decode (json_object_get_string_member (o,
          "fabricAddress"), &len);
  guint16 be = htons (port);
  gchar *text, *out;

  g_assert_cmpuint (len, >=, sizeof (struct sockaddr_in));
  memcpy (addr + offsetof (struct sockaddr_in, sin_port), &be, sizeof be);
  text = g_base64_encode (addr, len);
  json_object_set_string_member (o, "fabricAddress", text);
  out = json_to_string (root, FALSE);
  g_free (text);
  g_free (addr);
  json_node_unref (root);
  return out;
}
