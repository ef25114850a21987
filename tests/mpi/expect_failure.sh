#!/bin/bash
# expect_failure.sh LIMIT_S PATTERN MPIEXEC ARGS...: runs the MPI job, which must fail (non-zero) within
# LIMIT_S seconds (running that long is a hang: a failure of this test; the job's own exit status may
# be 137 for a rank killed by SIGKILL, so time tells a hang) and print PATTERN (grep -E; empty: none).
set -u
limit=$1 pattern=$2
shift 2
start=$SECONDS
out=$(timeout -k 5 "$limit" "$@" 2>&1)
rc=$?
elapsed=$((SECONDS - start))
echo "$out" | tail -20
if [ "$elapsed" -ge "$limit" ]; then echo "expect_failure: the job still ran after ${limit}s: a hang"; exit 1; fi
if [ "$rc" = 0 ]; then echo "expect_failure: the job succeeded, but a rank failed"; exit 1; fi
if [ -n "$pattern" ] && ! echo "$out" | grep -Eq "$pattern"; then echo "expect_failure: no line matches '$pattern'"; exit 1; fi
echo "expect_failure: the job failed as expected (exit $rc)"
