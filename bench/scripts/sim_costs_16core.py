#!/usr/bin/env python3
"""Writes slaw-sim's 16-core cost model (bench/results/simulation/costs_16core.txt) from calibrations only.

  bench/scripts/sim_costs_16core.py BUILD_DIR FITTED HERE_JSON SCALING_JSON > costs_16core.txt

  FITTED        KEY=VALUE lines fitted on the 2-core VM by sim_fit_costs.py (its one-worker runs)
  HERE_JSON     the 2-core VM's slaw-bench --json (its serial times)
  SCALING_JSON  bench/results/scaling/scaling.json (the 16-core VM; only its serial times are read)

The model is slaw-sim's `measured` model with the fitted keys replaced, then every time cost (ns) is
multiplied by one per-core speed factor: the median, over the kernels whose serial run has the same
parameters on both machines, of T_serial(16-core VM) / T_serial(2-core VM). Fractions (jitter,
mem_share), worker counts, cycles and the clock are kept. No parallel time of the 16-core table is read.
"""
import json
import statistics
import subprocess
import sys
import os

NOT_TIME = {"jitter", "mem_share", "mem_workers", "burden_cycles", "ghz"}


def serial(path):
    return {r["bench"]: r for r in json.load(open(path))["runs"] if r["variant"] == "serial" and r["workers"] == 1}


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    build, fitted, here_json, scaling_json = sys.argv[1:]
    out = subprocess.run([os.path.join(build, "bin", "slaw-sim"), "--list"], check=True, capture_output=True,
                         text=True).stdout
    model, on = {}, False
    for line in out.splitlines():
        if line.startswith("The measured model"):
            on = True
        elif on and "=" in line:
            k, v = line.strip().split("=", 1)
            model[k] = float(v)
    fit = {}
    for line in open(fitted):
        line = line.split("#", 1)[0].strip()
        if "=" in line:
            k, v = line.split("=", 1)
            fit[k.strip()] = float(v)
    model.update(fit)
    here, there = serial(here_json), serial(scaling_json)
    ratios = {b: there[b]["median"] / here[b]["median"] for b in sorted(set(here) & set(there))
              if there[b].get("params") is not None and there[b]["params"] == here[b].get("params")}
    s = statistics.median(ratios.values())
    print("# slaw-sim's cost model for the 16-core Xeon VM of bench/results/scaling/, from calibrations only;")
    print(f"# written by bench/scripts/sim_costs_16core.py {' '.join(sys.argv[1:])}")
    print(f"# base: the measured model with {', '.join(sorted(fit))} from {os.path.basename(fitted)}")
    print(f"# per-core speed factor {s:.3f}: median of T_serial(16-core) / T_serial(2-core) over " +
          ", ".join(f"{b} {r:.2f}" for b, r in ratios.items()))
    print("# every time cost (ns) below is the base times that factor; jitter, mem_*, burden_cycles, ghz as the base")
    for k, v in model.items():
        print(f"{k}={v if k in NOT_TIME else v * s:.4g}")


if __name__ == "__main__":
    main()
