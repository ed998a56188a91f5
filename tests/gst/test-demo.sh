#!/bin/sh
# README's main job, scripts/demo.sh, over $1 (tcp or shm) for 3 s on this
# host: it must exit 0 with a report whose video and audio counts agree,
# every received frame equal to the pre-rendered loop frame of its index,
# and a 1920x1080 PNG. The result may be OK or DEGRADED (a loaded machine
# may fall behind: that is a timing, not asserted), never FAILED.
# Then once more with one stage slowed on purpose (MXL_DEMO_SLOW): tcp
# slows the sender's producer, shm the receiver's consumer; the report
# must name that side and stage in its result line, with the counts that
# show it.
# TAP output. Usage: test-demo.sh PROVIDER SRCDIR BUILDDIR
set -u
provider=$1 src=$2 build=$3
out=$(mktemp -d "${TMPDIR:-/tmp}/mxl-demo-test-XXXXXX")
trap 'rm -rf "$out"' EXIT
echo "1..10"
n=1
ok() { if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; n=$((n + 1)); }

# run DIR [ENV...]: the demo for 3 s into DIR, its report in DIR/report.txt
run() {
  d=$1; shift
  mkdir -p "$d"
  env "$@" timeout -k 10 120 sh "$src/scripts/demo.sh" --build "$build" \
    --out "$d" --provider "$provider" --duration 3 >"$d/report.txt" 2>&1
  rc=$?
  sed 's/^/# /' "$d/report.txt"
}
# numbers LINE: the numbers of a report line, in order
numbers() { echo "$1" | sed 's/[^0-9 ]//g'; }

run "$out/plain"
r=$out/plain/report.txt
ok "$rc" "demo.sh --provider $provider exits 0 (got $rc)"
grep -Eq '^  result         (OK|DEGRADED \([a-z ;]+\)):' "$r"
ok $? "report says OK or DEGRADED with its stage"
# video: received = verified > 0, corrupted 0, and no frame lost without a
# counted cause (a loaded machine may drop frames; each is counted, none is
# delivered damaged)
line=$(grep '^  video frames' "$r")
set -- $(numbers "$line")
received=${2:-0}
[ "$#" -ge 5 ] && [ "$2" -gt 0 ] && [ "$2" = "$3" ] \
  && echo "$line" | grep -q 'corrupted 0, lost 0'
ok $? "every video frame received was verified, none corrupted or lost without a cause: $line"
line=$(grep '^  content' "$r")
set -- $(numbers "$line")
[ "$#" -ge 2 ] && [ "$1" = "$received" ] && [ "$2" = "$received" ]
ok $? "each received frame is the loop frame of its index: $line"
line=$(grep '^  audio batches' "$r")
echo "$line" | grep -Eq 'verified sample-exact [1-9][0-9]* of [0-9]+, corrupted 0'
ok $? "audio blocks verified sample-exact, none corrupted: $line"
png=$(sed -n 's/^  png            \([^ ]*\) .*/\1/p' "$r")
# PNG signature, then IHDR width and height (big-endian) = 1920 x 1080
sig=$(od -An -tx1 -N8 "$png" 2>/dev/null | tr -d ' \n')
wh=$(od -An -tx1 -j16 -N8 "$png" 2>/dev/null | tr -d ' \n')
[ "$sig" = 89504e470d0a1a0a ] && [ "$wh" = 0000078000000438 ]
ok $? "a 1920x1080 PNG was saved ($png)"

# slowed WHAT ENV RESULT: a run with ENV, exit 0, result line matching RESULT
slowed() {
  run "$out/slow" "$2"
  r=$out/slow/report.txt
  ok "$rc" "$1: demo.sh exits 0 (got $rc)"
  grep -Eq "^  result         DEGRADED \\(.*$3" "$r"
  ok $? "$1: the result names $3"
}
# A 20 ms period at 50 fps. The producer takes 60 ms a frame: past the
# 40 ms after its time at which the sender's sink renders it (the appsrc's
# one period of latency + the sink's 20 ms processing deadline). The
# consumer takes 40 ms a frame: twice the period.
if [ "$provider" = tcp ]; then
  slowed "slow producer" MXL_DEMO_SLOW=produce:60 "sender could not produce frames in time"
  # every frame it produced is late; the indices that passed meanwhile
  # were not produced
  sent=$(numbers "$(grep '^  video frames' "$r")" | awk '{print $1}')
  set -- $(numbers "$(grep '^  keeping up' "$r")")
  [ "$#" -ge 3 ] && [ "${sent:-0}" -gt 0 ] && [ "$1" -ge "$sent" ] && [ "$2" -gt 0 ]
  ok $? "slow producer: late ${1:-?} >= sent ${sent:-?}, not produced ${2:-?} > 0"
else
  slowed "slow consumer" MXL_DEMO_SLOW=consume:40 "receiver could not receive and consume frames in time"
  # every received frame was handled too slowly, and the receiver dropped
  # the frames it could not take
  received=$(numbers "$(grep '^  video frames' "$r")" | awk '{print $2}')
  set -- $(numbers "$(grep '^                 receiver, receiving' "$r")")
  [ "$#" -ge 2 ] && [ "${received:-0}" -gt 0 ] && [ "$1" -gt 0 ] && [ "$2" -ge "$received" ]
  ok $? "slow consumer: dropped ${1:-?} > 0, handled too slowly ${2:-?} >= received ${received:-?}"
fi
grep -q '^  result         FAILED' "$r"
[ $? = 1 ]
ok $? "slowed run: nothing corrupted or lost without a cause"
