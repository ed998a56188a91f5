#!/bin/sh
# Setup of mxlfabricssrc under resource limits (meson test resource-limits,
# suite hardening; TAP). Each case starts gst-launch-1.0 with a 15 s
# deadline, and checks that nothing it created stays behind: no
# /dev/shm entry carrying its PID (private domains mxl-private-PID-*, shm
# endpoints mxlfabrics-PID-*) and an empty domain directory.
#  1. memlock 0 (prlimit): tcp registers ordinary memory (libfabric's tcp
#     and shm providers do not pin pages), so setup must SUCCEED and publish
#     the TargetInfo; a provider that pins (verbs, efa) would fail in
#     fi_mr_reg and report it -- not testable on this host.
#  2. full domain: `domain` on a 1 MiB tmpfs mounted in a private mount
#     namespace (unshare -m; skipped where mounting is not allowed): setup
#     fails at once with an ERROR whose text names the domain, "No space
#     left on device" and the fix (enlarge), and the tmpfs is left empty.
#  3. no usable provider (FI_PROVIDER=none-such): an ERROR naming the
#     provider at once, nothing left in /dev/shm.
set -u
CAPS="video/x-raw,format=v210,width=320,height=180,framerate=50/1"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mxl-limits-XXXXXX")
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fail=1; echo "not ok $n - $*"; sed 's/^/# /' "$tmp/log" | tail -n 30; }
skip() { n=$((n + 1)); echo "ok $n - $* # SKIP"; }

# Runs gst-launch in the background (its PID in $pid), output in $tmp/log.
launch() {
  "$@" >"$tmp/log" 2>&1 &
  pid=$!
}
# Waits up to $1 seconds for $pid; sets $rc (124 when it had to be killed).
reap() {
  i=0
  while kill -0 "$pid" 2>/dev/null && [ $i -lt $(($1 * 10)) ]; do
    sleep 0.1; i=$((i + 1))
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -INT "$pid"; sleep 1; kill -KILL "$pid" 2>/dev/null
    wait "$pid"; rc=124
  else
    wait "$pid"; rc=$?
  fi
}
leftovers() { ls /dev/shm | grep -E -- "(^mxl-private-|^mxlfabrics-)$1-" || true; }

# 1. memlock 0
launch prlimit --memlock=0:0 gst-launch-1.0 -e mxlfabricssrc provider=tcp \
  node=127.0.0.1 caps="$CAPS" target-info-file="$tmp/ti.json" ! fakesink
i=0
while [ ! -s "$tmp/ti.json" ] && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
if [ -s "$tmp/ti.json" ] && grep -q '"regions"' "$tmp/ti.json"; then
  kill -INT "$pid"; reap 10
  if [ -z "$(leftovers $pid)" ]; then
    ok "memlock=0: tcp target registers its ring and publishes TargetInfo (no pinning)"
  else
    notok "memlock=0: left $(leftovers $pid)"
  fi
else
  reap 1; notok "memlock=0: no TargetInfo within 15 s"
fi

# 2. full domain (tmpfs of 1 MiB, the ring of 10 x 161280 bytes does not fit)
mkdir -p "$tmp/dom"
if unshare -m sh -c "mount -t tmpfs -o size=1M none '$tmp/dom'" 2>/dev/null; then
  t0=$(date +%s)
  launch unshare -m sh -c "mount -t tmpfs -o size=1M none '$tmp/dom' &&
    gst-launch-1.0 mxlfabricssrc provider=tcp node=127.0.0.1 \
      domain='$tmp/dom' caps='$CAPS' ! fakesink & g=\$!; echo gst-pid=\$g;
    wait \$g; echo ls-after; ls -A '$tmp/dom'"
  reap 15
  t1=$(date +%s)
  gpid=$(sed -n 's/^gst-pid=//p' "$tmp/log")
  # the ERROR itself (not only a library warning) names the cause and the fix
  if [ $rc -ne 124 ] && grep -q "^ERROR: from element .*cannot create flow .*$tmp/dom.*No space left on device.*enlarge" "$tmp/log" \
      && [ $((t1 - t0)) -le 5 ] \
      && [ "$(sed -n '/^ls-after$/,$p' "$tmp/log" | wc -l)" -eq 1 ] \
      && [ -n "$gpid" ] && [ -z "$(leftovers "$gpid")" ]; then
    ok "full domain: ERROR at once ($((t1 - t0)) s), cause named, nothing left"
  else
    notok "full domain (rc $rc, $((t1 - t0)) s)"
  fi
else
  skip "full domain: mounting a tmpfs in a private mount namespace is not allowed here"
fi

# 3. no usable provider
t0=$(date +%s)
launch env FI_PROVIDER=none-such gst-launch-1.0 mxlfabricssrc provider=tcp \
  node=127.0.0.1 caps="$CAPS" ! fakesink
reap 15
t1=$(date +%s)
if [ $rc -ne 124 ] && [ $rc -ne 0 ] \
    && grep -q "^ERROR: .*no libfabric interface for provider tcp" "$tmp/log" \
    && [ $((t1 - t0)) -le 5 ] && [ -z "$(leftovers $pid)" ]; then
  ok "FI_PROVIDER=none-such: ERROR naming the provider at once ($((t1 - t0)) s), nothing left"
else
  notok "FI_PROVIDER=none-such (rc $rc)"
fi

echo "1..$n"
rm -rf "$tmp"
exit $fail
