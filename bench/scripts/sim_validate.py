#!/usr/bin/env python3
"""Validation of slaw-sim against slaw-bench on this machine (docs/simulation.md, "Validation").

  bench/scripts/sim_validate.py BUILD_DIR OUT_DIR LABEL=MEASURED_JSON [LABEL=MEASURED_JSON ...]

(OUT_DIR is bench/results/simulation for the committed tables.)

Each MEASURED_JSON is slaw-bench's --json output with the serial, slaw-wf, slaw-hf, slaw-dyn and slaw-dfd
variants at 1 and 2 workers (default size). For every benchmark that has a simulator workload this
  1. calibrates the workload's strand costs from the measured serial time: one factor per kernel,
     s = Ts(measured) / W0, where W0 is the workload's own computation at its default strand costs (the
     simulated work with the runtime's call, spawn and finish costs set to 0); every strand key is
     multiplied by s (nothing is fitted to a 1- or 2-worker run);
  2. runs slaw-sim at 1 and 2 workers under wf, hf, dyn and DFDeques(K = 50,000, the runtime's default)
     with the default (measured) scheduler costs and seed 0;
  3. writes validation_2core.md (a table per data set), validation_2core.csv (one row per data set and
     configuration, both sides), validation_calibration.csv, the simulator's detail rows of every data set
     and benchmark (validation_detail.csv, with its `dataset` and `bench` columns first) and
     validation_commands.txt.
"""
import csv
import json
import math
import os
import subprocess
import sys

# bench name -> (slaw-sim spec at slaw-bench's default size, {strand key: default ns})
WORKLOADS = {
    "fib": ("fib:35", {"node": 1.15, "leaf": 1.15}),
    "fj": ("fj:1024,reps=5000", {"task": 1.7}),
    "fj-rec": ("fj-rec:1024,reps=5000", {"task": 1.7, "node": 1.15}),
    "spawncost": ("spawncost:1024,reps=2000", {"task": 1.7}),
    "skynet": ("skynet:1000000", {"leaf": 1.44, "node": 4.44}),
    "pdfs": ("pdfs:1000", {"label": 7.0, "visit": 2.0}),
    "uts": ("uts:T1", {"node": 64.0}),
    "sor": ("sor:2000,iterations=30,blocks=64", {"cell": 2.72}),
    "nqueens": ("nqueens:13,cutoff=3", {"check": 0.7157}),
    "matmul": ("matmul:1024", {"leaf": 55600.0}),
    "integrate": ("integrate:5e-8", {"node": 2.4}),
}
NOT_MODELLED = {
    "barneshut": "octree build with parallel node allocation and force passes whose cost per body depends on "
                 "the tree's shape (a data-dependent DAG and per-leaf cost); no faithful generator in < 80 lines",
    "densemm": "8-way recursion with an m x m heap temporary per call and an add pass: the shape is simple, but "
               "its time is dominated by allocation and memory traffic the simulator does not model",
    "fft": "recursive radix-2 FFT with a temporary per call; memory-bound (the 2-worker speedup 2.1-2.2 is "
           "super-linear, a cache effect) - not modelled",
    "lu": "blocked LU with a dependence pattern of four recursive phases (two of them parallel) and three leaf "
          "kernels of different costs; more than one calibration number",
    "sort": "cilksort: data-dependent merge splits (binary search) and two leaf kinds (quicksort, serial merge) "
            "whose cost ratio would be a second fitted number; memory-bound",
    "spmv": "flat loops over a sparse matrix's rows whose cost follows its row lengths (a data-dependent "
            "leaf cost); memory-bound",
}
VARIANTS = [("slaw-wf", ["--policy", "wf"]), ("slaw-hf", ["--policy", "hf"]), ("slaw-dyn", ["--policy", "dyn"]),
            ("slaw-dfd", ["--scheduler", "dfdeques", "--K", "50000"])]
SIM_TAG = {"slaw-wf": "wf", "slaw-hf": "hf", "slaw-dyn": "dyn", "slaw-dfd": "dfd(K=50000)"}


def sim(build, spec, args, detail):
    cmd = [os.path.join(build, "bin", "slaw-sim"), "--gen", spec, "--workers", "1,2", "--detail", detail] + args
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(detail) as f:
        return list(csv.DictReader(f)), cmd


def with_keys(spec, keys):
    return spec + "".join(f",{k}={v:.6g}" for k, v in keys.items())


def main():
    if len(sys.argv) < 4 or any(a in ("-h", "--help") for a in sys.argv[1:]) or "=" not in sys.argv[3]:
        print(__doc__)
        sys.exit(0 if any(a in ("-h", "--help") for a in sys.argv[1:]) else 2)
    build, out = sys.argv[1:3]
    sets = []
    allrows, allcalib, alldetail, commands = [], [], [], []
    for arg in sys.argv[3:]:
        label, path = arg.split("=", 1)
        data = json.load(open(path))
        rows, calib, detail = validate(build, out, label, data, commands)
        sets.append((label, path, data, rows, calib))
        allrows += rows
        allcalib += calib
        alldetail += detail
    with open(os.path.join(out, "validation_detail.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(alldetail[0].keys()))
        w.writeheader()
        w.writerows(alldetail)
    with open(os.path.join(out, "validation_2core.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(allrows[0].keys()))
        w.writeheader()
        w.writerows(allrows)
    with open(os.path.join(out, "validation_calibration.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(allcalib[0].keys()))
        w.writeheader()
        w.writerows(allcalib)
    with open(os.path.join(out, "validation_commands.txt"), "w") as f:
        f.write("\n".join(commands) + "\n")
    write_md(out, sets)


def validate(build, out, label, data, commands):
    runs = {(r["bench"], r["variant"], r["workers"]): r for r in data["runs"]}
    rows, calib, details = [], [], []
    for bench, (spec, keys) in WORKLOADS.items():
        serial = runs.get((bench, "serial", 1))
        if not serial:
            continue
        ts = serial["median"]
        # W0: the workload's computation alone (1 worker, wf; call, spawn and finish free).
        tmp = os.path.join(out, f".w0_{bench}.csv")
        w0rows, _ = sim(build, spec, ["--policy", "wf", "--workers", "1", "--cost", "call=0", "--cost", "spawn_wf=0",
                                      "--cost", "finish=0"], tmp)
        os.remove(tmp)
        w0 = float(w0rows[0]["work_s"])
        s = ts / w0
        cal = {k: v * s for k, v in keys.items()}
        cspec = with_keys(spec, cal)
        calib.append({"dataset": label, "bench": bench, "spec": spec, "Ts_measured_s": ts, "W0_default_s": w0, "factor": s,
                      "calibrated": " ".join(f"{k}={v:.4g}" for k, v in cal.items())})
        tmp = os.path.join(out, f".detail_{label}_{bench}.csv")
        sims = []
        for variant, args in VARIANTS:
            r, cmd = sim(build, cspec, args, tmp)
            commands.append(" ".join(cmd[:1] + [c if " " not in c else repr(c) for c in cmd[1:]]).replace(
                os.path.join(build, "bin") + "/", "BUILD/bin/").replace(tmp, "validation_detail.csv"))
            for x in r:
                x["variant"] = variant
            sims += r
            os.remove(tmp)
        details += [dict({"dataset": label, "bench": bench}, **x) for x in sims]
        for x in sims:
            p = int(x["workers"])
            m = runs.get((bench, x["variant"], p))
            if not m:
                continue
            mt = m.get("counters", {}).get("total", {})
            ms, ss = m["median"], float(x["time_s"])
            rows.append({
                "dataset": label, "bench": bench, "variant": x["variant"], "workers": p, "measured_s": ms,
                "measured_min_s": min(m["seconds"]), "measured_max_s": max(m["seconds"]), "simulated_s": ss,
                "error_pct": 100.0 * (ss - ms) / ms,
                "steals_measured": mt.get("steals_preempted", 0) + mt.get("steals_fresh", 0) if mt else "",
                "steals_simulated": max(int(x["dfd_steals"] or 0), int(x["steals_preempted"]) + int(x["steals_fresh"])),
                "max_wf_depth_measured": mt.get("max_wf_depth", ""), "max_wf_depth_simulated": int(x["max_wf_depth"]),
                "max_fresh_measured": mt.get("max_fresh", ""), "max_fresh_simulated": int(x["max_fresh"]),
                "frame_bytes_peak_measured": mt.get("frame_bytes_peak", ""),
                "frame_bytes_peak_simulated": int(x["peak_frame_bytes"]),
                "giveups_measured": mt.get("quota_giveups", ""), "giveups_simulated": int(x["quota_giveups"]),
            })
    return rows, calib, details


def fmt_s(x):
    return f"{x:.4f}" if x >= 0.01 else f"{x:.5f}"


def write_md(out, sets):
    L = []
    L.append("# slaw-sim against slaw-bench on this 2-core VM (validation)\n")
    L.append("slaw-bench default size, 5 repetitions, medians (min-max in validation_2core.csv); the runtime's "
             "counters are the last repetition's. slaw-sim: seed 0, `--costs measured` (the defaults), strand "
             "costs calibrated per kernel from the same data set's serial run (below). Commands: "
             "`validation_commands.txt` and docs/simulation.md, \"Validation\". Error = (simulated - measured) / "
             "measured. Counters: measured / simulated. steals: successful steals; wf depth: largest work-first "
             "depth; fresh: largest fresh-task count; frame peak: measured is the sum of the workers' peaks of "
             "live frame bytes (SLAW_STATS frame_bytes_peak), simulated the whole run's peak of live frame bytes, "
             "KiB.\n")
    L.append(COMMANDS)
    for label, path, data, rows, calib in sets:
        L.append(f"## Data set `{label}`: {os.path.basename(path)}\n")
        L.append(f"Machine: `{json.dumps(data.get('machine', {}))}`. {NOTES.get(label, '')}\n")
        L.append("Calibration: one factor per kernel, from the serial time at 1 worker.\n")
        L.append("| bench | workload | Ts measured | W0 at default strand costs | factor | strand costs used (ns) |")
        L.append("|---|---|---|---|---|---|")
        for c in calib:
            L.append(f"| {c['bench']} | `{c['spec']}` | {c['Ts_measured_s']:.4f} s | {c['W0_default_s']:.4f} s | "
                     f"{c['factor']:.3f} | {c['calibrated']} |")
        L.append("")
        L.append("| bench | variant | P | measured s | simulated s | error | steals | wf depth | fresh | frame peak KiB |")
        L.append("|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            def pair(k, scale=1.0):
                m, s = r[k + "_measured"], r[k + "_simulated"]
                ms = "-" if m == "" else (f"{m / scale:.0f}" if scale != 1 else f"{m}")
                ss = f"{s / scale:.0f}" if scale != 1 else f"{s}"
                return f"{ms} / {ss}"
            L.append(f"| {r['bench']} | {r['variant'][5:]} | {r['workers']} | {fmt_s(r['measured_s'])} | "
                     f"{fmt_s(r['simulated_s'])} | {r['error_pct']:+.0f} % | {pair('steals')} | "
                     f"{pair('max_wf_depth')} | {pair('max_fresh')} | {pair('frame_bytes_peak', 1024.0)} |")
        L.append("")
        errs = sorted(abs(r["error_pct"]) for r in rows)
        for p in (1, 2):
            e = sorted(abs(r["error_pct"]) for r in rows if r["workers"] == p)
            L.append(f"* P = {p}: {len(e)} configurations, median |error| {e[len(e) // 2]:.0f} %, "
                     f"{sum(x <= 10 for x in e)} within 10 %, {sum(x <= 25 for x in e)} within 25 %, "
                     f"largest {e[-1]:.0f} %.")
        lr = [math.log(r["simulated_s"] / r["measured_s"]) for r in rows]
        L.append(f"* all: log-rms error {100 * (math.exp(math.sqrt(sum(x * x for x in lr) / len(lr))) - 1):.0f} %, "
                 f"median |error| {errs[len(errs) // 2]:.0f} %.")
        sp = []
        for r in rows:
            if r["workers"] == 2:
                one = [q for q in rows if q["bench"] == r["bench"] and q["variant"] == r["variant"] and q["workers"] == 1]
                if one:
                    sp.append(f"{r['bench']} {r['variant'][5:]} {one[0]['measured_s'] / r['measured_s']:.2f}/"
                              f"{one[0]['simulated_s'] / r['simulated_s']:.2f}")
        L.append("* self-relative speedup T1/T2, measured/simulated: " + ", ".join(sp) + ".")
        L.append("")
    L.append(WRONG)
    L.append("## Not modelled\n")
    L.append("| bench | why |")
    L.append("|---|---|")
    for b, why in NOT_MODELLED.items():
        L.append(f"| {b} | {why} |")
    L.append("")
    with open(os.path.join(out, "validation_2core.md"), "w") as f:
        f.write("\n".join(L))


COMMANDS = """Commands (from the repository root; BUILD = build-hD):

```sh
cmake -S . -B build-hD -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++-19 -DSLAW_BUILD_TESTS=ON
cmake --build build-hD --target slaw-sim slaw-bench
# the fresh measurement (validation_measured.json; its stderr is validation_measured.log)
build-hD/bin/slaw-bench --bench fib,fj,fj-rec,integrate,matmul,nqueens,pdfs,skynet,sor,sort,spawncost,uts \\
    --variant serial,slaw-wf,slaw-hf,slaw-dyn,slaw-dfd --workers 1,2 --reps 5 --progress lines \\
    --json bench/results/simulation/validation_measured.json
# calibration, simulation, tables (about 5 minutes; every slaw-sim command it runs is in validation_commands.txt)
python3 bench/scripts/sim_validate.py build-hD bench/results/simulation \\
    latest=bench/results/simulation/validation_latest.json fresh=bench/results/simulation/validation_measured.json
```

`validation_latest.json` is a copy of `make bench`'s latest.json as it was when this ran.
"""

WRONG = """## Where the model is wrong (details and numbers: docs/simulation.md, "Validation")

1. Stale runtime costs: `call` (24 ns) and the help-first path (50.4 ns) were fitted to an older runtime; today an inner fib call costs 22.4 ns (wf) / 43.1 ns (hf) against 38.0 / 75.2 modelled: fib, fj-rec, integrate +31 ... +72 %. `call=8.4` and the help-first keys x 0.66 bring them within -16 ... +10 % (validation_whatif_costs.txt).
2. Tiny-task flat loops under wf/dyn at 2 workers: 736-1,969 continuation steals and T2 = 2.1 x T1 on the machine, none and T2 = T1 in the model (-32 ... -41 %).
3. DFDeques' give-up/steal price: pdfs makes ~1 M of them on both sides; ~73 ns each at P = 1 and ~580 ns at P = 2 measured, ~200 / ~250 ns simulated (+94 %, -57 %).
4. Memory effects: pdfs wf's million live frames (-34 % at P = 1), matmul's super-linear 2.03-2.07, sor's bandwidth (1.74-1.77 against 1.87-1.99).
5. pdfs hf at 2 workers: 16,738 steals and T2 = 2.2 x T1 measured, 57 steals and speedup 2 simulated (-70 %).
6. Other load (the fresh set): T2 = T1 for fib, uts, integrate while another process held a core.
7. HEAD's idle routine (places) differs from the modelled one: fj hf at 2 workers 0.205 s with 29,862 steals at HEAD, 0.971 s with 3.87 M at 31ea544 (model: 0.727 s, 3.39 M).
8. Definitions: dyn's fresh count (the harness keeps ADP's state across repetitions), frame peaks (sum of per-worker peaks vs whole-run peak; GCC's 320-B fib frame vs clang's 232 B).
"""

NOTES = {
    "latest": "The committed `make bench` run (its latest.json, copied as validation_latest.json: main at 31ea544, clang-19, with the "
              "harness's quiet wait between repetitions), taken before this validation; the quieter of the two.",
    "fresh": "Measured for this validation with build-hD (this tree, clang-19 Release) while other jobs built "
             "and benchmarked on the same 2 cores (load average 3.1-3.5 at the start, 11 two minutes after the "
             "end): its 2-worker times are inflated by other processes taking a core (fib wf: T2 = T1).",
}


if __name__ == "__main__":
    main()
