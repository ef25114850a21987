import subprocess, time, json, statistics, os, sys
builds = {"clang-base": "/tmp/base/build-clang", "clang-now": "build-clang", "gcc-base": "/tmp/base/build", "gcc-now": "build"}
res = {}
for rep in range(7):
    for pol in ("wf", "dyn"):
        for name, b in builds.items():
            env = dict(os.environ, SLAW_WORKERS="1", SLAW_POLICY=pol, SLAW_ARBITER="off")
            t = time.perf_counter(); subprocess.run([b + "/examples/fib", "35"], env=env, check=True, stdout=subprocess.DEVNULL); t = time.perf_counter() - t
            res.setdefault(f"{name} {pol}", []).append(t)
json.dump(res, open(sys.argv[1], "w"), indent=1)
for k, v in res.items(): print(f"{k:16s} median {statistics.median(v):.3f} s  ({', '.join(f'{x:.3f}' for x in v)})")
