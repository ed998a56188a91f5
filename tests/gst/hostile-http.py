#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A hostile HTTP server for test-http.c: binds 127.0.0.1 (a free port,
written to PORTFILE once listening), answers every request the way MODE
says, appends one line per request to PORTFILE.log, and exits after
LIFETIME seconds (the test also stops it by PID).

usage: hostile-http.py MODE PORTFILE [LIFETIME]
MODE: slow (a valid answer trickled 1 byte per 0.3 s), silent (never
answers), oversized (200 with a 100 KiB body), endless (200, no Content-Length, a
body that never ends), truncated (Content-Length
1000, 10 bytes sent, then closed), nonjson (200 with text), redirect (302
to another URL), atfile (200 with "@/etc/passwd")."""
import http.server
import os
import socketserver
import sys
import threading
import time

MODE, PORTFILE = sys.argv[1], sys.argv[2]
LIFETIME = float(sys.argv[3]) if len(sys.argv) > 3 else 30.0
LOG = PORTFILE + ".log"


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        with open(LOG, "a") as f:
            f.write(self.path + "\n")
        if MODE == "silent":
            time.sleep(LIFETIME)
            return
        if MODE == "endless":
            # no Content-Length: a body that never ends (HTTP/1.0)
            self.send_response(200)
            self.end_headers()
            try:
                while True:
                    self.wfile.write(b"{" * 4096)
            except OSError:
                return
        if MODE == "redirect":
            self.send_response(302)
            self.send_header("Location", "http://127.0.0.1:9/target-info")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = {
            "slow": b'{"not": "finished"}',
            "oversized": b"{" + b" " * (100 * 1024) + b"}",
            "truncated": b'{"fabricAd',
            "nonjson": b"hello, I am not JSON\n",
            "atfile": b"@/etc/passwd",
        }[MODE]
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length",
                         "1000" if MODE == "truncated" else str(len(body)))
        self.end_headers()
        if MODE == "slow":
            for b in body:
                self.wfile.write(bytes([b]))
                self.wfile.flush()
                time.sleep(0.3)
            return
        self.wfile.write(body)
        self.wfile.flush()
        if MODE == "truncated":
            self.close_connection = True


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


srv = Server(("127.0.0.1", 0), Handler)
tmp = PORTFILE + ".tmp"
with open(tmp, "w") as f:
    f.write("%d\n" % srv.server_address[1])
os.rename(tmp, PORTFILE)
threading.Timer(LIFETIME, lambda: os._exit(0)).start()
srv.serve_forever()
