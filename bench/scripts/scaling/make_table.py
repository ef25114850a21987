#!/usr/bin/env python3
"""Merges the three device calls' results (callN_*) into scaling.json and writes table.md and speedup.png.

    python3 bench/scripts/scaling/make_table.py [--dir bench/results/scaling]

Sources, in order of preference for a (bench, variant, workers) configuration:
  json  a slaw-bench --json record (callN_partNN_BENCH.json): every repetition's seconds, the median, ...
  log   a result line of callN_log.txt ("<bench> w=<W> <variant> median <T> s ... ok"): the median only.
        Call 1 ran out of time (its per-kernel caps cut every kernel before w=16) and its interrupted
        slaw-bench processes wrote no JSON except lu's, so the configurations it completed survive only as
        log lines; call 2's JSON files of plan lines 6-16 did not come back (the tool returns 8 files),
        call 3 re-ran those with the same parameters (its JSON is used; call 2's log medians are kept
        as a repeat, see table.md's last section).
"""
import argparse, json, os, re, glob, statistics

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # the repository
HERE = os.path.join(ROOT, "bench", "results", "scaling")  # --dir
RAW = HERE  # the calls' files: callN_log.txt, callN_partNN_BENCH.json
WORKERS = [1, 2, 4, 8, 16]
VARIANTS = ["serial", "slaw-wf", "slaw-hf", "slaw-dyn", "slaw-dfd", "tbb", "omp"]
ORDER = ["barneshut", "densemm", "lu", "matmul", "nqueens", "sor", "sort", "spmv", "uts",
         "fib", "fj", "pdfs", "skynet", "spawncost"]
COARSE = set(ORDER[:9])
LINE = re.compile(r"^(\S+)\s+w=(\d+)\s+(\S+)\s+median\s+([0-9.]+) s\s+peak RSS\s+([0-9.]+) MB\s+(\S+)")
PLAN = re.compile(r"^PLAN (\d+) (\S+) reps=(\d+) (?:workers=\S+ )?vars=\S+ args=\[(.*)\]")


def load():
    recs = {}  # (call, bench, variant, workers) -> record
    for call in ("call1", "call2", "call3"):
        # log lines first, JSON records then replace them
        plan = None
        for line in open(os.path.join(RAW, f"{call}_log.txt")):
            m = PLAN.match(line)
            if m:
                plan = dict(reps=int(m.group(3)), args=m.group(4))
                continue
            m = LINE.match(line)
            if m and plan:
                b, w, v, t, rss, ok = m.groups()
                recs[(call, b, v, int(w))] = dict(bench=b, variant=v, workers=int(w), median=float(t),
                                                  peak_rss_mb=float(rss), oracle_ok=(ok == "ok"),
                                                  reps=plan["reps"], args=plan["args"], source=f"{call}_log.txt")
        for f in sorted(glob.glob(os.path.join(RAW, f"{call}_part*.json"))):
            d = json.load(open(f))
            for r in d["runs"]:
                r = dict(r)
                r["source"] = os.path.basename(f)
                r["reps"] = d["reps"]
                recs[(call, r["bench"], r["variant"], r["workers"])] = r
    return recs


def params_key(r):
    if "params" in r:
        return ",".join(f"{k}={v}" for k, v in sorted(r["params"].items()))
    return None  # a log record: its PLAN line's --arg overrides only; the JSON rows of the kernel name them all


def main():
    global HERE, RAW
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=HERE, help="the results folder: reads its callN_* files, writes scaling.json, "
                    "table.md and speedup.png there (default: %(default)s)")
    a = ap.parse_args()
    HERE, RAW = a.dir, a.dir
    recs = load()
    # the chosen record per configuration: call 3 over call 2 over call 1, JSON over log (load() already
    # replaced a call's log record by its JSON record)
    chosen = {}
    for call in ("call1", "call2", "call3"):
        for (c, b, v, w), r in recs.items():
            if c == call:
                chosen[(b, v, w)] = r
    repeats = [(k, recs[("call2",) + k], recs[("call3",) + k]) for k in chosen
               if ("call2",) + k in recs and ("call3",) + k in recs]

    machine = json.load(open(os.path.join(RAW, "call2_part01_lu.json")))["machine"]
    strip = lambda r: {k: v for k, v in r.items() if k != "counters"}  # the runtimes' counters: see the callN_*.json files
    out = dict(machine=machine, note=__doc__.strip(), runs=[strip(chosen[k]) for k in sorted(chosen)],
               call2_log_repeats=[recs[("call2",) + k] for k, _, _ in sorted(repeats)])
    with open(os.path.join(HERE, "scaling.json"), "w") as f:
        json.dump(out, f, indent=1)

    med = {k: r["median"] for k, r in chosen.items()}
    md = []
    md.append("Median seconds per worker count, and in brackets the speedup Ts/Tp (Ts: the serial "
              "elision's median). `reps` = repetitions per configuration; `src`: where the numbers come "
              "from (json/log, see README).\n")
    benches = [b for b in ORDER if any(k[0] == b for k in med)]
    for b in benches:
        rs = [r for k, r in chosen.items() if k[0] == b]
        ps = sorted({params_key(r) for r in rs} - {None})
        ts = med.get((b, "serial", 1))
        md.append(f"### {b}  ({'; '.join(ps)}; Ts = {ts:.4f} s)\n" if ts else f"### {b}\n")
        md.append("| variant | reps | src | " + " | ".join(f"w={w}" for w in WORKERS) + " |")
        md.append("|---|---|---|" + "---|" * len(WORKERS))
        for v in VARIANTS:
            row = [chosen.get((b, v, w)) for w in WORKERS]
            if not any(row):
                continue
            reps = sorted({r["reps"] for r in row if r})
            src = sorted({("json" if r["source"].endswith(".json") else "log") + "@" + r["source"].split("_")[0][-1]
                          for r in row if r})
            cells = []
            for r in row:
                if not r:
                    cells.append("—")
                    continue
                t = r["median"]
                sp = f" ({ts / t:.2f})" if ts else ""
                cells.append(f"{t:.4f}{sp}" + ("" if r.get("oracle_ok", True) else " FAIL"))
            md.append(f"| {v} | {'/'.join(map(str, reps))} | {','.join(src)} | " + " | ".join(cells) + " |")
        md.append("")

    # compact: speedup at 16 workers per kernel and variant
    md.append("### Speedup Ts/T16 at a glance\n")
    vs = VARIANTS[1:]
    md.append("| bench | " + " | ".join(vs) + " |")
    md.append("|---" * (len(vs) + 1) + "|")
    for b in benches:
        ts = med.get((b, "serial", 1))
        cells = [f"{ts / med[(b, v, 16)]:.2f}" if ts and (b, v, 16) in med else "—" for v in vs]
        md.append(f"| {b} | " + " | ".join(cells) + " |")
    md.append("")
    md.append("### Each variant's own scaling T1/T16 (apart from its 1-worker overhead)\n")
    md.append("| bench | " + " | ".join(vs) + " |")
    md.append("|---" * (len(vs) + 1) + "|")
    for b in benches:
        cells = [f"{med[(b, v, 1)] / med[(b, v, 16)]:.2f}" if (b, v, 1) in med and (b, v, 16) in med else "—"
                 for v in vs]
        md.append(f"| {b} | " + " | ".join(cells) + " |")
    md.append("")

    if repeats:
        md.append("### Repeat check: call 2 (log medians) against call 3 (JSON), same warm machine, "
                  "same parameters\n")
        ratios = [r3["median"] / r2["median"] for _, r2, r3 in repeats]
        big = sorted(((r3["median"] / r2["median"], k) for k, r2, r3 in repeats), reverse=True)
        md.append(f"{len(repeats)} configurations; call3/call2 median ratio: median "
                  f"{statistics.median(ratios):.3f}, min {min(ratios):.3f}, max {max(ratios):.3f}. "
                  f"{sum(abs(x - 1) > 0.1 for x in ratios)} of them differ by more than 10%. "
                  "Largest deviations (call3/call2, bench, variant, workers): "
                  + "; ".join(f"{x:.2f} {k[0]} {k[1]} w={k[2]}" for x, k in big[:6] + big[-6:]) + ".\n")
    with open(os.path.join(HERE, "table.md"), "w") as f:
        f.write("\n".join(md))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        n = len(benches)
        cols = 5
        rows = (n + cols - 1) // cols
        fig, axs = plt.subplots(rows, cols, figsize=(4 * cols, 3.4 * rows), squeeze=False)
        for i, b in enumerate(benches):
            ax = axs[i // cols][i % cols]
            ts = med.get((b, "serial", 1))
            for v in VARIANTS[1:]:
                pts = [(w, ts / med[(b, v, w)]) for w in WORKERS if (b, v, w) in med]
                if pts and ts:
                    ax.plot(*zip(*pts), marker="o", label=v)
            ax.plot(WORKERS, WORKERS, "k:", lw=0.8)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log", base=2)
            ax.set_xticks(WORKERS, [str(w) for w in WORKERS])
            ax.set_title(b)
            ax.set_xlabel("workers")
            ax.set_ylabel("Ts/Tp")
            ax.grid(alpha=0.3)
        for j in range(n, rows * cols):
            axs[j // cols][j % cols].axis("off")
        axs[0][0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(HERE, "speedup.png"), dpi=80)
    except ImportError:
        pass


if __name__ == "__main__":
    main()
