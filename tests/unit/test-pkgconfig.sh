#!/bin/sh
# An application builds and runs against each pkg-config file of the
# library: the uninstalled one (build/meson-uninstalled, what `meson devenv`
# and PKG_CONFIG_PATH=build/meson-uninstalled give) and the installed one,
# from `meson install --destdir` into a temporary directory (never the
# system). TAP output. Usage: test-pkgconfig.sh BUILDDIR VERSION [SANITIZE]
# (SANITIZE: meson's b_sanitize; a sanitized library needs the application
# built with the same runtime)
set -u
build=$1 version=$2 sanitize=${3:-none}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mxl-pkgconfig-test-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cc=${CC:-cc}
[ "$sanitize" = none ] || cc="$cc -fsanitize=$sanitize"
cat >"$tmp/app.c" <<'C'
#include <mxl/fabrics.h>
#include <mxl/fabrics-ext.h>
#include <mxl/mxl.h>
#include <stdio.h>
#include <string.h>

int
main (int argc, char **argv)
{
  mxlVersionType v;
  uint32_t major = 0, minor = 0;

  if (argc != 2 || mxlGetVersion (&v) != MXL_STATUS_OK
      || mxlFabricsExtGetLibfabricVersion (&major, &minor) != MXL_STATUS_OK)
    return 1;
  printf ("mxlfabrics %s, libfabric %u.%u\n", v.full, major, minor);
  return strcmp (v.full, argv[1]) == 0 && major >= 1 ? 0 : 2;
}
C
echo "1..4"
n=1
ok() { if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; n=$((n + 1)); }
# build_and_run LABEL LIBDIR PKG-CONFIG-ARGS...: compile app.c with the
# flags pkg-config gives, then run it against the library in LIBDIR.
build_and_run() {
  label=$1 libdir=$2
  shift 2
  flags=$(pkg-config "$@" --cflags --libs) \
    && $cc -o "$tmp/app-$label" "$tmp/app.c" $flags >"$tmp/cc-$label.log" 2>&1
  rc=$?
  sed 's/^/# /' "$tmp/cc-$label.log"
  ok $rc "an application compiles and links with the $label .pc file"
  out=$(LD_LIBRARY_PATH="$libdir" "$tmp/app-$label" "$version" 2>&1)
  rc=$?
  echo "# $out"
  ok $rc "it runs and reports version $version ($label)"
}

PKG_CONFIG_PATH="$build/meson-uninstalled" build_and_run uninstalled "$build/src" \
  mxlfabrics-uninstalled

dest="$tmp/dest"
meson install -C "$build" --no-rebuild --quiet --destdir "$dest" >"$tmp/install.log" 2>&1 \
  || { sed 's/^/# /' "$tmp/install.log"; echo "Bail out! meson install --destdir failed"; exit 1; }
pc=$(find "$dest" -name mxlfabrics.pc | head -n 1)
[ -n "$pc" ] || { echo "Bail out! no mxlfabrics.pc under $dest"; exit 1; }
# The file names its install prefix; it lives under $dest instead.
prefix=$(pkg-config --variable=prefix "$pc")
libdir=$(pkg-config --variable=libdir "$pc")
PKG_CONFIG_PATH=$(dirname "$pc") build_and_run installed "$dest$libdir" \
  --define-variable=prefix="$dest$prefix" mxlfabrics
