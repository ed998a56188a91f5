/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A tcp relay on 127.0.0.1 for the element tests: it forwards every
 * connection made to its port to another port of 127.0.0.1, and drops the
 * connections it carries on request, so that a receiver seems to accept
 * and drop while it stays the same target (its TargetInfo stays valid). */
#pragma once

#include <glib.h>

typedef struct TcpRelay TcpRelay;

/** Listens on an automatic port and forwards to @to_port. */
TcpRelay *tcp_relay_new (guint16 to_port);
guint16 tcp_relay_port (const TcpRelay * r);
/** How many connections it has carried so far. */
guint tcp_relay_accepted (TcpRelay * r);
/** Holds back what each connection accepted from now on carries for @ms
 * (both ways): its peer sees the connection made at once and the handshake
 * over it @ms later, a slow connect. */
void tcp_relay_set_delay (TcpRelay * r, guint ms);
/** Closes the connections carried now (both ends); new ones are carried. */
void tcp_relay_drop (TcpRelay * r);
void tcp_relay_free (TcpRelay * r);

/** A tcp port of 127.0.0.1 free a moment ago, as text. (transfer full) */
gchar *tcp_relay_free_port (void);

/** @json with its tcp fabricAddress's port set to @port
 * (docs/wire-format.md §1.2: base64 of a sockaddr_in). (transfer full) */
gchar *tcp_relay_retarget (const gchar * json, guint16 port);
