#!/usr/bin/env python3
"""Per benchmark, from a slaw-bench --json file: each variant's T1/T2 (its own speedup, apart from its
T1/Ts overhead), DFDeques' T2 over slaw-dyn's, and slaw-dyn's time over the better fixed policy's at 1
and 2 workers (the questions of bench/results/adaptive_policy/ and bench/results/dfdeques/). Medians,
as slaw-bench records them.

    python3 bench/scripts/scaling_table.py bench/results/suite/latest.json
"""
import json
import sys

VARIANTS = ["slaw-wf", "slaw-hf", "slaw-dyn", "slaw-dfd", "tbb", "omp"]


def main(path):
    with open(path) as f:
        d = json.load(f)
    med = {(r["bench"], r["variant"], r["workers"]): r["median"] for r in d["runs"] if r.get("median")}
    ratio = lambda a, b, digits=2: f"{a / b:.{digits}f}" if a and b else "—"
    print("| bench | " + " | ".join(f"{v} T1/T2" for v in VARIANTS)
          + " | dfd T2 / dyn T2 | dyn T1 / better fixed T1 | dyn T2 / better fixed T2 |")
    print("|---" * (len(VARIANTS) + 4) + "|")
    for b in sorted({k[0] for k in med}):
        g = lambda v, w: med.get((b, v, w))
        row = [b] + [ratio(g(v, 1), g(v, 2)) for v in VARIANTS]
        row.append(ratio(g("slaw-dfd", 2), g("slaw-dyn", 2)))
        for w in (1, 2):
            fixed = [t for t in (g("slaw-wf", w), g("slaw-hf", w)) if t]
            row.append(ratio(g("slaw-dyn", w), min(fixed), 3) if fixed else "—")
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: scaling_table.py SLAW_BENCH.json")
    main(sys.argv[1])
