#!/usr/bin/env python3
"""slaw-sim against the many-core measurements of bench/results/scaling/ (16-core Xeon VMs).

  bench/scripts/validate_16core.py BUILD_DIR [--measured PATH] [--costs FILE] [--csv FILE] [--json FILE]
                                   [--jobs N] [--quick]

--measured: the run to hold the simulator against. Default: bench/results/scaling/scaling.json (slaw
df94d7a), simulated as the runtime was then (no expose window, ADP starting help-first, DFDeques' old
victims: the what-ifs below). A directory (a later run, e.g. bench/results/scaling/16core_9528231): every
slaw-bench --json in it (a configuration measured in several files: the median of their medians),
simulated as the runtime is today, each kernel at that run's parameters; pass that machine's cost file
with --costs.

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
import glob
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

# bench -> (slaw-sim spec at the first 16-core run's parameters, {strand key: default ns})
KERNELS = {
    "fib": ("fib:35", {"node": 1.15, "leaf": 1.15}),
    "fj": ("fj:1024,reps=5000", {"task": 1.7}),
    "spawncost": ("spawncost:1024,reps=2000", {"task": 1.7}),
    "skynet": ("skynet:1000000", {"leaf": 1.44, "node": 4.44}),
    "pdfs": ("pdfs:1000", {"label": 7.0, "visit": 2.0}),
    "uts": ("uts:T1", {"node": 64.0}),
    "sor": ("sor:2000,iterations=40,blocks=64", {"cell": 2.72}),
    "spmv": ("spmv:30000,iters=1500", {"row": 20.0}),
    "nqueens": ("nqueens:12,cutoff=3", {"check": 0.7157}),
    "matmul": ("matmul:2048", {"leaf": 55600.0}),
}
# The simulation models the runtime that was measured. That run predates the expose window
# (include/slaw/policy/split.hpp) under every variant.
VARIANTS_DF94D7A = [("slaw-wf", ["--policy", "wf", "--what-if", "expose-after-request=0"]),
                  ("slaw-hf", ["--policy", "hf", "--what-if", "expose-after-request=0"]),
                  # The measured runtime's ADP started each worker help-first (include/slaw/policy/adp.hpp).
                  ("slaw-dyn", ["--policy", "dyn", "--what-if", "adp-start-hf,expose-after-request=0"]),
                  # ... and DFDeques' victims among the deques present and its publishing thief
                  # (docs/design/space.md).
                  ("slaw-dfd", ["--scheduler", "dfdeques", "--K", "50000", "--what-if",
                                "dfd-no-publish,dfd-pick-positions,expose-after-request=0"])]
VARIANTS_TODAY = [("slaw-wf", ["--policy", "wf"]), ("slaw-hf", ["--policy", "hf"]), ("slaw-dyn", ["--policy", "dyn"]),
                  ("slaw-dfd", ["--scheduler", "dfdeques", "--K", "50000"])]
SHORT = {"slaw-wf": "wf", "slaw-hf": "hf", "slaw-dyn": "dyn", "slaw-dfd": "dfd"}


def spec_at(bench, params):
    """The slaw-sim workload at a slaw-bench record's parameters."""
    p = params
    return {"fib": lambda: f"fib:{p['n']}",
            "fj": lambda: f"fj:{p['tasks']},reps={p['reps']}",
            "spawncost": lambda: f"spawncost:{p['k']},reps={p['reps']}",
            "skynet": lambda: f"skynet:{p['tasks']}",
            "pdfs": lambda: f"pdfs:{p['side']}",
            "uts": lambda: f"uts:{p['tree']}",
            "sor": lambda: f"sor:{p['n']},iterations={p['iterations']},blocks={p['blocks']}",
            "spmv": lambda: f"spmv:{p['rows']},iters={p['iters']}",
            "nqueens": lambda: f"nqueens:{p['n']},cutoff={p['cutoff']}",
            "matmul": lambda: f"matmul:{p['n']}"}[bench]()


def load_measured(path):
    """{(bench, variant, workers): {"median": s, "params": {...}}} from a file or every JSON of a directory."""
    files = sorted(glob.glob(os.path.join(path, "*.json"))) if os.path.isdir(path) else [path]
    meds, params = {}, {}
    for f in files:
        for r in json.load(open(f)).get("runs", []):
            if r.get("median") is None or not r.get("oracle_ok", True):
                continue
            k = (r["bench"], r["variant"], r["workers"])
            meds.setdefault(k, []).append(r["median"])
            params.setdefault(k, r.get("params"))
    return {k: {"median": statistics.median(v), "params": params[k]} for k, v in meds.items()}


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
    ap.add_argument("--measured", default=MEASURED)
    ap.add_argument("--costs", default=DEFAULT_COSTS)
    ap.add_argument("--csv", help="write every configuration, both sides")
    ap.add_argument("--json", help="write the summary (errors, Ts/T16, winners)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="only the smallest and largest worker counts")
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--extra", default="", help="more slaw-sim options for every run (a what-if)")
    args = ap.parse_args()
    meas = load_measured(args.measured)
    today = os.path.isdir(args.measured)
    variants = VARIANTS_TODAY if today else VARIANTS_DF94D7A
    kernels = [k for k in args.kernels.split(",") if k and (k, "serial", 1) in meas]
    # The kernel at the measured run's parameters (a later run), or as the first run had it.
    spec_of = {k: spec_at(k, meas[(k, "serial", 1)]["params"]) if today else KERNELS[k][0] for k in kernels}
    extra = args.extra.split()

    # 1. strand calibration
    def calibrate(bench):
        keys, spec = KERNELS[bench][1], spec_of[bench]
        w0 = float(run_sim(args.build, spec, ["--policy", "wf", "--workers", "1", "--cost", "call=0", "--cost",
                                              "spawn_wf=0", "--cost", "finish=0"])[0]["work_s"])
        ts = meas[(bench, "serial", 1)]["median"]
        return bench, {k: v * ts / w0 for k, v in keys.items()}, ts, w0

    with ThreadPoolExecutor(args.jobs) as ex:
        cal = {b: (keys, ts, w0) for b, keys, ts, w0 in ex.map(calibrate, kernels)}

    # 2. the simulations, largest first
    tasks = []
    for b in kernels:
        spec, ps = spec_of[b], [1, 2, 4, 8, 16]
        if args.quick:
            ps = [min(p for p in ps if (b, "slaw-wf", p) in meas), max(p for p in ps if (b, "slaw-wf", p) in meas)]
        for v, vargs in variants:
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
        for v, _ in variants:
            for p in (1, 2, 4, 8, 16):
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
    print(f"slaw-sim against {os.path.relpath(args.measured, ROOT)}"
          + (" (today's runtime)" if today else " (16-core Xeon VM, slaw df94d7a)")
          + f"; costs {os.path.relpath(args.costs, ROOT)}"
          + (f"; extra {args.extra}" if args.extra else ""))
    print()
    print("| kernel | variant | " + " | ".join(f"P={p} measured / simulated (error)" for p in (1, 2, 4, 8, 16)) + " |")
    print("|---|---|" + "---|" * 5)
    for b in kernels:
        for v, _ in variants:
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
        top = max(p for (k, v, p) in sims if k == b)
        mt = {v: meas[(b, v, top)]["median"] for v, _ in variants if (b, v, top) in sims}
        st = {v: float(sims[(b, v, top)]["time_s"]) for v in mt}
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
