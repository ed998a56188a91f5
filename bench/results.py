#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Results helper of the benchmarks (Python 3 standard library only).

Repeated runs of one case are summarised as median [min-max]; ratios are
taken between medians of runs made side by side in the same invocation. A
driver builds a markdown section (machine description, exact command lines,
table) and replaces the part of docs/benchmarks.md between

    <!-- BEGIN bench:NAME -->  and  <!-- END bench:NAME -->

keeping the rest of the file (the section is appended if the markers are
missing).

Command line:
    results.py machine                      print the machine description
    results.py summarize FILE.jsonl KEY... --metric M [--metric M2]
        group JSON lines by the KEY fields, print median [min-max] of each
        metric as a markdown table
    results.py section NAME DOC < TEXT      replace section NAME of DOC
"""
import json
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import time


def stats(values):
    """(median, min, max) of the numbers in VALUES, None if there are none."""
    v = [x for x in values if x is not None]
    if not v:
        return None
    return (statistics.median(v), min(v), max(v))


def _num(x):
    a = abs(x)
    if a >= 100:
        return "%.0f" % x
    if a >= 10:
        return "%.1f" % x
    if a >= 1:
        return "%.2f" % x
    return "%.3g" % x


def fmt_stat(s, unit=""):
    """'median [min–max]' of a stats() triple, or 'n/a'."""
    if s is None:
        return "n/a"
    med, lo, hi = s
    return "%s%s [%s–%s]" % (_num(med), unit, _num(lo), _num(hi))


def ratio(a, b):
    """Ratio of two medians as text, 'n/a' if either is missing or b is 0."""
    if a is None or b is None or b[0] == 0:
        return "n/a"
    return "%.3g" % (a[0] / b[0])


def _run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def machine():
    """Dict describing this machine and the library versions in use."""
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kb = int(f.readline().split()[1])
            mem = "%.1f GiB" % (kb / 1024 / 1024)
    except (OSError, ValueError, IndexError):
        pass
    fi = _run(["pkg-config", "--modversion", "libfabric"])
    gst = _run(["pkg-config", "--modversion", "gstreamer-1.0"])
    return {
        "nproc": str(os.cpu_count()),
        "cpu": model or platform.processor(),
        "memory": mem,
        "kernel": platform.release(),
        "os": _os_name(),
        "libfabric": fi or "unknown",
        "gstreamer": gst or "unknown",
        "loadavg": " ".join(str(round(x, 2)) for x in os.getloadavg()),
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
    }


def _os_name():
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.system()


def machine_markdown(m, load_after=None):
    text = ("Machine: %s CPUs (%s), %s memory, %s, kernel %s; libfabric %s, "
            "GStreamer %s. Load average at start: %s"
            % (m["nproc"], m["cpu"], m["memory"], m["os"], m["kernel"],
               m["libfabric"], m["gstreamer"], m["loadavg"]))
    if load_after:
        text += ", at end: %s" % load_after
    return text + ". Measured %s." % m["date"]


def preamble(argv, runs, t0, mach):
    """First lines of a section: the exact command, the machine, the load."""
    cmd = " ".join(shlex.quote(x) for x in argv)
    load = " ".join(str(round(x, 2)) for x in os.getloadavg())
    return ["Command: `%s` (%d rounds, %.0f s in all)."
            % (cmd, runs, time.time() - t0), "",
            machine_markdown(mach, load), ""]


def table(header, rows):
    """Markdown table from a header list and rows of strings."""
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def replace_section(path, name, body):
    """Put BODY between the markers of section NAME in PATH."""
    begin = "<!-- BEGIN bench:%s -->" % name
    end = "<!-- END bench:%s -->" % name
    try:
        with open(path) as f:
            doc = f.read()
    except FileNotFoundError:
        doc = ""
    block = "%s\n%s\n%s" % (begin, body.strip("\n"), end)
    pat = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    if pat.search(doc):
        doc = pat.sub(lambda _m: block, doc, count=1)
    else:
        doc = doc.rstrip("\n") + "\n\n" + block + "\n"
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(doc)
    os.replace(tmp, path)


def publish(lines, note, errors, doc, section, write_doc=True):
    """Appends the note and the failed runs to LINES, prints the section
    and (WRITE_DOC) puts it into section SECTION of DOC. Returns the exit
    status of a driver: 1 when a run failed."""
    if note:
        lines = lines + ["", "Note: " + note]
    if errors:
        lines = lines + ["", "Failed runs (left out of the medians):", ""] + \
            ["- " + e for e in errors[:20]]
    body = "\n".join(lines)
    print(body)
    if write_doc:
        replace_section(os.path.abspath(doc), section, body)
        print("written to %s" % os.path.abspath(doc), file=sys.stderr)
    return 1 if errors else 0


def summarize(lines, keys, metrics):
    groups = {}
    for line in lines:
        line = line.strip()
        if not line.startswith("{"):
            continue
        rec = json.loads(line)
        k = tuple(str(rec.get(x, "")) for x in keys)
        groups.setdefault(k, []).append(rec)
    rows = []
    for k, recs in groups.items():
        rows.append(list(k) + ["%d" % len(recs)] +
                    [fmt_stat(stats(r.get(m) for r in recs)) for m in metrics])
    return table(list(keys) + ["runs"] + list(metrics), rows)


def main(argv):
    if len(argv) >= 2 and argv[1] == "machine":
        print(machine_markdown(machine()))
        return 0
    if len(argv) >= 4 and argv[1] == "summarize":
        keys, metrics, i = [], [], 3
        while i < len(argv):
            if argv[i] == "--metric" and i + 1 < len(argv):
                metrics.append(argv[i + 1])
                i += 2
            else:
                keys.append(argv[i])
                i += 1
        with open(argv[2]) as f:
            print(summarize(f, keys, metrics))
        return 0
    if len(argv) == 4 and argv[1] == "section":
        replace_section(argv[3], argv[2], sys.stdin.read())
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
