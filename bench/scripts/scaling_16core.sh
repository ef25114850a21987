#!/usr/bin/env bash
# The prepared 16-core run: slaw-wf/hf/dyn/dfd, oneTBB and OpenMP against the serial elision at 1, 2, 4,
# 8 and 16 workers on the coarse kernels and on fj, spawncost and pdfs, in about 6 minutes of a lent
# 16-core machine (bench/results/scaling/README.md).
#
#   bench/scripts/scaling_16core.sh prepare [CARRY]    here: builds slaw-bench as `make bench` does and puts
#                                                      it, its shared libraries, this script and its plan
#                                                      into CARRY (default .devcarry, git-ignored locally)
#   CARRY/scaling_16core.sh run OUT [DEADLINE_S]       there (the device's `run`, carry: [CARRY]): runs the
#                                                      plan, at most DEADLINE_S seconds (default 420), and
#                                                      writes OUT/scaling16.json (every configuration's
#                                                      slaw-bench record), OUT/log.txt and sysinfo.sh's
#                                                      three files
#   bench/scripts/scaling_16core.sh table DIR          here: the returned files (DIR) into Ts/Tp tables
#                                                      per worker count (markdown, on stdout)
#   CARRY/scaling_16core.sh check OUT                  here, after prepare: the whole plan at --size test,
#                                                      1 repetition, 1 and 2 workers (seconds), then table
#
# The device has no compilers and none of the peers' libraries: everything slaw-bench loads that is not
# glibc travels with it (libstdc++ and libgcc_s in CARRY/cxx, used where the device's glibc is at least
# this machine's). The device's `run` returns at most 8 files: the run writes 5. Each plan line has a
# cap, and a line that would start after the deadline is skipped and logged, so that a run always comes
# back with what it measured.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage() { sed -n '2,20s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }

# kernel reps cap_s args   (every line at 1,2,4,8,16 workers, variants serial,slaw-wf,slaw-hf,slaw-dyn,slaw-dfd,tbb,omp;
# sizes chosen so that the serial run takes 0.1-0.6 s on the last 16-core machine lent, about twice as
# slow per core as the 2-core build machine)
plan() {
  cat <<'EOF'
matmul    3 45 --arg n=1024
lu        3 40 --arg n=1536
sort      3 45 --arg n=4000000
barneshut 3 40
sor       3 40
spmv      3 40
nqueens   3 45 --arg n=12
densemm   3 35
uts       3 35
fft       3 40
fj        3 20
spawncost 3 20
pdfs      3 20
EOF
}

case "${1:-}" in
  prepare)
    carry=${2:-.devcarry}
    root=$(cd "$here/../.." && pwd)
    build=$root/build-bench
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++-19 -DSLAW_BUILD_TESTS=OFF >/dev/null
    cmake --build "$build" --target slaw-bench
    mkdir -p "$carry/cxx"
    cp "$build/bin/slaw-bench" "$here/scaling_16core.sh" "$here/scaling/env.sh" "$here/scaling/sysinfo.sh" "$carry/"
    # Every shared library but glibc's own; libstdc++/libgcc_s apart (used only where the device's glibc
    # is new enough for them: env.sh).
    ldd "$build/bin/slaw-bench" | awk '/=> \// { print $3 }' | while read -r lib; do
      case "$(basename "$lib")" in
        libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) ;;
        libstdc++.so.*|libgcc_s.so.*) cp -L "$lib" "$carry/cxx/" ;;
        *) cp -L "$lib" "$carry/" ;;
      esac
    done
    git -C "$root" rev-parse HEAD >"$carry/commit.txt"
    # Inside the repository (where the device's `run` takes it from) it must stay out of git.
    case "$(realpath "$carry")/" in
      "$root"/*) rel=${carry#./}; grep -qxF "/$rel/" "$root/.git/info/exclude" 2>/dev/null || echo "/$rel/" >>"$root/.git/info/exclude" ;;
    esac
    echo "prepared $carry ($(du -sh "$carry" | cut -f1)); on the device: cd $carry && ./scaling_16core.sh run \$OUT 420"
    ;;
  run | check)
    [[ $# -ge 2 ]] || { usage >&2; exit 2; }
    out=$2 deadline=${3:-420}
    workers=1,2,4,8,16
    if [[ $1 == check ]]; then workers=1,2 deadline=600; fi
    [[ $deadline =~ ^[0-9]+$ ]] || { echo "scaling_16core.sh: DEADLINE_S '$deadline' is not a number of seconds" >&2; exit 2; }
    cd "$here"
    # shellcheck source=/dev/null
    . ./env.sh
    mkdir -p "$out"
    ./sysinfo.sh "$out" || true
    start=$(date +%s)
    parts=$(mktemp -d)
    n=0
    while read -r k reps cap args; do
      n=$((n + 1))
      left=$((deadline - ($(date +%s) - start)))
      if ((left < 15)); then
        echo "PLAN $n $k: SKIPPED, no time left" | tee -a "$out/log.txt"
        continue
      fi
      t=$cap
      ((t > left)) && t=$left
      echo "PLAN $n $k reps=$reps args=[$args] limit=${t}s at +$(($(date +%s) - start))s" | tee -a "$out/log.txt"
      if [[ $1 == check ]]; then args="--size test" reps=1; fi
      # shellcheck disable=SC2086  # args are words
      timeout --foreground -s TERM -k 10 "$t" ./slaw-bench --bench "$k" $args --workers "$workers" --reps "$reps" \
        --variant serial,slaw-wf,slaw-hf,slaw-dyn,slaw-dfd,tbb,omp --json "$parts/$n.json" --progress lines 2>&1 |
        tee -a "$out/log.txt" || true
    done < <(plan)
    # One file for every record (slaw-bench writes the configurations completed before a timeout).
    python3 - "$parts" "$out/scaling16.json" "$(cat commit.txt 2>/dev/null || echo unknown)" <<'EOF'
import glob, json, sys
runs = []
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    try:
        runs += json.load(open(f))["runs"]
    except (OSError, ValueError, KeyError):
        pass
json.dump({"commit": sys.argv[3], "runs": runs}, open(sys.argv[2], "w"))
print(f"{len(runs)} configurations in {sys.argv[2]}")
EOF
    echo "TOTAL $(($(date +%s) - start))s" | tee -a "$out/log.txt"
    if [[ $1 == check ]]; then "$0" table "$out"; fi
    ;;
  table)
    [[ $# -ge 2 ]] || { usage >&2; exit 2; }
    [[ -f $2/scaling16.json ]] || { echo "scaling_16core.sh: no $2/scaling16.json" >&2; exit 2; }
    python3 - "$2/scaling16.json" "$(plan | awk '{ print $1 }' | tr '\n' ' ')" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
order = sys.argv[2].split()
med = {}
for r in d["runs"]:
    if r.get("median") is not None and r.get("oracle_ok", True):
        med[(r["bench"], r["variant"], r["workers"])] = r["median"]
benches = [b for b in order if any(k[0] == b for k in med)]
variants = ["slaw-wf", "slaw-hf", "slaw-dyn", "slaw-dfd", "tbb", "omp"]
print(f"slaw commit {d.get('commit')}: Ts/Tp, the serial median over the variant's median\n")
for w in (1, 2, 4, 8, 16):
    print(f"### {w} worker{'s' if w > 1 else ''}\n")
    print("| kernel | " + " | ".join(variants) + " |")
    print("|---|" + "---|" * len(variants))
    for b in benches:
        ts = med.get((b, "serial", 1))
        cells = [f"{ts / med[(b, v, w)]:.2f}" if ts and (b, v, w) in med else "—" for v in variants]
        print(f"| {b} | " + " | ".join(cells) + " |")
    print()
PY
    ;;
  -h|--help|"") usage ;;
  *) echo "scaling_16core.sh: unknown command '$1' (prepare, run, table)" >&2; exit 2 ;;
esac
