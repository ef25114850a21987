#!/usr/bin/env bash
# DFDeques on PDFS at 1 and 2 workers: times (alternating rounds), timeline summaries per segment kind,
# and (with dfdeques_pdfs_conflicts.patch applied by hand) the labels lost to the other worker.
#   bench/scripts/dfdeques_pdfs.sh BUILD_DIR   (a Release build with the slaw-bench target)
# Writes bench/results/dfdeques/pdfs_times_{1..4}.json and pdfs_trace_{dyn,dfd}_w{1,2}.txt; the
# median lines it prints are pdfs_times.txt.
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,6s/^# \{0,1\}//p' "$0"; exit 0;; esac
b=${1:?usage: dfdeques_pdfs.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/bench/results/dfdeques
mkdir -p "$out"
export SLAW_ARBITER=off
for i in 1 2 3 4; do
  "$b/bin/slaw-bench" --bench pdfs --variant slaw-dyn,slaw-dfd --workers 1,2 --reps 5 --progress off \
    --json "$out/pdfs_times_$i.json" 2>&1 | grep median
done
for v in dyn dfd; do
  for w in 1 2; do
    SLAW_TRACE=timeline:/tmp/pdfs_${v}_$w.json SLAW_TRACE_EVENTS=4000000 \
      "$b/bin/slaw-bench" --bench pdfs --variant slaw-$v --workers $w --reps 1 --progress off >/dev/null 2>&1
    "$root/tools/slaw-trace" /tmp/pdfs_${v}_$w.json --gaps 0 > "$out/pdfs_trace_${v}_w$w.txt"
    rm -f /tmp/pdfs_${v}_$w.json
  done
done
