#!/bin/sh
# README's main job, scripts/demo.sh, over $1 (tcp or shm) for 3 s on this
# host: it must exit 0 with a report whose video and audio counts agree,
# and a 1920x1080 PNG. TAP output. Usage: test-demo.sh PROVIDER SRCDIR BUILDDIR
set -u
provider=$1 src=$2 build=$3
out=$(mktemp -d "${TMPDIR:-/tmp}/mxl-demo-test-XXXXXX")
trap 'rm -rf "$out"' EXIT
echo "1..5"
timeout -k 10 120 sh "$src/scripts/demo.sh" --build "$build" --out "$out" \
  --provider "$provider" --duration 3 >"$out/report.txt" 2>&1
rc=$?
sed 's/^/# /' "$out/report.txt"
n=1
ok() { if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; n=$((n + 1)); }
ok "$rc" "demo.sh --provider $provider exits 0 (got $rc)"
grep -q '^  result         OK' "$out/report.txt"; ok $? "report says OK"
# video: received = verified > 0, corrupted 0, and no frame lost without a
# counted cause (a loaded machine may drop frames; each is counted, none is
# delivered damaged)
line=$(grep '^  video frames' "$out/report.txt")
set -- $(echo "$line" | sed 's/[^0-9 ]//g')
[ "$#" -ge 5 ] && [ "$2" -gt 0 ] && [ "$2" = "$3" ] \
  && echo "$line" | grep -q 'corrupted 0, lost 0'
ok $? "every video frame received was verified, none corrupted or lost without a cause: $line"
line=$(grep '^  audio batches' "$out/report.txt")
echo "$line" | grep -Eq 'verified sample-exact [1-9][0-9]* of [0-9]+, corrupted 0'
ok $? "audio blocks verified sample-exact, none corrupted: $line"
png=$(sed -n 's/^  png            \([^ ]*\) .*/\1/p' "$out/report.txt")
# PNG signature, then IHDR width and height (big-endian) = 1920 x 1080
sig=$(od -An -tx1 -N8 "$png" 2>/dev/null | tr -d ' \n')
wh=$(od -An -tx1 -j16 -N8 "$png" 2>/dev/null | tr -d ' \n')
[ "$sig" = 89504e470d0a1a0a ] && [ "$wh" = 0000078000000438 ]
ok $? "a 1920x1080 PNG was saved ($png)"
