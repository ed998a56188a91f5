#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Engine benchmark driver (issue 9): for every payload size and provider,
R rounds of, side by side in each round,

  ours  bench-engine (the MXL Fabrics engine through its public API: MXL
        flows on both sides, a target and an initiator; "not available
        yet" where the engine refuses the media, e.g. audio before
        mxlFabricsInitiatorTransferSamples works),
  bare  bench-bare-fabric (fi_writemsg loop of the same size and provider:
        the practical limit),
  memcpy bench-memcpy (single-thread copy of the same size: the memory
        limit),

then medians [min–max] and the ratios ours/bare, ours/memcpy (and
bare/memcpy). With --baseline-build DIR, DIR's bench-engine (another build
of the engine, e.g. before a change) runs in every round too, right next
to ours (the two alternate which goes first), and the table gets its
GB/s and baseline/bare. Prints the table and writes it into docs/benchmarks.md
(section "engine"). Loopback and shm only; every run has a timeout and is
killed by its process group id when it overruns.
"""
import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402

# name, payload bytes (video: one grain; audio: one batch, F32 samples x
# channels, non-interleaved)
SIZES = [
    ("1080p v210", 5529600),
    ("2160p v210", 22118400),
    ("1080p v210a", 8294400),
    ("audio 8 ch 1 ms", 8 * 48 * 4),
    ("audio 8 ch 10 ms", 8 * 480 * 4),
    ("audio 64 ch 1 ms", 64 * 48 * 4),
    ("audio 64 ch 10 ms", 64 * 480 * 4),
]
PROVIDERS = ["tcp", "tcp;ofi_rxm", "shm"]
NOT_BUILT = "ours: not built yet"
NOT_AVAILABLE = "not available yet"


def run_json(cmd, timeout):
    """Runs CMD in its own process group; returns (record or None, error)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None, "timed out after %ss" % timeout
    rec = None
    for line in out.splitlines():
        if line.startswith("{"):
            rec = json.loads(line)
    if rec is not None and rec.get("unsupported"):
        # the engine refused this media (e.g. audio before it is written):
        # no figure, and not a failure of the run either
        return None, NOT_AVAILABLE
    if p.returncode != 0 or rec is None or rec.get("ok") is False:
        return None, "exit %d: %s" % (p.returncode, err.strip()[-300:])
    return rec, None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build-dir", default=os.path.join(here, "..", "build"))
    ap.add_argument("--runs", type=int, default=5, help="rounds (default 5)")
    ap.add_argument("--duration", type=float, default=0.4,
                    help="seconds of writes per run (default 0.4)")
    ap.add_argument("--window", type=int, default=8)
    ap.add_argument("--providers", default=",".join(PROVIDERS))
    ap.add_argument("--sizes", default="",
                    help="comma list of byte sizes (default: all of issue 9)")
    ap.add_argument("--no-delivery-complete", action="store_true",
                    help="bare: writes without FI_DELIVERY_COMPLETE")
    ap.add_argument("--doc", default=os.path.join(here, "..", "docs",
                                                  "benchmarks.md"))
    ap.add_argument("--no-doc", action="store_true",
                    help="print only, leave docs/benchmarks.md alone")
    ap.add_argument("--note", default="", help="text put next to the numbers")
    ap.add_argument("--baseline-build", default="",
                    help="also run this build's bench-engine in every round, "
                    "alternating with ours, as \"baseline\"")
    a = ap.parse_args()
    if not 1 <= a.runs <= 50 or not 0 < a.duration <= 30:
        ap.error("--runs 1..50, --duration (0, 30]")

    bdir = os.path.abspath(os.path.join(a.build_dir, "bench"))
    bare = os.path.join(bdir, "bench-bare-fabric")
    memcpy = os.path.join(bdir, "bench-memcpy")
    engine = os.path.join(bdir, "bench-engine")
    for exe in (bare, memcpy):
        if not os.access(exe, os.X_OK):
            sys.exit("%s missing: meson compile -C %s" % (exe, a.build_dir))
    have_engine = os.access(engine, os.X_OK)
    engines = [("ours", engine)]
    if a.baseline_build:
        base = os.path.join(os.path.abspath(a.baseline_build), "bench",
                            "bench-engine")
        if not have_engine or not os.access(base, os.X_OK):
            sys.exit("%s or %s missing" % (engine, base))
        engines.append(("baseline", base))
    sizes = SIZES
    if a.sizes:
        want = [int(x) for x in a.sizes.split(",")]
        sizes = [s for s in SIZES if s[1] in want] + \
            [("%d B" % w, w) for w in want if w not in [s[1] for s in SIZES]]
    providers = a.providers.split(",")
    mach = results.machine()
    t0 = time.time()

    # ---- measure, interleaved so that noise hits all three alike ----
    data = {}   # (kind, provider, size) -> list of records
    errors = []
    unavailable = set()   # (ours, provider, size) the engine refused
    cmdlines = {}
    for r in range(a.runs):
        for name, size in sizes:
            mc = [memcpy, "--size", str(size), "--reps", "1", "--min-time",
                  "0.1"]
            cmdlines["memcpy"] = mc
            rec, err = run_json(mc, 30)
            data.setdefault(("memcpy", "", size), []).append(rec)
            for prov in providers:
                common = ["--provider", prov, "--size", str(size),
                          "--duration", str(a.duration), "--window",
                          str(a.window)]
                bc = [bare] + common + ["--deadline", str(a.duration + 20)]
                if a.no_delivery_complete:
                    bc.append("--no-delivery-complete")
                cmdlines["bare"] = bc
                rec, err = run_json(bc, a.duration + 30)
                if err:
                    errors.append("bare %s %d: %s" % (prov, size, err))
                data.setdefault(("bare", prov, size), []).append(rec)
                # ---- ours (bench-engine) ----
                # bench-engine takes the same options as bench-bare-fabric
                # and prints the same JSON fields ("bench":"engine").
                # ours and the baseline alternate which runs first
                order = engines if r % 2 == 0 else engines[::-1]
                for kind, exe in (order if have_engine else []):
                    ec = [exe] + common + ["--deadline",
                                           str(a.duration + 20)]
                    cmdlines[kind] = ec
                    if (kind, prov, size) in unavailable:
                        continue
                    rec, err = run_json(ec, a.duration + 30)
                    if err == NOT_AVAILABLE:
                        unavailable.add((kind, prov, size))
                    elif err:
                        errors.append("%s %s %d: %s" % (kind, prov, size,
                                                        err))
                    data.setdefault((kind, prov, size), []).append(rec)
        print("round %d of %d done (%.0f s)" % (r + 1, a.runs,
                                                time.time() - t0),
              file=sys.stderr)

    def st(kind, prov, size, field):
        recs = [x for x in data.get((kind, prov, size), []) if x]
        return results.stats(x.get(field) for x in recs)

    # ---- table ----
    header = ["payload", "bytes", "provider", "ours GB/s", "ours grains/s",
              "ours CPU s/GB init / target", "bare GB/s", "bare msg/s",
              "bare CPU s/GB init / target", "memcpy GB/s", "ours/bare",
              "ours/memcpy", "bare/memcpy"]
    if a.baseline_build:
        header += ["baseline GB/s", "baseline/bare"]
    rows = []

    def cpu_pair(kind, prov, size):
        return "%s / %s" % (
            results.fmt_stat(st(kind, prov, size, "cpu_s_per_gb_initiator")),
            results.fmt_stat(st(kind, prov, size, "cpu_s_per_gb_target")))

    for name, size in sizes:
        mcs = st("memcpy", "", size, "gb_per_s")
        for prov in providers:
            b = st("bare", prov, size, "gb_per_s")
            if ("ours", prov, size) in unavailable:
                ours = ["ours: " + NOT_AVAILABLE, "–", "–"]
                ours_ratios = ["–", "–"]
            elif have_engine:
                o = st("ours", prov, size, "gb_per_s")
                recs = [x for x in data.get(("ours", prov, size), []) if x]
                sent = sum(x["completed"] for x in recs)
                lost = sum(x.get("superseded", 0) for x in recs)
                lost_note = (" (%.2g%% not delivered: target behind)"
                             % (100.0 * lost / sent) if sent and lost else "")
                ours = [results.fmt_stat(o) + lost_note,
                        results.fmt_stat(st("ours", prov, size,
                                            "msgs_per_s")),
                        cpu_pair("ours", prov, size)]
                ours_ratios = [results.ratio(o, b), results.ratio(o, mcs)]
            else:
                ours = [NOT_BUILT, "–", "–"]
                ours_ratios = ["–", "–"]
            rows.append([name, "{:,}".format(size), "`%s`" % prov] + ours + [
                results.fmt_stat(b),
                results.fmt_stat(st("bare", prov, size, "msgs_per_s")),
                cpu_pair("bare", prov, size),
                results.fmt_stat(mcs)] + ours_ratios + [
                results.ratio(b, mcs)])
            if a.baseline_build:
                bo = st("baseline", prov, size, "gb_per_s")
                rows[-1] += [results.fmt_stat(bo), results.ratio(bo, b)]
    tab = results.table(header, rows)
    dc = "without" if a.no_delivery_complete else "with"
    lines = results.preamble(sys.argv, a.runs, t0, mach) + [
        "Each cell: median [min–max] of %d runs. bare: `fi_writemsg` with "
        "FI_REMOTE_CQ_DATA|FI_COMPLETION, %s FI_DELIVERY_COMPLETE, window %d, "
        "target polls with a 50 µs nap; GB/s is the initiator's rate from "
        "first post to last completion (10^9 bytes/s). ours: the same "
        "window of grains in flight (at most the ring's grain count - 1), "
        "each grain stamped, committed and sent whole (8,192-byte header + "
        "payload; GB/s counts the payload), the target reading completions "
        "with the same 50 µs nap and checking each grain's stamps."
        % (a.runs, dc, a.window),
        "",
        "Exact command lines of one run (size and provider vary):",
        "",
    ]
    for k in ("bare", "memcpy", "ours", "baseline"):
        if k in cmdlines:
            lines.append("    " + " ".join(shlex.quote(x)
                                           for x in cmdlines[k]))
    if not have_engine:
        lines.append("    %s  # %s" % (engine, NOT_BUILT))
    lines += ["", tab]
    if a.note:
        lines += ["", "Note: " + a.note]
    if errors:
        lines += ["", "Failed runs (left out of the medians):", ""]
        lines += ["- " + e for e in errors[:20]]
    body = "\n".join(lines)
    print(body)
    if not have_engine:
        print("\n" + NOT_BUILT + " (no %s)" % engine)
    if not a.no_doc:
        results.replace_section(os.path.abspath(a.doc), "engine", body)
        print("written to %s" % os.path.abspath(a.doc), file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
