#!/bin/sh
# Peer loss between two gst-launch-1.0 processes over tcp on loopback
# (meson test peer-loss, suite hardening; TAP).
#  Phase 1: the sender (videotestsrc ! tee ! mxlfabricssink) is SIGKILLed
#    mid-stream and restarted CYCLES times; the receiver (mxlfabricssrc !
#    checksumsink) keeps running and must deliver frames again after each
#    restart without being restarted itself.
#  Phase 2: the receiver is SIGKILLed and restarted CYCLES times; each new
#    receiver publishes a new TargetInfo through the file, and the running
#    sink (target-info=@file) must reconnect on its own.
# Checks: the survivor posts mxl-fabrics-connection messages (>= 2 per
# cycle: the loss and the recovery), frames flow again after every restart (>= 5 new frames within
# 10 s), every received frame is byte-equal to a frame a sender produced
# (SHA-1 of each buffer on both sides, and of a reference run of the same
# pattern), the survivor's open file
# descriptors and threads (/proc/PID/fd, /proc/PID/task) are the same after
# the last recovery as after the first connection, and no /dev/shm entry of
# any of the processes remains at the end.
# CYCLES: first argument, default 10. Every wait is bounded.
set -u
CYCLES=${1:-10}
CAPS="video/x-raw,format=v210,width=320,height=180,framerate=50/1"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mxl-peerloss-XXXXXX")
all_pids=""
live=""
cleanup() {
  for p in $live; do kill -KILL "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() {
  n=$((n + 1)); fail=1; echo "not ok $n - $*"
  for f in "$tmp"/*.err; do [ -s "$f" ] && sed "s|^|# $(basename "$f"): |" "$f" | tail -n 8; done
}

start_rx() {  # $1: log name
  stdbuf -oL gst-launch-1.0 -m mxlfabricssrc provider=tcp node=127.0.0.1 \
    caps="$CAPS" target-info-file="$tmp/ti.json" ! checksumsink \
    >"$tmp/$1.log" 2>"$tmp/$1.err" &
  pid=$!
  all_pids="$all_pids $pid"; live="$live $pid"
}
start_tx() {
  stdbuf -oL gst-launch-1.0 -m videotestsrc is-live=true pattern=ball ! "$CAPS" ! \
    tee name=t ! queue ! checksumsink t. ! queue ! mxlfabricssink provider=tcp \
    node=127.0.0.1 target-info="@$tmp/ti.json" >"$tmp/$1.log" 2>"$tmp/$1.err" &
  pid=$!
  all_pids="$all_pids $pid"; live="$live $pid"
}
# The checksumsink lines ("H:MM:SS.NNNNNNNNN <sha1>") of a log; the rest
# are bus messages (gst-launch -m).
SUMRE='^[0-9]+:[0-9]{2}:[0-9]{2}\.[0-9]{9} [0-9a-f]{40}$'
sums() { grep -E "$SUMRE" "$@" | cut -d' ' -f2; }
# (0 while the log does not exist yet: a just-started gst-launch-1.0 may not
# have created it, and an empty count would end wait_lines at once)
nsums() { c=$(grep -c -E "$SUMRE" "$1" 2>/dev/null); echo "${c:-0}"; }
# wait_lines FILE COUNT: up to 10 s until FILE has COUNT checksum lines.
wait_lines() {
  i=0
  while [ "$(nsums "$1")" -lt "$2" ] && [ $i -lt 100 ]; do
    sleep 0.1; i=$((i + 1))
  done
  [ "$(nsums "$1")" -ge "$2" ]
}
# Connection messages the survivor posted on its bus.
nconn() { grep -c "mxl-fabrics-connection" "$1" || true; }
wait_file() {
  i=0
  while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  [ -s "$1" ]
}
counts() { echo "$(ls /proc/"$1"/fd | wc -l) fds, $(ls /proc/"$1"/task | wc -l) threads"; }
kill9() { kill -KILL "$1"; wait "$1" 2>/dev/null; }
stop() {  # graceful: SIGINT, then KILL after 5 s
  kill -INT "$1" 2>/dev/null
  i=0; while kill -0 "$1" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  kill -KILL "$1" 2>/dev/null; wait "$1" 2>/dev/null
}

t0=$(date +%s)
# ---- phase 1: sender loss, receiver survives
start_rx rx-p1; rx=$pid
wait_file "$tmp/ti.json" || { notok "receiver published no TargetInfo"; exit 1; }
start_tx tx-p1-0; tx=$pid
if wait_lines "$tmp/rx-p1.log" 10; then ok "phase 1: first frames received"
else notok "phase 1: no frames"; fi
before=$(counts "$rx")
recovered=0
for k in $(seq 1 "$CYCLES"); do
  kill9 "$tx"
  have=$(nsums "$tmp/rx-p1.log")
  start_tx "tx-p1-$k"; tx=$pid
  wait_lines "$tmp/rx-p1.log" $((have + 5)) && recovered=$((recovered + 1))
  kill -0 "$rx" 2>/dev/null || break
done
after=$(counts "$rx")
if [ $recovered -eq "$CYCLES" ] && kill -0 "$rx"; then
  ok "phase 1: receiver recovered after $recovered/$CYCLES sender SIGKILLs"
else notok "phase 1: recovered $recovered/$CYCLES"; fi
if [ "$before" = "$after" ]; then ok "phase 1: receiver $after before and after"
else notok "phase 1: receiver had $before, now $after"; fi
m=$(nconn "$tmp/rx-p1.log")
if [ "$m" -ge $((2 * CYCLES)) ]; then ok "phase 1: receiver posted $m mxl-fabrics-connection messages"
else notok "phase 1: receiver posted $m connection messages for $CYCLES losses"; fi
stop "$tx"; stop "$rx"; live=""

# ---- phase 2: receiver loss, sender survives
rm -f "$tmp/ti.json"
start_rx rx-p2-0; rx=$pid
wait_file "$tmp/ti.json" || { notok "receiver published no TargetInfo"; exit 1; }
start_tx tx-p2; tx=$pid
if wait_lines "$tmp/rx-p2-0.log" 10; then ok "phase 2: first frames received"
else notok "phase 2: no frames"; fi
before=$(counts "$tx")
recovered=0
for k in $(seq 1 "$CYCLES"); do
  kill9 "$rx"
  start_rx "rx-p2-$k"; rx=$pid
  wait_lines "$tmp/rx-p2-$k.log" 5 && recovered=$((recovered + 1))
  kill -0 "$tx" 2>/dev/null || break
done
# The sink may still hold the connection being replaced: let it settle.
sleep 0.5
after=$(counts "$tx")
if [ $recovered -eq "$CYCLES" ] && kill -0 "$tx"; then
  ok "phase 2: sender reconnected after $recovered/$CYCLES receiver SIGKILLs"
else notok "phase 2: recovered $recovered/$CYCLES"; fi
if [ "$before" = "$after" ]; then ok "phase 2: sender $after before and after"
else notok "phase 2: sender had $before, now $after"; fi
m=$(nconn "$tmp/tx-p2.log")
if [ "$m" -ge $((2 * CYCLES)) ]; then ok "phase 2: sender posted $m mxl-fabrics-connection messages"
else notok "phase 2: sender posted $m connection messages for $CYCLES losses"; fi
stop "$tx"; stop "$rx"; live=""

# ---- content and leftovers
# Every sender runs videotestsrc pattern=ball from frame 0, whose frames
# depend only on their number, so a non-live run of more frames than any
# sender logged gives every frame one could have sent. The senders' own
# logs are not enough: a SIGKILL can land after the mxlfabricssink branch
# of the tee sent a frame and before the checksumsink branch printed it.
most=0
for f in "$tmp"/tx-*.log; do c=$(nsums "$f"); [ "$c" -gt "$most" ] && most=$c; done
timeout 120 gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=$((most + 300)) ! \
  "$CAPS" ! checksumsink >"$tmp/ref.log" 2>"$tmp/ref.err"
sums -h "$tmp/ref.log" | sort -u >"$tmp/ref.sums"
sums -h "$tmp"/tx-*.log | sort -u >"$tmp/tx.sums"
unref=$(comm -23 "$tmp/tx.sums" "$tmp/ref.sums" | wc -l)
if [ "$(nsums "$tmp/ref.log")" -eq $((most + 300)) ] && [ "$unref" -eq 0 ]; then
  ok "the $((most + 300)) reference frames hold every frame the senders logged"
else notok "reference run: $(nsums "$tmp/ref.log") frames, $unref logged frames not in it"; fi
cat "$tmp/ref.sums" >>"$tmp/tx.sums"
sort -u -o "$tmp/tx.sums" "$tmp/tx.sums"
sums -h "$tmp"/rx-*.log | sort -u >"$tmp/rx.sums"
got=$(sums -h "$tmp"/rx-*.log | wc -l)
foreign=$(comm -23 "$tmp/rx.sums" "$tmp/tx.sums" | wc -l)
if [ "$foreign" -eq 0 ] && [ "$got" -gt 0 ]; then
  ok "all $got received frames equal frames a sender produced"
else notok "$foreign of the received checksums were never sent"; fi
left=""
for p in $all_pids; do
  left="$left$(ls /dev/shm | grep -E -- "^(mxl-private-|mxlfabrics-)$p-" || true)"
done
if [ -z "$left" ]; then ok "no /dev/shm entry of the $(echo $all_pids | wc -w) processes remains"
else notok "left in /dev/shm: $left"; fi
echo "# $(( $(date +%s) - t0 )) s for $CYCLES cycles per phase"
echo "1..$n"
exit $fail
