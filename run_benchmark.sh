#!/usr/bin/env bash
# The benchmark's entry: ./run_benchmark.sh COMMAND [--KEY=VALUE ...] (--help lists them). The work
# lives in sweep/index.js; exec hands it this process, so Ctrl-C and the exit status reach it directly.
set -euo pipefail
exec node "$(dirname "$0")/sweep/index.js" "$@"
