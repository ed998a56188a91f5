#!/bin/sh
# Start-up benchmark (issue 13 item 6): a sink started after its receiver
# listens, PLAYING -> first grain at the receiver, tcp and shm
# (bench/connect_start.c). With --baseline-build DIR, the same runs with
# DIR's plugin interleaved round by round: before/after of a change in one
# invocation.
#
#   sh bench/run-connect.sh --build-dir build [--baseline-build DIR]
#       [--rounds N] [--runs N] [--sink-props "prop=value ..."] [--backlog]
set -eu
build=build baseline= rounds=3 runs=7 props= backlog=
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build=$2; shift 2 ;;
    --baseline-build) baseline=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --sink-props) props=$2; shift 2 ;;
    --backlog) backlog=--backlog; shift ;;
    *) echo "usage: $0 --build-dir DIR [--baseline-build DIR] [--rounds N] [--runs N] [--sink-props P] [--backlog]" >&2
       exit 2 ;;
  esac
done
exe=$build/bench/bench-connect-start
[ -x "$exe" ] || { echo "$exe not built" >&2; exit 2; }
r=1
while [ "$r" -le "$rounds" ]; do
  for b in $baseline $build; do
    echo "== round $r, plugin of $b"
    GST_PLUGIN_PATH=$(cd "$b" && pwd)/gst timeout 300 "$exe" --runs "$runs" \
        --sink-props "$props" $backlog
  done
  r=$((r + 1))
done
