#!/bin/sh
# Scale benchmark: concurrent 1080p50 streams, one sink feeding N targets,
# and the most streams sustained without drops. Options: bench/run_scale.py
# --help. Default build dir: build/.
exec python3 "$(dirname "$0")/run_scale.py" "$@"
