#!/bin/sh
# Audio benchmark (issue 5): 8 and 64 channels in 1 ms and 10 ms batches
# over tcp, tcp;ofi_rxm and shm, staging on and off side by side; batches/s
# and CPU of each process. Options: bench/run_audio.py --help. Default
# build dir: build/.
exec python3 "$(dirname "$0")/run_audio.py" "$@"
