#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The include direction of the fabrics engine's layers (issue 14).

Layers, lowest first:
  0 src/fabrics/ofi/       libfabric wrappers, provider table, addresses
  1 src/fabrics/wire/      TargetInfo, immediate data, layout, bounce entries
  2 src/fabrics/protocol/  transfer protocols, descriptor table, egress
  3 src/fabrics/           targets, initiators, progress, public API glue
                           (and any other folder of src/fabrics)
A .c or .h file of a layer may include headers of its own layer and the
layers below it, never one above. An include is resolved as the compiler
does: next to the including file first, then below src/ (the -I of
src/meson.build). Headers outside src/fabrics (GLib, libfabric, <mxl/...>,
src/flow) are not layers of the engine and are not checked here.

Usage: check-layers.py SRCDIR       check SRCDIR/fabrics (TAP, exit 1 on
                                    an upward include)
       check-layers.py --self-test  the checker finds an upward include,
                                    a relative one and a sibling one in a
                                    tree it writes to a temporary folder
"""
import os
import re
import sys
import tempfile

LAYERS = [("ofi", 0), ("wire", 1), ("protocol", 2)]
TOP = 3
NAMES = {0: "ofi", 1: "wire", 2: "protocol", 3: "fabrics (top)"}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')


def layer_of(fabrics_dir, path):
    """Layer of @path, or None when it is outside @fabrics_dir."""
    rel = os.path.relpath(os.path.normpath(path), fabrics_dir)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return None
    first = rel.split(os.sep)[0]
    for name, rank in LAYERS:
        if first == name:
            return rank
    return TOP


def resolve(src_dir, including, target):
    """Path the compiler would open for #include "target" in @including:
    the including file's folder first, then src/. A header that exists in
    neither is taken as below src/ (a layer folder not written yet still
    gets its rank)."""
    beside = os.path.join(os.path.dirname(including), target)
    if os.path.exists(beside):
        return beside
    return os.path.join(src_dir, target)


def check(src_dir):
    """Returns the list of (file, line number, text, from, to) violations
    and the number of files read."""
    fabrics_dir = os.path.join(src_dir, "fabrics")
    bad = []
    count = 0
    for root, dirs, files in os.walk(fabrics_dir):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(root, name)
            mine = layer_of(fabrics_dir, path)
            count += 1
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if m is None:
                        continue
                    theirs = layer_of(fabrics_dir,
                        resolve(src_dir, path, m.group(1)))
                    if theirs is not None and theirs > mine:
                        bad.append((os.path.relpath(path, src_dir), number,
                            line.strip(), mine, theirs))
    return bad, count


def report(src_dir):
    bad, count = check(src_dir)
    print("1..1")
    for path, number, text, mine, theirs in bad:
        print("# src/%s:%d: %s: %s includes %s, a layer above it"
              % (path, number, text, NAMES[mine], NAMES[theirs]))
    if count == 0:
        print("not ok 1 - no source file under %s/fabrics" % src_dir)
        return 1
    if bad:
        print("not ok 1 - %d upward include(s) in %d files" % (len(bad), count))
        return 1
    print("ok 1 - %d files of src/fabrics include only their layer and "
          "those below" % count)
    return 0


def self_test():
    cases = [
        # (file, its text, violations expected)
        ("fabrics/ofi/a.h", "#include <glib.h>\n", 0),
        ("fabrics/wire/b.h", '#include "fabrics/ofi/a.h"\n', 0),
        ("fabrics/target.h", '#include "fabrics/wire/b.h"\n', 0),
        ("fabrics/ofi/c.c", '#include "fabrics/wire/b.h"\n', 1),
        ("fabrics/wire/d.c", '#include "../target.h"\n', 1),
        ("fabrics/wire/e.c", ' #  include "fabrics/protocol/p.h"\n', 1),
        ("fabrics/ofi/f.c", '#include "a.h"\n#include "flow/x.h"\n', 0),
        ("fabrics/protocol/g.c", '#include <fabrics/target.h>\n', 1),
    ]
    print("1..%d" % (len(cases) + 1))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, text, want) in enumerate(cases, 1):
            path = os.path.join(tmp, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        bad, count = check(tmp)
        for i, (name, text, want) in enumerate(cases, 1):
            got = sum(1 for b in bad if b[0] == name)
            ok = got == want and count == len(cases)
            failed += not ok
            print("%s %d - %s: %d upward include(s), %d expected"
                  % ("ok" if ok else "not ok", i, name, got, want))
        ok = len(bad) == sum(c[2] for c in cases) and report_fails(tmp)
        failed += not ok
        print("%s %d - the report fails on that tree"
              % ("ok" if ok else "not ok", len(cases) + 1))
    return 1 if failed else 0


def report_fails(src_dir):
    saved = sys.stdout
    try:
        sys.stdout = open(os.devnull, "w")
        return report(src_dir) == 1
    finally:
        sys.stdout.close()
        sys.stdout = saved


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        sys.exit(self_test())
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(report(sys.argv[1]))
