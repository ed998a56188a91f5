#!/bin/sh
# The main job: a receiver process (mxlfabricssrc: 1920x1080 v210 video and
# 8-channel 48 kHz float32 audio) and a sender process (mxl-fabrics-demo
# --role sender: a loop of 20 SMPTE-bars frames with a moving box and a
# counter, and a 440 Hz tone, rendered once at start and pushed at their
# MXL index times through appsrc into mxlfabricssink), the TargetInfos
# handed over as files (the src's target-info-file, the sink's @file), for
# --duration seconds; then the report (frames and audio verified bit-exact,
# drops, which side and stage kept up, throughput, latency, CPU; OK,
# DEGRADED or FAILED) and one received frame as PNG. Exits non-zero when
# anything sent was lost or corrupted. scripts/run.sh builds first and then
# runs this.
#
# Usage: sh scripts/demo.sh [--duration S] [--provider tcp|shm|verbs|efa]
#          [--node ADDR] [--fps 50|60] [--no-audio] [--out DIR] [--build DIR]
#        (--build defaults to $MXL_BUILD_DIR, else build)
#        sh scripts/demo.sh --two-host-receiver --node ADDR [--http-port P]
#          [options] (the TargetInfos served on http://ADDR:P/target-info
#          and P+1, default P 8410; docs/security.md)
#        sh scripts/demo.sh --two-host-sender --node ADDR \
#          --video-target-info URL --audio-target-info URL [options]
#          (or their @file, JSON or base64)
set -eu
cd "$(dirname "$0")/.."

duration=10
provider=tcp
node=
fps=50
audio=1
build=${MXL_BUILD_DIR:-build}   # --build, or this variable
out=
mode=local
video_ti=
audio_ti=
http_port=8410

usage() {
  sed -n '/^# Usage/,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration=$2; shift 2 ;;
    --provider) provider=$2; shift 2 ;;
    --node) node=$2; shift 2 ;;
    --fps) fps=$2; shift 2 ;;
    --no-audio) audio=0; shift ;;
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --two-host-receiver) mode=receiver; shift ;;
    --two-host-sender) mode=sender; shift ;;
    --video-target-info) video_ti=$2; shift 2 ;;
    --audio-target-info) audio_ti=$2; shift 2 ;;
    --http-port) http_port=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "demo.sh: unknown option $1" >&2; usage ;;
  esac
done

case "$provider" in
  tcp|shm|verbs|efa) ;;
  *) echo "demo.sh: --provider must be tcp, shm, verbs or efa" >&2; exit 2 ;;
esac
case "$duration" in
  ''|*[!0-9.]*) echo "demo.sh: --duration takes seconds" >&2; exit 2 ;;
esac
if [ "$provider" = tcp ] && [ -z "$node" ]; then
  if [ "$mode" = local ]; then node=127.0.0.1; else
    echo "demo.sh: two hosts need --node, this host's fabric address" >&2
    exit 2
  fi
fi
if [ "$provider" = verbs ] && [ -z "$node" ]; then
  echo "demo.sh: verbs needs --node (the RDMA interface's address; list" \
    "them with $build/src/tools/mxl-fabrics-interfaces)" >&2
  exit 2
fi

bin=$build/gst/demo/mxl-fabrics-demo
if [ ! -x "$bin" ]; then
  echo "demo.sh: $bin is not built; run sh scripts/run.sh" >&2
  exit 2
fi
[ -n "$out" ] || out=$build/demo-out
mkdir -p "$out"
out=$(cd "$out" && pwd)
GST_PLUGIN_PATH=$(cd "$build/gst" && pwd)
export GST_PLUGIN_PATH

set -- --provider "$provider" --fps "$fps"
[ -n "$node" ] && set -- "$@" --node "$node"
[ "$audio" = 1 ] || set -- "$@" --no-audio

rpid=
spid=
# Stops process $1 (started here) by PID: SIGINT, then SIGKILL after $2 s.
stop_pid() {
  [ -n "$1" ] || return 0
  kill -INT "$1" 2>/dev/null || return 0
  i=0
  while kill -0 "$1" 2>/dev/null && [ "$i" -lt $(( $2 * 10 )) ]; do
    sleep 0.1; i=$((i + 1))
  done
  if kill -0 "$1" 2>/dev/null; then
    echo "demo.sh: process $1 did not stop on SIGINT: killing it" >&2
    kill -KILL "$1" 2>/dev/null || true
  fi
  wait "$1" 2>/dev/null || true
}
cleanup() {
  stop_pid "$spid" 5
  stop_pid "$rpid" 5
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Like mxl-fabrics-demo, ignore the signals we do not use: dying on one
# would orphan the receiver and sender started here (a closed pipe makes
# the next write fail instead, and set -e then stops them via cleanup).
trap '' HUP USR1 USR2 PIPE ALRM

# Waits up to $1 s for process $2 to exit; its status in $status.
wait_exit() {
  i=0
  while kill -0 "$2" 2>/dev/null && [ "$i" -lt $(( $1 * 10 )) ]; do
    sleep 0.1; i=$((i + 1))
  done
  if kill -0 "$2" 2>/dev/null; then status=124; return; fi
  status=0
  wait "$2" || status=$?
}

start_receiver() {   # $1: idle stop seconds, $2: max seconds
  rm -f "$out/video-target.json" "$out/audio-target.json" \
    "$out/receiver.json" "$out/frame.png"
  "$bin" --role receiver "$@" --video-target-info "$out/video-target.json" \
    --audio-target-info "$out/audio-target.json" \
    --summary "$out/receiver.json" --png "$out/frame.png" \
    >"$out/receiver.log" 2>&1 &
  rpid=$!
  i=0
  while [ "$i" -lt 100 ]; do
    if [ -f "$out/video-target.json" ] &&
       { [ "$audio" = 0 ] || [ -f "$out/audio-target.json" ]; }; then
      return 0
    fi
    if ! kill -0 "$rpid" 2>/dev/null; then break; fi
    sleep 0.1; i=$((i + 1))
  done
  echo "demo.sh: the receiver did not publish its TargetInfo:" >&2
  cat "$out/receiver.log" >&2
  exit 1
}
recv_args() { receiver_args="$*"; }

report() {
  set +e
  "$bin" --role report --sender-summary "$out/sender.json" \
    --receiver-summary "$out/receiver.json"
  rc=$?
  set -e
  echo "  logs           $out/sender.log, $out/receiver.log; summaries" \
    "$out/sender.json, $out/receiver.json"
  return $rc
}

case "$mode" in
local)
  max=$(printf '%.0f' "$duration"); max=$((max + 60))
  start_receiver "$@" --max-seconds "$max"
  echo "demo: receiver pid $rpid listening ($provider${node:+ on $node})," \
    "TargetInfo in $out/video-target.json${audio:+}"
  set -- "$@" --duration "$duration" \
    --video-target-info "@$out/video-target.json"
  [ "$audio" = 1 ] && set -- "$@" --audio-target-info "@$out/audio-target.json"
  rm -f "$out/sender.json"
  "$bin" --role sender "$@" --summary "$out/sender.json" \
    >"$out/sender.log" 2>&1 &
  spid=$!
  echo "demo: sender pid $spid sending for $duration s ..."
  wait_exit $(( max + 20 )) "$spid"
  spid=
  sleep 0.5                        # the last grains land
  stop_pid "$rpid" 10
  rpid=
  if [ ! -f "$out/sender.json" ] || [ ! -f "$out/receiver.json" ]; then
    echo "demo.sh: a process wrote no summary; its log:" >&2
    tail -n 20 "$out/sender.log" "$out/receiver.log" >&2
    exit 1
  fi
  report
  ;;
receiver)
  max=$(printf '%.0f' "$duration"); max=$((max + 600))
  start_receiver "$@" --idle-stop 3 --max-seconds "$max" \
    --http-port "$http_port"
  host=${node:-127.0.0.1}
  echo "demo: receiver pid $rpid listening ($provider on $node) for up to" \
    "$max s; it stops 3 s after the data stops."
  echo "On the sending host, from a clone of this repository, run" \
    "(SENDER_ADDR: that host's address on this fabric):"
  echo
  printf '  sh scripts/run.sh --two-host-sender --provider %s --node SENDER_ADDR --duration %s --fps %s' \
    "$provider" "$duration" "$fps"
  [ "$audio" = 1 ] || printf ' --no-audio'
  printf ' \\\n    --video-target-info http://%s:%s/target-info' "$host" "$http_port"
  [ "$audio" = 1 ] &&
    printf ' --audio-target-info http://%s:%s/target-info' "$host" \
      "$((http_port + 1))"
  printf '\n\n'
  wait_exit "$max" "$rpid"
  rpid=
  echo "demo: receiver done, summary $out/receiver.json, frame $out/frame.png"
  echo "For the report, copy the sender's summary here and run:"
  echo "  $bin --role report --sender-summary sender.json" \
    "--receiver-summary $out/receiver.json"
  ;;
sender)
  if [ -z "$video_ti" ] || { [ "$audio" = 1 ] && [ -z "$audio_ti" ]; }; then
    echo "demo.sh: --two-host-sender needs the TargetInfos the receiver" \
      "printed (--video-target-info, --audio-target-info)" >&2
    exit 2
  fi
  set -- "$@" --duration "$duration" --video-target-info "$video_ti"
  [ "$audio" = 1 ] && set -- "$@" --audio-target-info "$audio_ti"
  "$bin" --role sender "$@" --summary "$out/sender.json"
  echo "demo: sent; summary $out/sender.json. Copy it to the receiving host" \
    "and run there the report command it printed."
  ;;
esac
