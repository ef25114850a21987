#!/usr/bin/env python3
"""A lone program's speed with the arbiter on (the default) against SLAW_ARBITER=off
(docs/guide/several_programs.md § What it costs).

Runs slaw-bench over the selected benchmarks alternately with the arbiter on (a private segment, so that the
program is alone in it: every worker allotted) and off, ROUNDS times each, each run with --reps 1, so that
the two settings see the same machine conditions; reports per configuration the median of each setting's
seconds and their ratio (on / off), and the geometric mean of the ratios. Raw records go to OUT.json.

usage: arbiter_lone.py SLAW_BENCH OUT.json [--rounds N] [--bench A,B,...] [--variant V] [--workers 1,2] [--size S]
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("slaw_bench")
    ap.add_argument("out")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--bench", default="fib,nqueens,matmul,lu,sort,uts,integrate,fft,sor,barneshut")
    ap.add_argument("--variant", default="slaw-dyn")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--size", default="default")
    a = ap.parse_args()
    if a.rounds < 1:
        ap.error(f"--rounds {a.rounds}: expected an integer >= 1")
    if not os.access(a.slaw_bench, os.X_OK):
        ap.error(f"{a.slaw_bench}: not an executable (build the slaw-bench target)")
    base = {k: v for k, v in os.environ.items() if not k.startswith("SLAW_")}
    settings = {
        "on": dict(base, SLAW_ARBITER_NAME=f"/slaw-arbiter-lone-{os.getpid()}"),
        "off": dict(base, SLAW_ARBITER="off"),
    }
    seconds = {}  # (bench, workers, setting) -> [s]
    raw = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.rounds):
            for name in (["on", "off"] if r % 2 == 0 else ["off", "on"]):
                path = os.path.join(tmp, f"{name}-{r}.json")
                cmd = [a.slaw_bench, "--bench", a.bench, "--variant", a.variant, "--workers", a.workers, "--size",
                       a.size, "--reps", "1", "--quiet", "--json", path]
                p = subprocess.run(cmd, env=settings[name], stderr=subprocess.PIPE, text=True)
                if p.returncode != 0:
                    sys.exit(f"arbiter_lone.py: slaw-bench ({name}, round {r + 1}) exited {p.returncode}: {p.stderr}")
                with open(path) as f:
                    for rec in json.load(f)["runs"]:
                        if not rec.get("oracle_ok", False):
                            sys.exit(f"arbiter_lone.py: {rec['bench']} failed its oracle ({name}): {rec.get('oracle')}")
                        rec["setting"], rec["round"] = name, r + 1
                        raw.append(rec)
                        seconds.setdefault((rec["bench"], rec["workers"], name), []).extend(rec["seconds"])
            print(f"round {r + 1}/{a.rounds} done", file=sys.stderr)
    rows, ratios = [], []
    for (bench, workers, name) in sorted(seconds):
        if name != "on":
            continue
        on = statistics.median(seconds[(bench, workers, "on")])
        off = statistics.median(seconds[(bench, workers, "off")])
        ratios.append(on / off)
        rows.append({"bench": bench, "workers": workers, "on_median_s": on, "off_median_s": off, "ratio": on / off})
    geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
    with open(a.out, "w") as f:
        json.dump({"command": sys.argv, "rounds": a.rounds, "rows": rows, "geomean_ratio": geo, "runs": raw}, f)
    print("| benchmark | workers | arbiter on (s) | off (s) | on / off |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['bench']} | {row['workers']} | {row['on_median_s']:.4f} | {row['off_median_s']:.4f} | {row['ratio']:.3f} |")
    print(f"\ngeometric mean of on / off: {geo:.3f} over {len(rows)} configurations, {a.rounds} rounds")


if __name__ == "__main__":
    main()
