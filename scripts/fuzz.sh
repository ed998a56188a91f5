#!/bin/sh
# Run every libFuzzer target of tests/fuzz for a bounded time each.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 12 s, all)
# Builds build-fuzz/ with clang, ASan+UBSan and -Dfuzzing=enabled (the
# library instrumented with -fsanitize=fuzzer-no-link), then runs each
# target on a scratch copy of its seed corpus (tests/fuzz/corpus/<t>/) plus
# its regression inputs (tests/fuzz/regressions/<t>/). Fails on any crash,
# failed property (abort), leak, UBSan report or timeout; the input that
# caused it is left in build-fuzz/findings/<t>/ -- copy it into
# tests/fuzz/regressions/<t>/ with a name that says what it hit, so the
# unit test fuzz-replay-<t> replays it from then on.
# Env: FUZZ_BUILD (default build-fuzz); FUZZ_JSON: append one meson-style
# result line per target ({"name": "fuzz-<t>", "result": "OK"|"FAIL"}) to
# that file (scripts/test.sh counts them).
set -eu

cd "$(dirname "$0")/.."
secs=${1:-12}
[ $# -gt 0 ] && shift
targets=${*:-"targetinfo flowdef options immdata bounce anc"}
dir=${FUZZ_BUILD:-build-fuzz}

if ! command -v clang >/dev/null; then
  echo "fuzz: clang is not installed (apt-get install clang)" >&2
  exit 1
fi
if [ ! -f "$dir/build.ninja" ]; then
  CC=clang CFLAGS=-fsanitize=fuzzer-no-link meson setup "$dir" \
    -Dfuzzing=enabled -Dtests=enabled -Dwerror=true \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized \
    >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; exit 1; }
fi
build_targets=""
for t in $targets; do build_targets="$build_targets tests/fuzz/fuzz-$t"; done
# shellcheck disable=SC2086
meson compile -C "$dir" $build_targets >"$dir.compile.log" 2>&1 || {
  tail -n 40 "$dir.compile.log"; exit 1; }

ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# GLib's one-time allocations (type system, quarks) are not leaks.
LSAN_OPTIONS=suppressions=$(pwd)/tests/fuzz/lsan.supp:print_suppressions=0
export ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS

status=0
for t in $targets; do
  work="$dir/fuzz-work/$t"
  findings="$dir/findings/$t"
  rm -rf "$work"
  mkdir -p "$work" "$findings"
  cp tests/fuzz/corpus/"$t"/* "$work"/
  # -error_exitcode: libFuzzer's exit on a finding; -timeout: one input.
  result=OK
  if "$dir/tests/fuzz/fuzz-$t" "$work" -max_total_time="$secs" -timeout=10 \
      -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
      -artifact_prefix="$findings/" >"$dir/fuzz-$t.log" 2>&1; then
    echo "fuzz-$t: ok ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/fuzz-$t.log" | grep -o '[0-9]*$') runs in ${secs}s, corpus $(ls "$work" | wc -l))"
  else
    status=1
    result=FAIL
    echo "fuzz-$t: FAILED; last lines of $dir/fuzz-$t.log:"
    tail -n 40 "$dir/fuzz-$t.log"
    echo "inputs: $(ls "$findings")"
  fi
  if [ -n "${FUZZ_JSON:-}" ]; then
    printf '{"name": "fuzz-%s (%s s)", "result": "%s"}\n' "$t" "$secs" "$result" >>"$FUZZ_JSON"
  fi
done
exit $status
