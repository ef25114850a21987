#!/usr/bin/env python3
"""Tests tools/slaw-trace on the committed trace tests/trace/data/fib15_2w.json.

Usage: test_slaw_trace.py SLAW_TRACE TRACE.json

  * it draws a PNG (PNG signature, an IHDR of the figure's size, more than a few KB) and an SVG;
  * its summary agrees with the trace: the workers' busy milliseconds are the sums of their segments'
    durations, so are the per-kind lines (count and milliseconds for each worker and kind of segment),
    and the steal count is the number of flows;
  * a truncated copy of the trace, a JSON file that is not a slaw trace, a missing file and a picture
    format it does not draw are refused with exit status 2 and a message naming the problem, and
    nothing is drawn;
  * --help exits 0.
Exit status 0 if all hold, 1 otherwise.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def run(tool, *args):
    return subprocess.run([tool, *args], capture_output=True, text=True)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    tool, trace = sys.argv[1], sys.argv[2]
    with open(trace) as f:
        data = json.load(f)
    events = data["traceEvents"]
    workers = data["otherData"]["workers"]
    with tempfile.TemporaryDirectory(prefix="slaw-trace-test-") as tmp:
        png = os.path.join(tmp, "t.png")
        r = run(tool, trace, "-o", png)
        expect(r.returncode == 0, f"drawing a PNG exits 0 (got {r.returncode}: {r.stderr.strip()})")
        if r.returncode == 0:
            with open(png, "rb") as f:
                head = f.read(24)
            expect(head[:8] == b"\x89PNG\r\n\x1a\n", "the PNG starts with the PNG signature")
            width, height = struct.unpack(">II", head[16:24]) if head[12:16] == b"IHDR" else (0, 0)
            expect(width >= 800 and height >= 400, f"the PNG's IHDR gives a figure-sized picture ({width}x{height})")
            expect(os.path.getsize(png) > 10_000, f"the PNG holds a drawing ({os.path.getsize(png)} bytes)")
            # The summary's busy time per worker is the sum of its segments (printed in ms, 3 decimals).
            busy = [0.0] * workers
            for e in events:
                if e["ph"] == "X":
                    busy[e["tid"]] += e["dur"] / 1000.0
            for line in r.stdout.splitlines():
                cols = line.split()
                if len(cols) >= 2 and cols[0].isdigit() and int(cols[0]) < workers and not cols[1].isalpha():
                    w = int(cols[0])
                    expect(abs(float(cols[1]) - busy[w]) <= 0.0015,
                           f"worker {w}'s busy time {cols[1]} ms is the sum of its segments ({busy[w]:.3f} ms)")
                    busy[w] = None
            expect(all(b is None for b in busy), f"the summary has a line per worker:\n{r.stdout}")
            # The per-kind lines: each (worker, kind) with segments has its count and the sum of their
            # durations.
            kinds = {}
            for e in events:
                if e["ph"] == "X":
                    n, d = kinds.get((e["tid"], e["cat"]), (0, 0.0))
                    kinds[(e["tid"], e["cat"])] = (n + 1, d + e["dur"] / 1000.0)
            seen = set()
            for line in r.stdout.splitlines():
                cols = line.split()
                if len(cols) >= 4 and cols[0].isdigit() and (int(cols[0]), cols[1]) in kinds:
                    n, d = kinds[(int(cols[0]), cols[1])]
                    expect(int(cols[2]) == n and abs(float(cols[3]) - d) <= 0.0015,
                           f"worker {cols[0]}'s {cols[1]} segments: {cols[2]} and {cols[3]} ms, from the trace {n} and {d:.3f} ms")
                    seen.add((int(cols[0]), cols[1]))
            expect(seen == set(kinds), f"the summary has a line per worker and kind of segment:\n{r.stdout}")
            flows = sum(1 for e in events if e["ph"] == "s")
            expect(f"steals: {flows} in all" in r.stdout, f"the summary counts the {flows} steals:\n{r.stdout}")
        svg = os.path.join(tmp, "t.svg")
        r = run(tool, trace, "-o", svg)
        expect(r.returncode == 0, f"drawing an SVG exits 0 (got {r.returncode}: {r.stderr.strip()})")
        if r.returncode == 0:
            with open(svg) as f:
                expect("<svg" in f.read(4096), "the SVG file is an SVG document")

        with open(trace, "rb") as f:
            whole = f.read()
        for cut in (len(whole) // 2, len(whole) - 3, 100):
            bad = os.path.join(tmp, f"cut{cut}.json")
            with open(bad, "wb") as f:
                f.write(whole[:cut])
            out = os.path.join(tmp, f"cut{cut}.png")
            r = run(tool, bad, "-o", out)
            expect(r.returncode == 2, f"a trace cut at byte {cut} exits 2 (got {r.returncode})")
            expect("not valid JSON" in r.stderr and bad in r.stderr, f"... and says so: {r.stderr.strip()}")
            expect(not os.path.exists(out), "... and draws nothing")
        other = os.path.join(tmp, "other.json")
        with open(other, "w") as f:
            json.dump({"traceEvents": [{"ph": "X", "ts": 0, "dur": 1, "pid": 1, "tid": 0}]}, f)
        r = run(tool, other)
        expect(r.returncode == 2 and "not a slaw timeline trace" in r.stderr,
               f"a Chrome trace not written by slaw exits 2 and says so (got {r.returncode}: {r.stderr.strip()})")
        r = run(tool, os.path.join(tmp, "missing.json"))
        expect(r.returncode == 2 and "cannot read" in r.stderr,
               f"a missing file exits 2 and says so (got {r.returncode}: {r.stderr.strip()})")
        r = run(tool, trace, "-o", os.path.join(tmp, "t.jpg"))
        expect(r.returncode == 2 and ".png, .svg" in r.stderr,
               f"an unknown picture format exits 2 naming the accepted ones (got {r.returncode}: {r.stderr.strip()})")
        r = run(tool, "--help")
        expect(r.returncode == 0 and "usage: slaw-trace" in r.stdout, "--help exits 0 with the usage")
    print(f"test_slaw_trace: {'all checks pass' if not failures else f'{len(failures)} checks failed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
