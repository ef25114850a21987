#!/usr/bin/env python3
"""Summarises bench/scripts/experiments.sh's JSON files (A1, A2, A3, A4, A11) as markdown on stdout.

usage: bench/scripts/experiments.py DIR
"""
import glob
import json
import os
import sys


def medians(path):
    """{(bench, variant, workers, frozenset(params)): median} of one slaw-bench JSON file."""
    with open(path) as f:
        d = json.load(f)
    out = {}
    for r in d["runs"]:
        if not r["oracle_ok"]:
            sys.exit(f"experiments.py: oracle failed in {path}: {r['bench']} {r['variant']}: {r['oracle']}")
        out[(r["bench"], r["variant"], r["workers"])] = (r["median"], r["params"])
    return out


def slope(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def a1(d):
    m = medians(os.path.join(d, "a1_fib.json"))
    ts = m[("fib", "serial", 1)][0]
    lines = ["## A1: fib(35), no cut-off (paper Table III, Niagara 2, Java)", "",
             "| workers | wf (s) | hf (s) | adp (s) | hf/wf | hf/adp | wf/adp | paper hf/wf | paper wf/adp |",
             "|---|---|---|---|---|---|---|---|---|"]
    paper = {1: ("9.70", "1.006"), 2: ("10.14", "1.008")}
    for w in (1, 2):
        wf, hf, dyn = (m[("fib", v, w)][0] for v in ("slaw-wf", "slaw-hf", "slaw-dyn"))
        lines.append(f"| {w} | {wf:.3f} | {hf:.3f} | {dyn:.3f} | {hf / wf:.2f} | {hf / dyn:.2f} | {wf / dyn:.3f} | "
                     f"{paper[w][0]} | {paper[w][1]} |")
    wf1, wf2 = m[("fib", "slaw-wf", 1)][0], m[("fib", "slaw-wf", 2)][0]
    dyn1, dyn2 = m[("fib", "slaw-dyn", 1)][0], m[("fib", "slaw-dyn", 2)][0]
    hf1, hf2 = m[("fib", "slaw-hf", 1)][0], m[("fib", "slaw-hf", 2)][0]
    lines += ["", f"Serial elision Ts = {ts:.4f} s. Self-relative speedup at 2 workers: wf {wf1 / wf2:.2f}, "
              f"hf {hf1 / hf2:.2f}, adp {dyn1 / dyn2:.2f} (paper: 2.01, 1.92, 2.02)."]
    return lines


def a2(d):
    lines = ["## A2: INT sensitivity at 1 worker (paper Fig 5.2a)", "",
             "| INT | wf (s) | adp (s) | adp/wf − 1 |", "|---|---|---|---|"]
    for path in sorted(glob.glob(os.path.join(d, "a2_int_*.json")), key=lambda p: int(p.rsplit("_", 1)[1][:-5])):
        i = int(path.rsplit("_", 1)[1][:-5])
        m = medians(path)
        wf, dyn = m[("fib", "slaw-wf", 1)][0], m[("fib", "slaw-dyn", 1)][0]
        lines.append(f"| {i} | {wf:.3f} | {dyn:.3f} | {100 * (dyn / wf - 1):+.1f} % |")
    return lines


def a3(d):
    rows = []
    for path in glob.glob(os.path.join(d, "a3_k_*.json")):
        m = medians(path)
        params = m[("spawncost", "serial", 1)][1]
        k, reps = int(params["k"]), int(params["reps"])
        per = lambda v: m[("spawncost", v, 1)][0] / reps * 1e6  # µs per finish
        rows.append((k, per("serial"), per("slaw-wf"), per("slaw-hf")))
    rows.sort()
    lines = ["## A3: spawn and finish costs (paper Table 5.4 and Eqs 5.1–5.2), 1 worker", "",
             "Per finish `finish { for i<k: async T_i; T_0 }`, in µs:", "",
             "| k | t_s(k) | t1^wf(k) | t1^hf(k) |", "|---|---|---|---|"]
    lines += [f"| {k} | {s:.4f} | {w:.4f} | {h:.4f} |" for k, s, w, h in rows]
    ks = [r[0] for r in rows]
    t0 = slope(ks, [r[1] for r in rows])
    taw = slope(ks, [r[2] for r in rows]) - t0
    big = [r for r in rows if r[0] > 1]
    tahcs = slope([r[0] for r in big], [r[3] for r in big]) - t0
    by_k = {r[0]: r for r in rows}
    tsf = by_k[1][2] - by_k[1][1]
    tef = by_k[2][3] - by_k[1][3] - t0 - tahcs if 2 in by_k else float("nan")
    ns = lambda us: f"{us * 1000:.1f} ns"
    lines += ["", "Derived by least squares over k (paper, Xeon/Java: t0 0.10 µs, t_sf 0.10–0.17 µs, "
              "t_aw 0.11–0.15 µs, t_ah+t_cs 0.22–0.23 µs, t_ef 2.1–2.3 µs):", "",
              f"* t0 (slope of t_s) = {ns(t0)}",
              f"* t_sf = t1^wf(1) − t_s(1) = {ns(tsf)}",
              f"* t_aw = slope(t1^wf) − t0 = {ns(taw)}",
              f"* t_ah + t_cs = slope(t1^hf, k > 1) − t0 = {ns(tahcs)}",
              f"* t_ef = t1^hf(2) − t1^hf(1) − t0 − (t_ah + t_cs) = {ns(tef)}",
              f"* (t_ah + t_cs) / t_aw = {tahcs / taw:.2f} (paper ≈ 1.5–2)"]
    return lines


def a4(d):
    lines = ["## A4: one global finish against a finish per call (paper Table 5.5), 1 worker", "",
             "| form | serial (s) | wf (s) | hf (s) | hf/wf | paper hf/wf |", "|---|---|---|---|---|---|"]
    paper = {"global": "2.05 (6.974/3.405)", "call": "7.35 (43.18/5.872)"}
    for form in ("global", "call"):
        m = medians(os.path.join(d, f"a4_{form}.json"))
        s, wf, hf = (m[("fib", v, 1)][0] for v in ("serial", "slaw-wf", "slaw-hf"))
        lines.append(f"| {form} | {s:.4f} | {wf:.3f} | {hf:.3f} | {hf / wf:.2f} | {paper[form]} |")
    return lines


def a11(d):
    m = medians(os.path.join(d, "a11_fj.json"))
    lines = ["## A11: FJ(1024), iterative and recursive (paper Figs 7, 8)", "",
             "| bench | workers | wf (s) | hf (s) | adp (s) | hf/wf |", "|---|---|---|---|---|---|"]
    for b in ("fj", "fj-rec"):
        for w in (1, 2):
            wf, hf, dyn = (m[(b, v, w)][0] for v in ("slaw-wf", "slaw-hf", "slaw-dyn"))
            lines.append(f"| {b} | {w} | {wf:.3f} | {hf:.3f} | {dyn:.3f} | {hf / wf:.2f} |")
    return lines


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit(__doc__)
    d = sys.argv[1]
    out = ["# SLAW experiments on this machine (medians of the repetitions)", ""]
    for part in (a1, a2, a3, a4, a11):
        try:
            out += part(d) + [""]
        except (OSError, KeyError) as e:
            out += [f"## {part.__name__.upper()}: missing data ({e})", ""]
    print("\n".join(out))


if __name__ == "__main__":
    main()
