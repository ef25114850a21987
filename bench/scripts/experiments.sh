#!/usr/bin/env bash
# The SLAW experiments reproducible on 2 cores (digest slaw.md §9.3.1): A1, A2, A3, A4, A11.
# Writes raw JSON to bench/results/experiments/ and the summary tables to
# bench/results/experiments/summary.md (bench/scripts/experiments.py).
# Usage: bench/scripts/experiments.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-bench}
bin=$build/bin/slaw-bench
out=bench/results/experiments
reps=${REPS:-5}
mkdir -p "$out"
[ -x "$bin" ] || { echo "experiments.sh: $bin not found: run 'make bench' first or pass a build dir" >&2; exit 2; }

# A1: fib(35), no cut-off, wf / hf / adp at 1 and 2 workers (Table III / 5.3).
$bin --bench fib --variant serial,slaw-wf,slaw-hf,slaw-dyn --workers 1,2 --reps "$reps" --quiet --json "$out/a1_fib.json"

# A2: INT sensitivity at 1 worker (Fig 5.2a): adp against wf in the same run.
for i in 1 2 4 8 16 32 64 128 256 512 1024; do
  SLAW_INT=$i $bin --bench fib --variant slaw-wf,slaw-dyn --workers 1 --reps "$reps" --quiet --json "$out/a2_int_$i.json"
done

# A3: spawn / finish cost model (Table 5.4): finish { for i<k: async T_i; T_0 }, k = 1..1024, 1 worker.
for k in 1 2 4 8 16 32 64 128 256 512 1024; do
  $bin --bench spawncost --arg k=$k --arg reps=$(( 2000000 / k > 2000 ? 2000000 / k : 2000 )) \
    --variant serial,slaw-wf,slaw-hf --workers 1 --reps "$reps" --quiet --json "$out/a3_k_$k.json"
done

# A4: one global finish (Fig 5.8) against a finish per call (Fig 5.9), 1 worker.
for form in global call; do
  $bin --bench fib --arg form=$form --variant serial,slaw-wf,slaw-hf --workers 1 --reps "$reps" --quiet \
    --json "$out/a4_$form.json"
done

# A11: FJ(1024) iterative and recursive at 1 and 2 workers (Figs 7, 8).
$bin --bench fj,fj-rec --variant slaw-wf,slaw-hf,slaw-dyn --workers 1,2 --reps "$reps" --quiet --json "$out/a11_fj.json"

/usr/bin/python3 bench/scripts/experiments.py "$out" > "$out/summary.md"
cat "$out/summary.md"
