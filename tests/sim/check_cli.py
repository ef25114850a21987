#!/usr/bin/env python3
"""Checks the slaw-sim command (docs/simulation.md): bad arguments exit with status 2 and a message naming
the option and the accepted values, without simulating; a good run prints the table and writes
Cilkscale's CSV, the detail CSV and a PNG plot.

usage: check_cli.py SLAW_SIM PYTHON_WITH_MATPLOTLIB
"""
import csv
import os
import subprocess
import sys
import tempfile


def run(sim, *args):
    return subprocess.run([sim, *args], capture_output=True, text=True, timeout=300)


def main():
    sim, python = sys.argv[1], sys.argv[2]
    failures = []
    bad = [
        (["--gen", "fib:10", "--workers", "0"], ["--workers", "[1, 1024]"]),
        (["--gen", "fib:10", "--policy", "eager"], ["--policy", "wf, hf, dyn"]),
        (["--gen", "fib:10", "--scheduler", "dfdeques", "--K", "-5"], ["--K", "bytes >= 1, or inf"]),
        (["--gen", "fibo:10"], ["unknown workload 'fibo'", "fib, fj, fj-rec, skynet, pdfs, uts, sor, nqueens, dc"]),
        (["--gen", "fj:10,reps=x"], ["reps='x'", "an integer in"]),
        (["--gen", "fib:10", "--cost", "wake=-1"], ["wake", ">= 0"]),
        (["--gen", "fib:10", "--costs", "/nonexistent/costs"], ["neither a cost model nor a readable file"]),
        (["--gen", "fib:10", "--INT"], ["--INT", "missing its value"]),
        (["--bogus"], ["unknown option '--bogus'"]),
        ([], ["--gen is required"]),
    ]
    for args, needles in bad:
        r = run(sim, *args)
        if r.returncode != 2:
            failures.append("%s: exit status %d, expected 2" % (args, r.returncode))
        for n in needles:
            if n not in r.stderr:
                failures.append("%s: stderr lacks %r: %s" % (args, n, r.stderr.strip()))
        if r.stdout.strip():
            failures.append("%s: simulated something: %s" % (args, r.stdout.strip()[:200]))
    for args in (["--help"], ["--list"]):
        r = run(sim, *args)
        if r.returncode != 0 or "--gen" not in r.stdout and "fib:N" not in r.stdout:
            failures.append("%s: exit %d, output %r" % (args, r.returncode, r.stdout[:200]))
    with tempfile.TemporaryDirectory() as d:
        c, det, png = (os.path.join(d, n) for n in ("out.csv", "detail.csv", "out.png"))
        r = run(sim, "--gen", "fib:16", "--workers", "1-4", "--policy", "wf,hf,dyn", "--csv", c, "--detail", det,
                "--plot", png, "--python", python)
        if r.returncode != 0:
            failures.append("good run: exit %d: %s" % (r.returncode, r.stderr))
        else:
            for needle in ("work ", "span ", "parallelism", "burdened span", "scheduler", "speedup"):
                if needle not in r.stdout:
                    failures.append("good run: the table lacks %r" % needle)
            rows = list(csv.reader(open(c)))
            want = ["tag", "work (seconds)", "span (seconds)", "parallelism", "burdened_span (seconds)",
                    "burdened_parallelism", "1c time (seconds)", "2c time (seconds)", "3c time (seconds)",
                    "4c time (seconds)"]
            if rows[0] != want:
                failures.append("Cilkscale CSV header %s, expected %s" % (rows[0], want))
            if [row[0] for row in rows[1:]] != ["wf", "hf", "dyn"]:
                failures.append("Cilkscale CSV rows %s" % [row[0] for row in rows[1:]])
            if len(list(csv.DictReader(open(det)))) != 12:
                failures.append("the detail CSV should hold 12 configurations")
            with open(png, "rb") as f:
                if f.read(8) != b"\x89PNG\r\n\x1a\n":
                    failures.append("--plot did not write a PNG")
    for f in failures:
        print("FAIL:", f)
    print("check_cli: %d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
