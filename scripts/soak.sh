#!/bin/sh
# Soak test (on demand, not in CI): 1080p50 v210 video -- and 8-channel
# 48 kHz float audio when the elements carry audio -- from mxlfabricssink to
# mxlfabricssrc over tcp on loopback for a given time, sampling every 10 s:
# resident memory and open fds of the four processes, frames/buffers sent
# (tee'd before the sink) and received.
#   scripts/soak.sh [SECONDS] [BUILD_DIR]      (default 600 s, build/)
# Fails when:
#   - a process's RSS grows by more than SOAK_RSS_GROWTH_KB (default 16384)
#     between the sample at 30 s (warmed up) and the end,
#   - its fd count changes after the 30 s sample,
#   - received falls behind sent by more than SOAK_SLACK_MS (default 300)
#     milliseconds of media (15 video frames at 50 fps, 30 audio batches of
#     10 ms: what is in flight between the two counters) at two samples in
#     a row: a receiver that a loaded machine stalls for a moment catches
#     up by the next sample, a dropped buffer never does (drops; a live source that runs late is not a
#     drop: only what reached the sink counts as sent),
#   - a process dies or posts an ERROR.
# Results go to stdout as one line per sample and a closing verdict line.
set -u
cd "$(dirname "$0")/.."
dur=${1:-600}
build=${2:-build}
slack_ms=${SOAK_SLACK_MS:-300}
vslack=$((slack_ms / 20))   # 1080p50: 20 ms per frame
aslack=$((slack_ms / 10))   # samplesperbuffer=480 at 48 kHz: 10 ms per batch
growth=${SOAK_RSS_GROWTH_KB:-16384}
VCAPS="video/x-raw,format=v210,width=1920,height=1080,framerate=50/1"
ACAPS="audio/x-raw,format=F32LE,layout=interleaved,rate=48000,channels=8"
GST_PLUGIN_PATH="$(pwd)/$build/gst"
GST_REGISTRY_1_0="$(pwd)/$build/soak-registry.bin"
export GST_PLUGIN_PATH GST_REGISTRY_1_0
[ -f "$build/gst/libgstmxlfabrics.so" ] || { echo "soak: build $build first"; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mxl-soak-XXXXXX")
pids=""
cleanup() { for p in $pids; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT

# start NAME COMMAND...: background, -v output (fakesink chain lines) to $tmp/NAME.log
start() {
  name=$1; shift
  gst-launch-1.0 -v "$@" >"$tmp/$name.log" 2>"$tmp/$name.err" &
  eval "pid_$name=$!"
  pids="$pids $!"
}
chains() { grep -c "^/GstPipeline:pipeline0/GstFakeSink:$2: last-message = chain" "$tmp/$1.log" 2>/dev/null || true; }
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }

start vrx mxlfabricssrc provider=tcp node=127.0.0.1 caps="$VCAPS" \
  target-info-file="$tmp/v.json" ! fakesink name=out silent=false
i=0; while [ ! -s "$tmp/v.json" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
start vtx videotestsrc is-live=true pattern=smpte ! "$VCAPS" ! tee name=t ! queue ! \
  fakesink name=sent silent=false t. ! queue ! mxlfabricssink provider=tcp \
  node=127.0.0.1 target-info="@$tmp/v.json"

# Audio when the src accepts audio caps (the elements' audio support).
audio=0
start arx mxlfabricssrc provider=tcp node=127.0.0.1 \
  caps="audio/x-raw,format=F32LE,layout=non-interleaved,rate=48000,channels=8" \
  target-info-file="$tmp/a.json" ! fakesink name=out silent=false
i=0; while [ ! -s "$tmp/a.json" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
# shellcheck disable=SC2154
if [ -s "$tmp/a.json" ] && kill -0 "$pid_arx" 2>/dev/null; then
  start atx audiotestsrc is-live=true samplesperbuffer=480 ! "$ACAPS" ! tee name=t ! \
    queue ! fakesink name=sent silent=false t. ! queue ! mxlfabricssink \
    provider=tcp node=127.0.0.1 target-info="@$tmp/a.json"
  audio=1
else
  echo "# audio: mxlfabricssrc does not start with 8-channel audio caps here" \
    "($(grep -m1 ERROR "$tmp/arx.log" "$tmp/arx.err" | cut -c1-160)); video only"
  kill -KILL "$pid_arx" 2>/dev/null
fi
procs="vrx vtx"
[ $audio = 1 ] && procs="$procs arx atx"

fail=""
t=0
vlate=0 alate=0 vmax=0 amax=0
echo "# t(s) video sent/received, audio sent/received, RSS kB and fds per process ($procs)"
while [ $t -lt "$dur" ]; do
  sleep 10; t=$((t + 10))
  line="t=$t video $(chains vtx sent)/$(chains vrx out)"
  [ $audio = 1 ] && line="$line audio $(chains atx sent)/$(chains arx out)"
  for p in $procs; do
    eval "pid=\$pid_$p"
    if ! kill -0 "$pid" 2>/dev/null; then fail="$fail $p died at $t s;"; continue; fi
    r=$(rss "$pid"); f=$(fds "$pid")
    line="$line $p=${r}kB/${f}fd"
    if [ $t -eq 30 ]; then eval "rss0_$p=$r fds0_$p=$f"; fi
    if [ $t -gt 30 ]; then
      eval "r0=\$rss0_$p f0=\$fds0_$p"
      [ $((r - r0)) -gt "$growth" ] && fail="$fail $p RSS +$((r - r0)) kB at $t s;"
      [ "$f" != "$f0" ] && fail="$fail $p fds $f0 -> $f at $t s;"
    fi
  done
  behind=$(( $(chains vtx sent) - $(chains vrx out) ))
  [ $behind -gt "$vmax" ] && vmax=$behind
  if [ $behind -gt "$vslack" ]; then
    [ "$vlate" = 1 ] && fail="$fail video behind by $behind at $t s (and at the sample before);"
    vlate=1
  else
    vlate=0
  fi
  if [ $audio = 1 ]; then
    behind=$(( $(chains atx sent) - $(chains arx out) ))
    [ $behind -gt "$amax" ] && amax=$behind
    if [ $behind -gt "$aslack" ]; then
      [ "$alate" = 1 ] && fail="$fail audio behind by $behind at $t s (and at the sample before);"
      alate=1
    else
      alate=0
    fi
  fi
  echo "$line"
  [ -n "$fail" ] && break
done
for p in $procs; do
  grep -h "^ERROR" "$tmp/$p.log" "$tmp/$p.err" | head -n 3 | sed "s/^/# $p: /"
  grep -q "^ERROR" "$tmp/$p.log" "$tmp/$p.err" && fail="$fail $p posted an ERROR;"
done
if [ -n "$fail" ]; then
  echo "soak FAILED after $t s:$fail"
  exit 1
fi
echo "soak passed: $t s, video $(chains vtx sent) sent / $(chains vrx out) received (at most $vmax behind at a sample)$( [ $audio = 1 ] && echo ", audio $(chains atx sent) / $(chains arx out) (at most $amax behind)")"
