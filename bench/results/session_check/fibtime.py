# fib(35), 1 worker, SLAW_ARBITER=off: this session's start (1bd2642, a worktree in /tmp/base built with
# the same commands) against the end, GCC and clang, wf and dyn, alternating run by run, 7 rounds.
# Usage: python3 fibtime.py OUT.json
import json, os, statistics, subprocess, sys, time
builds = {"clang-start": "/tmp/base/build-clang", "clang-end": "build-clang", "gcc-start": "/tmp/base/build", "gcc-end": "build"}
res = {}
for rep in range(7):
    for pol in ("wf", "dyn"):
        for name, b in builds.items():
            env = dict(os.environ, SLAW_WORKERS="1", SLAW_POLICY=pol, SLAW_ARBITER="off")
            t = time.perf_counter()
            subprocess.run([b + "/examples/fib", "35"], env=env, check=True, stdout=subprocess.DEVNULL)
            res.setdefault(f"{name} {pol}", []).append(time.perf_counter() - t)
json.dump(res, open(sys.argv[1], "w"), indent=1)
for k, v in res.items():
    print(f"{k:16s} median {statistics.median(v):.3f} s  ({', '.join(f'{x:.3f}' for x in v)})")
