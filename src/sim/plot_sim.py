#!/usr/bin/env python3
"""Plots slaw-sim's Cilkscale CSV (docs/simulation.md): time and speedup against the number of workers,
one line per scheduler/policy row, with Cilkscale's references (perfect linear speedup from the work,
the burdened-dag bound T1/P + 1.7 (1 - 1/P) burdened span, the span bound).

usage: plot_sim.py CSV PNG [TITLE]
"""
import csv
import re
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.stderr.write(__doc__)
        return 2
    path, out = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) == 4 else path
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("plot_sim.py: matplotlib is not installed for %s (Debian: apt-get install python3-matplotlib)\n"
                         % sys.executable)
        return 1
    with open(path) as f:
        rows = list(csv.reader(f))
    if len(rows) < 2:
        sys.stderr.write("plot_sim.py: %s has no results\n" % path)
        return 1
    header = rows[0]
    cols = [(i, int(re.match(r"(\d+)c", h).group(1))) for i, h in enumerate(header) if re.match(r"\d+c time", h)]
    if not cols:
        sys.stderr.write("plot_sim.py: %s has no 'Nc time (seconds)' columns\n" % path)
        return 1
    ps = [p for _, p in cols]
    fig, (ax_t, ax_s) = plt.subplots(1, 2, figsize=(12, 5))
    work = float(rows[1][1])
    span = float(rows[1][2])
    bspan = float(rows[1][4])
    for r in rows[1:]:
        pts = [(p, float(r[i])) for i, p in cols if i < len(r) and r[i]]
        if not pts:
            continue
        x = [p for p, _ in pts]
        ax_t.plot(x, [t for _, t in pts], "o-", label=r[0], markersize=3)
        ax_s.plot(x, [float(r[1]) / t for _, t in pts], "o-", label=r[0], markersize=3)
    bound = [work / p + 1.7 * (1 - 1 / p) * bspan for p in ps]
    ax_t.plot(ps, [work / p for p in ps], "g--", label="perfect linear (work / P)")
    ax_t.plot(ps, bound, "c--", label="burdened-dag bound")
    ax_t.axhline(span, color="y", linestyle="--", label="span bound")
    ax_s.plot(ps, ps, "g--", label="perfect linear")
    ax_s.plot(ps, [work / b for b in bound], "c--", label="burdened-dag bound")
    ax_s.axhline(work / span, color="y", linestyle="--", label="parallelism = %.1f" % (work / span))
    for ax, what in ((ax_t, "time (s)"), (ax_s, "speedup over the work")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("workers")
        ax.set_ylabel(what)
        ax.grid(True, linestyle=":")
        ax.legend(fontsize=8)
    ax_t.set_yscale("log")
    ax_s.set_yscale("log", base=2)
    fig.suptitle("slaw-sim: " + title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
