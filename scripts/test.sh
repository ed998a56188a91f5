#!/bin/sh
# Set up everything and run the whole test suite:
#   1. install the Debian packages (scripts/install-deps.sh, needs root),
#   2. configure and build with -Dwerror=true in build/,
#   3. run `meson test` (suites unit, integration, gst),
#   4. the same in build-asan/ with -Db_sanitize=address,undefined,
#   5. ThreadSanitizer: the `threaded` suite in build-tsan/,
#   6. libFuzzer: each target of tests/fuzz for 12 s (scripts/fuzz.sh, clang,
#      build-fuzz/); a crash, leak or sanitizer report fails it,
#   7. print one closing line `N passed, N failed[, N skipped]`.
# Options: --no-asan (skip 4), --asan-only (skip 2-3, 5-6), --no-tsan (skip 5),
# --no-fuzz (skip 6).
set -eu

cd "$(dirname "$0")/.."
top=$(pwd)

plain=1
asan=1
tsan=1
fuzz=1
for arg in "$@"; do
  case "$arg" in
    --no-asan) asan=0 ;;
    --asan-only) plain=0; tsan=0; fuzz=0 ;;
    --no-tsan) tsan=0 ;;
    --no-fuzz) fuzz=0 ;;
    *) echo "usage: $0 [--no-asan|--asan-only|--no-tsan|--no-fuzz]" >&2; exit 2 ;;
  esac
done

sh scripts/install-deps.sh

PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

logs=""
status=0
# Extra arguments of `meson test` for the next run_suite (e.g. one suite).
test_args=""

run_suite() {
  dir=$1; shift
  if [ -f "$dir/build.ninja" ]; then
    # A tree made by another command (scripts/run.sh) may lack -Dwerror.
    meson configure "$dir" -Dwerror=true -Dtests=enabled "$@" >"$top/$dir.setup.log" 2>&1 || {
      cat "$top/$dir.setup.log"; build_failed "$dir"; return; }
  else
    meson setup "$dir" -Dwerror=true -Dtests=enabled "$@" >"$top/$dir.setup.log" 2>&1 || {
      cat "$top/$dir.setup.log"; build_failed "$dir"; return; }
  fi
  meson compile -C "$dir" >"$top/$dir.compile.log" 2>&1 || {
    tail -n 60 "$top/$dir.compile.log"; build_failed "$dir"; return; }
  rm -f "$dir/meson-logs/testlog.json"
  # shellcheck disable=SC2086
  meson test -C "$dir" --print-errorlogs --num-processes 2 $test_args || status=1
  logs="$logs $dir/meson-logs/testlog.json"
}

# A tree that does not configure or build counts as one failed test, so the
# closing line is printed in every case.
build_failed() {
  status=1
  mkdir -p "$1"
  printf '{"name": "build (%s)", "result": "FAIL"}\n' "$1" >"$1/build-failure.json"
  logs="$logs $1/build-failure.json"
}

if [ "$plain" = 1 ]; then
  run_suite build
fi
if [ "$asan" = 1 ]; then
  # GLib and GStreamer keep process-lifetime allocations that LeakSanitizer
  # reports; leaks are checked by dedicated tests instead.
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  export ASAN_OPTIONS UBSAN_OPTIONS
  run_suite build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
fi

# --- ThreadSanitizer and fuzzing (helper "harden") ---
# ThreadSanitizer: the suite `threaded` holds the tests that run threads of
# their own on purpose (post ring, progress thread). One block; add tests to
# the suite, not passes here.
if [ "$tsan" = 1 ]; then
  TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
  export TSAN_OPTIONS
  test_args="--suite threaded"
  run_suite build-tsan -Db_sanitize=thread -Db_lundef=false -Dc_args=-Wno-error=tsan
  test_args=""
fi
# libFuzzer: bounded run of every fuzz target (about 1 minute in all).
if [ "$fuzz" = 1 ]; then
  rm -f build-fuzz.results.json
  FUZZ_BUILD=build-fuzz FUZZ_JSON="$top/build-fuzz.results.json" \
    sh scripts/fuzz.sh 12 || status=1
  [ -f build-fuzz.results.json ] || build_failed build-fuzz
  [ -f build-fuzz.results.json ] && logs="$logs build-fuzz.results.json"
fi
# --- end harden ---

# shellcheck disable=SC2086
$PY scripts/test-summary.py $logs || status=1
exit $status
