#!/usr/bin/env python3
"""slaw-sim against the only many-core measurements, bench/results/scaling/ (16-core Xeon VM).

  bench/scripts/validate_16core.py BUILD_DIR [--costs FILE] [--csv FILE] [--json FILE] [--jobs N] [--quick]

For every kernel that has a simulator workload, at the parameters of that run, this
  1. calibrates the workload's strand costs from that machine's serial time, one factor per kernel:
     s = Ts(measured) / W0, W0 being the workload's own computation at its default strand costs (the
     simulated work with call, spawn_wf and finish set to 0); every strand key is multiplied by s;
  2. simulates P = 1, 2, 4, 8, 16 (fj: 1, 2, 4, as measured) under slaw-wf, slaw-hf, slaw-dyn and
     slaw-dfd (DFDeques, K = 50,000) with the 16-core cost model (--costs, default
     bench/results/simulation/costs_16core.txt: the 2-core VM's fitted runtime costs times the per-core
     speed factor between the two machines' serial times; docs/simulation.md, "Validation on 16 cores");
  3. prints measured and simulated seconds per kernel, variant and P, then per kernel Ts/T16 and the
     winner at 16 workers on both sides, and as its last line
     `median |error| X % (P=1..16, N configurations)`.
Nothing is fitted here: the cost file is made from calibration runs (bench/results/simulation/README.md).
--quick simulates only the smallest and the largest worker count of each kernel (a smoke test, not the
figure; 80 configurations, about 2.5 minutes). The full run is 10 kernels x 4 variants x 5 worker
counts (fj: 3), 192 configurations, about 5 minutes with --jobs 1 on the 2-core VM.
The cost file is made by bench/scripts/sim_costs_16core.py (bench/results/simulation/README.md).
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MEASURED = os.path.join(ROOT, "bench", "results", "scaling", "scaling.json")
DEFAULT_COSTS = os.path.join(ROOT, "bench", "results", "simulation", "costs_16core.txt")

# bench -> (slaw-sim spec at the 16-core run's parameters, {strand key: default ns}, worker counts measured)
KERNELS = {
    "fib": ("fib:35", {"node": 1.15, "leaf": 1.15}, [1, 2, 4, 8, 16]),
    "fj": ("fj:1024,reps=5000", {"task": 1.7}, [1, 2, 4]),
    "spawncost": ("spawncost:1024,reps=2000", {"task": 1.7}, [1, 2, 4, 8, 16]),
    "skynet": ("skynet:1000000", {"leaf": 1.44, "node": 4.44}, [1, 2, 4, 8, 16]),
    "pdfs": ("pdfs:1000", {"label": 7.0, "visit": 2.0}, [1, 2, 4, 8, 16]),
    "uts": ("uts:T1", {"node": 64.0}, [1, 2, 4, 8, 16]),
    "sor": ("sor:2000,iterations=40,blocks=64", {"cell": 2.72}, [1, 2, 4, 8, 16]),
    "spmv": ("spmv:30000,iters=1500", {"row": 20.0}, [1, 2, 4, 8, 16]),
    "nqueens": ("nqueens:12,cutoff=3", {"check": 0.7157}, [1, 2, 4, 8, 16]),
    "matmul": ("matmul:2048", {"leaf": 55600.0}, [1, 2, 4, 8, 16]),
}
# The simulation models the runtime that was measured. That run predates the expose window
# (include/slaw/policy/split.hpp) under every variant.
VARIANTS = [("slaw-wf", ["--policy", "wf", "--what-if", "expose-after-request=0"]),
            ("slaw-hf", ["--policy", "hf", "--what-if", "expose-after-request=0"]),
            # The measured runtime's ADP started each worker help-first (include/slaw/policy/adp.hpp).
            ("slaw-dyn", ["--policy", "dyn", "--what-if", "adp-start-hf,expose-after-request=0"]),
            # ... and DFDeques' victims among the deques present and its publishing thief
            # (docs/design/space.md).
            ("slaw-dfd", ["--scheduler", "dfdeques", "--K", "50000", "--what-if",
                          "dfd-no-publish,dfd-pick-positions,expose-after-request=0"])]
SHORT = {"slaw-wf": "wf", "slaw-hf": "hf", "slaw-dyn": "dyn", "slaw-dfd": "dfd"}


def run_sim(build, spec, args):
    with tempfile.NamedTemporaryFile(suffix=".csv", delete=False) as t:
        path = t.name
    try:
        cmd = [os.path.join(build, "bin", "slaw-sim"), "--gen", spec, "--detail", path] + args
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(path) as f:
            return list(csv.DictReader(f))
    finally:
        os.remove(path)


def with_keys(spec, keys):
    return spec + "".join(f",{k}={v:.6g}" for k, v in keys.items())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("build")
    ap.add_argument("--costs", default=DEFAULT_COSTS)
    ap.add_argument("--csv", help="write every configuration, both sides")
    ap.add_argument("--json", help="write the summary (errors, Ts/T16, winners)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="only the smallest and largest worker counts")
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--extra", default="", help="more slaw-sim options for every run (a what-if)")
    args = ap.parse_args()
    data = json.load(open(MEASURED))
    meas = {(r["bench"], r["variant"], r["workers"]): r for r in data["runs"]}
    kernels = [k for k in args.kernels.split(",") if k]
    extra = args.extra.split()

    # 1. strand calibration
    def calibrate(bench):
        spec, keys, _ = KERNELS[bench]
        w0 = float(run_sim(args.build, spec, ["--policy", "wf", "--workers", "1", "--cost", "call=0", "--cost",
                                              "spawn_wf=0", "--cost", "finish=0"])[0]["work_s"])
        ts = meas[(bench, "serial", 1)]["median"]
        return bench, {k: v * ts / w0 for k, v in keys.items()}, ts, w0

    with ThreadPoolExecutor(args.jobs) as ex:
        cal = {b: (keys, ts, w0) for b, keys, ts, w0 in ex.map(calibrate, kernels)}

    # 2. the simulations, largest first
    tasks = []
    for b in kernels:
        spec, _, ps = KERNELS[b]
        if args.quick:
            ps = [min(ps), max(ps)]
        for v, vargs in VARIANTS:
            for p in ps:
                if (b, v, p) not in meas:
                    continue
                tasks.append((b, v, p, with_keys(spec, cal[b][0]),
                              vargs + ["--workers", str(p), "--costs", args.costs] + extra))

    def one(t):
        b, v, p, spec, a = t
        return b, v, p, run_sim(args.build, spec, a)[0]

    order = {"fib": 0, "fj": 1, "spawncost": 2, "uts": 3, "pdfs": 4}
    tasks.sort(key=lambda t: (order.get(t[0], 9), -t[2]))
    with ThreadPoolExecutor(args.jobs) as ex:
        sims = {(b, v, p): r for b, v, p, r in ex.map(one, tasks)}

    # 3. the table
    rows = []
    for b in kernels:
        for v, _ in VARIANTS:
            for p in KERNELS[b][2]:
                m = meas.get((b, v, p))
                s = sims.get((b, v, p))
                if not m or not s:
                    continue
                ms, ss = m["median"], float(s["time_s"])
                rows.append({"bench": b, "variant": v, "workers": p, "measured_s": ms, "simulated_s": ss,
                             "error_pct": 100.0 * (ss - ms) / ms,
                             "steals_simulated": max(int(s["dfd_steals"] or 0), int(s["steals_preempted"]) +
                                                     int(s["steals_fresh"])),
                             "spawns_hf_simulated": int(s["spawns_hf"]), "parks_simulated": int(s["parks"])})
    print(f"slaw-sim against bench/results/scaling/ (16-core Xeon VM, slaw df94d7a); costs {os.path.relpath(args.costs, ROOT)}"
          + (f"; extra {args.extra}" if args.extra else ""))
    print()
    print("| kernel | variant | " + " | ".join(f"P={p} measured / simulated (error)" for p in (1, 2, 4, 8, 16)) + " |")
    print("|---|---|" + "---|" * 5)
    for b in kernels:
        for v, _ in VARIANTS:
            cells = []
            for p in (1, 2, 4, 8, 16):
                r = next((r for r in rows if r["bench"] == b and r["variant"] == v and r["workers"] == p), None)
                cells.append("—" if r is None else
                             f"{fmt(r['measured_s'])} / {fmt(r['simulated_s'])} ({r['error_pct']:+.0f} %)")
            print(f"| {b} | {SHORT[v]} | " + " | ".join(cells) + " |")
    print()
    print("| kernel | Ts | Ts/T16 measured wf / hf / dyn / dfd | simulated | worst Ts/T16 error | winner at 16 measured / simulated |")
    print("|---|---|---|---|---|---|")
    summary = {"kernels": {}}
    for b in kernels:
        ts = cal[b][1]
        top = max(KERNELS[b][2])
        mt = {v: meas[(b, v, top)]["median"] for v, _ in VARIANTS if (b, v, top) in meas}
        st = {v: float(sims[(b, v, top)]["time_s"]) for v, _ in VARIANTS}
        errs = {v: 100.0 * (mt[v] / st[v] - 1.0) for v in mt}  # (simulated Ts/T - measured Ts/T) / measured
        wm, ws = min(mt, key=mt.get), min(st, key=st.get)
        worst = max(errs.values(), key=abs)
        print(f"| {b} | {ts:.4f} s | " + " / ".join(f"{ts / mt[v]:.2f}" for v in mt) + " | " +
              " / ".join(f"{ts / st[v]:.2f}" for v in mt) + f" | {worst:+.0f} % | {SHORT[wm]} / {SHORT[ws]}" +
              ("" if wm == ws else " ✗") + (f" (at P={top})" if top != 16 else "") + " |")
        summary["kernels"][b] = {"Ts": ts, "strand_factor": ts / cal[b][2], "top_workers": top,
                                 "speedup_measured": {v: ts / mt[v] for v in mt},
                                 "speedup_simulated": {v: ts / st[v] for v in st},
                                 "speedup_error_pct": errs, "winner_measured": wm, "winner_simulated": ws}
    errs = [abs(r["error_pct"]) for r in rows]
    by_p = {p: statistics.median([abs(r["error_pct"]) for r in rows if r["workers"] == p])
            for p in (1, 2, 4, 8, 16) if any(r["workers"] == p for r in rows)}
    within = sum(all(abs(e) <= 25 for e in k["speedup_error_pct"].values()) for k in summary["kernels"].values())
    winners = sum(k["winner_measured"] == k["winner_simulated"] for k in summary["kernels"].values())
    print()
    print("median |error| by P: " + ", ".join(f"P={p} {e:.0f} %" for p, e in by_p.items()) +
          f"; Ts/Tmax within 25 % for every variant on {within} of {len(kernels)} kernels; "
          f"winner right on {winners} of {len(kernels)}")
    summary.update({"median_abs_error_pct": statistics.median(errs), "configurations": len(errs),
                    "median_abs_error_pct_by_P": by_p, "costs": os.path.relpath(args.costs, ROOT), "extra": args.extra})
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    print(f"median |error| {statistics.median(errs):.0f} % (P=1..16, {len(errs)} configurations)")


def fmt(x):
    return f"{x:.3f}" if x >= 0.1 else (f"{x:.4f}" if x >= 0.01 else f"{x:.5f}")


if __name__ == "__main__":
    sys.exit(main())
