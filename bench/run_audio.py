#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Audio benchmark driver (issue 5, performance): 48 kHz float32 audio
through the engine (bench-engine --media audio), 8 and 64 channels in 1 ms
and 10 ms batches, over tcp, tcp;ofi_rxm and shm, with the initiator's
staging on and off side by side in every round:

  paced   batches posted on the real-time schedule (1,000/s for 1 ms,
          100/s for 10 ms) for --duration seconds, both processes waiting
          the way a real-time application would (--wait block: the target
          in mxlFabricsTargetReadSamples with a 10 ms timeout, the
          initiator sleeping until the next batch is due): batches/s
          delivered, posts late by more than a period, batches lost, and
          the CPU of the initiator process and of the target process, each
          in % of one core (getrusage user + system over its own wall time).
  max     the same, unpaced (window 8): batches/s as fast as possible.

With --baseline-build DIR, DIR's bench-engine (another build of the
engine, e.g. before a change) runs every case too, right next to ours (the
two alternate which goes first), in rows marked "(baseline)".

Prints medians [min–max] of --runs rounds and writes the table into
docs/benchmarks.md (section "audio"). Loopback and shm only; every run has
a timeout and is killed by its process group when it overruns.
"""
import argparse
import os
import shlex
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402
from run_engine import run_json  # noqa: E402

# name, channels, samples per batch, real-time batches per second
MEDIA = [
    ("8 ch × 1 ms", 8, 48, 1000),
    ("8 ch × 10 ms", 8, 480, 100),
    ("64 ch × 1 ms", 64, 48, 1000),
    ("64 ch × 10 ms", 64, 480, 100),
]
PROVIDERS = ["tcp", "tcp;ofi_rxm", "shm"]
STAGING = ["off", "on"]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build-dir", default=os.path.join(here, "..", "build"))
    ap.add_argument("--runs", type=int, default=3, help="rounds (default 3)")
    ap.add_argument("--duration", type=float, default=3.0,
                    help="seconds of paced batches per run (default 3)")
    ap.add_argument("--max-duration", type=float, default=1.0,
                    help="seconds of unpaced batches per run (default 1; "
                    "0: no unpaced runs)")
    ap.add_argument("--providers", default=",".join(PROVIDERS))
    ap.add_argument("--media", default="",
                    help="comma list of channels x samples, e.g. 64x48 "
                    "(default: all four)")
    ap.add_argument("--doc", default=os.path.join(here, "..", "docs",
                                                  "benchmarks.md"))
    ap.add_argument("--no-doc", action="store_true",
                    help="print only, leave docs/benchmarks.md alone")
    ap.add_argument("--note", default="", help="text put next to the numbers")
    ap.add_argument("--baseline-build", default="",
                    help="also run this build's bench-engine on every case, "
                    "alternating with ours, as \"(baseline)\" rows")
    a = ap.parse_args()
    if not 1 <= a.runs <= 20 or not 0 < a.duration <= 30 \
            or not 0 <= a.max_duration <= 30:
        ap.error("--runs 1..20, --duration (0, 30], --max-duration [0, 30]")
    engine = os.path.abspath(os.path.join(a.build_dir, "bench",
                                          "bench-engine"))
    if not os.access(engine, os.X_OK):
        sys.exit("%s missing: meson compile -C %s" % (engine, a.build_dir))
    builds = [("", engine)]
    if a.baseline_build:
        base = os.path.join(os.path.abspath(a.baseline_build), "bench",
                            "bench-engine")
        if not os.access(base, os.X_OK):
            sys.exit("%s missing" % base)
        builds.append((" (baseline)", base))
    media = MEDIA
    if a.media:
        want = a.media.split(",")
        media = [m for m in MEDIA if "%dx%d" % (m[1], m[2]) in want]
        if not media:
            ap.error("--media: none of 8x48, 8x480, 64x48, 64x480")
    providers = a.providers.split(",")
    mach = results.machine()
    t0 = time.time()

    data = {}     # (mode, media name, provider, staging + build) -> [record]
    errors = []
    cmdlines = {}
    for r in range(a.runs):
        for name, ch, samples, rate in media:
            for prov in providers:
                order = builds if r % 2 == 0 else builds[::-1]
                for stg, (mark, exe) in [(x, b) for x in STAGING
                                         for b in order]:
                    base = [exe, "--provider", prov, "--media", "audio",
                            "--channels", str(ch), "--samples", str(samples),
                            "--window", "8", "--wait", "block",
                            "--staging", stg]
                    runs = [("paced", base + ["--rate", str(rate),
                                              "--duration",
                                              str(a.duration)], a.duration)]
                    if a.max_duration > 0:
                        runs.append(("max", base + ["--duration",
                                                    str(a.max_duration)],
                                     a.max_duration))
                    for mode, cmd, dur in runs:
                        cmd = cmd + ["--deadline", str(dur + 20)]
                        cmdlines[mode + mark] = cmd
                        rec, err = run_json(cmd, dur + 30)
                        if err:
                            errors.append("%s %s %s staging %s%s: %s"
                                          % (mode, name, prov, stg, mark,
                                             err))
                        data.setdefault((mode, name, prov, stg + mark),
                                        []).append(rec)
        print("round %d of %d done (%.0f s)" % (r + 1, a.runs,
                                                time.time() - t0),
              file=sys.stderr)

    def st(mode, name, prov, stg, field, scale=1.0):
        recs = [x for x in data.get((mode, name, prov, stg), []) if x]
        return results.stats(x.get(field) * scale for x in recs
                             if x.get(field) is not None)

    def total(mode, name, prov, stg, field):
        return sum(x.get(field, 0) for x in data.get((mode, name, prov, stg),
                                                      []) if x)

    header = ["audio", "provider", "staging", "paced batches/s (need)",
              "late / lost / damaged", "initiator CPU % of a core",
              "target CPU % of a core", "max batches/s"]
    rows = []
    for name, ch, samples, rate in media:
        for prov in providers:
            for stg in [x + mark for x in STAGING for mark, _ in builds]:
                k = (name, prov, stg)
                rows.append([
                    name, "`%s`" % prov, stg,
                    "%s (%d)" % (results.fmt_stat(
                        st("paced", *k, "msgs_per_s")), rate),
                    "%d / %d / %d" % (total("paced", *k, "late"),
                                      total("paced", *k, "superseded"),
                                      total("paced", *k, "damaged")),
                    results.fmt_stat(st("paced", *k, "cpu_cores_initiator",
                                        100.0)),
                    results.fmt_stat(st("paced", *k, "cpu_cores_target",
                                        100.0)),
                    results.fmt_stat(st("max", *k, "msgs_per_s"))
                    if a.max_duration > 0 else "–"])
    lines = results.preamble(sys.argv, a.runs, t0, mach) + [
        "Each cell: median [min–max] of %d runs; late / lost / damaged are "
        "totals over the runs (late: posted more than one period after its "
        "time; lost: overwritten in the target's bounce ring before it was "
        "read). staging on: the initiator packs each batch into one "
        "registered buffer and posts one write; off: the scatter-gather "
        "writes of docs/wire-format.md §4.3 (iov_limit 4: 3 writes for 8 channels, "
        "17 for 64). CPU: getrusage user + system of each process over its "
        "own wall time (first to last batch), 100 %% = one core."
        % a.runs, "",
        "Exact command lines of one run (media, provider and staging "
        "vary):", ""]
    for k in [m + mark for m in ("paced", "max") for mark, _ in builds]:
        if k in cmdlines:
            lines.append("    " + " ".join(shlex.quote(x)
                                           for x in cmdlines[k]))
    lines += ["", results.table(header, rows)]
    return results.publish(lines, a.note, errors, a.doc, "audio",
                           not a.no_doc)


if __name__ == "__main__":
    sys.exit(main())
