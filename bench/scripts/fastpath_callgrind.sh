#!/usr/bin/env bash
# Instructions per call / work-first spawn / help-first spawn on the fast path (1 worker), counted by
# callgrind: (I(K2) - I(K1)) / (K2 - K1). Usage: bench/scripts/fastpath_callgrind.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: fastpath_callgrind.sh BUILD_DIR}
k1=20000; k2=120000
count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$build/bench/fastpath" "$1" "$2" 2>&1 \
  | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'; }
echo "| operation | instructions per operation |"
echo "|---|---|"
for kind in call wf hf; do
  a=$(count $kind $k1); b=$(count $kind $k2)
  echo "| $kind | $(( (b - a) / (k2 - k1) )) |"
done
