#!/usr/bin/env python3
"""Causes at 16-128 simulated workers, with the 16-core model (docs/simulation.md, "Many cores").

  bench/scripts/sim_many_cores.py BUILD_DIR OUT_DIR [--part dfd,adp,adp-seeds,expose-window,slowdown] [--jobs N]

With bench/results/simulation/costs_16core.txt and each kernel's strands calibrated as
validate_16core.py calibrates them (from bench/results/scaling/'s serial times):
  dfd       DFDeques(K = 50,000) on sor and spmv at 16, 32, 64, 128 workers: the runtime, and each
            what-if (R without its lock, no line transfers, and the two rules DFDeques had before: a
            thief that does not publish its next push, victims drawn among p positions), against slaw-dyn; the peak
            memory beside S1 (the one-worker peak) so that the space bound stays visible;
  adp       slaw-dyn against the better of wf and hf at 16, 32, 64 workers on every modelled kernel,
            as the runtime is and with ADP's what-ifs (start help-first as before, steal thresholds of 2 INT,
            INT/4, INT/16), and without the expose window (the runtime before it, all three policies);
  adp-seeds slaw-dyn, wf and hf on nqueens and spmv, the kernels where dyn misses the better fixed policy, at
            16, 32, 64 workers over victim seeds 1..16: the mean times, and the spawns per worker beside
            ADP's interval (INT spawns), which says whether the heuristic can act at all;
  expose-window  slaw-dyn with a deque that publishes its next N pushes at once after answering a
            thief's request (N = 0: none, 2, 4, 8, 16, and every push once asked), when any thief asked
            or only when 2 different thieves did (the runtime: N = 4, 2 thieves), against the better
            fixed policy without a window, at 16, 32, 64 workers;
  slowdown  every generator under wf, hf, dyn and DFDeques at 1, 2, 4, ..., 128 workers: where
            T_P > 1.1 min_{p <= P} T_p, with the counters that say why (steals, failed rounds, parks).
Writes many_cores_dfd.csv, many_cores_adp.csv, many_cores_adp_seeds.csv, many_cores_expose_window.csv,
many_cores_slowdown.csv and prints the tables.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COSTS = os.path.join(ROOT, "bench", "results", "simulation", "costs_16core.txt")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_16core as v16  # noqa: E402  (the kernels and their calibration)

DFD = ["--scheduler", "dfdeques", "--K", "50000"]
DFD_WHATIFS = [
    ("runtime", []),
    ("no lock on R", ["--what-if", "dfd-free-r"]),
    ("no line transfers", ["--cost", "line=0"]),
    ("no lock on R, no line transfers", ["--what-if", "dfd-free-r", "--cost", "line=0"]),
    ("thief does not publish", ["--what-if", "dfd-no-publish"]),
    ("victim among p positions", ["--what-if", "dfd-pick-positions"]),
    ("both (DFDeques before)", ["--what-if", "dfd-no-publish,dfd-pick-positions"]),
]
ADP_WHATIFS = [
    ("runtime", []),
    ("start hf (SLAW; before)", ["--what-if", "adp-start-hf"]),
    ("threshold 2 INT", ["--steal-threshold", "128"]),
    ("start hf + threshold 2 INT", ["--what-if", "adp-start-hf", "--steal-threshold", "128"]),
    ("threshold INT/4", ["--steal-threshold", "16"]),
    ("threshold INT/16", ["--steal-threshold", "4"]),
]
NO_WINDOW = ["--what-if", "expose-after-request=0"]
# The slowdown sweep: every generator at a size that simulates in seconds.
SWEEP = {
    "fib": "fib:27", "fj": "fj:1024,reps=500", "fj-rec": "fj-rec:1024,reps=500", "spawncost": "spawncost:1024,reps=500",
    "skynet": "skynet:1000000", "pdfs": "pdfs:500", "uts": "uts:T3,node=128", "sor": "sor:2000,iterations=10,blocks=64",
    "spmv": "spmv:30000,iters=200", "nqueens": "nqueens:11,cutoff=3", "matmul": "matmul:2048", "dc": "dc:12",
    "integrate": "integrate:1e-3",
}
WORKERS = [1, 2, 4, 8, 16, 32, 64, 128]


def run(build, spec, args):
    with tempfile.NamedTemporaryFile(suffix=".csv", delete=False) as t:
        path = t.name
    try:
        subprocess.run([os.path.join(build, "bin", "slaw-sim"), "--gen", spec, "--costs", COSTS, "--detail", path] + args,
                       check=True, stdout=subprocess.DEVNULL)
        return list(csv.DictReader(open(path)))
    finally:
        os.remove(path)


def calibrated(build, bench):
    spec, keys, _ = v16.KERNELS[bench]
    meas = {(r["bench"], r["variant"], r["workers"]): r for r in json.load(open(v16.MEASURED))["runs"]}
    w0 = float(run(build, spec, ["--policy", "wf", "--workers", "1", "--cost", "call=0", "--cost", "spawn_wf=0",
                                 "--cost", "finish=0"])[0]["work_s"])
    ts = meas[(bench, "serial", 1)]["median"]
    return v16.with_keys(spec, {k: v * ts / w0 for k, v in keys.items()})


def part_dfd(build, out, jobs):
    rows = []
    tasks = []
    for bench in ("sor", "spmv"):
        spec = calibrated(build, bench)
        s1 = int(run(build, spec, DFD + ["--workers", "1"])[0]["peak_bytes"])
        tasks.append((bench, "slaw-dyn", "runtime", spec, ["--policy", "dyn"], s1))
        for name, extra in DFD_WHATIFS:
            tasks.append((bench, "slaw-dfd", name, spec, DFD + extra, s1))

    def one(t):
        bench, variant, name, spec, args, s1 = t
        return t, run(build, spec, args + ["--workers", "16,32,64,128"])

    with ThreadPoolExecutor(jobs) as ex:
        for (bench, variant, name, spec, args, s1), res in ex.map(one, tasks):
            for r in res:
                rows.append({"bench": bench, "variant": variant, "what_if": name, "workers": int(r["workers"]),
                             "time_s": float(r["time_s"]), "steals": int(r["dfd_steals"] or 0) or
                             int(r["steals_preempted"]) + int(r["steals_fresh"]),
                             "failed": int(r["dfd_failed_attempts"] or 0) or int(r["failed_steals"]),
                             "parks": int(r["parks"]), "peak_bytes": int(r["peak_bytes"]), "S1_bytes": s1})
    write(out, "many_cores_dfd.csv", rows)
    print("\n### DFDeques on sor and spmv: T_P / T_P(slaw-dyn), and DFD's peak bytes (S1 at 1 worker)\n")
    print("| kernel | DFDeques | P=16 | P=32 | P=64 | P=128 | peak at 16 / S1 |")
    print("|---|---|---|---|---|---|---|")
    for bench in ("sor", "spmv"):
        dyn = {r["workers"]: r["time_s"] for r in rows if r["bench"] == bench and r["variant"] == "slaw-dyn"}
        for name, _ in DFD_WHATIFS:
            rr = {r["workers"]: r for r in rows if r["bench"] == bench and r["variant"] == "slaw-dfd" and r["what_if"] == name}
            print(f"| {bench} | {name} | " + " | ".join(f"{rr[p]['time_s'] / dyn[p]:.2f}" for p in (16, 32, 64, 128)) +
                  f" | {rr[16]['peak_bytes']} / {rr[16]['S1_bytes']} |")


def part_adp(build, out, jobs):
    rows = []
    tasks = []
    for bench in v16.KERNELS:
        spec = calibrated(build, bench)
        for pol in ("wf", "hf"):
            tasks.append((bench, pol, "runtime", spec, ["--policy", pol]))
            tasks.append((bench, pol, "no expose window", spec, ["--policy", pol] + NO_WINDOW))
        for name, extra in ADP_WHATIFS:
            tasks.append((bench, "dyn", name, spec, ["--policy", "dyn"] + extra))
        tasks.append((bench, "dyn", "no expose window", spec, ["--policy", "dyn"] + NO_WINDOW))

    def one(t):
        bench, pol, name, spec, args = t
        return t, run(build, spec, args + ["--workers", "16,32,64"])

    order = {"fib": 0, "fj": 1, "spawncost": 2, "uts": 3}
    tasks.sort(key=lambda t: order.get(t[0], 9))
    with ThreadPoolExecutor(jobs) as ex:
        for (bench, pol, name, spec, args), res in ex.map(one, tasks):
            for r in res:
                rows.append({"bench": bench, "policy": pol, "what_if": name, "workers": int(r["workers"]),
                             "time_s": float(r["time_s"]), "spawns_hf": int(r["spawns_hf"]),
                             "spawns_wf": int(r["spawns_wf"]), "policy_switches": int(r["policy_switches"])})
    write(out, "many_cores_adp.csv", rows)
    columns = [n for n, _ in ADP_WHATIFS] + ["no expose window"]
    print("\n### ADP: T(dyn) / min(T(wf), T(hf)) at 16 / 32 / 64 workers (without the expose window: all three")
    print("### policies without it)\n")
    print("| kernel | better fixed at 16 | " + " | ".join(columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    for bench in v16.KERNELS:
        def best_fixed(what, p):
            t = {r["policy"]: r["time_s"] for r in rows if r["bench"] == bench and r["workers"] == p and r["what_if"] == what
                 and r["policy"] in ("wf", "hf")}
            return min(t.values()), min(t, key=t.get)
        cells = []
        for name in columns:
            base = "no expose window" if name == "no expose window" else "runtime"
            d = {r["workers"]: r["time_s"] for r in rows if r["bench"] == bench and r["policy"] == "dyn" and r["what_if"] == name}
            cells.append(" / ".join(f"{d[p] / best_fixed(base, p)[0]:.3f}" for p in (16, 32, 64)))
        print(f"| {bench} | {best_fixed('runtime', 16)[1]} | " + " | ".join(cells) + " |")


SEEDS = range(1, 17)


def part_adp_seeds(build, out, jobs):
    tasks = [(bench, spec, pol, seed) for bench in ("nqueens", "spmv") for spec in [calibrated(build, bench)]
             for pol in ("wf", "hf", "dyn") for seed in SEEDS]

    def one(t):
        bench, spec, pol, seed = t
        return t, run(build, spec, ["--policy", pol, "--seed", str(seed), "--workers", "16,32,64"])

    rows = []
    with ThreadPoolExecutor(jobs) as ex:
        for (bench, spec, pol, seed), res in ex.map(one, tasks):
            for r in res:
                rows.append({"bench": bench, "policy": pol, "seed": seed, "workers": int(r["workers"]),
                             "time_s": float(r["time_s"]), "spawns": int(r["spawns_wf"]) + int(r["spawns_hf"]),
                             "spawns_hf": int(r["spawns_hf"]), "policy_switches": int(r["policy_switches"])})
    write(out, "many_cores_adp_seeds.csv", rows)
    print(f"\n### ADP over victim seeds {SEEDS[0]}..{SEEDS[-1]}: mean times (ms), and dyn against the better mean\n")
    print("| kernel | P | spawns per worker | wf | hf | dyn | dyn / better | seeds where dyn = wf exactly |")
    print("|---|---|---|---|---|---|---|---|")
    for bench in ("nqueens", "spmv"):
        for p in (16, 32, 64):
            t = {pol: {r["seed"]: r for r in rows if r["bench"] == bench and r["policy"] == pol and r["workers"] == p}
                 for pol in ("wf", "hf", "dyn")}
            mean = {pol: sum(r["time_s"] for r in t[pol].values()) / len(SEEDS) for pol in t}
            same = sum(t["dyn"][s]["time_s"] == t["wf"][s]["time_s"] for s in SEEDS)
            print(f"| {bench} | {p} | {t['wf'][SEEDS[0]]['spawns'] / p:.0f} | {mean['wf'] * 1e3:.2f} | {mean['hf'] * 1e3:.2f} | "
                  f"{mean['dyn'] * 1e3:.2f} | {mean['dyn'] / min(mean['wf'], mean['hf']):.3f} | {same} of {len(SEEDS)} |")


WINDOWS = [(0, 1), (2, 1), (4, 1), (8, 1), (16, 1), (1 << 30, 1), (4, 2), (16, 2), (1 << 30, 2)]  # (N, min thieves)
RUNTIME_WINDOW = (4, 2)  # policy::expose_window, policy::expose_min_thieves


def part_expose_window(build, out, jobs):
    kernels = ("fj", "spawncost", "skynet", "sor", "spmv", "nqueens")
    tasks = [(bench, spec, "fixed", pol, (0, 1)) for bench in kernels for spec in [calibrated(build, bench)] for pol in ("wf", "hf")]
    tasks += [(bench, spec, "dyn", "dyn", w) for bench in kernels for spec in [calibrated(build, bench)] for w in WINDOWS]

    def one(t):
        bench, spec, kind, pol, w = t
        extra = ["--what-if", f"expose-after-request={w[0]},expose-min-thieves={w[1]}"]
        return t, run(build, spec, ["--policy", pol, "--workers", "16,32,64"] + extra)

    rows = []
    with ThreadPoolExecutor(jobs) as ex:
        for (bench, spec, kind, pol, w), res in ex.map(one, tasks):
            for r in res:
                rows.append({"bench": bench, "policy": pol, "window": w[0], "min_thieves": w[1],
                             "workers": int(r["workers"]), "time_s": float(r["time_s"])})
    write(out, "many_cores_expose_window.csv", rows)
    def name(w):
        n, m = w
        label = "none" if n == 0 else "every push" if n == 1 << 30 else f"N = {n}"
        label = label if m == 1 or n == 0 else f"{label}, {m} thieves"
        return label + " (the runtime)" if w == RUNTIME_WINDOW else label
    print("\n### dyn with the next N pushes published after a request (and only when M different thieves asked):")
    print("### T / min(T(wf), T(hf) without a window) at 16 / 32 / 64 workers\n")
    print("| kernel | " + " | ".join(name(w) for w in WINDOWS) + " |")
    print("|---|" + "---|" * len(WINDOWS))
    for bench in kernels:
        best = {p: min(r["time_s"] for r in rows if r["bench"] == bench and r["policy"] in ("wf", "hf") and r["workers"] == p)
                for p in (16, 32, 64)}
        cells = []
        for n, m in WINDOWS:
            d = {r["workers"]: r["time_s"] for r in rows
                 if r["bench"] == bench and r["policy"] == "dyn" and r["window"] == n and r["min_thieves"] == m}
            cells.append(" / ".join(f"{d[p] / best[p]:.2f}" for p in (16, 32, 64)))
        print(f"| {bench} | " + " | ".join(cells) + " |")


def part_slowdown(build, out, jobs):
    rows = []
    tasks = [(g, spec, pol, args) for g, spec in SWEEP.items()
             for pol, args in (("wf", ["--policy", "wf"]), ("hf", ["--policy", "hf"]), ("dyn", ["--policy", "dyn"]),
                               ("dfd", DFD))]

    def one(t):
        g, spec, pol, args = t
        return t, run(build, spec, args + ["--workers", ",".join(map(str, WORKERS))])

    with ThreadPoolExecutor(jobs) as ex:
        for (g, spec, pol, args), res in ex.map(one, tasks):
            best = None
            for r in sorted(res, key=lambda r: int(r["workers"])):
                t = float(r["time_s"])
                best = t if best is None else min(best, t)
                rows.append({"generator": g, "spec": spec, "policy": pol, "workers": int(r["workers"]), "time_s": t,
                             "best_so_far_s": best, "ratio": t / best,
                             "steals": int(r["dfd_steals"] or 0) or int(r["steals_preempted"]) + int(r["steals_fresh"]),
                             "failed": int(r["failed_steals"]), "parks": int(r["parks"])})
    write(out, "many_cores_slowdown.csv", rows)
    print("\n### T_P / min_{p<=P} T_p above 1.1 (1-128 workers)\n")
    print("| generator | policy | workers where T_P > 1.1 min | worst ratio (at P) |")
    print("|---|---|---|---|")
    for g in SWEEP:
        for pol in ("wf", "hf", "dyn", "dfd"):
            rr = [r for r in rows if r["generator"] == g and r["policy"] == pol]
            bad = [r for r in rr if r["ratio"] > 1.1]
            if bad:
                w = max(rr, key=lambda r: r["ratio"])
                print(f"| {g} | {pol} | {', '.join(str(r['workers']) for r in bad)} | {w['ratio']:.2f} (P={w['workers']}) |")


def write(out, name, rows):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, name), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--part", default="dfd,adp,slowdown")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    for p in a.part.split(","):
        {"dfd": part_dfd, "adp": part_adp, "adp-seeds": part_adp_seeds, "expose-window": part_expose_window, "slowdown": part_slowdown}[p](a.build, a.out, a.jobs)


if __name__ == "__main__":
    main()
