#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""No test hook in the production build (issue 14).

The test hooks (src/fabrics/protocol/protocol_hooks.c), the raw test
requests (src/fabrics/initiator_raw.c) and the hooked twins of the posts
are compiled only into the test build (-DMXL_TEST_HOOKS, src/meson.build).
This reads, with nm, the shared library (its whole symbol table, static
functions included, and its dynamic one) and the static libraries it is
linked from, and fails on any symbol of a hook or any object of a hook
file.

Usage: check-no-hooks.py NM FILE...             check (TAP, exit 1 when a
                                                hook is in one of them)
       check-no-hooks.py --self-test NM ARCHIVE  the check finds the hooks
                                                in ARCHIVE (the test
                                                build's library, which has
                                                them)
"""
import os
import re
import subprocess
import sys

# The symbols of the test hooks: protocol_hooks.c's API and its static
# wrappers and state, the hooked twins of the posts (protocol_send.c,
# protocol_tagged.c), every test entry point (all named *_debug_*: fault
# injection, hook setters, the test getters of private state, the raw
# test requests), the raw requests' path (initiator.c, initiator_raw.c)
# and the settable staging budget of the sample source
# (protocol_samples.c; the shared library's is a constant).
HOOK_SYMBOLS = re.compile(
    r"^(mxl_hooks_\w*|hooked_\w*|\w*_hooked|masked_getinfo|hook_ops"
    r"|\w*_debug_\w*|\w*queue_one\w*|queue_raw_\w*|staging_budget)$")

# Objects of files that are the test build's only (meson's member names).
HOOK_OBJECTS = {"fabrics_protocol_protocol_hooks.c.o", "fabrics_initiator_raw.c.o"}

# What the self-test must find in the test build's library.
EXPECTED = {"mxl_hooks_conn_post", "mxl_hooks_getinfo", "mxl_hooks_completion_fault",
            "mxl_send_post_hooked", "mxl_tagged_post_hooked",
            "mxl_initiator_debug_inject", "mxl_setup_debug_mask_caps",
            "mxl_initiator_debug_post_raw", "mxl_initiator_queue_one",
            "mxl_samples_debug_initiator_ring", "mxl_samples_debug_staging",
            "mxl_samples_debug_staged", "mxl_samples_debug_target_ring",
            "mxl_samples_debug_set_staging_budget", "staging_budget",
            "mxl_tagged_debug_pieces", "mxl_grain_stage_debug_allocated"}


def nm_lines(nm, path, dynamic=False):
    """`nm -A` output of @path ([] when it has no such symbol table)."""
    args = [nm, "-A"] + (["-D"] if dynamic else []) + [path]
    out = subprocess.run(args, capture_output=True, text=True)
    return out.stdout.splitlines()


def hooks_in(lines):
    """(object or file, symbol) of every hook defined (not only needed) in
    `nm -A` @lines, and the hook objects seen."""
    found, objects = set(), set()
    for line in lines:
        fields = line.split()
        if len(fields) < 3:
            continue
        # 'file:[member.o:]value' (the value is absent for U)
        parts = fields[0].split(":")
        members = [m for m in parts if m.endswith(".o")]
        where = os.path.basename(members[-1] if members else parts[0])
        if where in HOOK_OBJECTS:
            objects.add(where)
        if fields[-2] != "U" and HOOK_SYMBOLS.match(fields[-1]):
            found.add((where, fields[-1]))
    return found, objects


def scan(nm, path):
    """Hooks and hook objects of @path, and how many symbols nm read."""
    lines = nm_lines(nm, path)
    if path.endswith(".so") or ".so." in path:
        lines += nm_lines(nm, path, dynamic=True)
    found, objects = hooks_in(lines)
    return found, objects, len(lines)


def check(nm, paths):
    print("1..%d" % len(paths))
    status = 0
    for i, path in enumerate(paths, 1):
        found, objects, count = scan(nm, path)
        name = os.path.basename(path)
        for where, symbol in sorted(found):
            print("# %s: %s defines %s" % (name, where, symbol))
        for obj in sorted(objects):
            print("# %s: holds %s" % (name, obj))
        if count == 0:
            print("not ok %d - %s: nm read no symbol" % (i, name))
            status = 1
        elif found or objects:
            print("not ok %d - %s: %d test hook symbol(s), %d hook object(s)"
                  % (i, name, len(found), len(objects)))
            status = 1
        else:
            print("ok %d - %s: %d symbols, no test hook" % (i, name, count))
    return status


def self_test(nm, archive):
    found, objects, _ = scan(nm, archive)
    symbols = {symbol for _, symbol in found}
    missing = EXPECTED - symbols
    print("1..2")
    for symbol in sorted(missing):
        print("# not found: %s" % symbol)
    print("%s 1 - the hooks linked into %s are found (%d symbols)"
          % ("not ok" if missing else "ok", os.path.basename(archive), len(symbols)))
    ok = objects == HOOK_OBJECTS
    print("%s 2 - its hook objects are found: %s"
          % ("ok" if ok else "not ok", ", ".join(sorted(objects)) or "none"))
    return 0 if not missing and ok else 1


def main(argv):
    if len(argv) == 4 and argv[1] == "--self-test":
        return self_test(argv[2], argv[3])
    if len(argv) < 3 or argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    return check(argv[1], argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
