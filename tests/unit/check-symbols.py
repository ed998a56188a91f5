#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The call direction of the fabrics engine's layers (issue 14).

check-layers.py keeps the includes going downward; this keeps the calls
(and every other symbol reference) going downward too. It reads the
object files of the internal static library with nm: a symbol an object
of one layer needs (nm type U) must not be defined by an object of a
layer above it. The layers are those of check-layers.py:
  0 src/fabrics/ofi/   1 src/fabrics/wire/   2 src/fabrics/protocol/
  3 src/fabrics/ (and any other folder of src/fabrics)
Objects of files outside src/fabrics (src/flow) are not layers of the
engine and are not checked. The engine reaches the protocol layer's way
up only through the ops table it hands down at setup (MxlEngineOps,
src/fabrics/protocol/initiator-state.h), which nm does not see as a
reference.

An object's member name is its source path below src/ with '/' replaced
by '_' (meson's naming, e.g. fabrics_protocol_protocol_egress.c.o); the
source tree decides which file, and so which layer, it is.

Usage: check-symbols.py NM ARCHIVE SRCDIR   check (TAP, exit 1 on an
                                            upward reference)
       check-symbols.py --self-test         the checker finds upward
                                            references in nm output it
                                            is given
"""
import importlib.util
import os
import subprocess
import sys

# The layers themselves are check-layers.py's (one table for both checks).
_spec = importlib.util.spec_from_file_location(
    "check_layers", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                 "check-layers.py"))
_layers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_layers)
LAYERS, TOP, NAMES = _layers.LAYERS, _layers.TOP, _layers.NAMES


def layer_of_source(rel):
    """Layer of source @rel (a path below src/), None outside fabrics/."""
    parts = rel.split("/")
    if parts[0] != "fabrics" or len(parts) < 2:
        return None
    for name, rank in LAYERS:
        if len(parts) > 2 and parts[1] == name:
            return rank
    return TOP


def object_layers(src_dir):
    """Member name (meson's mangled source path + '.o') -> (source, layer)
    for every .c file below @src_dir/fabrics."""
    out = {}
    for root, dirs, files in os.walk(os.path.join(src_dir, "fabrics")):
        for name in files:
            if not name.endswith(".c"):
                continue
            rel = os.path.relpath(os.path.join(root, name), src_dir)
            rel = rel.replace(os.sep, "/")
            out[rel.replace("/", "_") + ".o"] = (rel, layer_of_source(rel))
    return out


def parse_nm(lines):
    """(member, type, symbol) of `nm -A` output lines: 'archive:member:
    [value] T symbol' (the member may be a path: its base name is kept)."""
    for line in lines:
        fields = line.split()
        if len(fields) < 3:
            continue
        members = [m for m in fields[0].split(":") if m.endswith(".o")]
        if not members:
            continue
        yield os.path.basename(members[-1]), fields[-2], fields[-1]


def check(lines, layers):
    """(source, symbol, its layer, the definer's source, its layer) of every
    upward reference, and the number of engine objects seen."""
    defined, needed, seen = {}, [], set()
    for member, kind, symbol in parse_nm(lines):
        if member not in layers or layers[member][1] is None:
            continue
        seen.add(member)
        if kind == "U":
            needed.append((member, symbol))
        elif kind.isupper() or kind in "bdrv":
            defined.setdefault(symbol, member)
    bad = []
    for member, symbol in needed:
        owner = defined.get(symbol)
        if owner is None:
            continue
        mine, theirs = layers[member][1], layers[owner][1]
        if theirs > mine:
            bad.append((layers[member][0], symbol, mine, layers[owner][0], theirs))
    return sorted(set(bad)), len(seen)


def report(nm, archive, src_dir):
    lines = subprocess.run([nm, "-A", archive], check=True, capture_output=True,
        text=True).stdout.splitlines()
    bad, count = check(lines, object_layers(src_dir))
    print("1..1")
    for path, symbol, mine, owner, theirs in bad:
        print("# src/%s (%s) uses %s, defined by src/%s (%s), a layer above it"
              % (path, NAMES[mine], symbol, owner, NAMES[theirs]))
    if count == 0:
        print("not ok 1 - no object of src/fabrics in %s" % archive)
        return 1
    if bad:
        print("not ok 1 - %d upward reference(s) among %d objects"
              % (len(bad), count))
        return 1
    print("ok 1 - %d objects of src/fabrics reference only their layer and "
          "those below" % count)
    return 0


def self_test():
    layers = {
        "fabrics_ofi_a.c.o": ("fabrics/ofi/a.c", 0),
        "fabrics_wire_b.c.o": ("fabrics/wire/b.c", 1),
        "fabrics_protocol_c.c.o": ("fabrics/protocol/c.c", 2),
        "fabrics_d.c.o": ("fabrics/d.c", 3),
        "flow_e.c.o": ("flow/e.c", None),
    }
    p = "lib.a:lib.a.p/"
    cases = [
        # (nm lines, upward references expected)
        ([p + "fabrics_d.c.o: U c_fn", p + "fabrics_protocol_c.c.o:0000 T c_fn"], 0),
        ([p + "fabrics_protocol_c.c.o: U d_fn", p + "fabrics_d.c.o:0010 T d_fn"], 1),
        ([p + "fabrics_ofi_a.c.o: U b_fn", p + "fabrics_wire_b.c.o:0000 T b_fn",
          p + "fabrics_wire_b.c.o: U d_var", p + "fabrics_d.c.o:0000 D d_var"], 2),
        ([p + "fabrics_ofi_a.c.o: U e_fn", p + "flow_e.c.o:0000 T e_fn",
          p + "fabrics_ofi_a.c.o: U g_free"], 0),
        (["fabrics_wire_b.c.o: U r_tab", "fabrics_protocol_c.c.o:0000 R r_tab"], 1),
    ]
    print("1..%d" % (len(cases) + 1))
    failed = 0
    for i, (lines, want) in enumerate(cases, 1):
        bad, count = check(lines, layers)
        ok = len(bad) == want and count > 0
        failed += not ok
        print("%s %d - %d upward reference(s), %d expected"
              % ("ok" if ok else "not ok", i, len(bad), want))
    names = object_layers(os.path.join(os.path.dirname(os.path.abspath(__file__)),
        os.pardir, os.pardir, "src"))
    ok = (names.get("fabrics_protocol_protocol_egress.c.o", (None, None))[1] == 2
          and names.get("fabrics_initiator.c.o", (None, None))[1] == TOP)
    failed += not ok
    print("%s %d - the source tree maps objects to their layers"
          % ("ok" if ok else "not ok", len(cases) + 1))
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        sys.exit(self_test())
    if len(sys.argv) != 4:
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(report(sys.argv[1], sys.argv[2], sys.argv[3]))
