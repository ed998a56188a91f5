#!/usr/bin/env python3
"""Count meson test results from one or more meson-logs/testlog.json files
and print the closing line `N passed, N failed[, N skipped]`.

For every failed test it first prints the last lines of that test's output
(TAP "not ok" lines and the diagnostics after them come first), so a CI log
that keeps only its tail still says why.

Exit status: 0 when nothing failed and at least one test ran, 1 otherwise.
"""
import json
import sys

OK = {"OK", "EXPECTEDFAIL"}
SKIP = {"SKIP"}

passed = failed = skipped = 0
failures = []
TAIL = 40


def tail_of(entry):
    """The failing TAP lines and their diagnostics, else the output's end."""
    lines = (entry.get("stdout") or "").splitlines()
    keep = []
    for i, text in enumerate(lines):
        if text.startswith("not ok"):
            keep.append(text)
            j = i + 1
            while j < len(lines) and lines[j].startswith("#") and len(keep) < TAIL:
                keep.append(lines[j])
                j += 1
    if not keep:
        keep = lines[-TAIL:]
    return keep[:TAIL]


for path in sys.argv[1:]:
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                entry = json.loads(line)
                result = entry.get("result", "")
                name = entry.get("name", "?")
                if result in OK:
                    passed += 1
                elif result in SKIP:
                    skipped += 1
                else:
                    failed += 1
                    failures.append((f"{path}: {name}: {result}", tail_of(entry)))
    except OSError as e:
        print(f"test-summary: cannot read {path}: {e}", file=sys.stderr)
        failed += 1

for what, lines in failures:
    print(f"--- output of {what} (end) ---")
    for text in lines:
        print(f"    {text}")
for what, _ in failures:
    print(f"FAILED {what}")

line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
print(line)
sys.exit(0 if failed == 0 and passed > 0 else 1)
