#!/bin/sh
# Pipeline benchmark: mxlfabricssink/src vs the GStreamer alternatives,
# 1080p v210, two processes. Options: bench/run_pipelines.py --help.
exec python3 "$(dirname "$0")/run_pipelines.py" "$@"
