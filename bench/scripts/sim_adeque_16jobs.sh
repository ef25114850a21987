#!/bin/sh
# A-Deque's 16-job Poisson experiment (Cao et al., Table II / Fig. 7; digest §6.4) at 8 and 64 simulated
# cores, written up in docs/simulation.md ("Several jobs"). About 5 minutes on the 2-core VM.
# Writes bench/results/simulation/adeque_16jobs*.csv and adeque_table2.txt.
# usage: bench/scripts/sim_adeque_16jobs.sh BUILD_DIR   (BUILD_DIR/bin/slaw-sim must exist)
#
# 16 jobs per run, each drawn uniformly from six coarse-grained stand-ins for the paper's benchmarks
# (fib, queens, strassen -> matmul, lu -> sor's phased loops, fft -> a divide-and-conquer, ck -> an
# irregular adaptive quadrature), arriving as a Poisson process at offered load 0.2 ... 3.2 per core
# (the paper's lambda = 1/16 ... 1 per second, taking its jobs at about 25 s of serial work on 8 cores),
# 10 generator seeds per load. At 64 cores every strand costs 8 times more, so that a job spends about
# as many 10 ms quanta on 64 cores as on 8. Configurations: deq+adeque, deq+asteal, equi (WS-EQUI),
# off (every job on all its workers, the OS time-sharing the cores); then deq with self-picks skipped.
set -eu
case "${1:-}" in -h|--help) sed -n '2,5s/^# \{0,1\}//p' "$0"; exit 0;; esac
sim="${1:?usage: sim_adeque_16jobs.sh BUILD_DIR}/bin/slaw-sim"
here="$(dirname "$0")"
out="$here/../results/simulation"
mix8='fib:22,node=40000,leaf=40000;nqueens:10,cutoff=4,check=500;matmul:512,leaf=4000000;sor:256,iterations=100,blocks=16,cell=300;dc:10,work=60000000,wratio=0.65,mem=1;integrate:1000,node=80000'
mix64='fib:22,node=320000,leaf=320000;nqueens:10,cutoff=4,check=4000;matmul:512,leaf=32000000;sor:256,iterations=100,blocks=16,cell=2400;dc:10,work=480000000,wratio=0.65,mem=1;integrate:1000,node=640000'
runs="$out/adeque_16jobs.csv"
jobs="$out/adeque_16jobs_jobs_seed1.csv"  # every job of every run of seed 1 (all seeds: 1.3 MB)
skip="$out/adeque_16jobs_selfpicks_skip.csv"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
rm -f "$runs" "$jobs" "$skip"
append() {  # append CSV $1 to $2, keeping one header
  if [ -s "$2" ]; then tail -n +2 "$1" >> "$2"; else cp "$1" "$2"; fi
}
for p in 8 64; do
  if [ "$p" = 8 ]; then mix="$mix8"; else mix="$mix64"; fi
  for load in 0.2 0.4 0.8 1.6 3.2; do
    for seed in 1 2 3 4 5 6 7 8 9 10; do
      "$sim" --jobs "poisson:16,load=$load,seed=$seed;$mix" --cores "$p" --arbiter deq,equi,off --desire adeque,asteal \
        --csv "$tmp/runs.csv" --detail "$tmp/jobs.csv" > /dev/null
      if [ "$seed" = 1 ]; then append "$tmp/jobs.csv" "$jobs"; fi
      "$sim" --jobs "poisson:16,load=$load,seed=$seed;$mix" --cores "$p" --arbiter deq --desire adeque,asteal \
        --self-picks skip --csv "$tmp/skip.csv" > /dev/null
      append "$tmp/runs.csv" "$runs"
      append "$tmp/skip.csv" "$skip"
    done
  done
done
python3 "$here/sim_adeque_table2.py" "$runs" "$skip" > "$out/adeque_table2.txt"
