#!/usr/bin/env bash
# The prepared 16-core run: slaw-wf/hf/dyn/dfd, oneTBB and OpenMP against the serial elision at 1, 2, 4,
# 8 and 16 workers on the coarse kernels and on fj, spawncost and pdfs, in about 8 minutes of a lent
# 16-core machine (bench/results/scaling/README.md).
#
#   bench/scripts/scaling_16core.sh prepare [CARRY]    here: builds slaw-bench as `make bench` does and puts
#                                                      it, its shared libraries, this script and its plan
#                                                      into CARRY (default .devcarry, git-ignored locally)
#   CARRY/scaling_16core.sh run OUT [DEADLINE_S]       there (the device's `run`, carry: [CARRY]): runs the
#                                                      plan, at most DEADLINE_S seconds (default 480), and
#                                                      writes OUT/scaling16.json (every configuration's
#                                                      slaw-bench record), OUT/log.txt, sysinfo.sh's
#                                                      three files and OUT/calibration.txt (the
#                                                      simulator's line, wake and spin costs measured
#                                                      there, in the time the plan left)
#   bench/scripts/scaling_16core.sh table DIR          here: every slaw-bench --json in DIR (the run's
#                                                      scaling16.json and any runs that filled its gaps;
#                                                      a configuration in several: the median of their
#                                                      medians) into Ts/Tp tables per worker count
#                                                      (markdown, on stdout)
#   CARRY/scaling_16core.sh check OUT                  here, after prepare: the whole plan at --size test,
#                                                      1 repetition, 1 and 2 workers (seconds), then table
#
# The device has no compilers and none of the peers' libraries: everything slaw-bench loads that is not
# glibc travels with it (libstdc++ and libgcc_s in CARRY/cxx, used where the device's glibc is at least
# this machine's). The device's `run` returns at most 8 files: the run writes 6. Each plan line has a
# cap, and a line that would start after the deadline is skipped and logged, so that a run always comes
# back with what it measured.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage() { sed -n '2,20s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }

# kernel reps cap_s variants args   (every line at 1,2,4,8,16 workers; `all` is serial,slaw-wf,slaw-hf,
# slaw-dyn,slaw-dfd,tbb,omp). Sizes: the serial run takes 0.3-0.6 s on the 16-core Xeon lent last
# (bench/results/scaling/16core_9528231); the caps (480 s in all) are that machine's time for
# the line plus a fifth.
# Each configuration runs in a fresh process that builds its input (0.3-0.7 s on the big kernels), which
# is most of a line's time at 8-16 workers. fj and spawncost leave OpenMP out: its tasks take 7-10 s a
# repetition there at 4-16 workers (0.2-0.5 s at one).
plan() {
  cat <<'EOF'
matmul    3 40 all --arg n=1024
lu        3 30 all --arg n=1024
sort      3 30 all --arg n=4000000
barneshut 3 55 all
sor       3 60 all
spmv      3 60 all
nqueens   3 25 all --arg n=12
densemm   3 40 all
uts       3 40 all
fft       3 30 all --arg n=1048576
fj        3 35 serial,slaw-wf,slaw-hf,slaw-dyn,slaw-dfd,tbb
spawncost 3 20 serial,slaw-wf,slaw-hf,slaw-dyn,slaw-dfd,tbb
pdfs      3 15 all
EOF
}

case "${1:-}" in
  prepare)
    carry=${2:-.devcarry}
    root=$(cd "$here/../.." && pwd)
    build=$root/build-bench
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++-19 -DSLAW_BUILD_TESTS=OFF >/dev/null
    cmake --build "$build" --target slaw-bench sim_line_transfer sim_wake_latency sim_spin_cost
    mkdir -p "$carry/cxx"
    cp "$build/bin/slaw-bench" "$build/bin/sim_line_transfer" "$build/bin/sim_wake_latency" "$build/bin/sim_spin_cost" \
      "$here/scaling_16core.sh" "$here/scaling/env.sh" "$here/scaling/sysinfo.sh" "$carry/"
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
    echo "prepared $carry ($(du -sh "$carry" | cut -f1)); on the device: cd $carry && ./scaling_16core.sh run \$OUT 480"
    ;;
  run | check)
    [[ $# -ge 2 ]] || { usage >&2; exit 2; }
    out=$2 deadline=${3:-480}
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
    while read -r k reps cap variants args; do
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
      [[ $variants == all ]] && variants=serial,slaw-wf,slaw-hf,slaw-dyn,slaw-dfd,tbb,omp
      # shellcheck disable=SC2086  # args are words
      timeout --foreground -s TERM -k 10 "$t" ./slaw-bench --bench "$k" $args --workers "$workers" --reps "$reps" \
        --variant "$variants" --json "$parts/$n.json" --progress lines 2>&1 |
        tee -a "$out/log.txt" || true
    done < <(plan)
    # The simulator's machine costs (docs/simulation.md, "Costs"), which the 16-core cost model otherwise
    # scales from the 2-core VM: last, in what time is left, so that they never cost the plan a line.
    if [[ $1 == run ]]; then
      for tool in sim_line_transfer sim_wake_latency sim_spin_cost; do
        left=$((deadline - ($(date +%s) - start)))
        if ((left < 10)); then
          echo "CALIBRATION $tool: SKIPPED, no time left" | tee -a "$out/log.txt"
          continue
        fi
        { echo "== $tool"; timeout -k 5 "$left" "./$tool" 2>&1 || echo "($tool stopped: exit $?)"; } | tee -a "$out/calibration.txt"
      done
    fi
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
    compgen -G "$2/*.json" >/dev/null || { echo "scaling_16core.sh: no slaw-bench --json file in $2" >&2; exit 2; }
    python3 - "$2" "$(plan | awk '{ print $1 }' | tr '\n' ' ')" <<'PY'
import glob, json, statistics, sys
order = sys.argv[2].split()
# Ts/Tp is taken within one file (its serial run beside the variant's, the machine's state shared), then
# the median over the files that measured the configuration; a file without a serial run of the kernel
# uses the median serial time of the others.
files, commits = [], set()
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    d = json.load(open(f))
    if "commit" in d:
        commits.add(d["commit"])
    files.append([r for r in d.get("runs", []) if r.get("median") is not None and r.get("oracle_ok", True)])
serials = {}
for runs in files:
    for r in runs:
        if r["variant"] == "serial":
            serials.setdefault(r["bench"], []).append(r["median"])
ratios = {}
for runs in files:
    own = {}
    for r in runs:
        if r["variant"] == "serial":
            own.setdefault(r["bench"], []).append(r["median"])
    for r in runs:
        b = r["bench"]
        ts = statistics.median(own[b]) if b in own else statistics.median(serials[b]) if b in serials else None
        if ts is not None and r["variant"] != "serial":
            ratios.setdefault((b, r["variant"], r["workers"]), []).append(ts / r["median"])
speedup = {k: statistics.median(v) for k, v in ratios.items()}
d = {"commit": ", ".join(sorted(commits)) or "unknown"}
benches = [b for b in order if any(k[0] == b for k in speedup)]
variants = ["slaw-wf", "slaw-hf", "slaw-dyn", "slaw-dfd", "tbb", "omp"]
print(f"slaw commit {d.get('commit')}: Ts/Tp, the serial median over the variant's median (within a file;\n"
      "the median over files)\n")
for w in (1, 2, 4, 8, 16):
    print(f"### {w} worker{'s' if w > 1 else ''}\n")
    print("| kernel | " + " | ".join(variants) + " |")
    print("|---|" + "---|" * len(variants))
    for b in benches:
        cells = [f"{speedup[(b, v, w)]:.2f}" if (b, v, w) in speedup else "—" for v in variants]
        print(f"| {b} | " + " | ".join(cells) + " |")
    print()
PY
    ;;
  -h|--help|"") usage ;;
  *) echo "scaling_16core.sh: unknown command '$1' (prepare, run, table)" >&2; exit 2 ;;
esac
