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
  * malformed traces are refused the same way, each within a time and memory limit, never with a
    Python traceback: a worker count in otherData that is huge, above the runtime's 4096, not a
    count, or larger than the workers the file names; fields of the wrong type (`"args": null`, a
    string or NaN time, an event that is not an object); JSON nested too deeply; a file over the
    size limit (a sparse file, so that the test writes nothing) and a device;
  * --help exits 0.
Exit status 0 if all hold, 1 otherwise.
"""
import copy
import json
import os
import resource
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


def limit_memory():
    # 2 GiB of address space: a tool that sizes its tables from the file fails here instead of taking
    # the machine's memory.
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def run_limited(tool, *args):
    """The tool under a memory limit and a time limit; a hang or a blow-up is a failed check."""
    try:
        return subprocess.run([tool, *args], capture_output=True, text=True, timeout=120, preexec_fn=limit_memory)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess([tool, *args], -1, "", "(killed after 120 s)")


def check_malformed(tool, data, tmp):
    """Broken copies of a good trace: each exits 2 with a message naming the problem, no traceback."""
    def variant(change):
        d = copy.deepcopy(data)
        change(d)
        return d

    def set_workers(w):
        return lambda d: d["otherData"].__setitem__("workers", w)

    def first(ph, name=None):
        def pick(d):
            return next(e for e in d["traceEvents"] if e["ph"] == ph and (name is None or e.get("name") == name))
        return pick

    def setter(pick, key, value):
        return lambda d: pick(d).__setitem__(key, value)

    cases = [
        ("workers 10^9", variant(set_workers(10 ** 9)), ["otherData.workers", "4096"]),
        ("workers 5000", variant(set_workers(5000)), ["otherData.workers", "4096"]),
        ("workers 0", variant(set_workers(0)), ["otherData.workers"]),
        ("workers -3", variant(set_workers(-3)), ["otherData.workers"]),
        ("workers true", variant(set_workers(True)), ["otherData.workers"]),
        ("workers 2.5", variant(set_workers(2.5)), ["otherData.workers"]),
        ("workers '2'", variant(set_workers("2")), ["otherData.workers"]),
        ("workers above the threads named", variant(lambda d: d["otherData"].update(
            workers=3, recorded=d["otherData"]["recorded"] + [0], dropped=d["otherData"]["dropped"] + [0])),
         ["otherData.workers", "worker 2"]),
        ("recorded of the wrong length", variant(lambda d: d["otherData"].__setitem__("recorded", [1])),
         ["otherData.recorded"]),
        ("dropped_total a string", variant(lambda d: d["otherData"].__setitem__("dropped_total", "x")),
         ["otherData.dropped_total"]),
        ("args null on process_name", variant(setter(first("M", "process_name"), "args", None)), ["args"]),
        ("args null on a counter", variant(setter(first("C"), "args", None)), ["args"]),
        ("a counter's value a string", variant(lambda d: first("C")(d)["args"].__setitem__(
            next(iter(first("C")(d)["args"])), "x")), ["counter"]),
        ("a counter's name not 'worker N what'", variant(setter(first("C"), "name", "deques")), ["name"]),
        ("ts a string", variant(setter(first("X"), "ts", "12")), ["ts"]),
        ("ts NaN", variant(setter(first("X"), "ts", float("nan"))), ["ts"]),
        ("dur negative", variant(setter(first("X"), "dur", -1)), ["dur"]),
        ("dur missing", variant(lambda d: first("X")(d).pop("dur")), ["dur"]),
        ("cat a list", variant(setter(first("X"), "cat", ["wf"])), ["cat"]),
        ("tid a string", variant(setter(first("X"), "tid", "0")), ["tid"]),
        ("a flow id a list", variant(setter(first("s"), "id", [1])), ["id"]),
        ("an event a number", variant(lambda d: d["traceEvents"].append(5)), ["not an object"]),
        ("ph missing", variant(lambda d: first("X")(d).pop("ph")), ["ph"]),
    ]
    for i, (what, d, needles) in enumerate(cases):
        path = os.path.join(tmp, f"malformed{i}.json")
        with open(path, "w") as f:
            json.dump(d, f)  # NaN is written as NaN, which Python's JSON reader accepts
        out = os.path.join(tmp, f"malformed{i}.png")
        r = run_limited(tool, path, "-o", out)
        ok = r.returncode == 2 and "Traceback" not in r.stderr and all(n in r.stderr for n in needles)
        expect(ok, f"{what}: exits 2 naming {needles} without a traceback (got {r.returncode}: {r.stderr.strip()[-600:]})")
        expect(not os.path.exists(out), f"{what}: ... and draws nothing")

    nested = os.path.join(tmp, "nested.json")
    with open(nested, "w") as f:
        f.write("[" * 200000 + "]" * 200000)
    r = run_limited(tool, nested)
    expect(r.returncode == 2 and "Traceback" not in r.stderr and "nested" in r.stderr,
           f"JSON nested 200000 deep exits 2 and says so (got {r.returncode}: {r.stderr.strip()[-600:]})")

    big = os.path.join(tmp, "big.json")
    with open(big, "wb") as f:
        f.truncate((1 << 30) + 1)  # sparse: nothing is written to the disk
    r = run_limited(tool, big)
    expect(r.returncode == 2 and "Traceback" not in r.stderr and "larger than" in r.stderr and "1 GiB" in r.stderr,
           f"a file over 1 GiB exits 2 naming the limit (got {r.returncode}: {r.stderr.strip()[-600:]})")

    r = run_limited(tool, "/dev/zero")
    expect(r.returncode == 2 and "Traceback" not in r.stderr and "not a regular file" in r.stderr,
           f"a device exits 2 and says so (got {r.returncode}: {r.stderr.strip()[-600:]})")


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
        check_malformed(tool, data, tmp)
        r = run(tool, "--help")
        expect(r.returncode == 0 and "usage: slaw-trace" in r.stdout, "--help exits 0 with the usage")
    print(f"test_slaw_trace: {'all checks pass' if not failures else f'{len(failures)} checks failed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
