#!/bin/sh
# Install, with apt-get, every Debian 12 package needed to build, test and
# run gst-mxl-fabrics. Idempotent: when everything is present it prints
# nothing and exits 0. Must run as root (or through sudo).
set -eu

PACKAGES="
build-essential pkg-config meson ninja-build
libglib2.0-dev libjson-glib-dev libsoup-3.0-dev
libfabric-dev libfabric-bin
libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
gstreamer1.0-plugins-bad
valgrind clang libclang-rt-14-dev llvm
iproute2 procps util-linux espeak-ng curl python3
"

missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing="$missing $p"
  fi
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi

echo "install-deps: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
