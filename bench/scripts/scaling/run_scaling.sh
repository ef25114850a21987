#!/bin/bash
# usage: run_scaling.sh PLAN OUTDIR DEADLINE_S
# PLAN lines: kernel reps cap_s workers variants args...   (workers "-" = $WORKERS or 1,2,4,8,16; variants "-" = all of serial..omp)
# Runs on the measuring machine from a folder that holds this script, env.sh, sysinfo.sh, the plans,
# slaw-bench and its shared libraries (bench/results/scaling/README.md says how it was used); then
# bench/scripts/scaling/make_table.py merges the OUTDIRs, copied back as bench/results/scaling/call1_* to
# call3_* (the file F of call N's OUTDIR as callN_F).
case "${1:-}" in -h|--help) sed -n '2,7s/^# \{0,1\}//p' "$0"; exit 0;; esac
cd "$(dirname "$0")"
. ./env.sh
PLAN=$1; OUT=$2; DEADLINE=$3
start=$(date +%s)
W=${WORKERS:-1,2,4,8,16}
n=0
while read -r k reps cap ws vars args; do
  case "$k" in ''|'#'*) continue;; esac
  n=$((n+1))
  [ "$ws" = "-" ] && ws=$W
  [ "$vars" = "-" ] && vars=serial,slaw-wf,slaw-hf,slaw-dyn,slaw-dfd,tbb,omp
  left=$((DEADLINE - ($(date +%s) - start)))
  if [ $left -lt 15 ]; then echo "PLAN $n $k $vars: SKIPPED, no time left" | tee -a $OUT/log.txt; continue; fi
  t=$cap; [ $t -gt $left ] && t=$left
  echo "PLAN $n $k reps=$reps workers=$ws vars=$vars args=[$args] limit=${t}s at +$(( $(date +%s) - start ))s" | tee -a $OUT/log.txt
  s=$(date +%s%N)
  timeout --foreground -s TERM -k 10 $t ./slaw-bench --bench $k $args --variant $vars --workers $ws --reps $reps \
      --json $OUT/part$(printf %02d $n)_$k.json --progress lines 2>&1 | tee -a $OUT/log.txt
  rc=${PIPESTATUS[0]}
  echo "DONE $n $k rc=$rc wall=$(( ($(date +%s%N) - s) / 1000000 ))ms" | tee -a $OUT/log.txt
done < "$PLAN"
echo "TOTAL $(( $(date +%s) - start ))s" | tee -a $OUT/log.txt
