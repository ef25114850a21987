#!/usr/bin/env python3
"""The multi-job experiment (the A-Deque paper's §V-B, Fig. 7 and Table II): N jobs
arrive as a Poisson process and share the machine; each mode runs the same job set with the same
arrival times, and the table compares makespan, mean response time and utilization per mode and load.

usage: bench/multijob.py [--bench-binary PATH] [--modes M[,M...]] [--loads L[,L...]] [--jobs N]
                         [--seed S] [--reps R] [--size test|small|default] [--kernels K[,K...]]
                         [--workers W] [--cores C] [--variant V] [--timeout S] [--job-timeout S]
                         [--calibration JSON] [--json PATH] [--keep-temp] [--dry-run]

The job set. --jobs N jobs (default 16) are drawn uniformly, with replacement, from --kernels (default:
fib, integrate, lu, matmul, nqueens, sort, uts: fork-join kernels whose serial set-up and oracle are
short next to the parallel run) with the generator seeded by --seed (default 1). A job is one process:
    slaw-bench --bench KERNEL --size Z [--arg K=V ...] --variant V --workers W --reps 1 --quiet --json F
where V is the slaw variant (--variant, default slaw-dyn) or the peer (tbb, omp) and W is --workers
(default os.cpu_count()): every job may use every core, as programs do. --size picks the kernels'
parameters: default (a job alone takes about 0.4 to 2 s on a quiet 2-core machine, 0.7 to 3.4 CPU
seconds), small (about 0.2 to 0.8 CPU seconds) or test (slaw-bench's test size, milliseconds:
checks only).

Work and load. The work of a job is the CPU time (user + sys, from os.wait4, so the bench driver and
its child together) of a calibration run of that job alone: the slaw variant, SLAW_ARBITER=off, W
workers; each distinct (kernel, parameters) is calibrated once per invocation (or read from an earlier
--json output with --calibration). The load is the expected work arriving per second divided by the
cores:  load = lambda * mean_work / cores,  so the arrival rate is lambda = load * cores / mean_work
and the inter-arrival times are exponential with mean 1 / lambda. The first job arrives at t = 0, the
others after N - 1 exponential gaps drawn once (unit mean, from --seed) and scaled by 1 / lambda: every
load and every mode sees the same arrival order, only the time scale changes with the load.

Modes (--modes, default all, in this order):
    deq-adeque  SLAW_ARBITER=deq  SLAW_DESIRE=adeque  (A-Deque desires, DEQ allotments)
    deq-asteal  SLAW_ARBITER=deq  SLAW_DESIRE=asteal  (A-Steal desires, DEQ allotments)
    equi        SLAW_ARBITER=equi                     (WS-EQUI: the cores split evenly, desires ignored)
    off         SLAW_ARBITER=off                      (no arbiter: every job runs W workers, the OS
                                                       time-shares them)
    tbb, omp    the same kernels with --variant tbb / omp, W threads each (no coordination)
Every slaw mode gets SLAW_CORES=--cores (default os.cpu_count()), a private segment
SLAW_ARBITER_NAME=/slaw-multijob-<pid>-<run> (removed after the run) and SLAW_STATS=<temp file> per
job. Other SLAW_* variables of the environment (SLAW_QUANTUM_MS, SLAW_BETA, ...) reach the jobs.

Metrics, per run of a (mode, load, repetition), times from the driver's monotonic clock:
    makespan        the last completion minus the first arrival (t = 0)
    mean response   the mean over jobs of completion - arrival (arrival: the scheduled time; each
                    job's actual start is recorded too, usually within a millisecond of it)
    utilization     sum over jobs of their CPU time (user + sys of the job's process tree, os.wait4)
                    divided by (makespan * cores): the share of the cores' time the jobs kept busy,
                    counting every CPU cycle (stealing and spinning included), not only useful work
    work util       sum over jobs of their calibrated work / (makespan * cores): useful work (as
                    measured alone) per core-second; for one job set it is proportional to 1/makespan
    allotment, desire, u (slaw arbiter modes): from each job's SLAW_STATS "arbiter" object, the mean
                    over jobs of allotment_mean, desire_mean and utilization_mean weighted by each job's
                    quanta (a time-average over the quanta the jobs were registered); u is the paper's
                    utilization, useful (working) time over allotted time, as each job estimates it
                    from its steal counters every quantum (docs/design/multijob.md)
The table shows the median over the repetitions (--reps, default 1) of each metric, then the paper's
Table II analogue: deq-adeque's improvement over each other mode, averaged over the loads
((base - adeque) / base for the times, (adeque - base) / base for u and for the CPU utilization; u, the
paper's measure, only against the other arbiter modes, deq-asteal being A-Steal and equi WS-EQUI).

Failures. A job that exits non-zero, dies of a signal, fails its oracle (slaw-bench's "oracle_ok"),
writes no result, (slaw arbiter modes) writes no SLAW_STATS "arbiter" object or was not registered, or
runs longer than --job-timeout (default 300 s: a hung job) is an error: it is kept in the JSON with its
reason, its run is marked failed and left out of the medians, the error is printed at the end, and
the exit status is 1. The other runs still go on. Exit status: 0 every job succeeded; 1 a job or a
calibration failed; 2 a bad argument; 130 after SIGINT (Ctrl-C), 143 after SIGTERM: the jobs running
are stopped and --json still gets the runs completed, marked "interrupted".

Time. On a quiet 2-core machine the defaults (16 jobs at --size default, loads 0.5,1,2, the six
modes, 1 repetition) take about 10 minutes: a slaw run takes 20 to 35 s (the arrivals span 33 s at
load 0.5; the work is about 35 CPU seconds), tbb about 1.2 times that and omp about 40 s a load (its
tasks cost several times slaw's on fib and integrate). --reps R multiplies it; --size small divides
it by about 3.

--dry-run prints the job set and the arrival times per load without running anything; its works come
from --calibration if given, else from a nominal table measured on a 2-core machine (said so).
--json PATH writes everything: the settings, the calibration, the job set, every job of every run
(arrival, start, end, response, CPU time, exit status, oracle, arbiter statistics) and the summaries.
"""
import argparse
import json
import os
import random
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

PROG = "multijob.py"
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BINARY = os.path.join("build", "bin", "slaw-bench")

MODES = {
    # name: (variant kind, environment it sets)
    "deq-adeque": ("slaw", {"SLAW_ARBITER": "deq", "SLAW_DESIRE": "adeque"}),
    "deq-asteal": ("slaw", {"SLAW_ARBITER": "deq", "SLAW_DESIRE": "asteal"}),
    "equi": ("slaw", {"SLAW_ARBITER": "equi", "SLAW_DESIRE": "adeque"}),
    "off": ("slaw", {"SLAW_ARBITER": "off"}),
    "tbb": ("tbb", {}),
    "omp": ("omp", {}),
}
ARBITER_MODES = ("deq-adeque", "deq-asteal", "equi")
SLAW_VARIANTS = ("slaw-dyn", "slaw-wf", "slaw-hf", "slaw-dfd")
# Variables this script sets for the slaw jobs; an inherited value would otherwise leak into the peers'
# and the calibration's environments.
OWN_VARIABLES = ("SLAW_ARBITER", "SLAW_DESIRE", "SLAW_CORES", "SLAW_ARBITER_NAME", "SLAW_STATS")

# --size: slaw-bench's size and the --arg overrides per kernel, and the nominal work (CPU seconds of a
# calibration run at 2 workers on the 2-core development machine) that --dry-run uses without
# --calibration.
SIZES = {
    "test": {
        "bench_size": "test",
        "kernels": {"fib": ({}, 0.02), "integrate": ({}, 0.1), "lu": ({}, 0.02), "matmul": ({}, 0.02),
                    "nqueens": ({}, 0.03), "sort": ({}, 0.13), "uts": ({}, 0.5)},
    },
    "small": {
        "bench_size": "default",
        "kernels": {"fib": ({"n": "34"}, 0.57), "integrate": ({"eps": "1e-5"}, 0.76), "lu": ({"n": "1024"}, 0.22),
                    "matmul": ({"n": "1024"}, 0.88), "nqueens": ({"n": "12"}, 0.58),
                    "sort": ({"n": "4000000"}, 0.55), "uts": ({"tree": "T3"}, 0.59)},
    },
    "default": {
        "bench_size": "default",
        "kernels": {"fib": ({"n": "36"}, 1.58), "integrate": ({"eps": "2e-7"}, 2.51), "lu": ({"n": "2048"}, 1.41),
                    "matmul": ({"n": "2048"}, 2.49), "nqueens": ({"n": "13"}, 3.43),
                    "sort": ({"n": "16000000"}, 2.46), "uts": ({"tree": "T1"}, 0.66)},
    },
}
DEFAULT_LOADS = "0.5,1,2"


class Interrupted(Exception):
    pass


def die(msg):
    """A bad argument: the message names it and what it accepts; exit status 2."""
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


def note(msg):
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


def split_list(option, value, what):
    items = value.split(",")
    if value == "" or any(x == "" for x in items):
        die(f"{option} '{value}': an empty item; expected a comma-separated list of {what}")
    dup = [x for i, x in enumerate(items) if x in items[:i]]
    if dup:
        die(f"{option} '{value}': '{dup[0]}' given twice; expected a comma-separated list of {what}, each at most once")
    return items


def parse_args(argv):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                 epilog="See the module docstring (bench/multijob.py) for every definition.")
    ap.add_argument("--bench-binary", default=DEFAULT_BINARY, metavar="PATH",
                    help=f"slaw-bench (default: {DEFAULT_BINARY}, relative to the repository root)")
    ap.add_argument("--modes", default=",".join(MODES), metavar="M[,M...]", help=f"comma-separated, of {', '.join(MODES)} (default: all)")
    ap.add_argument("--loads", default=DEFAULT_LOADS, metavar="L[,L...]", help=f"comma-separated positive numbers (default: {DEFAULT_LOADS})")
    ap.add_argument("--jobs", default="16", metavar="N", help="jobs in the job set, an integer >= 1 (default: 16)")
    ap.add_argument("--seed", default="1", metavar="S", help="seed of the job set and the arrival gaps, an integer (default: 1)")
    ap.add_argument("--reps", default="1", metavar="R", help="repetitions of each (mode, load), an integer >= 1 (default: 1)")
    ap.add_argument("--size", default="default", metavar="Z", help=f"the kernels' sizes: {', '.join(SIZES)} (default: default)")
    ap.add_argument("--kernels", default=None, metavar="K[,K...]",
                    help=f"comma-separated, the kernels jobs are drawn from (default and accepted: "
                         f"{', '.join(SIZES['default']['kernels'])})")
    ap.add_argument("--workers", default=None, metavar="W", help="workers (threads) per job, an integer >= 1 (default: os.cpu_count())")
    ap.add_argument("--cores", default=None, metavar="C", help="SLAW_CORES: cores the arbiter shares and the utilization's "
                                                  "denominator, an integer >= 1 (default: os.cpu_count())")
    ap.add_argument("--variant", default="slaw-dyn", metavar="V", help=f"the slaw modes' variant: {', '.join(SLAW_VARIANTS)} "
                                                          "(default: slaw-dyn)")
    ap.add_argument("--timeout", default="1800", metavar="S", help="seconds a run of the job set may take before its jobs are "
                                                      "killed and it fails, a number > 0 (default: 1800)")
    ap.add_argument("--job-timeout", default="300", metavar="S", help="seconds a job may run before it is killed and fails "
                                                         "(a hung job), a number > 0 (default: 300)")
    ap.add_argument("--calibration", default=None, metavar="JSON",
                    help="take the jobs' work from an earlier --json output instead of calibrating")
    ap.add_argument("--json", default=None, metavar="PATH", help="write the raw results as JSON to PATH")
    ap.add_argument("--keep-temp", action="store_true", help="keep the jobs' result and stats files (said where)")
    ap.add_argument("--dry-run", action="store_true", help="print the job set and arrival times, run nothing")
    a = ap.parse_args(argv)

    def integer(option, value, lo):
        try:
            v = int(value)
        except ValueError:
            die(f"{option} '{value}': expected an integer >= {lo}")
        if v < lo:
            die(f"{option} '{value}': expected an integer >= {lo}")
        return v

    def positive(option, value, what="a number > 0"):
        try:
            v = float(value)
        except ValueError:
            die(f"{option} '{value}': expected {what}")
        if not v > 0 or v == float("inf"):
            die(f"{option} '{value}': expected {what}")
        return v

    a.modes = split_list("--modes", a.modes, f"modes ({', '.join(MODES)})")
    for m in a.modes:
        if m not in MODES:
            die(f"--modes '{','.join(a.modes)}': unknown mode '{m}'; expected a comma-separated list of modes "
                f"({', '.join(MODES)})")
    loads = []
    for x in split_list("--loads", a.loads, "positive numbers"):
        try:
            v = float(x)
        except ValueError:
            die(f"--loads '{a.loads}': '{x}' is not a number; expected a comma-separated list of positive numbers")
        if not v > 0 or v == float("inf"):
            die(f"--loads '{a.loads}': load '{x}' must be > 0 (and finite); expected a comma-separated list of "
                f"positive numbers")
        if v in loads:
            die(f"--loads '{a.loads}': load {x} given twice; expected a comma-separated list of positive numbers, "
                f"each at most once")
        loads.append(v)
    a.loads = loads
    a.jobs = integer("--jobs", a.jobs, 1)
    try:
        a.seed = int(a.seed)
    except ValueError:
        die(f"--seed '{a.seed}': expected an integer")
    a.reps = integer("--reps", a.reps, 1)
    if a.size not in SIZES:
        die(f"--size '{a.size}': expected one of {', '.join(SIZES)}")
    known = list(SIZES[a.size]["kernels"])
    if a.kernels is None:
        a.kernels = known
    else:
        a.kernels = split_list("--kernels", a.kernels, f"kernels ({', '.join(known)})")
        for k in a.kernels:
            if k not in known:
                die(f"--kernels '{','.join(a.kernels)}': unknown kernel '{k}'; expected a comma-separated list of "
                    f"kernels ({', '.join(known)})")
    a.workers = integer("--workers", a.workers, 1) if a.workers is not None else (os.cpu_count() or 1)
    a.cores = integer("--cores", a.cores, 1) if a.cores is not None else (os.cpu_count() or 1)
    if a.cores > 4096:
        die(f"--cores '{a.cores}': expected an integer in [1, 4096] (SLAW_CORES's range)")
    if a.variant not in SLAW_VARIANTS:
        die(f"--variant '{a.variant}': expected one of {', '.join(SLAW_VARIANTS)}")
    a.timeout = positive("--timeout", a.timeout)
    a.job_timeout = positive("--job-timeout", a.job_timeout)
    if a.json is not None and a.json == "":
        die("--json '': expected a file name")
    binary = a.bench_binary if os.path.isabs(a.bench_binary) else os.path.join(REPO, a.bench_binary)
    if not a.dry_run and not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        die(f"--bench-binary '{a.bench_binary}': {binary} is not an executable file; build it "
            f"(cmake --build BUILD --target slaw-bench) or pass --bench-binary PATH")
    a.binary = binary
    return a


# ---- the job set and the arrivals

def job_set(a):
    rng = random.Random(f"multijob-jobs-{a.seed}")
    table = SIZES[a.size]["kernels"]
    return [{"index": i, "kernel": k, "args": dict(table[k][0])}
            for i, k in enumerate(rng.choice(a.kernels) for _ in range(a.jobs))]


def unit_gaps(a):
    rng = random.Random(f"multijob-arrivals-{a.seed}")
    return [rng.expovariate(1.0) for _ in range(a.jobs - 1)]


def arrivals(gaps, load, mean_work, cores):
    """Arrival times (s) for a load: rate lambda = load * cores / mean_work, the first job at 0."""
    scale = mean_work / (load * cores)  # 1 / lambda
    t, out = 0.0, [0.0]
    for g in gaps:
        t += g * scale
        out.append(t)
    return out


def config_key(kernel, args):
    return kernel + "".join(f" {k}={v}" for k, v in sorted(args.items()))


def bench_command(a, kernel, args, variant, json_path):
    cmd = [a.binary, "--bench", kernel, "--size", SIZES[a.size]["bench_size"], "--variant", variant,
           "--workers", str(a.workers), "--reps", "1", "--quiet", "--json", json_path]
    for k, v in sorted(args.items()):
        cmd += ["--arg", f"{k}={v}"]
    return cmd


def base_environment():
    env = dict(os.environ)
    for v in OWN_VARIABLES:
        env.pop(v, None)
    return env


def tail(path, n=1500):
    try:
        with open(path, errors="replace") as f:
            s = f.read()
    except OSError:
        return ""
    return s[-n:].strip()


def read_bench_result(path):
    """(record or None, error or None) from a job's slaw-bench --json file."""
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        return None, f"no slaw-bench result ({path}: {e})"
    runs = d.get("runs") or []
    if d.get("interrupted"):
        return None, "slaw-bench reports it was interrupted"
    if len(runs) != 1:
        return None, f"slaw-bench reported {len(runs)} configurations, expected 1 (a skipped variant?)"
    r = runs[0]
    if not r.get("oracle_ok"):
        return r, f"oracle failed: {r.get('oracle', '?')}"
    return r, None


def read_arbiter_stats(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        return None, f"no SLAW_STATS ({path}: {e})"
    arb = d.get("arbiter")
    if not isinstance(arb, dict):
        return None, f"SLAW_STATS {path} has no \"arbiter\" object"
    keep = ("policy", "desire_rule", "registered", "quantum_ns", "quanta", "jobs_max", "desire_last", "desire_mean",
            "desire_max", "utilization_mean", "allotment_last", "allotment_min", "allotment_max", "allotment_mean",
            "off_reason")
    return {k: arb[k] for k in keep if k in arb}, None


def exit_description(status):
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        try:
            return code, f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return code, f"killed by signal {-code}"
    return code, f"exit status {code}"


# ---- running processes

class Runner:
    """Launches processes at given times and reaps them as they end, woken by SIGCHLD (no polling)."""

    def __init__(self):
        self.running = {}  # pid -> (popen, record)

    def __enter__(self):
        self.r, self.w = os.pipe()
        os.set_blocking(self.r, False)
        os.set_blocking(self.w, False)
        self.old_fd = signal.set_wakeup_fd(self.w)
        self.old_chld = signal.signal(signal.SIGCHLD, lambda *_: None)
        return self

    def __exit__(self, *exc):
        self.kill_all()
        signal.signal(signal.SIGCHLD, self.old_chld)
        signal.set_wakeup_fd(self.old_fd)
        os.close(self.r)
        os.close(self.w)
        return False

    def start(self, cmd, env, out_path, record):
        with open(out_path, "wb") as out:
            p = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                 start_new_session=True)
        self.running[p.pid] = (p, record)
        return p

    def reap(self, now):
        """[(record, status, rusage, now)] of the processes that have ended."""
        done = []
        for pid in list(self.running):
            try:
                wpid, status, ru = os.wait4(pid, os.WNOHANG)
            except ChildProcessError:
                continue
            if wpid:
                p, rec = self.running.pop(pid)
                p.returncode = os.waitstatus_to_exitcode(status)  # keeps Popen from waiting again
                done.append((rec, status, ru, now()))
        return done

    def wait(self, timeout):
        try:
            select.select([self.r], [], [], None if timeout is None else max(0.0, timeout))
        except InterruptedError:
            pass
        try:
            while os.read(self.r, 512):
                pass
        except BlockingIOError:
            pass

    def signal(self, pid, sig):
        try:
            os.killpg(pid, sig)  # the job's own process group (start_new_session)
        except ProcessLookupError:
            pass

    def kill_all(self):
        """SIGTERM to each running job's process group (slaw-bench stops its child), SIGKILL after 5 s."""
        if not self.running:
            return
        for pid in self.running:
            try:
                os.killpg(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 5
        while self.running and time.monotonic() < deadline:
            self.reap(time.monotonic)
            time.sleep(0.05)
        for pid in list(self.running):
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                os.wait4(pid, 0)
            except ChildProcessError:
                pass
            self.running.pop(pid)


def run_alone(a, kernel, args, tmp, name):
    """Calibration: one job alone, the slaw variant with the arbiter off. Returns a record."""
    env = base_environment()
    env["SLAW_ARBITER"] = "off"
    jpath, opath = os.path.join(tmp, f"{name}.json"), os.path.join(tmp, f"{name}.out")
    rec = {"kernel": kernel, "args": args, "variant": a.variant, "workers": a.workers, "size": a.size}
    with Runner() as rn:
        t0 = time.monotonic()
        rn.start(bench_command(a, kernel, args, a.variant, jpath), env, opath, rec)
        done = rn.reap(time.monotonic)
        while not done and time.monotonic() < t0 + a.job_timeout:
            rn.wait(t0 + a.job_timeout - time.monotonic())
            done = rn.reap(time.monotonic)
        if not done:
            rn.kill_all()
            rec.update(wall_seconds=None, cpu_seconds=None, exit_status=None,
                       error=f"hung or too slow: still running after {a.job_timeout:g} s (--job-timeout), so killed")
            return rec
    _, status, ru, t1 = done[0]
    code, why = exit_description(status)
    rec.update(wall_seconds=t1 - t0, cpu_seconds=ru.ru_utime + ru.ru_stime, exit_status=code)
    result, err = read_bench_result(jpath)
    if code != 0:
        err = f"{why}" + (f"; {err}" if err else "") + (f"; output: {tail(opath)}" if tail(opath) else "")
    if result:
        rec["kernel_seconds"] = result.get("median")
    rec["error"] = err
    return rec


def run_jobset(a, mode, load, rep, run_no, jobs, times, tmp):
    """One run of the job set in one mode. Returns the run's record (jobs, summary, errors)."""
    kind, mode_env = MODES[mode]
    variant = a.variant if kind == "slaw" else kind
    name = f"/slaw-multijob-{os.getpid()}-{run_no}"
    rdir = os.path.join(tmp, f"run{run_no:03d}-{mode}-load{load:g}-rep{rep}")
    os.makedirs(rdir)
    env0 = base_environment()
    if kind == "slaw":
        env0.update(mode_env)
        env0["SLAW_CORES"] = str(a.cores)
        env0["SLAW_ARBITER_NAME"] = name
    run = {"mode": mode, "load": load, "rep": rep, "variant": variant, "workers": a.workers, "cores": a.cores,
           "arbiter_name": name if kind == "slaw" else None, "environment": dict(mode_env),
           "loadavg_before": list(os.getloadavg()), "dir": rdir if a.keep_temp else None, "jobs": [], "errors": []}
    recs = []
    for j, t in zip(jobs, times):
        recs.append({"index": j["index"], "kernel": j["kernel"], "args": j["args"], "work": j["work"],
                     "arrival": t, "start": None, "end": None, "response": None, "cpu_user": None,
                     "cpu_sys": None, "cpu": None, "exit_status": None, "oracle_ok": None, "oracle": None,
                     "kernel_seconds": None, "arbiter": None, "output": None, "error": None})
    order = sorted(range(len(recs)), key=lambda i: (recs[i]["arrival"], i))
    timed_out = False
    with Runner() as rn:
        t0 = time.monotonic()
        now = lambda: time.monotonic() - t0
        nxt = 0
        try:
            while nxt < len(order) or rn.running:
                while nxt < len(order) and recs[order[nxt]]["arrival"] <= now():
                    r = recs[order[nxt]]
                    env = dict(env0)
                    r["_json"] = os.path.join(rdir, f"job{r['index']:02d}.json")
                    r["_out"] = os.path.join(rdir, f"job{r['index']:02d}.out")
                    if kind == "slaw":
                        r["_stats"] = os.path.join(rdir, f"job{r['index']:02d}.stats.json")
                        env["SLAW_STATS"] = r["_stats"]
                    r["start"] = now()
                    rn.start(bench_command(a, r["kernel"], r["args"], variant, r["_json"]), env, r["_out"], r)
                    nxt += 1
                for r, status, ru, t in rn.reap(now):
                    r["end"] = t
                    r["response"] = t - r["arrival"]
                    r["cpu_user"], r["cpu_sys"] = ru.ru_utime, ru.ru_stime
                    r["cpu"] = ru.ru_utime + ru.ru_stime
                    r["_status"] = status
                if nxt >= len(order) and not rn.running:
                    break
                if now() > a.timeout:
                    timed_out = True
                    break
                wake = a.timeout - now()
                for pid, (_, r) in rn.running.items():  # --job-timeout: SIGTERM, then SIGKILL 5 s later
                    t = now()
                    if r.get("_term") is None and t >= r["start"] + a.job_timeout:
                        r["_term"] = t
                        rn.signal(pid, signal.SIGTERM)
                    elif r.get("_term") is not None and t >= r["_term"] + 5 and not r.get("_kill"):
                        r["_kill"] = True
                        rn.signal(pid, signal.SIGKILL)
                    if r.get("_term") is None:
                        wake = min(wake, r["start"] + a.job_timeout - t)
                    elif not r.get("_kill"):
                        wake = min(wake, r["_term"] + 5 - t)
                if nxt < len(order):
                    wake = min(wake, recs[order[nxt]]["arrival"] - now())
                rn.wait(wake)
        except KeyboardInterrupt:
            rn.kill_all()
            raise Interrupted()
        if timed_out:
            rn.kill_all()
    if name and kind == "slaw":
        try:
            os.unlink("/dev/shm" + name)
        except OSError:
            pass

    for r in recs:
        err = None
        if r["start"] is None:
            err = f"not started: the run timed out after {a.timeout:g} s (--timeout)"
        elif "_status" not in r:
            err = f"killed: the run timed out after {a.timeout:g} s (--timeout)"
        else:
            code, why = exit_description(r.pop("_status"))
            r["exit_status"] = code
            hung = r.pop("_term", None) is not None
            if hung:
                why = (f"hung or too slow: still running after {a.job_timeout:g} s (--job-timeout), so killed "
                       f"({why})")
            result, rerr = read_bench_result(r["_json"])
            if result:
                r["oracle_ok"], r["oracle"] = result.get("oracle_ok"), result.get("oracle")
                r["kernel_seconds"] = result.get("median")
            if code != 0 or hung:
                err = why + (f"; {rerr}" if rerr and not hung else "")
            elif rerr:
                err = rerr
            if mode in ARBITER_MODES:
                stats, serr = read_arbiter_stats(r["_stats"])
                r["arbiter"] = stats
                if serr and not err:
                    err = serr
                elif stats and not stats.get("registered") and not err:
                    err = f"not registered with the arbiter (policy {stats.get('policy')}: {stats.get('off_reason', '?')})"
        out = tail(r.get("_out", ""))
        r["output"] = out or None
        if err and out:
            err += f"; its output: {out[-600:]}"
        r["error"] = err
        for k in ("_json", "_out", "_stats", "_kill"):
            r.pop(k, None)
        if err:
            run["errors"].append(f"{mode} load {load:g} rep {rep}: job {r['index']} ({config_key(r['kernel'], r['args'])}): {err}")
    run["jobs"] = recs
    run["ok"] = not run["errors"]
    run["summary"] = summarize(run, a.cores) if run["ok"] else None
    return run


def summarize(run, cores):
    jobs = run["jobs"]
    makespan = max(j["end"] for j in jobs) - min(j["arrival"] for j in jobs)
    cpu = sum(j["cpu"] for j in jobs)
    work = sum(j["work"] for j in jobs)
    s = {"makespan": makespan, "mean_response": statistics.fmean(j["response"] for j in jobs),
         "utilization": cpu / (makespan * cores), "work_utilization": work / (makespan * cores),
         "cpu_seconds": cpu, "work_seconds": work,
         "allotment_mean": None, "desire_mean": None, "arbiter_utilization_mean": None}
    arb = [j["arbiter"] for j in jobs if j["arbiter"] and j["arbiter"].get("registered") and j["arbiter"].get("quanta")]
    if arb and run["mode"] in ARBITER_MODES:
        q = sum(x["quanta"] for x in arb)
        for out, key in (("allotment_mean", "allotment_mean"), ("desire_mean", "desire_mean"),
                         ("arbiter_utilization_mean", "utilization_mean")):
            if all(key in x for x in arb):
                s[out] = sum(x[key] * x["quanta"] for x in arb) / q
    return s


def median_summaries(runs, modes, loads):
    out = []
    for load in loads:
        for mode in modes:
            rs = [r for r in runs if r["mode"] == mode and r["load"] == load]
            ok = [r["summary"] for r in rs if r["ok"]]
            m = {"mode": mode, "load": load, "reps": len(rs), "failed_reps": len(rs) - len(ok)}
            for key in ("makespan", "mean_response", "utilization", "work_utilization", "allotment_mean",
                        "desire_mean", "arbiter_utilization_mean"):
                vals = [s[key] for s in ok if s[key] is not None]
                m[key] = statistics.median(vals) if vals else None
            out.append(m)
    return out


def improvements(summaries, modes, loads):
    """Table II analogue: deq-adeque against each other mode, averaged over the loads where both ran."""
    by = {(s["mode"], s["load"]): s for s in summaries}
    out = []
    if "deq-adeque" not in modes:
        return out
    for base in modes:
        if base == "deq-adeque":
            continue
        ms, rs, us, aus, n = [], [], [], [], 0
        for load in loads:
            a, b = by.get(("deq-adeque", load)), by.get((base, load))
            if not a or not b or a["makespan"] is None or b["makespan"] is None:
                continue
            n += 1
            ms.append((b["makespan"] - a["makespan"]) / b["makespan"])
            rs.append((b["mean_response"] - a["mean_response"]) / b["mean_response"])
            us.append((a["utilization"] - b["utilization"]) / b["utilization"])
            if a["arbiter_utilization_mean"] and b["arbiter_utilization_mean"]:
                aus.append((a["arbiter_utilization_mean"] - b["arbiter_utilization_mean"]) / b["arbiter_utilization_mean"])
        if n:
            out.append({"baseline": base, "loads": n, "makespan": statistics.fmean(ms),
                        "mean_response": statistics.fmean(rs), "utilization": statistics.fmean(us),
                        "arbiter_utilization": statistics.fmean(aus) if len(aus) == n else None})
    return out


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def print_tables(summaries, imps, a):
    print(f"Multi-job experiment: {a.jobs} jobs (size {a.size}, seed {a.seed}), {a.workers} workers a job, "
          f"{a.cores} cores; medians of {a.reps} repetition(s).")
    print("utilization = sum of the jobs' CPU time / (makespan x cores); work util = sum of the jobs' calibrated "
          "work / (makespan x cores);")
    print("allotment, desire, u = the jobs' SLAW_STATS arbiter means weighted by quanta (u: useful / allotted time).")
    print()
    print("| mode | load | reps ok | makespan (s) | mean response (s) | utilization | work util | allotment | desire | u |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for s in summaries:
        print(f"| {s['mode']} | {s['load']:g} | {s['reps'] - s['failed_reps']}/{s['reps']} | {fmt(s['makespan'], '.2f')} | "
              f"{fmt(s['mean_response'], '.2f')} | {fmt(s['utilization'], '.3f')} | {fmt(s['work_utilization'], '.3f')} | "
              f"{fmt(s['allotment_mean'], '.2f')} | {fmt(s['desire_mean'], '.2f')} | "
              f"{fmt(s['arbiter_utilization_mean'], '.3f')} |")
    if imps:
        print()
        print("deq-adeque's improvement, averaged over the loads (paper Table II, makespan / mean response / "
              "utilization: vs A-Steal (deq-asteal) 3.14 / 13.57 / 14.46 %, vs WS-EQUI (equi) 4.61 / 19.13 / 28.96 %). "
              "The paper's utilization is u (useful over allotted time); a higher CPU utilization may be only more "
              "stealing or spinning:")
        print()
        print("| vs | loads | makespan | mean response | u | CPU utilization |")
        print("|---|---|---|---|---|---|")
        pct = lambda v: "-" if v is None else f"{100 * v:+.2f} %"
        for i in imps:
            print(f"| {i['baseline']} | {i['loads']} | {pct(i['makespan'])} | {pct(i['mean_response'])} | "
                  f"{pct(i['arbiter_utilization'])} | {pct(i['utilization'])} |")


def write_json(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def load_calibration(a, keys):
    try:
        with open(a.calibration) as f:
            d = json.load(f)
        cal = {config_key(c["kernel"], c["args"]): c for c in d["calibration"]}
    except (OSError, ValueError, KeyError, TypeError) as e:
        die(f"--calibration '{a.calibration}': cannot read a multijob.py --json output's \"calibration\" ({e})")
    missing = [k for k in keys if k not in cal or cal[k].get("error") or cal[k].get("cpu_seconds") is None]
    if missing:
        die(f"--calibration '{a.calibration}': no successful calibration of {', '.join(missing)}")
    other = [k for k in keys if cal[k].get("workers") != a.workers or cal[k].get("variant") != a.variant]
    if other:
        note(f"warning: --calibration: {', '.join(other)} calibrated with other workers or variant")
    return [cal[k] for k in keys]


STOP_STATUS = [130]  # 128 + the signal that stopped us: SIGINT unless on_sigterm says otherwise


def on_sigterm(*_):
    STOP_STATUS[0] = 128 + signal.SIGTERM
    raise KeyboardInterrupt()  # stopped like Ctrl-C: the running jobs are killed, --json still written


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    jobs = job_set(a)
    keys = sorted({config_key(j["kernel"], j["args"]) for j in jobs})
    by_key = {config_key(j["kernel"], j["args"]): (j["kernel"], j["args"]) for j in jobs}
    signal.signal(signal.SIGTERM, on_sigterm)

    doc = {"tool": "bench/multijob.py", "dry_run": a.dry_run, "interrupted": False,
           "config": {"bench_binary": a.binary, "modes": a.modes, "loads": a.loads, "jobs": a.jobs, "seed": a.seed,
                      "reps": a.reps, "size": a.size, "bench_size": SIZES[a.size]["bench_size"],
                      "kernels": a.kernels, "workers": a.workers, "cores": a.cores, "variant": a.variant,
                      "timeout": a.timeout, "job_timeout": a.job_timeout, "calibration_from": a.calibration, "cpu_count": os.cpu_count(),
                      "environment": {k: v for k, v in os.environ.items()
                                      if k.startswith(("SLAW_", "OMP_", "GOMP_")) and k not in OWN_VARIABLES}},
           "definitions": {
               "work": "CPU seconds (user+sys, os.wait4) of the job run alone: slaw variant, SLAW_ARBITER=off",
               "load": "lambda * mean_work / cores; inter-arrival times exponential with mean 1/lambda",
               "makespan": "last completion - first arrival (s)",
               "response": "completion - scheduled arrival (s)",
               "utilization": "sum of the jobs' CPU seconds (user+sys of each job's process tree) / (makespan * cores)",
               "work_utilization": "sum of the jobs' calibrated work / (makespan * cores)",
               "allotment_mean, desire_mean, arbiter_utilization_mean":
                   "mean over the jobs of SLAW_STATS arbiter allotment_mean, desire_mean, utilization_mean, "
                   "weighted by each job's quanta (arbiter modes only)"},
           "calibration": [], "job_set": jobs, "arrivals": {}, "runs": [], "summaries": [], "improvements": [],
           "errors": []}
    tmp = None
    status = 0
    try:
        # Work per job.
        if a.calibration:
            cal = load_calibration(a, keys)
            source = f"calibration from {a.calibration}"
        elif a.dry_run:
            table = SIZES[a.size]["kernels"]
            cal = [{"kernel": by_key[k][0], "args": by_key[k][1], "cpu_seconds": table[by_key[k][0]][1],
                    "nominal": True, "error": None} for k in keys]
            source = "NOMINAL work (measured once on a 2-core machine; a real run calibrates)"
        else:
            tmp = tempfile.mkdtemp(prefix="slaw-multijob-")
            cal = []
            for i, k in enumerate(keys):
                note(f"calibrating {i + 1}/{len(keys)}: {k} alone ({a.variant}, {a.workers} workers, arbiter off)")
                try:
                    c = run_alone(a, by_key[k][0], by_key[k][1], tmp, f"calibrate{i:02d}")
                except KeyboardInterrupt:
                    raise Interrupted()
                if c["error"]:
                    doc["errors"].append(f"calibration of {k}: {c['error']}")
                cal.append(c)
            source = "calibrated"
        doc["calibration"] = cal
        work = {config_key(c["kernel"], c["args"]): c["cpu_seconds"] for c in cal}
        if doc["errors"]:
            for e in doc["errors"]:
                note(f"FAILED: {e}")
            if a.json:
                write_json(a.json, doc)
            return 1
        for j in jobs:
            j["work"] = work[config_key(j["kernel"], j["args"])]
        mean_work = statistics.fmean(j["work"] for j in jobs)
        gaps = unit_gaps(a)
        times = {load: arrivals(gaps, load, mean_work, a.cores) for load in a.loads}
        doc["arrivals"] = {f"{load:g}": times[load] for load in a.loads}
        doc["mean_work"] = mean_work

        if a.dry_run:
            print(f"Job set: {a.jobs} jobs, seed {a.seed}, size {a.size}; work = {source}; mean work {mean_work:.3f} s; "
                  f"{a.cores} cores, {a.workers} workers a job.")
            print(f"Modes: {', '.join(a.modes)}; {a.reps} repetition(s) each.")
            print()
            print("| job | kernel | work (s) | " + " | ".join(f"arrival at load {l:g} (s)" for l in a.loads) + " |")
            print("|---|---|---|" + "---|" * len(a.loads))
            for j in jobs:
                print(f"| {j['index']} | {config_key(j['kernel'], j['args'])} | {j['work']:.3f} | " +
                      " | ".join(f"{times[l][j['index']]:.3f}" for l in a.loads) + " |")
            print()
            total = sum(j["work"] for j in jobs)
            for l in a.loads:
                lam = l * a.cores / mean_work
                print(f"load {l:g}: lambda = {lam:.3f} jobs/s, last arrival {times[l][-1]:.1f} s, total work "
                      f"{total:.1f} CPU s = {total / a.cores:.1f} s on {a.cores} cores")
            if a.json:
                write_json(a.json, doc)
            return 0

        total_runs = len(a.loads) * len(a.modes) * a.reps
        run_no = 0
        started = time.monotonic()
        for rep in range(1, a.reps + 1):
            for load in a.loads:
                for mode in a.modes:
                    run_no += 1
                    run = run_jobset(a, mode, load, rep, run_no, jobs, times[load], tmp)
                    doc["runs"].append(run)
                    doc["errors"] += run["errors"]
                    s = run["summary"]
                    msg = (f"makespan {s['makespan']:.2f} s, mean response {s['mean_response']:.2f} s, "
                           f"utilization {s['utilization']:.3f}" if s else f"FAILED ({len(run['errors'])} job(s))")
                    el = time.monotonic() - started
                    note(f"[{run_no}/{total_runs}] {mode} load {load:g} rep {rep}: {msg}  "
                         f"(elapsed {el:.0f} s, about {el / run_no * (total_runs - run_no):.0f} s left)")
                    if a.json:  # as we go, so that a crash keeps what was done
                        doc["summaries"] = median_summaries(doc["runs"], a.modes, a.loads)
                        write_json(a.json, doc)
    except Interrupted:
        doc["interrupted"] = True
        note("interrupted: the jobs running were stopped")
        status = STOP_STATUS[0]
    finally:
        if tmp and not a.keep_temp:
            shutil.rmtree(tmp, ignore_errors=True)
        elif tmp:
            note(f"the jobs' files are kept in {tmp}")

    doc["summaries"] = median_summaries(doc["runs"], a.modes, a.loads)
    doc["improvements"] = improvements(doc["summaries"], a.modes, a.loads)
    if doc["runs"]:
        print_tables(doc["summaries"], doc["improvements"], a)
    if a.json:
        write_json(a.json, doc)
    if doc["errors"]:
        print(file=sys.stderr)
        for e in doc["errors"]:
            note(f"FAILED: {e}")
        note(f"{len(doc['errors'])} job(s) failed; their runs are left out of the medians (see "
             f"{'the JSON' if a.json else '--json'})")
        status = status or 1
    return status


if __name__ == "__main__":
    sys.exit(main())
