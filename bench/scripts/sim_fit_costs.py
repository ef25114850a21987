#!/usr/bin/env python3
"""Fits slaw-sim's per-operation costs to one-worker runs (docs/simulation.md, "Costs").

  bench/scripts/sim_fit_costs.py BUILD_DIR MEASURED_JSON [--kernels fib,fj,skynet,spawncost,fj-rec]

MEASURED_JSON is slaw-bench's --json output (or bench/results/scaling/scaling.json) with the serial,
slaw-wf and slaw-hf variants at 1 worker. For each kernel the strand costs come from its serial time
(one factor, as the validations calibrate them); slaw-sim then counts, at 1 worker, the calls,
work-first spawns, help-first spawns (each taken and arrived once) and suspensions of the runs, and a
least-squares fit of the relative errors gives
  call, spawn_wf, hf = spawn_hf + take + arrive, suspend
(finish stays at its default: it is collinear with call in fib). The help-first sum is split in the
proportions of the earlier fit (13.0 : 12.0 : 16.7). Prints KEY=VALUE lines and each run's fit.
"""
import argparse
import csv
import json
import os
import subprocess
import tempfile

KERNELS = {
    "fib": ("fib:35", {"node": 1.15, "leaf": 1.15}),
    "fj": ("fj:1024,reps=5000", {"task": 1.7}),
    "fj-rec": ("fj-rec:1024,reps=5000", {"task": 1.7, "node": 1.15}),
    "spawncost": ("spawncost:1024,reps=2000", {"task": 1.7}),
    "skynet": ("skynet:1000000", {"leaf": 1.44, "node": 4.44}),
}
ZERO = ["call=0", "spawn_wf=0", "spawn_hf=0", "take=0", "arrive=0", "suspend=0", "finish=0", "wake=0", "park=0",
        "probe=0.001", "spin=0"]


def sim(build, spec, args):
    with tempfile.NamedTemporaryFile(suffix=".csv", delete=False) as t:
        path = t.name
    try:
        subprocess.run([os.path.join(build, "bin", "slaw-sim"), "--gen", spec, "--workers", "1", "--detail", path] + args,
                       check=True, stdout=subprocess.DEVNULL)
        return list(csv.DictReader(open(path)))[0]
    finally:
        os.remove(path)


def lstsq(rows, b):
    """Least squares by the normal equations (4 unknowns; no numpy needed)."""
    n = len(rows[0])
    ata = [[sum(r[i] * r[j] for r in rows) for j in range(n)] for i in range(n)]
    atb = [sum(r[i] * y for r, y in zip(rows, b)) for i in range(n)]
    for c in range(n):  # Gauss-Jordan with partial pivoting
        p = max(range(c, n), key=lambda r: abs(ata[r][c]))
        ata[c], ata[p], atb[c], atb[p] = ata[p], ata[c], atb[p], atb[c]
        for r in range(n):
            if r != c and ata[c][c]:
                f = ata[r][c] / ata[c][c]
                ata[r] = [x - f * y for x, y in zip(ata[r], ata[c])]
                atb[r] -= f * atb[c]
    return [atb[i] / ata[i][i] for i in range(n)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("measured")
    ap.add_argument("--kernels", default="fib,fj,skynet,spawncost,fj-rec")
    ap.add_argument("--finish", type=float, default=0.8)
    a = ap.parse_args()
    runs = {(r["bench"], r["variant"], r["workers"]): r["median"] for r in json.load(open(a.measured))["runs"]}
    rows, b, what = [], [], []
    for k in a.kernels.split(","):
        if (k, "serial", 1) not in runs:
            continue
        spec, keys = KERNELS[k]
        w0 = float(sim(a.build, spec, ["--policy", "wf", "--cost", "call=0", "--cost", "spawn_wf=0", "--cost",
                                       "finish=0"])["work_s"])
        ts = runs[(k, "serial", 1)]
        cspec = spec + "".join(f",{key}={v * ts / w0:.6g}" for key, v in keys.items())
        for variant, pol in (("slaw-wf", "wf"), ("slaw-hf", "hf")):
            if (k, variant, 1) not in runs:
                continue
            zero = sim(a.build, cspec, ["--policy", pol] + sum((["--cost", z] for z in ZERO), []))
            t_meas = runs[(k, variant, 1)]
            strands = float(zero["time_s"])
            one_ns = sim(a.build, cspec, ["--policy", pol] + sum((["--cost", z] for z in ZERO if not z.startswith("finish")), []) +
                         ["--cost", "finish=1"])
            fin = round((float(one_ns["time_s"]) - strands) * 1e9)  # finish scopes: 1 ns each
            calls, wf, hf = int(zero["calls"]), int(zero["spawns_wf"]), int(zero["spawns_hf"])
            susp = int(zero["suspensions"])
            # measured - strands - finishes*finish = calls*call + wf*spawn_wf + hf*hf_unit + susp*suspend (ns)
            y = (t_meas - strands) * 1e9 - fin * a.finish
            rows.append([calls / t_meas / 1e9, wf / t_meas / 1e9, hf / t_meas / 1e9, susp / t_meas / 1e9])
            b.append(y / t_meas / 1e9)
            what.append((k, variant, t_meas, strands, calls, wf, hf, susp, fin))
    call, spawn_wf, hf_unit, suspend = lstsq(rows, b)
    suspend = max(0.0, suspend)
    print(f"# fitted to {a.measured}: {', '.join(sorted(set(w[0] for w in what)))} at 1 worker (wf, hf)")
    for k, v, t, s, calls, wf, hf, susp, fin in what:
        pred = s + (calls * call + wf * spawn_wf + hf * hf_unit + susp * suspend + fin * a.finish) * 1e-9
        print(f"#   {k:9s} {v:8s} measured {t:.4f} s, fitted {pred:.4f} s ({100 * (pred - t) / t:+.0f} %)")
    tot = 13.0 + 12.0 + 16.7
    print(f"call={call:.3g}\nspawn_wf={spawn_wf:.3g}\nspawn_hf={hf_unit * 13.0 / tot:.3g}\n"
          f"take={hf_unit * 12.0 / tot:.3g}\narrive={hf_unit * 16.7 / tot:.3g}\nsuspend={suspend:.3g}")


if __name__ == "__main__":
    main()
