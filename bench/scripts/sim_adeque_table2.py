#!/usr/bin/env python3
"""Summarises A-Deque's 16-job Poisson experiment in slaw-sim (adeque_16jobs.sh) next to the paper's
Table II (Cao et al.; digest /work/shared/docs/digests/adeque.md §6.4).

usage: bench/scripts/sim_adeque_table2.py RUNS.csv [SELFPICKS_SKIP.csv]
       (RUNS.csv: bench/results/simulation/adeque_16jobs.csv, written by bench/scripts/sim_adeque_16jobs.sh)

Means over the generator seeds at each (cores, load, configuration). Improvements of deq+adeque over a
baseline, as the digest proposes (the paper gives no formula): (T_base - T_adeque) / T_base for makespan
and mean response time, (U_adeque - U_base) / U_base for utilization, each computed on the seed means
at one load, then averaged over the loads. The paper's "utilization" is useful time over the processors
allotted (stealing counted as waste); its Table II figure (29 % over WS-EQUI) is far above its makespan
gain (4.6 %), which a utilization over P x makespan could not be: so it is compared with `efficiency`
(busy / allotted core time). `utilization` (busy / (P x makespan)) is shown as well.
"""
import csv
import sys
from collections import defaultdict

PAPER = {"asteal": (3.14, 13.57, 14.46), "equi": (4.61, 19.13, 28.96)}
CONFIGS = ["deq+adeque", "deq+asteal", "equi", "off"]
METRICS = [("makespan_s", "makespan (s)", True), ("mean_response_s", "mean response (s)", True),
           ("efficiency", "efficiency (busy/allotted)", False), ("utilization", "utilization (busy/(P x makespan))", False)]


def load_runs(path):
    rows = list(csv.DictReader(open(path)))
    by = defaultdict(list)  # (cores, load, arbiter) -> rows
    for r in rows:
        by[(int(r["cores"]), float(r["load"]), r["arbiter"])].append(r)
    return rows, by


def mean(rows, key):
    return sum(float(r[key]) for r in rows) / len(rows)


def gain(base, new, lower_is_better):
    return 100.0 * ((base - new) / base if lower_is_better else (new - base) / base)


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) > 1 else 2)
    rows, by = load_runs(sys.argv[1])
    cores = sorted({k[0] for k in by})
    loads = sorted({k[1] for k in by})
    seeds = len({r["gen_seed"] for r in rows})
    print("A-Deque's 16-job Poisson experiment in slaw-sim: means over %d generator seeds per point" % seeds)
    print("(bench/scripts/sim_adeque_16jobs.sh; docs/simulation.md, \"Several jobs\")\n")
    for p in cores:
        print("P = %d cores, each job with %d workers" % (p, p))
        for key, title, _ in METRICS:
            print("  %-36s" % title + "".join("%13s" % c for c in CONFIGS))
            for ld in loads:
                print("    load %-29s" % ld + "".join("%13.4g" % mean(by[(p, ld, c)], key) for c in CONFIGS))
        print()
    # Table II.
    print("Table II: improvement of deq+adeque (%), averaged over the loads; the paper's numbers first")
    print("  %-28s %10s %15s %13s %13s" % ("", "makespan", "mean response", "utilization", "(busy/P*T)"))
    for base, label in [("asteal", "A-Steal"), ("equi", "WS-EQUI"), ("off", "off (all workers, OS shares)")]:
        if base in PAPER:
            m, r, u = PAPER[base]
            print("  %-28s %9.2f%% %14.2f%% %12.2f%%" % ("paper vs " + label, m, r, u))
        bcfg = "deq+asteal" if base == "asteal" else base
        for p in cores:
            g = []
            for key, _, lower in METRICS:
                per_load = [gain(mean(by[(p, ld, bcfg)], key), mean(by[(p, ld, "deq+adeque")], key), lower)
                            for ld in loads]
                g.append(sum(per_load) / len(per_load))
            print("  %-28s %9.2f%% %14.2f%% %12.2f%% %12.2f%%" % ("P=%d vs %s" % (p, label), g[0], g[1], g[2], g[3]))
    print()
    print("Per load (improvement of deq+adeque in makespan / mean response / efficiency, %; seeds where its")
    print("mean response beats the baseline's)")
    for p in cores:
        for bcfg in ["deq+asteal", "equi", "off"]:
            cells = []
            for ld in loads:
                a, b = by[(p, ld, "deq+adeque")], by[(p, ld, bcfg)]
                wins = sum(float(x["mean_response_s"]) < float(y["mean_response_s"])
                           for x, y in zip(sorted(a, key=lambda r: r["gen_seed"]), sorted(b, key=lambda r: r["gen_seed"])))
                cells.append("%+.1f/%+.1f/%+.1f (%d/%d)" % (
                    gain(mean(b, "makespan_s"), mean(a, "makespan_s"), True),
                    gain(mean(b, "mean_response_s"), mean(a, "mean_response_s"), True),
                    gain(mean(b, "efficiency"), mean(a, "efficiency"), False), wins, len(a)))
            print("  P=%-3d vs %-11s " % (p, bcfg) + "  ".join("load %s: %s" % (ld, c) for ld, c in zip(loads, cells)))
    print()
    print("Desire histories (means over runs): quanta, allotment changes and desire reversals per job-quantum")
    for p in cores:
        for c in CONFIGS:
            rs = [r for ld in loads for r in by[(p, ld, c)]]
            q = sum(float(r["quanta"]) for r in rs)
            print("  P=%-3d %-11s  mean desire %6.2f  mean allotment %6.2f  allotment changes %5.1f%%  desire reversals %5.1f%%  "
                  "overrun %.2f%% of busy" % (p, c, mean(rs, "mean_desire"), mean(rs, "mean_allotment"),
                                              100 * sum(float(r["allotment_changes"]) for r in rs) / q,
                                              100 * sum(float(r["desire_reversals"]) for r in rs) / q,
                                              100 * sum(float(r["overrun_core_s"]) for r in rs) /
                                              sum(float(r["busy_core_s"]) for r in rs)))
    if len(sys.argv) > 2:
        _, skip = load_runs(sys.argv[2])
        print()
        print("Self-picks skipped (a thief's own slot is not a sample: Cilk-5's draw, the estimator the digest")
        print("calls biased): deq+adeque against deq+asteal, improvement (%) averaged over the loads")
        for p in cores:
            g = []
            for key, _, lower in METRICS:
                per_load = [gain(mean(skip[(p, ld, "deq+asteal")], key), mean(skip[(p, ld, "deq+adeque")], key), lower)
                            for ld in loads]
                g.append(sum(per_load) / len(per_load))
            print("  P=%-3d makespan %+.2f%%  mean response %+.2f%%  efficiency %+.2f%%  utilization %+.2f%%" % (p, *g))
            for c in ["deq+adeque", "deq+asteal"]:
                print("         %-11s makespan (s) %s" % (c, "  ".join("%.3g" % mean(skip[(p, ld, c)], "makespan_s") for ld in loads)))
                print("         %-11s response (s) %s" % (c, "  ".join("%.3g" % mean(skip[(p, ld, c)], "mean_response_s") for ld in loads)))
                print("         %-11s efficiency   %s" % (c, "  ".join("%.3f" % mean(skip[(p, ld, c)], "efficiency") for ld in loads)))


if __name__ == "__main__":
    main()
