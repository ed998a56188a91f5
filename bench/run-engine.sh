#!/bin/sh
# Engine benchmark: ours (bench-engine) vs bare libfabric vs memcpy, side by
# side. Options: bench/run_engine.py --help. Default build dir: build/.
exec python3 "$(dirname "$0")/run_engine.py" "$@"
