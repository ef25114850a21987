#!/usr/bin/env python3
"""Space experiments: SLAW A5-A7 (PDFS stack bound, flat-loop fresh bound, S and F sweeps, policy
trace) and DFDeques (K sweep, schedulers and peers on the allocating benchmarks).

usage: bench/scripts/space_experiments.py run [--build DIR] [--work DIR] [--reps N] [--only NAME[,NAME...]] [--quick]
       bench/scripts/space_experiments.py summary [RAW.json | DIR]

`run` runs one slaw-bench process per configuration (each variant and worker count in its own process,
so that peak RSS is that variant's alone), each writing its JSON to the work folder (default
BUILD/space-runs). It then gathers them into bench/results/space/raw.json (one record per process,
named as its JSON file was; records of experiments not run again are kept) and writes the summary to
bench/results/space/summary.md. `summary` prints the summary of raw.json, of another such file, or of a
folder of per-process JSON files. Experiments: a5 (pdfs tori), a7 (policy traces of fib and pdfs, one
fresh runtime and one run each, so that the trace starts at the runtime's start), a6 (flat loop of
10^7 asyncs), sweep_s, sweep_f, k_sweep, compare. --quick uses smaller inputs (a smoke test of the script, not for results).
"""
import argparse
import fnmatch
import glob
import json
import os
import signal
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/scripts/ -> the repository
OUT = os.path.join(ROOT, "bench", "results", "space")
RAW = os.path.join(OUT, "raw.json")
ALLOCATING = ["densemm", "fft", "spmv", "barneshut"]
EXPERIMENTS = ["a5", "a7", "a6", "sweep_s", "sweep_f", "k_sweep", "compare"]


def fail(msg):
    sys.exit(f"space_experiments.py: {msg}")


# ------------------------------------------------------------------------------------------ running

class runner:
    def __init__(self, build, work, reps, quick):
        self.bin = os.path.join(build, "bin", "slaw-bench")
        if not os.access(self.bin, os.X_OK):
            fail(f"{self.bin} not found: build it first (make bench) or pass --build DIR")
        self.reps = reps
        self.quick = quick
        self.work = work
        os.makedirs(work, exist_ok=True)

    def bench(self, name, bench, variant, workers, args=(), env=None, reps=None):
        """Runs one slaw-bench process; returns its status ('ok', or why not) and writes WORK/name.json."""
        path = os.path.join(self.work, name + ".json")
        cmd = [self.bin, "--bench", bench, "--variant", variant, "--workers", str(workers),
               "--reps", str(reps or self.reps), "--quiet", "--json", path]
        for a in args:
            cmd += ["--arg", a]
        e = dict(os.environ)
        e.update(env or {})
        print("+", " ".join(f"{k}={v}" for k, v in (env or {}).items()), " ".join(cmd[1:]), flush=True)
        p = subprocess.run(cmd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode < 0:
            status = f"killed by {signal.Signals(-p.returncode).name}"
            if p.returncode == -signal.SIGSEGV:
                status = "stack overflow (SIGSEGV)"
        elif p.returncode != 0:
            status = f"exit {p.returncode}: {p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''}"
        else:
            status = "ok"
        if status != "ok":
            with open(path, "w") as f:
                json.dump({"failed": status, "command": cmd, "env": env or {}}, f)
        return status

    def a5(self):
        sides = [100, 300, 1000] if self.quick else [100, 300, 1000, 2000, 4000]
        for side in sides:
            reps = 1 if side >= 2000 else self.reps
            # The plain recursion on an 8 MiB stack, as a C program would run it, in its own process.
            self.bench(f"a5_pdfs_{side}_serial", "pdfs", "serial", 1, [f"side={side}", "serial_stack=8"], reps=reps)
            for w in (1, 2):
                for v in ("slaw-wf", "slaw-hf", "slaw-dyn", "slaw-dfd", "tbb"):
                    self.bench(f"a5_pdfs_{side}_{v}_{w}w", "pdfs", v, w, [f"side={side}"], reps=reps)

    def a7(self):
        for w in (1, 2):
            self.bench(f"a7_fib_{w}w", "fib", "slaw-dyn", w, ["n=30"], {"SLAW_TRACE": "policy"}, reps=1)
            self.bench(f"a7_pdfs_300_{w}w", "pdfs", "slaw-dyn", w, ["side=300"], {"SLAW_TRACE": "policy"}, reps=1)

    def a6(self):
        k = 10**6 if self.quick else 10**7
        for w in (1, 2):
            for v in ("slaw-wf", "slaw-hf", "slaw-dyn", "slaw-dfd", "tbb", "omp"):
                self.bench(f"a6_flat_{v}_{w}w", "spawncost", v, w, [f"k={k}", "reps=1"])

    def sweep_s(self):
        for s in (1, 4, 16, 64, 256, 1024, 4096):
            self.bench(f"sweep_s_pdfs_{s}", "pdfs", "slaw-dyn", 2, ["side=1000"], {"SLAW_S": str(s)})
            self.bench(f"sweep_s_flat_{s}", "spawncost", "slaw-dyn", 2, ["k=1000000", "reps=1"], {"SLAW_S": str(s)})

    def sweep_f(self):
        for f in (1, 4, 16, 64, 128, 512, 4096):
            self.bench(f"sweep_f_pdfs_{f}", "pdfs", "slaw-dyn", 2, ["side=1000"], {"SLAW_F": str(f)})
            self.bench(f"sweep_f_flat_{f}", "spawncost", "slaw-dyn", 2, ["k=1000000", "reps=1"], {"SLAW_F": str(f)})

    def k_sweep(self):
        ks = ["2048", "8192", "32768", "131072", "524288", "2097152", "inf"]
        for b in ALLOCATING:
            # S1 and D: the serial depth-first run (work-first at one worker runs in exactly that order).
            self.bench(f"k_sweep_{b}_s1", b, "slaw-wf", 1)
            for k in ks:
                for w in (1, 2):
                    self.bench(f"k_sweep_{b}_{k}_{w}w", b, "slaw-dfd", w, env={"SLAW_K": k})

    def compare(self):
        for b in ALLOCATING:
            self.bench(f"compare_{b}_serial", b, "serial", 1)
            for w in (1, 2):
                for v in ("slaw-wf", "slaw-hf", "slaw-dyn", "slaw-dfd", "tbb", "omp"):
                    self.bench(f"compare_{b}_{v}_{w}w", b, v, w)


# ------------------------------------------------------------------------------------------ summary

def records(path):
    """{name: slaw-bench JSON}: the records of a raw.json, or the NAME.json files of a folder."""
    if os.path.isdir(path):
        out = {}
        for p in glob.glob(os.path.join(path, "*.json")):
            with open(p) as f:
                out[os.path.basename(p)[:-5]] = json.load(f)
        return out
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)["records"]


def gather(work, raw):
    """Adds the work folder's per-process JSON files to raw.json (a record run again replaces the old)."""
    recs = records(raw)
    recs.update(records(work))
    about = ("bench/scripts/space_experiments.py run: one slaw-bench --json record per process, named "
             "EXPERIMENT_BENCH[_SIZE]_VARIANT_WORKERSw (see the script)")
    with open(raw, "w") as f:  # one record per line
        f.write('{"about": ' + json.dumps(about) + ',\n "records": {\n')
        f.write(",\n".join(f"  {json.dumps(n)}: {json.dumps(r, separators=(',', ':'))}" for n, r in sorted(recs.items())))
        f.write("\n }\n}\n")


def names(d, pattern):
    """The record names of d that match a glob pattern."""
    return [n for n in d if fnmatch.fnmatchcase(n, pattern)]


def load(d, name):
    j = d.get(name)
    if j is None:
        return None
    path = name
    if "failed" in j:
        return {"failed": j["failed"]}
    runs = j["runs"]
    if not runs:
        return {"failed": "no run (variant not available)"}
    r = runs[0]
    if not r["oracle_ok"]:
        fail(f"oracle failed in {path}: {r['oracle']}")
    c = r.get("counters") or {}
    t = c.get("total", {})
    return {
        "median": r["median"], "rss_mb": r["peak_rss_kb"] / 1024, "params": r["params"],
        "mem_peak": c.get("memory_peak"), "frames_peak": t.get("frame_bytes_peak"),
        "tasks_peak": c.get("active_tasks_peak"), "max_wf_depth": t.get("max_wf_depth"), "max_fresh": t.get("max_fresh"),
        "fresh_bytes_peak": t.get("fresh_bytes_peak"), "steals": (t.get("steals_preempted", 0) + t.get("steals_fresh", 0)) if t else None,
        "giveups": t.get("quota_giveups"), "quota_max_used": t.get("quota_max_used"), "dummies": t.get("dummy_tasks"),
        "max_deques": (c.get("dfd") or {}).get("max_deques"), "counters": c,
    }


def mb(x):
    return "–" if x is None else f"{x / 2**20:.1f}"


def cell(r, key, fmt=lambda v: str(v)):
    if r is None:
        return "n/a"
    if "failed" in r:
        return r["failed"] if key == "median" else "–"
    v = r.get(key)
    return "–" if v is None else fmt(v)


def secs(r):
    return cell(r, "median", lambda v: f"{v:.3f}")


def trace_summary(r):
    """Decision changes of a dyn run: counts per (to, reason) and the start of worker 0's trace."""
    if not r or "failed" in r:
        return None, None
    counts = {}
    first = None
    for w in r["counters"].get("per_worker", []):
        tr = w.get("policy_trace", [])
        for _, _, to, why in tr:
            counts[(to, why)] = counts.get((to, why), 0) + 1
        if first is None and tr:
            first = tr[:8]
    return counts, first


def s_a5(d):
    lines = ["## A5: PDFS on a side x side torus (SLAW §V-C, Fig 5.2f; digest slaw.md §9.3 A5)", "",
             "Serial = the plain recursion on an 8 MiB stack, run in its own process. Frames = peak live frame bytes "
             "(sum over workers), memory = process-wide peak of frames + user memory, RSS = the process's peak "
             "resident set; time in seconds (median).", "",
             "| side | workers | variant | time (s) | max WF depth | frames (MB) | memory (MB) | RSS (MB) |",
             "|---|---|---|---|---|---|---|---|"]
    sides = sorted({int(n.split("_")[2]) for n in names(d, "a5_pdfs_*_serial")})
    for side in sides:
        r = load(d, f"a5_pdfs_{side}_serial")
        lines.append(f"| {side} | 1 | serial (8 MiB stack) | {secs(r)} | – | – | – | {cell(r, 'rss_mb', lambda v: f'{v:.0f}')} |")
        for w in (1, 2):
            for v in ("slaw-wf", "slaw-hf", "slaw-dyn", "slaw-dfd", "tbb"):
                r = load(d, f"a5_pdfs_{side}_{v}_{w}w")
                lines.append(f"| {side} | {w} | {v} | {secs(r)} | {cell(r, 'max_wf_depth')} | {cell(r, 'frames_peak', mb)} | "
                             f"{cell(r, 'mem_peak', mb)} | {cell(r, 'rss_mb', lambda v: f'{v:.0f}')} |")
    return lines


def s_a7(d):
    reason = {"i": "interval", "s": "stack bound S", "f": "fresh bound F", "c": "clause", "u": "under S again"}
    lines = ["## A7: policy trace of slaw-dyn (SLAW_TRACE=policy; a fresh runtime, one run)", "",
             "Every worker starts help-first. Changes counted over all workers, by the policy changed to and the reason; "
             "then the first changes of worker 0 as (spawn index, WF depth, policy, reason).", "",
             "| program | workers | → wf (interval) | → hf (interval) | → hf (stack S) | → wf (under S again) | → wf (fresh F) | first changes |",
             "|---|---|---|---|---|---|---|---|"]
    for prog in ["fib_n30", "pdfs_300"]:
        for w in (1, 2):
            name = f"a7_fib_{w}w" if prog == "fib_n30" else f"a7_{prog}_{w}w"
            counts, first = trace_summary(load(d, name))
            if counts is None:
                continue
            g = lambda to, why: counts.get((to, why), 0)
            fs = " ".join(f"({a},{b},{c},{reason[e]})" for a, b, c, e in (first or []))
            lines.append(f"| {prog} | {w} | {g('wf', 'i')} | {g('hf', 'i')} | {g('hf', 's')} | {g('wf', 'u')} | {g('wf', 'f')} | {fs} |")
    return lines


def s_a6(d):
    lines = ["## A6: a flat loop of asyncs under one finish (spawncost k = 10^7, one repetition)", "",
             "| workers | variant | time (s) | max fresh / worker | queued fresh bytes (MB, peak) | active tasks (peak) | memory (MB) | RSS (MB) |",
             "|---|---|---|---|---|---|---|---|"]
    for w in (1, 2):
        for v in ("slaw-wf", "slaw-hf", "slaw-dyn", "slaw-dfd", "tbb", "omp"):
            r = load(d, f"a6_flat_{v}_{w}w")
            lines.append(f"| {w} | {v} | {secs(r)} | {cell(r, 'max_fresh')} | {cell(r, 'fresh_bytes_peak', mb)} | "
                         f"{cell(r, 'tasks_peak')} | {cell(r, 'mem_peak', mb)} | {cell(r, 'rss_mb', lambda v: f'{v:.0f}')} |")
    return lines


def s_sweep(d, which):
    name = {"s": "S (stack bound, frames)", "f": "F (fresh-task bound)"}[which]
    vals = sorted({int(n.rsplit("_", 1)[1]) for n in names(d, f"sweep_{which}_pdfs_*")})
    lines = [f"## Sweep of {name}: slaw-dyn, 2 workers (SLAW Fig 5.2 d–f)", "",
             "| " + which.upper() + " | pdfs 1000² time (s) | max WF depth | max fresh | memory (MB) | flat 10^6 time (s) | max fresh | memory (MB) |",
             "|---|---|---|---|---|---|---|---|"]
    for v in vals:
        p = load(d, f"sweep_{which}_pdfs_{v}")
        f = load(d, f"sweep_{which}_flat_{v}")
        lines.append(f"| {v} | {secs(p)} | {cell(p, 'max_wf_depth')} | {cell(p, 'max_fresh')} | {cell(p, 'mem_peak', mb)} | "
                     f"{secs(f)} | {cell(f, 'max_fresh')} | {cell(f, 'mem_peak', mb)} |")
    return lines


def s_k_sweep(d):
    ks = ["2048", "8192", "32768", "131072", "524288", "2097152", "inf"]
    lines = ["## DFDeques K sweep on the allocating benchmarks (digest space_efficient.md §9.1 A3)", "",
             "S1 = peak memory (frames + user memory) of the serial depth-first run (slaw-wf, 1 worker); D = its maximum "
             "work-first nesting depth. c = (peak − S1) / (min(K, S1)·p·D): the constant that the bound "
             "S1 + O(min(K,S1)·p·D) leaves open; it should stay modest and roughly flat.", ""]
    for b in ALLOCATING:
        base = load(d, f"k_sweep_{b}_s1")
        if base is None or "failed" in base:
            continue
        s1, depth = base["mem_peak"], max(1, base["max_wf_depth"] or 1)
        lines += [f"### {b} ({', '.join(f'{k}={v}' for k, v in base['params'].items())}): S1 = {mb(s1)} MB, D = {depth}, "
                  f"serial-order time {base['median']:.3f} s", "",
                  "| K (bytes) | workers | time (s) | peak memory (MB) | peak − S1 (MB) | c | steals | give-ups | dummy tasks | max quota used | max deques |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for k in ks:
            for w in (1, 2):
                r = load(d, f"k_sweep_{b}_{k}_{w}w")
                if r is None or "failed" in r:
                    lines.append(f"| {k} | {w} | {secs(r)} | | | | | | | | |")
                    continue
                extra = r["mem_peak"] - s1
                kk = s1 if k == "inf" else min(int(k), s1)
                c = extra / (kk * w * depth) if kk else 0
                lines.append(f"| {k} | {w} | {r['median']:.3f} | {mb(r['mem_peak'])} | {mb(extra)} | {c:.3f} | {r['steals']} | "
                             f"{r['giveups']} | {r['dummies']} | {r['quota_max_used']} | {r['max_deques']} |")
        lines.append("")
    return lines


def s_compare(d):
    lines = ["## Schedulers and peers on the allocating benchmarks (default sizes, one process per variant)", "",
             "Memory = slaw's process-wide peak of frames + user memory (slaw variants only); RSS = peak resident set "
             "of the process (the only figure for the peers).", "",
             "| benchmark | workers | variant | time (s) | memory (MB) | RSS (MB) | active tasks (peak) | steals |",
             "|---|---|---|---|---|---|---|---|"]
    for b in ALLOCATING:
        r = load(d, f"compare_{b}_serial")
        lines.append(f"| {b} | 1 | serial | {secs(r)} | – | {cell(r, 'rss_mb', lambda v: f'{v:.0f}')} | – | – |")
        for w in (1, 2):
            for v in ("slaw-wf", "slaw-hf", "slaw-dyn", "slaw-dfd", "tbb", "omp"):
                r = load(d, f"compare_{b}_{v}_{w}w")
                lines.append(f"| {b} | {w} | {v} | {secs(r)} | {cell(r, 'mem_peak', mb)} | {cell(r, 'rss_mb', lambda v: f'{v:.0f}')} | "
                             f"{cell(r, 'tasks_peak')} | {cell(r, 'steals')} |")
    return lines


def summary(path):
    d = records(path)
    parts = ["# Space experiments", "", "Produced by `bench/scripts/space_experiments.py run` (raw JSON in raw.json beside this "
             "file: one record per slaw-bench process, named after its experiment, kernel, variant and worker count).", ""]
    for f in (s_a5, s_a7, s_a6, lambda d: s_sweep(d, "s"), lambda d: s_sweep(d, "f"), s_k_sweep, s_compare):
        parts += f(d) + [""]
    return "\n".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--build", default=os.path.join(ROOT, "build-bench"))
    r.add_argument("--work", help="where each process writes its JSON (default: BUILD/space-runs)")
    r.add_argument("--reps", type=int, default=3)
    r.add_argument("--only", default=",".join(EXPERIMENTS))
    r.add_argument("--quick", action="store_true")
    s = sub.add_parser("summary")
    s.add_argument("path", nargs="?", default=RAW, help="raw.json (the default) or a folder of per-process JSON files")
    a = ap.parse_args()
    if a.cmd == "summary":
        print(summary(a.path))
        return
    if a.reps < 1:
        fail(f"--reps {a.reps}: expected an integer >= 1")
    only = a.only.split(",")
    for e in only:
        if e not in EXPERIMENTS:
            fail(f"--only {e}: expected a comma-separated subset of {', '.join(EXPERIMENTS)}")
    run = runner(a.build, a.work or os.path.join(a.build, "space-runs"), a.reps, a.quick)
    for e in EXPERIMENTS:
        if e in only:
            getattr(run, e)()
    os.makedirs(OUT, exist_ok=True)
    gather(run.work, RAW)
    with open(os.path.join(OUT, "summary.md"), "w") as f:
        f.write(summary(RAW))
    print(f"wrote {RAW} and {os.path.join(OUT, 'summary.md')}")


if __name__ == "__main__":
    main()
