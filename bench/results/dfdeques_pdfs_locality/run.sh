#!/usr/bin/env bash
# DFDeques on PDFS at 1 and 2 workers: times (alternating rounds), timeline summaries per segment kind,
# and (with conflict_counter.patch applied by hand) the labels lost to the other worker.
#   bench/results/dfdeques_pdfs_locality/run.sh BUILD_DIR   (a Release build with the slaw-bench target)
set -euo pipefail
b=${1:?usage: run.sh BUILD_DIR}
out=$(dirname "$0")
export SLAW_ARBITER=off
for i in 1 2 3 4; do
  "$b/bin/slaw-bench" --bench pdfs --variant slaw-dyn,slaw-dfd --workers 1,2 --reps 5 --progress off \
    --json "$out/times_$i.json" 2>&1 | grep median
done
for v in dyn dfd; do
  for w in 1 2; do
    SLAW_TRACE=timeline:/tmp/pdfs_${v}_$w.json SLAW_TRACE_EVENTS=4000000 \
      "$b/bin/slaw-bench" --bench pdfs --variant slaw-$v --workers $w --reps 1 --progress off >/dev/null 2>&1
    tools/slaw-trace /tmp/pdfs_${v}_$w.json --gaps 0 > "$out/trace_${v}_w$w.txt"
    rm -f /tmp/pdfs_${v}_$w.json
  done
done
