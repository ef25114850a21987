#!/usr/bin/env bash
# Instructions per internal fib node (one async + one call + one finish + two returns) at 1 worker,
# counted by callgrind on the busiest thread: (I(fib 22) - I(fib 20)) / 17711, the number of internal
# nodes fib(22) has more than fib(20); start-up and shutdown cancel out. One row per build directory
# (examples/fib), one column per policy. Extra rows for other runtimes: NAME=COMMAND, where COMMAND
# runs fib N on one worker with the placeholder N, e.g. libfork='/tmp/lf/fib_lf N 1'
# (docs/design/fast_path.md).
#   bench/scripts/fibnode_callgrind.sh build-gcc build-clang [NAME=COMMAND...]
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: fibnode_callgrind.sh BUILD_DIR... [NAME='COMMAND with N']" >&2; exit 2; }
# The count of the busiest thread (the one worker), median of 3 runs: the other threads' share varies
# from run to run (a waiting main thread, an idle helper) by up to 1.5 instructions per node in the
# total, and the worker's own now and then by about 1 (how long it looks for work around the run).
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
count_once() {
  rm -f "$tmp"/cg.out*
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$tmp/cg.out" "$@" >/dev/null 2>&1 || return 0
  cat "$tmp"/cg.out-* 2>/dev/null | sed -n 's/^summary: \([0-9]*\)$/\1/p' | sort -n | tail -1
}
count() {
  local runs=() i
  for i in 1 2 3; do runs+=("$(count_once "$@")"); done
  [ -n "${runs[0]}" ] && [ -n "${runs[1]}" ] && [ -n "${runs[2]}" ] || return 0
  printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p
}
with_n() {  # $1: the value of N; the rest: command words, the word N replaced
  local n=$1 w; shift
  local out=()
  for w in "$@"; do [ "$w" = N ] && out+=("$n") || out+=("$w"); done
  count "${out[@]}"
}
per_node() {  # command words with the placeholder N
  local a b
  a=$(with_n 20 "$@"); b=$(with_n 22 "$@")
  [ -n "$a" ] && [ -n "$b" ] || { echo "fibnode_callgrind.sh: callgrind failed on: $*" >&2; exit 1; }
  awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", (b - a) / 17711 }'
}
echo "| build | wf | dyn | hf |"
echo "|---|---|---|---|"
for arg in "$@"; do
  if [[ "$arg" == *=* ]]; then
    read -r -a cmd <<<"${arg#*=}"
    echo "| ${arg%%=*} | $(per_node "${cmd[@]}") | | |"
  else
    [ -x "$arg/examples/fib" ] || { echo "fibnode_callgrind.sh: $arg/examples/fib not found (build the fib target)" >&2; exit 2; }
    row="| $arg ($(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$arg/CMakeCache.txt" | xargs basename))"
    for p in wf dyn hf; do row="$row | $(SLAW_WORKERS=1 SLAW_POLICY=$p per_node "$arg/examples/fib" N)"; done
    echo "$row |"
  fi
done
