#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Wake-ups at rest (issue 15): how often the sender and the receiver
process wake while PLAYING, connected, with no data flowing.

Per provider (tcp, shm on 127.0.0.1) and per build (this one, and with
--baseline-build another, e.g. the tree before a change): the receiver is
gst-launch-1.0 mxlfabricssrc ! fakesink; the sender is bench-gst-pipe
--role send --hold: one 720p v210 frame pushed (so the sink sets up, waits
for the connection and transfers it), then no EOS and nothing more: both
pipelines stay PLAYING and connected. After SETTLE s (8: the library's
progress thread rests after 5 s without work) the voluntary context
switches of every thread of each process (/proc/PID/task/*/status,
voluntary_ctxt_switches: one per sleep, so one per wake-up) are summed,
again after WINDOW s; wakeups/s = delta / WINDOW. Threads that start or end
inside the window are counted from their first / to their last sample.
The bench binary is always this build's (only the plugin differs).
Prints one table, before and after side by side.

With --streaming the sender is gst-launch-1.0 videotestsrc is-live=true
! 720p50 v210 ! mxlfabricssink instead (frames flowing all the time), the
window is 5 s after a settle of 3 s, and the table also gives wake-ups
per frame (wakeups/s / 50).
"""
import argparse
import glob
import os
import signal
import subprocess
import sys
import tempfile
import time

CAPS = "video/x-raw,format=v210,width=1280,height=720,framerate=50/1"


def switches(pid):
    """{tid: voluntary_ctxt_switches} of every thread of PID."""
    out = {}
    for path in glob.glob("/proc/%d/task/*/status" % pid):
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches:"):
                        out[path] = int(line.split()[1])
        except OSError:
            pass
    return out


def delta(a, b):
    return sum(b[t] - a.get(t, b[t]) for t in b) + 0


def measure(snd, src, settle, window):
    """(sender, receiver) wake-ups per second over WINDOW after SETTLE."""
    time.sleep(settle)
    a = (switches(snd.pid), switches(src.pid))
    time.sleep(window)
    b = (switches(snd.pid), switches(src.pid))
    if snd.poll() is not None or src.poll() is not None:
        return None, "a process ended during the window"
    return (delta(a[0], b[0]) / window, delta(a[1], b[1]) / window), None


def run_one(build, bench_build, provider, port, settle, window, tmp,
            streaming=False):
    env = dict(os.environ)
    env["GST_PLUGIN_PATH"] = os.path.join(build, "gst")
    env["GST_REGISTRY_1_0"] = os.path.join(tmp, "registry-%s.bin"
                                           % abs(hash(build)))
    ti = os.path.join(tmp, "ti-%s.json" % provider)
    if os.path.exists(ti):
        os.unlink(ti)
    node = "node=127.0.0.1 service=%d" % port if provider == "tcp" else ""
    src = subprocess.Popen(
        ["gst-launch-1.0", "-q", "mxlfabricssrc", "provider=" + provider]
        + node.split() + ["caps=" + CAPS, "target-info-file=" + ti,
                          "!", "fakesink"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    snd = None
    try:
        end = time.monotonic() + 20
        while not (os.path.exists(ti) and os.path.getsize(ti) > 0):
            if time.monotonic() > end or src.poll() is not None:
                return None, "receiver did not start"
            time.sleep(0.05)
        pipe = "mxlfabricssink provider=%s %s target-info=@%s" % (
            provider, "node=127.0.0.1" if provider == "tcp" else "", ti)
        if streaming:
            snd = subprocess.Popen(
                ["gst-launch-1.0", "-q", "videotestsrc", "is-live=true",
                 "!", CAPS, "!"] + pipe.split(),
                env=env, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, start_new_session=True)
            return measure(snd, src, settle, window)
        snd = subprocess.Popen(
            [os.path.join(bench_build, "bench", "bench-gst-pipe"),
             "--role", "send", "--pipeline", pipe, "--caps", CAPS,
             "--max-frames", "1", "--hold",
             "--deadline", str(int(settle + window + 30))],
            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1,
            start_new_session=True)
        if snd.stdout.readline().strip() != "READY":
            return None, "sender did not start"
        snd.stdin.write("GO\n")
        snd.stdin.flush()
        result = snd.stdout.readline()   # its JSON line: the frame is out
        if '"frames":1' not in result:
            return None, "sender: " + result.strip()
        return measure(snd, src, settle, window)
    finally:
        for p in (snd, src):
            if p is not None and p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(here, "..", "build"))
    ap.add_argument("--baseline-build", help="another build to compare")
    ap.add_argument("--settle", type=float, default=8.0,
                    help="s before the window (the progress thread rests "
                    "after 5 s without work)")
    ap.add_argument("--window", type=float, default=10.0)
    ap.add_argument("--port", type=int, default=47810)
    ap.add_argument("--streaming", action="store_true",
                    help="720p50 frames flowing (videotestsrc is-live) "
                    "instead of at rest; default window 5 s, settle 3 s")
    args = ap.parse_args()
    if args.streaming:
        if args.settle == ap.get_default("settle"):
            args.settle = 3.0
        if args.window == ap.get_default("window"):
            args.window = 5.0
    builds = [("after", os.path.abspath(args.build_dir))]
    if args.baseline_build:
        builds.insert(0, ("before", os.path.abspath(args.baseline_build)))
    rows = []
    with tempfile.TemporaryDirectory(prefix="mxl-rest-") as tmp:
        for k, provider in enumerate(("tcp", "shm")):
            for name, build in builds:
                r, err = run_one(build, os.path.abspath(args.build_dir), provider,
                                 args.port + 2 * k, args.settle, args.window,
                                 tmp, args.streaming)
                rows.append((provider, name, r, err))
    per = " (per frame)" if args.streaming else ""
    print("| provider | build | sink process wakeups/s%s | src process "
          "wakeups/s%s |" % (per, per))
    print("|---|---|---|---|")
    for provider, name, r, err in rows:
        if r is None:
            print("| %s | %s | %s | |" % (provider, name, err))
        elif args.streaming:
            print("| %s | %s | %.1f (%.1f) | %.1f (%.1f) |" % (
                provider, name, r[0], r[0] / 50, r[1], r[1] / 50))
        else:
            print("| %s | %s | %.1f | %.1f |" % (provider, name, r[0], r[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
