#!/bin/sh
# The docs check: runs every shell block of README.md and docs/*.md, so no
# documented command rots. A block is a fence opened with ```sh. The line
# just before it must be one of
#   <!-- doc-test -->              run it (from the source root, sh -eu,
#   <!-- doc-test timeout=N -->    60 s or N s, then killed: a failure)
#   <!-- doc-skip: REASON -->      not run here; REASON says why and which
#                                  test runs it instead
# and a block with neither fails the check. Paths "build/", "$PWD/build/"
# and "-C build" in a block are rewritten to the build tree under test;
# GST_PLUGIN_PATH holds its plugin, MXL_BUILD_DIR (scripts/demo.sh) its
# path. Paths "/tmp/" in a block (and "%2Ftmp%2F" in a URI) are rewritten
# to a directory of this run (TMPDIR too), so that two runs at once do not
# share a TargetInfo file.
# PATH is left as the user has it: in a build tree the tools are not
# on it, so a block calls them as build/src/tools/NAME. TAP output.
# Usage: sh scripts/check-docs.sh [BUILDDIR] [FILE...]
set -u
cd "$(dirname "$0")/.."
src=$(pwd)
build=${1:-build}
[ $# -gt 0 ] && shift
build=$(cd "$build" && pwd) || exit 2
[ $# -gt 0 ] || set -- README.md docs/*.md
work=$(mktemp -d "${TMPDIR:-/tmp}/mxl-docs-XXXXXX")
trap 'rm -rf "$work"' EXIT
GST_PLUGIN_PATH=$build/gst
MXL_BUILD_DIR=$build
mkdir "$work/tmp"
TMPDIR=$work/tmp
# the same in a URI's query, percent-encoded
work_uri=$(printf '%s' "$work" | sed 's#/#%2F#g')
export GST_PLUGIN_PATH MXL_BUILD_DIR TMPDIR

# Split the files into $work/NNN.sh blocks with $work/NNN.meta
# ("file:line<TAB>marker").
awk -v dir="$work" '
  FNR == 1 { prev = "" }
  /^```sh[ \t]*$/ && !inblock {
    n++; inblock = 1; f = sprintf("%s/%03d.sh", dir, n)
    printf "%s:%d\t%s\n", FILENAME, FNR, prev > sprintf("%s/%03d.meta", dir, n)
    printf "" > f
    next
  }
  /^```/ && inblock { inblock = 0; close(f); prev = ""; next }
  inblock { print >> f; next }
  { if ($0 !~ /^[ \t]*$/) prev = $0 }
' "$@"

total=$(ls "$work"/*.meta 2>/dev/null | wc -l)
echo "1..$total"
i=0 failed=0
for meta in "$work"/*.meta; do
  [ -f "$meta" ] || continue
  i=$((i + 1))
  block=${meta%.meta}.sh
  where=$(cut -f1 "$meta")
  marker=$(cut -f2- "$meta")
  case "$marker" in
    "<!-- doc-skip:"*)
      reason=$(echo "$marker" | sed 's/^<!-- doc-skip: *//; s/ *-->$//')
      echo "ok $i - $where # SKIP $reason"
      continue ;;
    "<!-- doc-test"*) ;;
    *)
      echo "not ok $i - $where: no <!-- doc-test --> or <!-- doc-skip: ... --> line before the block"
      failed=$((failed + 1))
      continue ;;
  esac
  t=$(echo "$marker" | sed -n 's/.*timeout=\([0-9][0-9]*\).*/\1/p')
  [ -n "$t" ] || t=60
  # /tmp first: the build tree itself may lie under /tmp (a clone there)
  sed -e "s#\\(^\\|[ =\"'@>]\\)/tmp/#\\1$work/tmp/#g" \
      -e "s#%2Ftmp%2F#$work_uri%2Ftmp%2F#g" \
      -e "s#\\\$PWD/build/#$build/#g" \
      -e "s#\\(^\\|[ =\"'@]\\)build/#\\1$build/#g" \
      -e "s#-C build\\( \\|\$\\)#-C $build\\1#g" "$block" >"$block.run"
  start=$(date +%s)
  (cd "$src" && timeout -k 5 "$t" sh -eu "$block.run") >"$block.out" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  if [ "$rc" = 0 ]; then
    echo "ok $i - $where (${secs} s)"
  else
    echo "not ok $i - $where: exit $rc after ${secs} s"
    sed 's/^/#   /' "$block.run"
    echo "# output:"
    tail -n 30 "$block.out" | sed 's/^/#   /'
    failed=$((failed + 1))
  fi
done
[ "$failed" = 0 ]
