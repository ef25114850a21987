# fib(35) at 1 worker, the session's start (df94d7a) against its end, alternating, 9 rounds.
import json, os, statistics, subprocess, sys, time
cmds = {}
for comp, start, end in (("clang", "/tmp/base/b-clang", "build-clang"), ("gcc", "/tmp/base/b-gcc", "build")):
    for pol in ("wf", "dyn"):
        cmds[f"{comp} {pol} start"] = (start, pol)
        cmds[f"{comp} {pol} end"] = (end, pol)
res = {k: [] for k in cmds}
for rep in range(9):
    for name, (b, pol) in cmds.items():
        env = dict(os.environ, SLAW_WORKERS="1", SLAW_ARBITER="off", SLAW_POLICY=pol)
        t = time.perf_counter()
        subprocess.run([f"{b}/examples/fib", "35"], env=env, check=True, stdout=subprocess.DEVNULL)
        res[name].append(time.perf_counter() - t)
json.dump(res, open(sys.argv[1], "w"), indent=1)
for k, v in res.items():
    print(f"{k:16s} median {statistics.median(v):.3f} s")
