#!/bin/sh
# Set up everything and run the main job: install the Debian packages,
# build in build/, then run the most end-to-end transfer that exists.
# Usage: sh scripts/run.sh [options passed to the demo]
set -eu
cd "$(dirname "$0")/.."

sh scripts/install-deps.sh
if [ ! -f build/build.ninja ]; then
  meson setup build -Dtests=enabled >build.setup.log 2>&1 || { cat build.setup.log; exit 1; }
fi
meson compile -C build >build.compile.log 2>&1 || { tail -n 60 build.compile.log; exit 1; }

if [ -x scripts/demo.sh ]; then
  exec sh scripts/demo.sh "$@"
fi

# Until the transfer demo exists: show that the plugin loads from the build tree.
GST_PLUGIN_PATH="$(pwd)/build/gst" gst-inspect-1.0 mxlfabrics
