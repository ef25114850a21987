#!/bin/bash
# mpi_side_by_side.sh BUILD_DIR OUT.json REPS PROGRAM [ARGS...]: one of the distributed programs of bench/mpi
# (mpi_stencil, mpi_uts, mpi_samplesort) as flat MPI, MPI + OpenMP and MPI + slaw, side by side: every
# configuration once per round, REPS rounds, the order rotating; then the table of medians (time, and
# the program's communication figure where it has one: the stencil's communication wait, the sort's
# exchange time). The '/flat' column divides by flat MPI on as many cores (ranks x threads). Configurations R ranks x T threads:
# flat at R = 1, 2, 4; omp and slaw at (1,1) (2,1) (4,1) (1,2); oversubscribed where R x T exceeds
# the cores, ranks unbound (--bind-to none) so that T threads can run. Every run checks its result
# against the program's oracle (stencil: --check in the first round only, a sequential sweep).
#   bench/scripts/mpi_side_by_side.sh build out.json 5 mpi_stencil --n 2048 --iters 200
set -euo pipefail
usage="usage: mpi_side_by_side.sh BUILD_DIR OUT.json REPS mpi_stencil|mpi_uts|mpi_samplesort [ARGS...]"
build=${1:?$usage} out=${2:?$usage} reps=${3:?$usage} prog=${4:?$usage}
shift 4
case $prog in mpi_stencil|mpi_uts|mpi_samplesort) ;; *) echo "mpi_side_by_side.sh: PROGRAM '$prog': accepted values are mpi_stencil, mpi_uts, mpi_samplesort" >&2; exit 2;; esac
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "mpi_side_by_side.sh: REPS '$reps': a positive integer" >&2; exit 2; }
exe=$build/bench/$prog
[ -x "$exe" ] || { echo "mpi_side_by_side.sh: $exe not found (build with MPI: Debian libopenmpi-dev openmpi-bin)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 SLAW_ARBITER=off
configs=("flat 1 1" "flat 2 1" "flat 4 1" "omp 1 1" "omp 2 1" "omp 4 1" "omp 1 2" "slaw 1 1" "slaw 2 1" "slaw 4 1" "slaw 1 2")
lines=$(mktemp)
trap 'rm -f "$lines"' EXIT
for ((rep = 0; rep < reps; rep++)); do
  for ((k = 0; k < ${#configs[@]}; k++)); do
    read -r mode ranks threads <<< "${configs[$(( (k + rep) % ${#configs[@]} ))]}"
    extra=()
    [ "$prog" = mpi_stencil ] && [ "$rep" = 0 ] && extra=(--check)
    OMP_NUM_THREADS=$threads SLAW_WORKERS=$threads timeout 600 mpirun -np "$ranks" --oversubscribe --bind-to none \
      "$exe" --mode "$mode" "$@" "${extra[@]}" | tee -a "$lines"
  done
done
python3 - "$out" "$lines" "$reps" "$prog $*" <<'PY'
import json, statistics, sys, platform, subprocess
out, lines, reps, args = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
runs = [json.loads(l) for l in open(lines) if l.startswith("{")]
bad = [r for r in runs if r.get("check") == "WRONG"]
groups = {}
for r in runs: groups.setdefault((r["mode"], r["ranks"], r["threads_per_rank"]), []).append(r)
rows = []
for (mode, ranks, threads), rs in sorted(groups.items(), key=lambda kv: (kv[0][1] * kv[0][2], kv[0][1], kv[0][0])):
    row = dict(mode=mode, ranks=ranks, threads_per_rank=threads, runs=len(rs), checks=sorted({x.get("check", "?") for x in rs}))
    for k in ("time_s", "comm_wait_s", "exchange_s", "peak_rss_kb"):
        if k in rs[0]: row[k] = statistics.median(x[k] for x in rs)
    rows.append(row)
flat = {r["ranks"]: r["time_s"] for r in rows if r["mode"] == "flat"}
print(f"\n{args}: medians of {reps} rounds ({platform.node()}, {subprocess.getoutput('nproc')} cores)")
comm_key = next((k for k in ("comm_wait_s", "exchange_s") if rows and k in rows[0]), None)
print(f"{'mode':5} {'ranks':>5} {'thr':>3} {'time s':>8} {'/flat':>6} {(comm_key or '-'):>12} {'rss MB':>7}  checks")
for r in rows:
    ref = flat.get(r["ranks"] * r["threads_per_rank"])
    comm = r.get(comm_key) if comm_key else None
    print(f"{r['mode']:5} {r['ranks']:5d} {r['threads_per_rank']:3d} {r['time_s']:8.3f} "
          f"{(r['time_s'] / ref) if ref else float('nan'):6.2f} {comm if comm is not None else float('nan'):12.3f} "
          f"{r['peak_rss_kb'] / 1024:7.1f}  {','.join(r['checks'])}")
json.dump(dict(command=f"bench/scripts/mpi_side_by_side.sh BUILD OUT.json {reps} {args}", machine=f"{platform.node()}, {subprocess.getoutput('nproc')} cores",
               summary=rows, runs=runs), open(out, "w"), indent=1)
if bad: sys.exit("mpi_side_by_side.sh: a result was WRONG")
PY
