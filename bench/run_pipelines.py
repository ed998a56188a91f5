#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Pipeline benchmark driver (issue 9): 1080p v210 frames, pre-rendered by
videotestsrc, through two processes (bench-gst-pipe --role send / recv,
each a GStreamer pipeline built from the gst-launch text shown), as fast as
possible and paced at --fps, over:

  ours      mxlfabricssink -> mxlfabricssrc, tcp and shm (the src starts
            first and writes its TargetInfo file; "not built yet" or
            "cannot transfer yet" with the reason if the elements fail);
            "ours ... credits": the same with mxlfabricssrc credits=true
            and a sender that is not live (appsrc is-live=false), which
            the sink holds back on the receiver's credits (issue 16),
  tcp       gdppay ! tcpserversink  /  tcpclientsrc ! gdpdepay (127.0.0.1),
  rtp/udp   rtpvrawpay mtu=1400 ! udpsink  /  udpsrc ! rtpvrawdepay
            (127.0.0.1; RFC 4175 has no v210: UYVP, the same 10-bit 4:2:2
            samples packed densely, 5,184,000 bytes a frame),
  shm       shmsink  /  shmsrc (socket in a temporary directory).

Per run: frames/s at the receiver, CPU ms per frame of sender and receiver,
latency median and p99 (paced runs are the meaningful ones), frames lost
and damaged. R rounds (default 3), medians [min–max], ratios ours/each.
Writes the table into docs/benchmarks.md (section "pipelines").
"""
import argparse
import json
import os
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402

V210 = "video/x-raw,format=v210,width=1920,height=1080,framerate=60/1"
UYVP = "video/x-raw,format=UYVP,width=1920,height=1080,framerate=60/1"
RTP_CAPS = ("application/x-rtp,media=video,clock-rate=90000,"
            "encoding-name=RAW,sampling=YCbCr-4:2:2,depth=(string)10,"
            "width=(string)1920,height=(string)1080,"
            "colorimetry=(string)BT709,payload=(int)96")
NOT_BUILT = "not built yet"
# the ours cases each row is compared with (ratio columns)
OURS = ("ours tcp", "ours shm", "ours tcp credits", "ours shm credits")


def cases(tmp, port):
    """(name, caps, sender, receiver, who starts first, is ours, extra
    arguments of the sender's bench-gst-pipe)."""
    sock = os.path.join(tmp, "shm.sock")
    ti = os.path.join(tmp, "target-%s.json")
    return [
        ("ours tcp", V210,
         "mxlfabricssink provider=tcp node=127.0.0.1 "
         "target-info=@%s sync=false" % (ti % "tcp"),
         "mxlfabricssrc provider=tcp node=127.0.0.1 service=%d caps=\"%s\" "
         "target-info-file=%s" % (port + 3, V210, ti % "tcp"),
         "recv", True, []),
        ("ours shm", V210,
         "mxlfabricssink provider=shm target-info=@%s sync=false"
         % (ti % "shm"),
         "mxlfabricssrc provider=shm caps=\"%s\" target-info-file=%s"
         % (V210, ti % "shm"),
         "recv", True, []),
        # credits (issue 16): the src hands out its ring slots (zero-copy)
        # and a sender that is not live is held back instead of lapping
        ("ours tcp credits", V210,
         "mxlfabricssink provider=tcp node=127.0.0.1 "
         "target-info=@%s sync=false" % (ti % "tcp-credits"),
         "mxlfabricssrc provider=tcp node=127.0.0.1 service=%d caps=\"%s\" "
         "credits=true target-info-file=%s"
         % (port + 5, V210, ti % "tcp-credits"),
         "recv", True, ["--not-live"]),
        ("ours shm credits", V210,
         "mxlfabricssink provider=shm target-info=@%s sync=false"
         % (ti % "shm-credits"),
         "mxlfabricssrc provider=shm caps=\"%s\" credits=true "
         "target-info-file=%s" % (V210, ti % "shm-credits"),
         "recv", True, ["--not-live"]),
        ("tcpserversink/tcpclientsrc", V210,
         "gdppay ! tcpserversink host=127.0.0.1 port=%d sync=false" % port,
         "tcpclientsrc host=127.0.0.1 port=%d ! gdpdepay" % port,
         "send", False, []),
        ("rtpvrawpay/udp (UYVP, mtu 1400)", UYVP,
         "rtpvrawpay mtu=1400 ! udpsink host=127.0.0.1 port=%d sync=false"
         % (port + 1),
         "udpsrc address=127.0.0.1 port=%d buffer-size=4194304 caps=\"%s\" "
         "! rtpvrawdepay" % (port + 1, RTP_CAPS),
         "recv", False, []),
        ("shmsink/shmsrc", V210,
         "shmsink socket-path=%s shm-size=67108864 wait-for-connection=true "
         "sync=false" % sock,
         "shmsrc socket-path=%s is-live=true" % sock,
         "send", False, []),
    ]


class Proc:
    """One bench-gst-pipe process, in its own process group."""

    def __init__(self, cmd, env, log):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=log,
                                  text=True, env=env, bufsize=1,
                                  start_new_session=True)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.p.stdout, selectors.EVENT_READ)
        self.result = None
        self.error = None

    def read_until(self, pred, deadline):
        """Reads stdout lines until PRED(line) or EOF or DEADLINE."""
        while time.monotonic() < deadline:
            if not self.sel.select(max(0.0, deadline - time.monotonic())):
                return False
            line = self.p.stdout.readline()
            if not line:
                return False
            line = line.strip()
            if line.startswith("{"):
                rec = json.loads(line)
                if "error" in rec:
                    self.error = rec
                    return False
                self.result = rec
            if pred(line):
                return True
        return False

    def say(self, word):
        try:
            self.p.stdin.write(word + "\n")
            self.p.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def stop(self, timeout):
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()
        self.sel.close()


def run_case(exe, env, case, fps, a, tmp, log):
    """One sender/receiver run; returns (send, recv, error text)."""
    name, caps, send_desc, recv_desc, first, ours, send_args = case
    budget = a.duration + 25
    end = time.monotonic() + budget
    scmd = [exe, "--role", "send", "--caps", caps, "--pipeline", send_desc,
            "--fps", str(fps), "--duration", str(a.duration),
            "--deadline", str(budget)] + send_args
    rcmd = [exe, "--role", "recv", "--pipeline", recv_desc, "--idle",
            str(a.idle), "--deadline", str(budget)]
    procs = []
    try:
        order = [("recv", rcmd), ("send", scmd)] if first == "recv" else \
            [("send", scmd), ("recv", rcmd)]
        started = {}
        for role, cmd in order:
            p = Proc(cmd, env, log)
            procs.append(p)
            started[role] = p
            if not p.read_until(lambda ln: ln == "READY",
                                time.monotonic() + 15):
                return None, None, describe(p, role)
            if role == "recv" and ours:
                # the src writes its TargetInfo file; wait for it (bounded)
                tf = recv_desc.split("target-info-file=")[1].split()[0]
                t = time.monotonic() + 10
                while not os.path.exists(tf) and time.monotonic() < t:
                    time.sleep(0.05)
                if not os.path.exists(tf):
                    return None, None, "no TargetInfo file from the src"
        snd, rcv = started["send"], started["recv"]
        time.sleep(0.3)         # let a server accept its client
        snd.say("GO")
        snd.read_until(lambda ln: ln.startswith("{"), end)
        rcv.read_until(lambda ln: ln.startswith("{"), end)
        snd.say("QUIT")
        if snd.error or rcv.error:
            return None, None, describe(snd, "send") or describe(rcv, "recv")
        if not snd.result or not rcv.result:
            return snd.result, rcv.result, "no result before the deadline"
        return snd.result, rcv.result, None
    finally:
        for p in procs:
            p.say("QUIT")
            p.stop(5)


def run_bare(bare, prov, window, a, log):
    """bench-bare-fabric: 1080p v210 grains (5,529,600 bytes) written by a
    bare fi_writemsg loop on PROV with WINDOW writes in flight for the
    run's duration; its JSON record, or None."""
    cmd = [bare, "--provider", prov, "--size", "5529600", "--duration",
           str(a.duration), "--window", str(window), "--slots", "8",
           "--deadline", str(a.duration + 20)]
    try:
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=log,
                             timeout=a.duration + 25, text=True).stdout
    except subprocess.TimeoutExpired:
        return None
    for ln in out.splitlines():
        if ln.startswith("{"):
            rec = json.loads(ln)
            return rec if rec.get("ok") else None
    return None


def describe(p, role):
    if p.error:
        return "%s: %s" % (role, p.error["error"])
    return "%s: exited %s before READY" % (role, p.p.poll())


def not_implemented(err):
    return err and ("not implemented" in err or "no element" in err)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build-dir", default=os.path.join(here, "..", "build"))
    ap.add_argument("--runs", type=int, default=3, help="rounds (default 3)")
    ap.add_argument("--duration", type=float, default=2.0,
                    help="seconds the sender sends per run (default 2)")
    ap.add_argument("--fps", type=float, default=60.0,
                    help="paced rate (default 60; 50 also common)")
    ap.add_argument("--idle", type=float, default=1.0,
                    help="receiver stops this long after the last frame")
    ap.add_argument("--port", type=int, default=47900)
    ap.add_argument("--only", default="",
                    help="comma list of case-name prefixes to run")
    ap.add_argument("--doc", default=os.path.join(here, "..", "docs",
                                                  "benchmarks.md"))
    ap.add_argument("--no-doc", action="store_true")
    ap.add_argument("--note", default="")
    ap.add_argument("--modes", default="fast,paced",
                    help="comma list of fast, paced (default both)")
    ap.add_argument("--baseline-build", default="",
                    help="also run the ours cases with this build's plugin, "
                    "interleaved, as \"ours ... (baseline)\"")
    a = ap.parse_args()
    if not 1 <= a.runs <= 20 or not 0 < a.duration <= 60 or a.fps <= 0:
        ap.error("--runs 1..20, --duration (0, 60], --fps > 0")

    bdir = os.path.abspath(a.build_dir)
    exe = os.path.join(bdir, "bench", "bench-gst-pipe")
    if not os.access(exe, os.X_OK):
        sys.exit("%s missing: meson compile -C %s" % (exe, a.build_dir))
    env = dict(os.environ)
    env["GST_PLUGIN_PATH"] = os.path.join(bdir, "gst") + \
        (":" + env["GST_PLUGIN_PATH"] if env.get("GST_PLUGIN_PATH") else "")
    mach = results.machine()
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="mxl-bench-")
    log_path = os.path.join(tmp, "stderr.log")
    log = open(log_path, "w")
    all_cases = cases(tmp, a.port)
    case_env = {}
    if a.baseline_build:
        benv = dict(env)
        benv["GST_PLUGIN_PATH"] = os.path.join(
            os.path.abspath(a.baseline_build), "gst")
        base = []
        for c in all_cases:
            if c[5]:
                key = c[0][5:].replace(" ", "-")
                # own port and TargetInfo file; same element text otherwise
                bc = (c[0] + " (baseline)", c[1],
                      c[2].replace("target-%s" % key, "base-%s" % key),
                      c[3].replace("target-%s" % key, "base-%s" % key)
                      .replace("service=%d" % (a.port + 3),
                               "service=%d" % (a.port + 4))
                      .replace("service=%d" % (a.port + 5),
                               "service=%d" % (a.port + 6)),
                      c[4], c[5], c[6])
                case_env[bc[0]] = benv
                base.append(bc)
        all_cases = [x for c in all_cases
                     for x in ([c] + [b for b in base
                                      if b[0] == c[0] + " (baseline)"])]
    if a.only:
        want = a.only.split(",")
        all_cases = [c for c in all_cases
                     if any(c[0].startswith(w) for w in want)]
    modes = [m for m in [("fast", 0.0), ("%g fps" % a.fps, a.fps)]
             if ("fast" if m[1] == 0 else "paced") in a.modes.split(",")]
    data, errors, ours_state = {}, [], {}
    bare = os.path.join(bdir, "bench", "bench-bare-fabric")
    bare_data = {}
    for r in range(a.runs):
        # the bare libfabric write loop, same grain size, in the same
        # rounds: its grains/s (8 in flight) and one grain's time (1 in
        # flight, ms = 1000 / grains per second)
        if os.access(bare, os.X_OK):
            for prov in ("tcp", "shm"):
                for window in (8, 1):
                    rec = run_bare(bare, prov, window, a, log)
                    bare_data.setdefault((prov, window), []).append(
                        rec["msgs_per_s"] if rec else None)
        for case in all_cases:
            name, ours = case[0], case[5]
            for mode, fps in modes:
                if ours and ours_state.get(name):
                    continue    # known not to work: do not retry each round
                # ports and files must be fresh for every run
                for f in os.listdir(tmp):
                    if f.endswith(".json") or f.startswith("shm.sock"):
                        os.unlink(os.path.join(tmp, f))
                s, rv, err = run_case(exe, case_env.get(name, env), case,
                                      fps, a, tmp, log)
                if err and ours and not s and not rv:
                    # the elements cannot transfer yet: say why, once
                    ours_state[name] = ("%s (%s)" % (NOT_BUILT, err)
                                        if not_implemented(err) else
                                        "cannot transfer yet (%s)" % err)
                    continue
                if err:
                    errors.append("%s, %s, round %d: %s"
                                  % (name, mode, r + 1, err))
                data.setdefault((name, mode), []).append((s, rv))
        print("round %d of %d done (%.0f s)" % (r + 1, a.runs,
                                                time.time() - t0),
              file=sys.stderr)
    log.close()

    def st(name, mode, side, field):
        v = []
        for s, rv in data.get((name, mode), []):
            rec = s if side == "send" else rv
            if rec and rec.get("frames", 0) > 1:
                v.append(rec.get(field))
        return results.stats(v)

    def tot(name, mode, field, side="recv"):
        return sum(((s if side == "send" else rv) or {}).get(field, 0)
                   for s, rv in data.get((name, mode), []))

    def cpu_total(name, mode):
        v = []
        for s, rv in data.get((name, mode), []):
            if s and rv and rv.get("frames", 0) > 1:
                v.append(s["cpu_ms_per_frame"] + rv["cpu_ms_per_frame"])
        return results.stats(v)

    header = ["transport", "mode", "frames/s (recv)", "CPU ms/frame send",
              "CPU ms/frame recv", "CPU ms/frame both", "latency ms median",
              "latency ms p99", "frames sent / recv / lost / damaged / dup (all runs)",
              "ours tcp / this (fps; CPU; p99 latency)",
              "ours shm / this (fps; CPU; p99 latency)",
              "ours tcp credits / this (fps; CPU; p99 latency)",
              "ours shm credits / this (fps; CPU; p99 latency)"]
    rows = []
    for case in all_cases:
        name, ours = case[0], case[5]
        for mode, _ in modes:
            if ours and name in ours_state:
                rows.append([name, mode, "not yet measured (below)"]
                            + ["–"] * (len(header) - 3))
                continue
            fps = st(name, mode, "recv", "fps")
            cpu = cpu_total(name, mode)
            ratios = []
            for o in OURS:
                if o in ours_state or (o, mode) not in data:
                    ratios.append("not yet measured" if o in ours_state
                                  else "–")
                else:
                    ratios.append("%s; %s; %s" % (
                        results.ratio(st(o, mode, "recv", "fps"), fps),
                        results.ratio(cpu_total(o, mode), cpu),
                        results.ratio(st(o, mode, "recv", "latency_ms_p99"),
                                      st(name, mode, "recv",
                                         "latency_ms_p99"))))
            rows.append([
                name, mode, results.fmt_stat(fps),
                results.fmt_stat(st(name, mode, "send", "cpu_ms_per_frame")),
                results.fmt_stat(st(name, mode, "recv", "cpu_ms_per_frame")),
                results.fmt_stat(cpu),
                results.fmt_stat(st(name, mode, "recv", "latency_ms_median")),
                results.fmt_stat(st(name, mode, "recv", "latency_ms_p99")),
                "%d / %d / %d / %d / %d" % (
                    tot(name, mode, "frames", "send"),
                    tot(name, mode, "frames"), tot(name, mode, "lost"),
                    tot(name, mode, "damaged"),
                    tot(name, mode, "duplicates")),
            ] + ratios)
    lines = results.preamble(sys.argv, a.runs, t0, mach) + [
        "Each cell: median [min–max] of %d runs of %g s of sending. "
        "\"fast\": as fast as possible (the sinks do not sync); \"%g fps\": "
        "the sender pushes on a fixed schedule. Latency is from the push "
        "into appsrc to the fakesink, measured on every good frame."
        % (a.runs, a.duration, a.fps),
        "",
        "Pipelines (bench-gst-pipe puts `appsrc ! ` before the sender's text "
        "and ` ! fakesink sync=false` after the receiver's):",
        "",
    ]
    for name, caps, sd, rd, _, _, sargs in all_cases:
        lines.append("- %s: sender `%s` (caps `%s`%s), receiver `%s`"
                     % (name, sd, caps, ", appsrc is-live=false"
                        if "--not-live" in sargs else "", rd))
    lines += ["", "Exact command line of one run (sender, then receiver):",
              ""]
    c = all_cases[-1]
    lines.append("    " + " ".join(shlex.quote(x) for x in [
        exe, "--role", "send", "--caps", c[1], "--pipeline", c[2], "--fps",
        str(a.fps), "--duration", str(a.duration)]))
    lines.append("    " + " ".join(shlex.quote(x) for x in [
        exe, "--role", "recv", "--pipeline", c[3], "--idle", str(a.idle)]))
    lines += ["", results.table(header, rows)]
    brows = []
    for prov in ("tcp", "shm"):
        fps8 = results.stats(bare_data.get((prov, 8), []))
        one = results.stats([1000.0 / v for v in bare_data.get((prov, 1), [])
                             if v])
        row = ["bare fi_writemsg loop, %s" % prov, results.fmt_stat(fps8),
               results.fmt_stat(one)]
        for o in ("ours %s" % prov, "ours %s credits" % prov):
            fast = st(o, "fast", "recv", "fps") if (o, "fast") in data \
                else None
            p99 = None
            for mode, f in modes:
                if f > 0 and (o, mode) in data:
                    p99 = st(o, mode, "recv", "latency_ms_p99")
            row += [results.ratio(fast, fps8), results.ratio(p99, one)]
        brows.append(row)
    lines += ["", "The bare libfabric write loop (bench-bare-fabric, the "
              "same 5,529,600-byte grains, %g s per run, in the same rounds): "
              "grains/s with 8 writes in flight, and one grain's time with 1 "
              "in flight. Ratios: ours fast frames/s over the bare grains/s; "
              "ours paced p99 latency over the bare one-grain time." % a.duration,
              "", results.table(
                  ["provider", "bare grains/s (8 in flight)",
                   "bare ms per grain (1 in flight)",
                   "ours fps / bare", "ours paced p99 / bare grain time",
                   "ours credits fps / bare",
                   "ours credits paced p99 / bare grain time"], brows)]
    for o, why in ours_state.items():
        lines += ["", "%s (mxlfabricssink -> mxlfabricssrc): not yet "
                  "measured: %s." % (o, why)]
    if a.note:
        lines += ["", "Note: " + a.note]
    if errors:
        lines += ["", "Failed runs (left out of the medians):", ""]
        lines += ["- " + e for e in errors[:20]]
    body = "\n".join(lines)
    print(body)
    if not a.no_doc:
        results.replace_section(os.path.abspath(a.doc), "pipelines", body)
        print("written to %s" % os.path.abspath(a.doc), file=sys.stderr)
    if errors or ours_state:
        print("stderr of the runs: %s" % log_path, file=sys.stderr)
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
