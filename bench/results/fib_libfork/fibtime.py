# fib(35) at 1 worker: slaw (clang-19 and GCC 12 Release builds, wf and dyn) against libfork v3.8
# (commit 2f359cda, built outside the repository: see README.md here), the configurations alternating
# run by run, 9 rounds; whole-process wall time. Usage: python3 fibtime.py OUT.json
import json, os, statistics, subprocess, sys, time
cmds = {
    "slaw-clang wf": (["build-clang/examples/fib", "35"], {"SLAW_POLICY": "wf"}),
    "slaw-clang dyn": (["build-clang/examples/fib", "35"], {"SLAW_POLICY": "dyn"}),
    "slaw-gcc wf": (["build/examples/fib", "35"], {"SLAW_POLICY": "wf"}),
    "slaw-gcc dyn": (["build/examples/fib", "35"], {"SLAW_POLICY": "dyn"}),
    "libfork-clang": (["/tmp/lf/fib_lf_clang", "35", "1"], {}),
    "libfork-gcc": (["/tmp/lf/fib_lf_g", "35", "1"], {}),
}
res = {k: [] for k in cmds}
for rep in range(9):
    for name, (argv, extra) in cmds.items():
        env = dict(os.environ, SLAW_WORKERS="1", SLAW_ARBITER="off", **extra)
        t = time.perf_counter()
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        res[name].append(time.perf_counter() - t)
json.dump(res, open(sys.argv[1], "w"), indent=1)
for k, v in res.items():
    print(f"{k:15s} median {statistics.median(v):.3f} s  ({', '.join(f'{x:.3f}' for x in v)})")
