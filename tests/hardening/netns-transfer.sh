#!/bin/sh
# Across hosts: two network namespaces joined by a veth pair carry a tcp
# transfer from mxlfabricssink (namespace A) to mxlfabricssrc (namespace
# B), with per-frame SHA-1 checksums (meson test netns-transfer, suite
# hardening; TAP). Needs root and CONFIG_NET_NS/CONFIG_VETH; skipped with
# the reason otherwise. Addresses 10.251.N.1/.2 exist only inside the two
# namespaces, which are deleted at the end (ip netns del), also on failure.
# Checks: the receiver gets 40 frames and every one of them is byte-equal
# to a frame the sender produced (checksum in the sender's set), the
# the veth of B received at least the bytes of those frames.
# With the argument "http" (meson test netns-http) the sender is given only
# the receiver's URL, http://10.251.N.2:8410/target-info (mxlfabricssrc
# http-address, http-port), and fetches its TargetInfo across the veth;
# curl from A gets the same document, and B's own loopback does not answer
# (the endpoint is bound to the veth address only).
set -u
mode=${1:-file}
CAPS="video/x-raw,format=v210,width=320,height=180,framerate=50/1"
N_RX=40
net=$(( ($$ % 150) + 100 ))
A="mxlh-a-$$"
B="mxlh-b-$$"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mxl-netns-XXXXXX")
pids=""
cleanup() {
  for p in $pids; do kill -KILL "$p" 2>/dev/null; done
  ip netns del "$A" 2>/dev/null
  ip netns del "$B" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null \
    || ! ip netns add "$A" 2>/dev/null; then
  echo "1..0 # SKIP network namespaces need root and iproute2 (ip netns add failed)"
  exit 0
fi
if ! { ip netns add "$B" && ip link add "va$$" type veth peer name "vb$$" &&
    ip link set "va$$" netns "$A" && ip link set "vb$$" netns "$B" &&
    ip -n "$A" addr add "10.251.$net.1/24" dev "va$$" &&
    ip -n "$B" addr add "10.251.$net.2/24" dev "vb$$" &&
    ip -n "$A" link set "va$$" up && ip -n "$B" link set "vb$$" up &&
    ip -n "$A" link set lo up && ip -n "$B" link set lo up; } 2>"$tmp/ip.log"; then
  echo "1..0 # SKIP cannot build the veth pair: $(head -n1 "$tmp/ip.log")"
  exit 0
fi
echo "# namespaces $A (10.251.$net.1) and $B (10.251.$net.2)"

url="http://10.251.$net.2:8410/target-info"
http=""
ti="@$tmp/ti.json"
if [ "$mode" = http ]; then
  http="http-address=10.251.$net.2 http-port=8410"
  ti=$url
fi
# Receiver in B: N_RX buffers then EOS (basesrc num-buffers).
# shellcheck disable=SC2086
ip netns exec "$B" timeout 60 gst-launch-1.0 -q mxlfabricssrc provider=tcp \
  node="10.251.$net.2" service=5601 caps="$CAPS" num-buffers=$N_RX $http \
  target-info-file="$tmp/ti.json" ! checksumsink >"$tmp/rx.log" 2>"$tmp/rx.err" &
rx=$!
pids="$rx"
i=0
while [ ! -s "$tmp/ti.json" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if [ "$mode" = http ]; then
  ip netns exec "$A" curl -s --max-time 5 "$url" >"$tmp/fetched.json"
  ip netns exec "$B" curl -s --max-time 2 "http://127.0.0.1:8410/target-info" \
    >/dev/null 2>&1
  loopback_rc=$?
fi
# Sender in A: a live pattern, tee'd into a checksum log before the sink.
ip netns exec "$A" timeout 60 stdbuf -oL gst-launch-1.0 -q videotestsrc is-live=true \
  pattern=ball num-buffers=1000 ! "$CAPS" ! tee name=t ! queue ! checksumsink \
  t. ! queue ! mxlfabricssink provider=tcp node="10.251.$net.1" \
  target-info="$ti" >"$tmp/tx.log" 2>"$tmp/tx.err" &
tx=$!
pids="$rx $tx"

n=0
fail=0
check() {
  n=$((n + 1))
  if eval "$2"; then echo "ok $n - $1"; else fail=1; echo "not ok $n - $1"
    for f in rx.err tx.err; do sed "s/^/# $f: /" "$tmp/$f" | tail -n 15; done; fi
}
wait "$rx"; rxrc=$?
kill -INT "$tx" 2>/dev/null; sleep 0.5; kill -KILL "$tx" 2>/dev/null; wait "$tx" 2>/dev/null
cut -d' ' -f2 "$tmp/tx.log" | sort -u >"$tmp/tx.sums"
cut -d' ' -f2 "$tmp/rx.log" | sort >"$tmp/rx.sums"
got=$(wc -l <"$tmp/rx.sums")
foreign=$(comm -23 "$tmp/rx.sums" "$tmp/tx.sums" | wc -l)
check "TargetInfo published in $B" "[ -s '$tmp/ti.json' ]"
if [ "$mode" = http ]; then
  check "curl in $A fetched $url: the published TargetInfo" \
    "cmp -s '$tmp/fetched.json' '$tmp/ti.json'"
  check "not served on the loopback of $B (curl rc $loopback_rc)" \
    "[ $loopback_rc -ne 0 ]"
fi
check "receiver ended at EOS after $N_RX frames (rc $rxrc)" "[ $rxrc -eq 0 ] && [ $got -eq $N_RX ]"
check "all $got received frames equal sent frames (foreign: $foreign)" "[ $foreign -eq 0 ] && [ $got -gt 0 ]"
check "frames are distinct pictures ($(sort -u "$tmp/rx.sums" | wc -l) distinct)" \
  "[ $(sort -u "$tmp/rx.sums" | wc -l) -ge $((N_RX / 2)) ]"
# The frames really crossed the veth (not a loopback inside one namespace).
vb_rx=$(ip netns exec "$B" cat "/sys/class/net/vb$$/statistics/rx_bytes")
check "veth of $B received $vb_rx bytes >= $N_RX frames of 161280" \
  "[ $vb_rx -ge $((N_RX * 161280)) ]"
echo "1..$n"
exit $fail
