#!/bin/sh
# Regenerates the simulator's reproductions quoted in docs/simulation.md (about 10 minutes on the
# 2-core VM), writing them to bench/results/simulation/.
# usage: bench/scripts/sim_reproduce.sh BUILD_DIR   (BUILD_DIR/bin/slaw-sim must exist)
set -eu
case "${1:-}" in -h|--help) sed -n '2,4s/^# \{0,1\}//p' "$0"; exit 0;; esac
sim="${1:?usage: sim_reproduce.sh BUILD_DIR}/bin/slaw-sim"
here="$(dirname "$0")"
out="$here/../results/simulation"
w="1,2,4,8,16,32,64"

# SLAW Table III (Fib(35), no cut-off, 1-64 workers): help-first costed as in SLAW's Java runtime, then
# with this runtime's measured costs.
"$sim" --gen fib:35 --workers "$w" --policy wf,hf,dyn --costs slaw-java \
  --csv "$out/table3_slaw_java.csv" --detail "$out/table3_slaw_java_detail.csv" > "$out/table3_slaw_java.txt"
"$sim" --gen fib:35 --workers "$w" --policy wf,hf,dyn \
  --csv "$out/table3_measured.csv" --detail "$out/table3_measured_detail.csv" > "$out/table3_measured.txt"

# SLAW Figs 7 and 8: FJ(1024), iterative (fj) and recursive (fj-rec), 1-64 workers, 500 fork-joins.
for g in fj fj-rec; do
  "$sim" --gen "$g:1024,reps=500" --workers "$w" --policy wf,hf,dyn \
    --csv "$out/fig7_8_$g.csv" --detail "$out/fig7_8_${g}_detail.csv" > "$out/fig7_8_$g.txt"
done

# DFDeques S1/S2/S3: the synthetic divide-and-conquer (work x0.7 and memory x0.5 per level, 15
# levels), K swept from 1 KiB to infinity at 8, 16 and 64 workers, against work stealing (work-first)
# and the serial run.
dc="dc:14,work=200000,wratio=0.7,mem=1048576,mratio=0.5"
"$sim" --gen "$dc" --workers 1 --policy wf --detail "$out/dfd_serial.csv" > "$out/dfd_serial.txt"
"$sim" --gen "$dc" --workers 8,16,64 --policy wf --scheduler ws,dfdeques \
  --K 1024,4096,16384,65536,262144,1048576,inf \
  --detail "$out/dfd_k_sweep.csv" > "$out/dfd_k_sweep.txt"

# Calibration: the measured model against this machine's runs at 1 and 2 workers
# (bench/results/experiments/ A1 and A11, make bench with clang-19).
for g in fib:35 fj:1024,reps=5000 fj-rec:1024,reps=5000; do
  "$sim" --gen "$g" --workers 1,2 --policy wf,hf,dyn
done > "$out/calibration.txt"

# A-Deque's 16-job Poisson experiment (Table II) at 8 and 64 cores: its own script, about 3.5 minutes
# (docs/simulation.md, "Several jobs").
"$here/sim_adeque_16jobs.sh" "${1}"
