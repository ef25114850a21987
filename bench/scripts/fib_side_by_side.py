#!/usr/bin/env python3
"""fib(N) at 1 worker for several builds and policies side by side: every configuration runs once per
round, in turn, so that the machine's drift falls on all of them alike; medians over the rounds.

  bench/scripts/fib_side_by_side.py OUT.json [--n 35] [--reps 9] [--policies wf,dyn,hf]
      [--other NAME=EXECUTABLE]... NAME=BUILD_DIR...

Each BUILD_DIR must hold examples/fib. --other adds another runtime's fib, run as `EXECUTABLE N 1`
(fib(N) on one worker, e.g. libfork's, built outside the repository) once per round beside them.
Writes every time to OUT.json and prints the medians and each configuration's ratio to the first
NAME's (for --other: the first NAME's wf, or its first policy). Against each --other runtime it also
prints the median, over the rounds, of each configuration's time over that runtime's time in the same
round, with its quartiles: the machine's speed changes between rounds on a shared VM (two modes 20 %
apart were seen), and a ratio taken within a round cancels it where a ratio of medians does not.

  bench/scripts/fib_side_by_side.py OUT.json --report   prints that summary of an earlier OUT.json."""
import argparse, json, os, statistics, subprocess, sys, time

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("out")
ap.add_argument("builds", nargs="*", metavar="NAME=BUILD_DIR")
ap.add_argument("--report", action="store_true", help="print the summary of OUT.json, run nothing")
ap.add_argument("--n", type=int, default=35)
ap.add_argument("--reps", type=int, default=9)
ap.add_argument("--policies", default="wf,dyn,hf")
ap.add_argument("--other", action="append", default=[], metavar="NAME=EXECUTABLE")
a = ap.parse_args()


def report(res, builds, policies, others):
    first = builds[0]
    for name in builds:
        for p in policies:
            m = statistics.median(res[f"{name} {p}"])
            ratio = m / statistics.median(res[f"{first} {p}"])
            print(f"{name:>12s} {p:3s} median {m:.3f} s  ({ratio:.2f}x {first})")
    base = "wf" if "wf" in policies else policies[0]
    for o in others:
        m = statistics.median(res[o])
        print(f"{o:>12s}     median {m:.3f} s  ({m / statistics.median(res[f'{first} {base}']):.2f}x {first} {base})")
    for o in others:
        for name in builds:
            for p in policies:
                r = [x / y for x, y in zip(res[f"{name} {p}"], res[o])]
                q = statistics.quantiles(r, n=4) if len(r) > 1 else [r[0], r[0], r[0]]
                print(f"{name:>12s} {p:3s} / {o}, same round: median {statistics.median(r):.3f} (quartiles {q[0]:.3f}-{q[2]:.3f})")


if a.report:
    try:
        d = json.load(open(a.out))
        builds_r = list(d["builds"])
        pols = sorted({k.split(" ")[1] for k in d["seconds"] if " " in k}, key=["wf", "dyn", "hf"].index)
        report(d["seconds"], builds_r, pols, list(d["others"]))
    except (OSError, ValueError, KeyError, IndexError) as e:
        sys.exit(f"fib_side_by_side: --report {a.out}: not a file this script wrote ({e})")
    sys.exit(0)
if not a.builds:
    sys.exit("fib_side_by_side: give at least one NAME=BUILD_DIR (or --report)")
if a.n < 0 or a.n > 90:
    sys.exit(f"fib_side_by_side: --n {a.n}: must be an integer in [0, 90]")
if a.reps < 1:
    sys.exit(f"fib_side_by_side: --reps {a.reps}: must be at least 1")
policies = a.policies.split(",")
for p in policies:
    if p not in ("wf", "dyn", "hf"):
        sys.exit(f"fib_side_by_side: --policies: unknown policy '{p}' (accepted: wf, dyn, hf)")
builds = []
for b in a.builds:
    name, sep, path = b.partition("=")
    if not sep or not name or not os.access(os.path.join(path, "examples/fib"), os.X_OK):
        sys.exit(f"fib_side_by_side: '{b}': expected NAME=BUILD_DIR with an executable BUILD_DIR/examples/fib")
    builds.append((name, path))
others = []
for o in a.other:
    name, sep, path = o.partition("=")
    if not sep or not name or not os.access(path, os.X_OK):
        sys.exit(f"fib_side_by_side: --other '{o}': expected NAME=EXECUTABLE with an executable file")
    others.append((name, path))
res = {f"{name} {p}": [] for name, _ in builds for p in policies}
res.update({name: [] for name, _ in others})
for _ in range(a.reps):
    for name, path in others:
        env = dict(os.environ, SLAW_WORKERS="1", SLAW_ARBITER="off")
        t = time.perf_counter()
        subprocess.run([path, str(a.n), "1"], env=env, check=True, stdout=subprocess.DEVNULL)
        res[name].append(time.perf_counter() - t)
    for name, path in builds:
        for p in policies:
            env = dict(os.environ, SLAW_WORKERS="1", SLAW_ARBITER="off", SLAW_POLICY=p)
            t = time.perf_counter()
            subprocess.run([os.path.join(path, "examples/fib"), str(a.n)], env=env, check=True, stdout=subprocess.DEVNULL)
            res[f"{name} {p}"].append(time.perf_counter() - t)
    json.dump({"n": a.n, "reps": a.reps, "builds": dict(builds), "others": dict(others), "seconds": res},
              open(a.out, "w"), indent=1)
report(res, [name for name, _ in builds], policies, [name for name, _ in others])
