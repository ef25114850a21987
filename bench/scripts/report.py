#!/usr/bin/env python3
"""Turns a slaw-bench JSON file into the comparison table (stdout and markdown) and plots.

usage: bench/scripts/report.py RESULTS.json [--md OUT.md] [--plots DIR]

Per benchmark: Ts (serial median), then for each variant T1/Ts (work overhead on 1 worker) and Ts/T2
(speedup over the serial elision on 2 workers), and slaw-dyn against the best peer as
best_peer_time / slaw_dyn_time at 1 and 2 workers (> 1 means slaw-dyn is faster), with the peer's name.
The peers are every non-slaw row the benchmark ran: tbb and omp, and for the loop kernels (reduce, scan,
foreach, psort, sor-loop, spmv-loop, fj-loop) also tbb-grain, omp-dynamic and pstl. Only the variants
the file has runs of get columns, so that an older file without the loop kernels' rows gives the table
it gave before. A loop-splits table gives, for the slaw rows' runs that split a parallel loop, the
runtime's loop_splits counter (the last repetition's). A second table
gives memory at 2 workers: slaw's process-wide peak of frames + user memory for the slaw variants, and
the peak RSS of every variant. A third, the space comparison, gives the peak RSS of uts and pdfs per
variant at 1 and 2 workers next to the serial elision's. A fourth, when the file has locality rows
(slaw-places, tbb-places, omp-places: the kernels' locality versions, the same rows on the same place or
thread every iteration), gives per benchmark and worker count each of them next to its plain row
(slaw-dyn, tbb, omp) and the ratio plain / locality (> 1: the locality version is faster).

A run stopped by Ctrl-C (the JSON's "interrupted") is reported as such above the tables, which then
hold the configurations it completed.

Peak RSS is peak_rss_kb of the JSON: slaw-bench runs each configuration (benchmark, variant, workers)
in a process of its own and reports the largest, over the repetitions, of that process's resident peak
during a run (the instance's inputs included), so a figure carries nothing from other configurations.
"""
import argparse
import json
import os
import sys

ALL_VARIANTS = ["slaw-wf", "slaw-hf", "slaw-dyn", "slaw-dfd", "tbb", "tbb-grain", "omp", "omp-dynamic", "pstl"]
# The rows slaw-dyn is compared with (each where the benchmark has it).
PEERS = ["tbb", "tbb-grain", "omp", "omp-dynamic", "pstl"]
# The variants of the tables: those of ALL_VARIANTS the file has runs of (set by main).
VARIANTS = list(ALL_VARIANTS)
# The locality rows and the plain row each is compared with.
LOCALITY = [("slaw-places", "slaw-dyn"), ("tbb-places", "tbb"), ("omp-places", "omp")]


def load(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"report.py: cannot read {path}: {e}")
    return data


def index(runs):
    """{bench: {(variant, workers): median}}, {bench: {(variant, workers): (memory_peak, rss)}} and the
    oracle verdicts."""
    table, memory, failed = {}, {}, []
    for r in runs:
        table.setdefault(r["bench"], {})[(r["variant"], r["workers"])] = r["median"]
        mem = (r.get("counters") or {}).get("memory_peak")
        rss = r.get("peak_rss_kb")
        rss = rss if rss is not None and rss >= 0 else None  # -1: no repetition completed
        memory.setdefault(r["bench"], {})[(r["variant"], r["workers"])] = (mem, rss)
        if not r["oracle_ok"]:
            failed.append(f'{r["bench"]} {r["variant"]} w={r["workers"]}: {r["oracle"]}')
    return table, memory, failed


def interruption(data):
    """One line saying where a run stopped by Ctrl-C was (slaw-bench's "interrupted"), or None."""
    i = data.get("interrupted")
    if not i:
        return None
    at = i.get("stopped_in", {})
    return (f'INTERRUPTED by {i.get("signal")} after {i.get("after_seconds", 0):.0f} s, in benchmark '
            f'{at.get("benchmark_index")} of {i.get("benchmarks")} ({at.get("bench")} w={at.get("workers")}): '
            f'partial results, {i.get("configurations_completed")} configurations completed')


def fmt(x, digits=2):
    return "—" if x is None else f"{x:.{digits}f}"


def rows(table):
    out = []
    for bench in sorted(table):
        t = table[bench]
        ts = t.get(("serial", 1))
        row = {"bench": bench, "Ts": ts}
        for v in VARIANTS:
            t1, t2 = t.get((v, 1)), t.get((v, 2))
            row[v + " T1/Ts"] = t1 / ts if t1 and ts else None
            row[v + " Ts/T2"] = ts / t2 if t2 and ts else None
        for w in (1, 2):
            dyn = t.get(("slaw-dyn", w))
            peers = [(t[(p, w)], p) for p in PEERS if t.get((p, w))]
            best = min(peers) if peers else None
            row[f"dyn vs best peer w={w}"] = best[0] / dyn if dyn and best else None
            row[f"best peer w={w}"] = best[1] if best else None
        out.append(row)
    return out


def markdown(rs):
    cols = ["bench", "Ts"] + [f"{v} T1/Ts" for v in VARIANTS] + [f"{v} Ts/T2" for v in VARIANTS] + [
        "dyn vs best peer w=1", "dyn vs best peer w=2"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rs:
        cells = [r["bench"], fmt(r["Ts"], 4) + " s"] + [fmt(r[c]) for c in cols[2:-2]]
        for w in (1, 2):
            x = r[f"dyn vs best peer w={w}"]
            cells.append(fmt(x) + (f" ({r[f'best peer w={w}']})" if x is not None else ""))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def splits_markdown(runs):
    """The loop_splits counter of the slaw rows' runs that split a loop (the last repetition's)."""
    splits = {}
    for r in runs:
        n = ((r.get("counters") or {}).get("total") or {}).get("loop_splits")
        if n and r["variant"].startswith("slaw"):
            splits.setdefault(r["bench"], {})[(r["variant"], r["workers"])] = n
    if not splits:
        return ""
    keys = sorted({k for s in splits.values() for k in s}, key=lambda k: (k[1], ALL_VARIANTS.index(k[0])
                                                                         if k[0] in ALL_VARIANTS else 99, k[0]))
    cols = ["bench"] + [f"{v} w={w}" for v, w in keys]
    lines = ["Loop splits per run (the slaw runtime's loop_splits counter, last repetition)", "",
             "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for bench in sorted(splits):
        lines.append("| " + " | ".join([bench] + [str(splits[bench].get(k, "—")) for k in keys]) + " |")
    return "\n".join(lines)


def memory_markdown(memory, workers=2):
    cols = ["bench"] + [f"{v} memory" for v in VARIANTS if v.startswith("slaw")] + [f"{v} RSS" for v in ["serial"] + VARIANTS]
    lines = [f"Peak memory in MB at {workers} workers (serial: 1 worker)", "",
             "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for bench in sorted(memory):
        m = memory[bench]
        cells = [bench]
        for v in VARIANTS:
            if v.startswith("slaw"):
                mem = m.get((v, workers), (None, None))[0]
                cells.append(fmt(mem / 2**20 if mem is not None else None, 1))
        for v in ["serial"] + VARIANTS:
            rss = m.get((v, 1 if v == "serial" else workers), (None, None))[1]
            cells.append(fmt(rss / 1024 if rss is not None else None, 0))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def space_markdown(memory, benches=("pdfs", "uts"), workers=(1, 2)):
    """Peak RSS of the space benchmarks per variant and worker count, next to the serial elision's
    (which runs at 1 worker and is repeated on each row); in parentheses the ratio to serial."""
    benches = [b for b in benches if b in memory]
    if not benches:
        return ""
    cols = ["bench", "workers", "serial"] + VARIANTS
    lines = ["Space: peak RSS in MB, each configuration in its own process (× the serial elision's)", "",
             "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for bench in benches:
        m = memory[bench]
        serial = m.get(("serial", 1), (None, None))[1]
        for w in workers:
            cells = [bench, str(w), fmt(serial / 1024 if serial else None, 1)]
            for v in VARIANTS:
                rss = m.get((v, w), (None, None))[1]
                cell = fmt(rss / 1024 if rss else None, 1)
                if rss and serial:
                    cell += f" ({rss / serial:.1f}×)"
                cells.append(cell)
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def locality_markdown(table):
    """The locality rows next to their plain rows: medians in seconds and plain / locality."""
    benches = [b for b in sorted(table) if any(v == loc for loc, _ in LOCALITY for v, _ in table[b])]
    if not benches:
        return ""
    cols = ["bench", "workers", "Ts"]
    for loc, plain in LOCALITY:
        cols += [plain, loc, f"{plain} / {loc}"]
    lines = ["Locality rows: medians in seconds; plain / locality > 1 means the locality version is faster", "",
             "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for bench in benches:
        t = table[bench]
        ts = t.get(("serial", 1))
        for w in sorted({w for (_, w) in t if w}):
            if not any((loc, w) in t for loc, _ in LOCALITY):
                continue
            cells = [bench, str(w), fmt(ts, 4)]
            for loc, plain in LOCALITY:
                a, b = t.get((plain, w)), t.get((loc, w))
                cells += [fmt(a, 4), fmt(b, 4), fmt(a / b if a and b else None)]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plots(rs, outdir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report.py: matplotlib is not installed; no plots", file=sys.stderr)
        return []
    os.makedirs(outdir, exist_ok=True)
    made = []
    for metric, title, fname in (("T1/Ts", "work overhead T1/Ts (1 worker, lower is better)", "t1_over_ts.png"),
                                 ("Ts/T2", "speedup Ts/T2 (2 workers, higher is better)", "speedup_2w.png")):
        fig, ax = plt.subplots(figsize=(max(6, len(rs) * 1.1), 4))
        width = 0.8 / len(VARIANTS)
        for i, v in enumerate(VARIANTS):
            ys = [r[f"{v} {metric}"] or 0 for r in rs]
            ax.bar([j + i * width for j in range(len(rs))], ys, width, label=v)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(rs))])
        ax.set_xticklabels([r["bench"] for r in rs], rotation=30, ha="right")
        ax.set_title(title)
        if metric == "T1/Ts":
            ax.set_yscale("log")
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = os.path.join(outdir, fname)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        made.append(path)
    return made


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--md")
    ap.add_argument("--plots")
    a = ap.parse_args()
    data = load(a.results)
    table, memory, failed = index(data.get("runs", []))
    ran = {v for t in table.values() for (v, _) in t}
    VARIANTS[:] = [v for v in ALL_VARIANTS if v in ran]
    rs = rows(table)
    md = markdown(rs) + "\n\n" + memory_markdown(memory)
    splits = splits_markdown(data.get("runs", []))
    if splits:
        md += "\n\n" + splits
    space = space_markdown(memory)
    if space:
        md += "\n\n" + space
    locality = locality_markdown(table)
    if locality:
        md += "\n\n" + locality
    stopped = interruption(data)
    if stopped:
        print(stopped + "\n")
    print(md)
    if failed:
        print("\nORACLE FAILURES:\n" + "\n".join(failed))
    if a.md:
        with open(a.md, "w") as f:
            f.write(f"# slaw-bench results ({data.get('size')}, {data.get('reps')} repetitions, medians)\n\n")
            if stopped:
                f.write(f"**{stopped}**\n\n")
            f.write(f"machine: `{json.dumps(data.get('machine'))}`\n\n{md}\n")
            if failed:
                f.write("\nOracle failures:\n\n" + "\n".join("- " + x for x in failed) + "\n")
    if a.plots:
        for p in plots(rs, a.plots):
            print(f"plot: {p}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
