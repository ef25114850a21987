#!/usr/bin/env python3
"""Checks bench/multijob.py, the multi-job experiment driver, on a tiny configuration.

usage: bench/scripts/check_multijob.py --list              the case names (one ctest each)
       bench/scripts/check_multijob.py SLAW_BENCH CASE     runs one case

  run         3 jobs at --size test, one load, modes deq-adeque and off, 1 repetition, with the real
              slaw-bench: exit status 0; the JSON holds the settings, a calibration per kernel, the job set,
              the arrivals, 2 runs of 3 jobs each with arrival <= start <= end, exit status 0, oracle ok, CPU
              time, the deq-adeque jobs registered with the arbiter (policy deq, rule adeque, an allotment)
              and the off jobs without arbiter statistics; the summaries agree with the jobs (makespan,
              mean response, utilization = CPU / (makespan x cores)); the table is printed
  dry_run     --dry-run runs nothing (a missing binary is fine): the job set and arrival times per load,
              the same for the same seed, other for another seed, the gaps scaled by 1 / load
  bad_args    an unknown mode, a load <= 0 or not a number, --jobs 0, a missing binary, --reps 0, an unknown
              size or kernel: exit status 2 and a message naming the argument and what it accepts
  failed_job  a fake slaw-bench whose lu jobs fail their oracle under the arbiter: exit status 1, the job kept
              in the JSON with its error, the others ok, the run left out of the medians, the error printed
  hung_job    a fake slaw-bench whose jobs hang under the arbiter: killed after --job-timeout, reported, exit 1
  interrupt   SIGINT while fake jobs run: exit status 130, the JSON marked interrupted, no job left running
  terminate   the same with SIGTERM: exit status 143
"""
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_cases import Failed, expect, run_cases  # noqa: E402  (the shared case frame, same directory)

MULTIJOB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "multijob.py")
# Workers and cores keep their defaults (os.cpu_count()), so that the jobs' CPU time cannot exceed
# makespan x cores on a machine with more CPUs.
TINY = ["--jobs", "3", "--size", "test", "--loads", "2", "--reps", "1"]

# A stand-in for slaw-bench: answers like it (--json with one run, SLAW_STATS with an "arbiter" object),
# and misbehaves as FAKE_BEHAVIOUR says, only when the arbiter is on (the calibration runs with it off).
FAKE = r'''#!PYTHON
import json, os, sys, time
args = sys.argv[1:]
opt = lambda name: args[args.index(name) + 1]
bench, arbiter = opt("--bench"), os.environ.get("SLAW_ARBITER")
behaviour = os.environ.get("FAKE_BEHAVIOUR", "")
with open(os.path.join(os.environ["FAKE_DIR"], f"pid-{os.getpid()}"), "w"):
    pass
ok = True
if arbiter == "deq":
    if behaviour == "oracle" and bench == "lu":
        ok = False
    if behaviour == "hang":
        time.sleep(120)
time.sleep(0.05)
with open(opt("--json"), "w") as f:
    json.dump({"interrupted": False, "runs": [{"bench": bench, "oracle_ok": ok, "median": 0.05,
               "oracle": "fine" if ok else "wrong answer 41, expected 42"}]}, f)
if os.environ.get("SLAW_STATS"):
    with open(os.environ["SLAW_STATS"], "w") as f:
        json.dump({"arbiter": {"policy": arbiter, "desire_rule": os.environ.get("SLAW_DESIRE"), "registered": True,
                               "quanta": 5, "desire_mean": 1.5, "allotment_mean": 1.2, "utilization_mean": 0.9}}, f)
sys.exit(0 if ok else 1)
'''


def multijob(args, timeout=300, env=None):
    p = subprocess.run([sys.executable, MULTIJOB] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout, env=env)
    print(f"$ multijob.py {' '.join(args)}  -> {p.returncode}\n{p.stdout}{p.stderr}")
    return p


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise Failed(f"cannot read the JSON {path}: {e}")


def close(a, b, tol=1e-6):
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def case_run(binary, tmp):
    out = os.path.join(tmp, "mj.json")
    p = multijob(["--bench-binary", binary, "--modes", "deq-adeque,off", "--json", out, "--job-timeout", "120"] + TINY)
    expect(p.returncode == 0, f"exit status {p.returncode}, expected 0")
    expect("| deq-adeque | 2 |" in p.stdout and "| off | 2 |" in p.stdout, "no table row per (mode, load) on stdout")
    d = load(out)
    for key in ("config", "definitions", "calibration", "job_set", "arrivals", "runs", "summaries", "errors"):
        expect(key in d, f"no \"{key}\" in the JSON")
    expect(d["errors"] == [] and d["interrupted"] is False, f"errors {d['errors']}, interrupted {d['interrupted']}")
    cores = d["config"]["cores"]
    expect(cores == os.cpu_count() and d["config"]["workers"] == os.cpu_count(), f"config {d['config']}: the cores "
           f"and the workers are not os.cpu_count() = {os.cpu_count()}")
    expect(d["config"]["modes"] == ["deq-adeque", "off"], f"config {d['config']}")
    jobs = d["job_set"]
    expect(len(jobs) == 3 and [j["index"] for j in jobs] == [0, 1, 2], f"job set {jobs}")
    kernels = {j["kernel"] for j in jobs}
    expect({c["kernel"] for c in d["calibration"]} == kernels, "not one calibration per kernel of the job set")
    for c in d["calibration"]:
        expect(c["error"] is None and c["exit_status"] == 0 and c["cpu_seconds"] > 0, f"calibration {c}")
    times = d["arrivals"].get("2")
    expect(times is not None and len(times) == 3 and times[0] == 0 and times == sorted(times), f"arrivals {times}")
    expect(len(d["runs"]) == 2, f"{len(d['runs'])} runs, expected 2 (2 modes x 1 load x 1 repetition)")
    for run in d["runs"]:
        where = f"{run['mode']} run"
        expect(run["ok"] and run["errors"] == [], f"{where}: not ok: {run['errors']}")
        expect(len(run["jobs"]) == 3, f"{where}: {len(run['jobs'])} jobs, expected 3")
        for j in run["jobs"]:
            w = f"{where}, job {j['index']} ({j['kernel']})"
            expect(j["error"] is None and j["exit_status"] == 0 and j["oracle_ok"] is True, f"{w}: failed: {j}")
            expect(j["arrival"] == times[j["index"]], f"{w}: arrival {j['arrival']}, expected {times[j['index']]}")
            expect(j["arrival"] <= j["start"] <= j["end"], f"{w}: arrival {j['arrival']}, start {j['start']}, end {j['end']}")
            expect(j["start"] - j["arrival"] < 1.0, f"{w}: started {j['start'] - j['arrival']:.3f} s late")
            expect(close(j["response"], j["end"] - j["arrival"]), f"{w}: response {j['response']}")
            expect(j["cpu"] >= 0 and close(j["cpu"], j["cpu_user"] + j["cpu_sys"]), f"{w}: cpu {j['cpu']}")
            if run["mode"] == "deq-adeque":
                arb = j["arbiter"] or {}
                expect(arb.get("registered") is True and arb.get("policy") == "deq" and arb.get("desire_rule") == "adeque"
                       and arb.get("allotment_mean", 0) >= 1, f"{w}: arbiter statistics {arb}")
            else:
                expect(j["arbiter"] is None, f"{w}: arbiter statistics in mode off: {j['arbiter']}")
        s = run["summary"]
        makespan = max(j["end"] for j in run["jobs"])
        cpu = sum(j["cpu"] for j in run["jobs"])
        expect(close(s["makespan"], makespan), f"{where}: makespan {s['makespan']}, expected {makespan}")
        expect(close(s["mean_response"], sum(j["response"] for j in run["jobs"]) / 3), f"{where}: mean response")
        expect(cpu > 0 and close(s["utilization"], cpu / (makespan * cores)), f"{where}: utilization {s['utilization']}")
        expect(0 < s["utilization"] <= 1.05, f"{where}: utilization {s['utilization']} outside (0, 1]")
        expect((s["allotment_mean"] is not None) == (run["mode"] == "deq-adeque"), f"{where}: allotment_mean {s}")
    summ = {(s["mode"], s["load"]): s for s in d["summaries"]}
    for mode, run in (("deq-adeque", d["runs"][0]), ("off", d["runs"][1])):
        s = summ.get((mode, 2))
        expect(s is not None and s["reps"] == 1 and s["failed_reps"] == 0, f"summary of {mode}: {s}")
        expect(close(s["makespan"], run["summary"]["makespan"]), f"summary of {mode}: the median of one repetition")


def dry(args, tmp, name):
    out = os.path.join(tmp, name)
    p = multijob(["--bench-binary", os.path.join(tmp, "no-such-binary"), "--dry-run", "--json", out] + args)
    expect(p.returncode == 0, f"--dry-run: exit status {p.returncode}, expected 0")
    return p, load(out)


def case_dry_run(binary, tmp):
    p, d = dry(["--loads", "0.5,2"], tmp, "a.json")
    expect(d["dry_run"] is True and d["runs"] == [], "--dry-run ran something")
    expect(len(d["job_set"]) == 16, f"{len(d['job_set'])} jobs, expected the default 16")
    expect("NOMINAL" in p.stdout and "arrival at load 0.5" in p.stdout, "no job table with nominal work and arrivals")
    expect(sum(1 for line in p.stdout.splitlines() if line.startswith("| ") and line[2].isdigit()) == 16,
           "not one table row per job")
    lo, hi = d["arrivals"]["0.5"], d["arrivals"]["2"]
    expect(len(lo) == 16 and lo[0] == 0 and lo == sorted(lo), f"arrivals {lo}")
    expect(all(close(a, 4 * b) for a, b in zip(lo, hi)), "the arrivals at load 0.5 are not 4x those at load 2")
    _, again = dry(["--loads", "0.5,2"], tmp, "b.json")
    expect(again["job_set"] == d["job_set"] and again["arrivals"] == d["arrivals"], "the same seed drew another job set")
    _, other = dry(["--loads", "0.5,2", "--seed", "7"], tmp, "c.json")
    expect(other["arrivals"] != d["arrivals"], "--seed 7 drew the same arrivals as seed 1")


def case_bad_args(binary, tmp):
    missing = os.path.join(tmp, "no-such-binary")
    cases = [
        (["--modes", "deq-adeque,bogus"], ["--modes", "bogus", "deq-adeque", "deq-asteal", "equi", "off", "tbb", "omp"]),
        (["--modes", ""], ["--modes"]),
        (["--modes", "off,off"], ["--modes", "twice"]),
        (["--loads", "1,0"], ["--loads", "'0'", "> 0"]),
        (["--loads", "-1"], ["--loads", "> 0"]),
        (["--loads", "1,x"], ["--loads", "'x'", "positive numbers"]),
        (["--jobs", "0"], ["--jobs", "'0'", ">= 1"]),
        (["--jobs", "many"], ["--jobs", "integer"]),
        (["--reps", "0"], ["--reps", ">= 1"]),
        (["--size", "huge"], ["--size", "'huge'", "test", "small", "default"]),
        (["--kernels", "fib,spawncost"], ["--kernels", "'spawncost'", "fib", "uts"]),
        (["--variant", "tbb"], ["--variant", "slaw-dyn"]),
        (["--job-timeout", "0"], ["--job-timeout", "> 0"]),
    ]
    for args, words in cases:
        p = multijob(["--bench-binary", binary] + args)
        expect(p.returncode == 2, f"{' '.join(args)}: exit status {p.returncode}, expected 2")
        for w in words:
            expect(w in p.stderr, f"{' '.join(args)}: the message does not say '{w}': {p.stderr.strip()}")
    p = multijob(["--bench-binary", missing])
    expect(p.returncode == 2 and "--bench-binary" in p.stderr and missing in p.stderr,
           f"a missing binary: exit status {p.returncode}, expected 2 and a message naming --bench-binary and it")


def fake(tmp, behaviour):
    path = os.path.join(tmp, "fake-slaw-bench")
    with open(path, "w") as f:
        f.write(FAKE.replace("PYTHON", sys.executable))
    os.chmod(path, 0o755)
    pids = os.path.join(tmp, "pids")
    os.makedirs(pids, exist_ok=True)
    return path, dict(os.environ, FAKE_BEHAVIOUR=behaviour, FAKE_DIR=pids), pids


def case_failed_job(binary, tmp):
    path, env, _ = fake(tmp, "oracle")
    out = os.path.join(tmp, "mj.json")
    p = multijob(["--bench-binary", path, "--modes", "deq-adeque", "--kernels", "lu,fib", "--json", out] + TINY,
                 env=env)
    expect(p.returncode == 1, f"exit status {p.returncode}, expected 1")
    d = load(out)
    run = d["runs"][0]
    bad = [j for j in run["jobs"] if j["error"]]
    expect(bad and all(j["kernel"] == "lu" for j in bad), f"failed jobs {bad}, expected the lu jobs")
    expect(all(j["error"] is None for j in run["jobs"] if j["kernel"] != "lu"), "a job other than lu failed")
    expect(all("oracle failed" in j["error"] and "wrong answer" in j["error"] and j["exit_status"] == 1 for j in bad),
           f"errors {[j['error'] for j in bad]}: expected the oracle's message and the exit status")
    expect(len(run["jobs"]) == 3, "a failed job was dropped from the run")
    expect(not run["ok"] and run["summary"] is None, "the failed run has a summary")
    s = d["summaries"][0]
    expect(s["failed_reps"] == 1 and s["makespan"] is None, f"summary {s}: the failed run counted")
    expect(len(d["errors"]) == len(bad) and "FAILED" in p.stderr and "oracle failed" in p.stderr,
           "the failure is not in the JSON's errors and on stderr")


def case_hung_job(binary, tmp):
    path, env, _ = fake(tmp, "hang")
    out = os.path.join(tmp, "mj.json")
    t0 = time.monotonic()
    p = multijob(["--bench-binary", path, "--modes", "deq-adeque", "--job-timeout", "1.5", "--json", out] + TINY,
                 env=env, timeout=120)
    expect(p.returncode == 1, f"exit status {p.returncode}, expected 1")
    expect(time.monotonic() - t0 < 60, "the hung jobs were not killed at --job-timeout")
    jobs = load(out)["runs"][0]["jobs"]
    expect(all(j["error"] and "--job-timeout" in j["error"] for j in jobs), f"errors {[j['error'] for j in jobs]}")
    expect("--job-timeout" in p.stderr, "the hang is not reported on stderr")


def stopped(tmp, sig, status):
    path, env, pids = fake(tmp, "hang")
    out = os.path.join(tmp, "mj.json")
    proc = subprocess.Popen([sys.executable, MULTIJOB, "--bench-binary", path, "--modes", "deq-adeque", "--json", out]
                            + TINY, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    # The three calibration runs end; wait for the run's first job (a fourth pid file).
    while len(os.listdir(pids)) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(sig)
    o, e = proc.communicate(timeout=60)
    print(o + e)
    expect(proc.returncode == status, f"exit status {proc.returncode}, expected {status}")
    expect(load(out)["interrupted"] is True, "the JSON is not marked interrupted")
    left = []
    for name in os.listdir(pids):
        pid = int(name.split("-")[1])
        try:
            os.kill(pid, 0)
            left.append(pid)
        except ProcessLookupError:
            pass
    expect(not left, f"jobs left running: {left}")


CASES = {"run": case_run, "dry_run": case_dry_run, "bad_args": case_bad_args, "failed_job": case_failed_job,
         "hung_job": case_hung_job, "interrupt": lambda binary, tmp: stopped(tmp, signal.SIGINT, 130),
         "terminate": lambda binary, tmp: stopped(tmp, signal.SIGTERM, 143)}

if __name__ == "__main__":
    run_cases(__file__, __doc__, CASES)
