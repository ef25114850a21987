#!/bin/bash
# usage: sysinfo.sh OUTDIR   writes sysinfo.txt, lscpu.txt and lscpu_e.txt of this machine to OUTDIR
# (run beside env.sh and slaw-bench, as run_scaling.sh is)
case "${1:-}" in -h|--help|'') sed -n '2,3s/^# \{0,1\}//p' "$0"; exit 0;; esac
cd "$(dirname "$0")"; . ./env.sh >/dev/null
{ echo "== nproc: $(nproc)"; echo "== taskset: $(taskset -p $$ 2>&1)"; echo "== cpu.max: $(cat /sys/fs/cgroup/cpu.max 2>&1)";
  echo "== uname: $(uname -a)"; ldd --version | head -1; echo "== free"; free -g; echo "== ldd slaw-bench"; ldd ./slaw-bench;
  echo "== numa"; ls /sys/devices/system/node/ | grep node; echo "== governor: $(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>&1)"; } > $1/sysinfo.txt 2>&1
lscpu > $1/lscpu.txt 2>&1
lscpu -e > $1/lscpu_e.txt 2>&1
