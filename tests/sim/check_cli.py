#!/usr/bin/env python3
"""Checks the slaw-sim command (docs/simulation.md): bad arguments exit with status 2 and a message naming
the option and the accepted values, without simulating; a good run prints the table and writes
Cilkscale's CSV, the detail CSV and a PNG plot. --dag: a missing or corrupt file exits 2 naming the file
and the problem; a DAG file written here (a second encoder of src/dag/dag_format.hpp) replays.
Unbounded inputs, each under a time limit: --dag and --costs refuse a device, a directory and a file
over their size limits (sparse, so nothing is written) without reading them; a --costs file that sets
nothing, has junk or sets a key twice, and a --cost given twice, exit 2; a DAG of one strand of 2^52 ns
ends (it ran for ever), and one that allocates 2^61 bytes under DFDeques exits 2 naming the limit on
dummy tasks (it ran for ever too).

usage: check_cli.py SLAW_SIM PYTHON_WITH_MATPLOTLIB
"""
import csv
import os
import struct
import subprocess
import sys
import tempfile


def run(sim, *args, timeout=300):
    try:
        return subprocess.run([sim, *args], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess([sim, *args], -9, "", "(killed after %d s)" % timeout)


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def encode_dag(tasks):
    """The file of `tasks`, each a list of (op, work ns, argument or None), frames of 320 bytes."""
    table, stream = bytearray(), bytearray()
    for events in tasks:
        table += struct.pack("<QII", len(stream), 320, len(events))
        for op, work, arg in events:
            stream += bytes([op]) + varint(work) + (varint(arg) if arg is not None else b"")
    header = b"SLAWDAG\0" + struct.pack("<IIQQQII", 1, 48, len(tasks), len(stream), 5000000, 2, 0)
    body = header + bytes(table) + bytes(stream)
    return body + struct.pack("<Q", fnv1a(body))


def check_unbounded(sim, d, failures):
    """Inputs that were read, allocated or simulated without a bound."""
    big = os.path.join(d, "big")
    with open(big, "wb") as f:
        f.truncate((2 << 30) + 1)  # sparse
    huge = os.path.join(d, "huge.costs")
    with open(huge, "wb") as f:
        f.truncate((1 << 20) + 1)
    files = {}
    for name, content in (("empty.costs", b""), ("comments.costs", b"# nothing\n\n"),
                          ("junk.costs", b"\0\0\0=\0\n"), ("twice.costs", b"wake=1\nprobe=2\nwake=3\n")):
        files[name] = os.path.join(d, name)
        with open(files[name], "wb") as f:
            f.write(content)
    ALLOC, FREE, RET = 4, 5, 6
    files["long.dag"] = os.path.join(d, "long.dag")
    with open(files["long.dag"], "wb") as f:
        f.write(encode_dag([[(RET, 1 << 52, None)]]))
    files["alloc.dag"] = os.path.join(d, "alloc.dag")
    with open(files["alloc.dag"], "wb") as f:
        f.write(encode_dag([[(ALLOC, 0, 1 << 61), (FREE, 0, 1 << 61), (RET, 1, None)]]))
    bad = [
        (["--dag", "/dev/zero"], ["/dev/zero: not a regular file"]),
        (["--dag", d], [d + ": cannot read it: Is a directory"]),
        (["--dag", big], [big + ": larger than the limit of 2147483648 bytes"]),
        (["--gen", "fib:10", "--costs", "/dev/zero"], ["--costs", "/dev/zero", "not a regular file"]),
        (["--gen", "fib:10", "--costs", d], ["--costs", "is a directory"]),
        (["--gen", "fib:10", "--costs", huge], ["--costs", "larger than the limit of 1048576 bytes"]),
        (["--gen", "fib:10", "--costs", files["empty.costs"]], ["--costs", "sets no cost"]),
        (["--gen", "fib:10", "--costs", files["comments.costs"]], ["--costs", "sets no cost"]),
        (["--gen", "fib:10", "--costs", files["junk.costs"]], ["--costs", "junk.costs:1"]),
        (["--gen", "fib:10", "--costs", files["twice.costs"]], ["--costs", "twice.costs:3", "'wake'", "line 1"]),
        (["--gen", "fib:10", "--cost", "wake=1", "--cost", "wake=2"], ["--cost", "'wake'", "twice"]),
        (["--gen", "fib:10", "--scheduler", "dfdeques", "--K", "18446744073709551615"], ["--K", "2^62"]),
        (["--dag", files["alloc.dag"], "--scheduler", "dfdeques"], ["dummy tasks", "16777216", "--K"]),
    ]
    for args, needles in bad:
        r = run(sim, *args, timeout=120)
        if r.returncode != 2 or not all(n in r.stderr for n in needles):
            failures.append("%s: exit %d, stderr %r (expected 2 and %r)" % (args, r.returncode, r.stderr.strip()[-400:],
                                                                           needles))
    r = run(sim, "--dag", files["long.dag"], "--workers", "1,2,8", "--scheduler", "ws,dfdeques", timeout=120)
    if r.returncode != 0 or "4503599.627 s" not in r.stdout:
        failures.append("--dag of one 2^52 ns strand: exit %d, stderr %r, stdout %r" % (r.returncode, r.stderr.strip()[-400:],
                                                                                      r.stdout[-400:]))


def fib_dag(n):
    """fib(n)'s DAG as src/dag/dag_format.hpp lays it out: an inner call is start_finish (2 ns), spawn
    fib(n-1), call fib(n-2), end_finish, ret (2 ns); a leaf ret (3 ns); frames of 320 bytes."""
    SPAWN, CALL, START, END, RET = 0, 1, 2, 3, 6
    tasks = [None]
    todo = [(0, n)]
    while todo:
        t, k = todo.pop()
        if k < 2:
            tasks[t] = [(RET, 3, None)]
            continue
        a, b = len(tasks), len(tasks) + 1
        tasks += [None, None]
        tasks[t] = [(START, 2, None), (SPAWN, 0, a), (CALL, 0, b), (END, 0, None), (RET, 2, None)]
        todo += [(a, k - 1), (b, k - 2)]
    table, stream = bytearray(), bytearray()
    for events in tasks:
        table += struct.pack("<QII", len(stream), 320, len(events))
        for op, work, arg in events:
            stream += bytes([op]) + varint(work) + (varint(arg) if arg is not None else b"")
    header = b"SLAWDAG\0" + struct.pack("<IIQQQII", 1, 48, len(tasks), len(stream), 5000000, 2, 0)
    body = header + bytes(table) + bytes(stream)
    return body + struct.pack("<Q", fnv1a(body)), len(tasks)


def check_dag(sim, d, failures):
    good, tasks = fib_dag(12)
    path = os.path.join(d, "fib.dag")
    with open(path, "wb") as f:
        f.write(good)
    r = run(sim, "--dag", path, "--workers", "1-4", "--policy", "wf,hf,dyn", "--checks")
    if r.returncode != 0:
        failures.append("--dag good run: exit %d: %s" % (r.returncode, r.stderr))
    else:
        for needle in ("dag:fib.dag", "recorded on 2 workers in 5.000 ms: %d tasks" % tasks, "the recorded strands alone",
                       "parallelism", "burdened span", "speedup"):
            if needle not in r.stdout:
                failures.append("--dag good run: the output lacks %r: %s" % (needle, r.stdout[:400]))
        if len([l for l in r.stdout.splitlines() if l.split()[:1] in (["wf"], ["hf"], ["dyn"])]) != 12:
            failures.append("--dag good run: expected 12 table lines: %s" % r.stdout)
    corrupt = [
        (b"not a dag file at all, but long enough to hold a header and a trailer", "not a slaw DAG file"),
        (good[:-1], "truncated"),
        (good[:100] + bytes([good[100] ^ 1]) + good[101:], "checksum"),
        (b"", "0 bytes, shorter than"),
    ]
    for i, (content, needle) in enumerate(corrupt):
        bad = os.path.join(d, "bad%d.dag" % i)
        with open(bad, "wb") as f:
            f.write(content)
        r = run(sim, "--dag", bad)
        if r.returncode != 2 or needle not in r.stderr or bad not in r.stderr or r.stdout.strip():
            failures.append("--dag corrupt file %d: exit %d, stderr %r, stdout %r (expected 2 and %r)"
                            % (i, r.returncode, r.stderr.strip(), r.stdout[:200], needle))


def main():
    sim, python = sys.argv[1], sys.argv[2]
    failures = []
    bad = [
        (["--gen", "fib:10", "--workers", "0"], ["--workers", "[1, 1024]"]),
        (["--gen", "fib:10", "--policy", "eager"], ["--policy", "wf, hf, dyn"]),
        (["--gen", "fib:10", "--scheduler", "dfdeques", "--K", "-5"], ["--K", "bytes 1 .. 2^62, or inf"]),
        (["--gen", "fibo:10"], ["unknown workload 'fibo'", "fib, fj, fj-rec, skynet, pdfs, uts, sor, nqueens, dc"]),
        (["--gen", "fj:10,reps=x"], ["reps='x'", "an integer in"]),
        (["--gen", "fib:10", "--cost", "wake=-1"], ["wake", ">= 0"]),
        (["--gen", "fib:10", "--costs", "/nonexistent/costs"], ["neither a cost model nor a readable file"]),
        (["--gen", "fib:10", "--INT"], ["--INT", "missing its value"]),
        (["--bogus"], ["unknown option '--bogus'"]),
        ([], ["--gen or --dag is required"]),
        (["--dag", "/nonexistent/fib.dag"], ["/nonexistent/fib.dag: cannot read it: No such file or directory"]),
        (["--gen", "fib:10", "--dag", "x.dag"], ["give one of the two, not both"]),
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
        check_dag(sim, d, failures)
        check_unbounded(sim, d, failures)
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
