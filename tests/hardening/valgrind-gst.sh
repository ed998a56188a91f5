#!/bin/sh
# Runs element state-change tests under valgrind memcheck and fails on any
# definite leak or memory error (meson test `valgrind-gst`, suite
# `hardening`; only registered in builds without sanitizers).
#   valgrind-gst.sh BUILD_DIR SOURCE_DIR
# Cases: test-gst-elements (properties, add/remove target, start errors) and
# test-state-cycles (src state cycles, connected src+sink pairs carrying
# frames, over tcp and shm).
# Suppressions: GLib's glib.supp and tests/hardening/gst.supp (one-time
# allocations only). TAP output: one line per case.
set -u
build=$1
src=$2
if ! command -v valgrind >/dev/null; then
  echo "1..0 # SKIP valgrind is not installed"
  exit 0
fi
glib_supp=/usr/share/glib-2.0/valgrind/glib.supp
supp="--suppressions=$src/tests/hardening/gst.supp"
[ -f "$glib_supp" ] && supp="$supp --suppressions=$glib_supp"
export G_SLICE=always-malloc G_DEBUG=fatal-criticals,gc-friendly
log=$(mktemp -d "${TMPDIR:-/tmp}/mxl-valgrind-XXXXXX")
# A private registry, built before valgrind runs: the plugin scan then
# happens outside the checked processes.
GST_REGISTRY_1_0=$log/registry.bin
export GST_REGISTRY_1_0
gst-inspect-1.0 mxlfabrics >/dev/null 2>&1 || {
  echo "Bail out! mxlfabrics plugin not found in GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-}"; exit 1; }

n=0
status=0
run_case() {
  name=$1; shift
  n=$((n + 1))
  # shellcheck disable=SC2086
  if timeout 240 valgrind --tool=memcheck --leak-check=full \
      --errors-for-leak-kinds=definite --show-leak-kinds=definite \
      --error-exitcode=99 --num-callers=30 $supp "$@" >"$log/$n.log" 2>&1; then
    echo "ok $n - $name ($(grep -o 'definitely lost: [0-9,]* bytes' "$log/$n.log" | head -n1))"
  else
    rc=$?
    status=1
    echo "not ok $n - $name (exit $rc)"
    sed 's/^/# /' "$log/$n.log" | tail -n 80
  fi
}

run_case "test-gst-elements" "$build/tests/gst/test-gst-elements" --tap
run_case "test-state-cycles" "$build/tests/hardening/test-state-cycles" --tap
echo "1..$n"
rm -rf "$log"
exit $status
