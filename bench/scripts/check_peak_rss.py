#!/usr/bin/env python3
"""Checks that slaw-bench reports each configuration's own peak RSS: a small benchmark (uts) run after
a big one (pdfs) in the same invocation must report about the peak it has when run alone, not what the
big one left resident (in a single process uts after pdfs read 450 MB instead of its 7 MB).

usage: bench/scripts/check_peak_rss.py SLAW_BENCH [WORKDIR]

Runs `--bench pdfs,uts` and `--bench uts` (default size, serial and slaw-wf, 1 worker, 1 repetition)
and compares uts's peak_rss_kb between the two, per variant: they must agree to within 25 % + 2 MiB
(page-granular noise, thread stacks). pdfs must peak at least 4 times higher than uts alone, or the
check would prove nothing.
"""
import json
import os
import subprocess
import sys
import tempfile

VARIANTS = "serial,slaw-wf"


def peaks(binary, benches, path):
    cmd = [binary, "--bench", benches, "--variant", VARIANTS, "--workers", "1", "--reps", "1", "--quiet",
           "--json", path]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"check_peak_rss.py: {' '.join(cmd)} exited with {p.returncode}:\n{p.stderr}")
    with open(path) as f:
        runs = json.load(f)["runs"]
    return {(r["bench"], r["variant"]): r["peak_rss_kb"] for r in runs}


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    binary = sys.argv[1]
    workdir = sys.argv[2] if len(sys.argv) == 3 else tempfile.mkdtemp(prefix="check_peak_rss.")
    after = peaks(binary, "pdfs,uts", os.path.join(workdir, "pdfs_then_uts.json"))
    alone = peaks(binary, "uts", os.path.join(workdir, "uts_alone.json"))
    bad = []
    for v in VARIANTS.split(","):
        a, b, big = alone[("uts", v)], after[("uts", v)], after[("pdfs", v)]
        ok = 0 < a and 0 < b <= a * 1.25 + 2048 and a <= b * 1.25 + 2048
        print(f"check_peak_rss.py: {v}: uts alone {a / 1024:.1f} MiB, uts after pdfs {b / 1024:.1f} MiB "
              f"(pdfs {big / 1024:.1f} MiB): {'ok' if ok else 'FAILED'}")
        if not ok:
            bad.append(v)
        if big < 4 * a:
            bad.append(f"{v}: pdfs peaks at only {big / 1024:.1f} MiB; the check needs a big benchmark first")
    if bad:
        sys.exit("check_peak_rss.py: FAILED: " + "; ".join(bad))
    print("check_peak_rss.py: ok")


if __name__ == "__main__":
    main()
