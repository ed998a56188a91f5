#!/usr/bin/env python3
"""Count meson test results from one or more meson-logs/testlog.json files
and print the closing line `N passed, N failed[, N skipped]`.

Exit status: 0 when nothing failed and at least one test ran, 1 otherwise.
"""
import json
import sys

OK = {"OK", "EXPECTEDFAIL"}
SKIP = {"SKIP"}

passed = failed = skipped = 0
failures = []
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
                    failures.append(f"{path}: {name}: {result}")
    except OSError as e:
        print(f"test-summary: cannot read {path}: {e}", file=sys.stderr)
        failed += 1

for f in failures:
    print(f"FAILED {f}")

line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
print(line)
sys.exit(0 if failed == 0 and passed > 0 else 1)
