#!/bin/sh
# Wake-ups at rest of the sink and src processes (issue 15). Options:
# bench/run_rest_wakeups.py --help.
exec python3 "$(dirname "$0")/run_rest_wakeups.py" "$@"
