#!/usr/bin/env python3
# Alternating A/B of two slaw-bench builds (9528231 vs the answer at the join): rounds of one repetition each,
# the builds' order swapped every other round; medians per configuration and their ratio (now / start).
import json, subprocess, sys, os, statistics, tempfile
builds = {"start": "/tmp/wt-start/build-bench/bin/slaw-bench", "now": "/work/main/build-bench/bin/slaw-bench"}
rounds = int(sys.argv[1]); out = sys.argv[2]
configs = [("sor,fj,spawncost,skynet,pdfs,nqueens,uts", "slaw-hf,slaw-dyn", "1,2", {"SLAW_ARBITER": "off"})]
seconds = {}
for r in range(rounds):
    order = list(builds) if r % 2 == 0 else list(builds)[::-1]
    for b in order:
        for benches, variants, workers, env in configs:
            with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as t: path = t.name
            subprocess.run([builds[b], "--bench", benches, "--variant", variants, "--workers", workers, "--reps", "1",
                            "--quiet", "--json", path], check=True, env={**os.environ, **env}, stdout=subprocess.DEVNULL)
            for run in json.load(open(path))["runs"]:
                key = f"{run['bench']} {run['variant']} w={run['workers']} {b}"
                seconds.setdefault(key, []).append(run["seconds"][0])
            os.remove(path)
    print("round", r, "done", flush=True)
med = {k: statistics.median(v) for k, v in seconds.items()}
cmd = "SLAW_ARBITER=off slaw-bench --bench B --variant slaw-hf,slaw-dyn --workers 1,2 --reps 1, per build per round"
json.dump({"command": cmd, "builds": {"start": "9528231", "now": "9528231 + the answer at the join"},
           "rounds": rounds, "seconds": seconds, "medians": med}, open(out, "w"), indent=1)
for k in sorted(med):
    if k.endswith(" now"):
        base = k[: -len(" now")] + " start"
        print(f"{k[:-4]:32s} start {med[base]:.4f}  now {med[k]:.4f}  now/start {med[k]/med[base]:.2f}")
