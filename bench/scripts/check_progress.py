#!/usr/bin/env python3
"""Checks slaw-bench's progress report on stderr and its handling of Ctrl-C (SIGINT) and SIGTERM.

usage: bench/scripts/check_progress.py --list              the case names (one ctest each)
       bench/scripts/check_progress.py SLAW_BENCH CASE     runs one case

  lines         stderr a pipe: one progress line per benchmark as it starts (the first "estimating", the
                next with an estimate), one at the end, no carriage return; "interrupted" is null in the JSON
  quiet         --quiet: no progress and no result lines; --quiet --progress lines: the progress lines only
  live          stderr a pseudo-terminal: a line rewritten in place (benchmark i of N, variant, workers,
                repetition, elapsed, "estimating" then an estimate), the result lines each on a line of
                its own, the line erased at the end; on a 50-column terminal, the line cut to its width
  sigint        SIGINT to the driver alone while the second benchmark runs: exit status 130, a JSON marked
                interrupted holding the first benchmark's configurations (every repetition, oracles ok), no
                failure reported, no child left, report.py shows the interruption
  sigint_group  the same with SIGINT sent to the whole process group, as a terminal's Ctrl-C is: the
                children die of it too, and that must not count as a failure
  sigterm       SIGTERM to the driver: exit status 143, the same JSON with signal SIGTERM
  sigterm_building  SIGTERM while a child builds a large instance: the driver stops within 2 s (it kills
                the child, it does not wait for it), the JSON holds no configuration
"""
import fcntl
import json
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import time

REPORT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "report.py")
# fib(14) is quick; nqueens(14) takes seconds a repetition, so it is still running when the signal comes.
INTERRUPTED_RUN = ["--bench", "fib,nqueens", "--size", "test", "--arg", "n=14", "--variant", "serial,slaw-dyn",
                   "--workers", "1,2", "--reps", "2"]
QUICK_RUN = ["--bench", "fib,nqueens", "--size", "test", "--variant", "serial,slaw-dyn", "--workers", "1,2",
             "--reps", "2"]
PROGRESS_LINE = re.compile(r"^slaw-bench: \[(\d+)/(\d+)\] (\S+): (\S+) elapsed, (.*)$")


from check_cases import Failed, expect, run_cases  # noqa: E402  (the shared case frame, same directory)


def run(binary, args):
    p = subprocess.run([binary] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    print(f"$ slaw-bench {' '.join(args)}  -> {p.returncode}\n{p.stderr}")
    return p


def progress_lines(stderr):
    return [PROGRESS_LINE.match(line) for line in stderr.splitlines() if PROGRESS_LINE.match(line)]


def check_benchmark_lines(stderr, names):
    ms = progress_lines(stderr)
    expect([m.group(3) for m in ms] == names, f"progress lines for {[m.group(3) for m in ms]}, expected {names}")
    for i, m in enumerate(ms):
        expect(m.group(1) == str(i + 1) and m.group(2) == str(len(names)), f"'{m.group(0)}': expected [{i + 1}/{len(names)}]")
    expect(ms[0].group(5) == "estimating the time left", f"first line '{ms[0].group(0)}' does not say it is estimating")
    for m in ms[1:]:
        expect(re.fullmatch(r"~\S+ left", m.group(5)), f"'{m.group(0)}' has no estimate of the time left")


def case_lines(binary, tmp):
    path = os.path.join(tmp, "lines.json")
    p = run(binary, QUICK_RUN + ["--json", path])
    expect(p.returncode == 0, f"exit status {p.returncode}, expected 0")
    expect("\r" not in p.stderr, "a carriage return on a stderr that is not a terminal")
    check_benchmark_lines(p.stderr, ["fib", "nqueens"])
    expect(re.search(r"^slaw-bench: 2 benchmarks in \S+$", p.stderr, re.M), "no closing line with the total time")
    with open(path) as f:
        data = json.load(f)
    expect("interrupted" in data and data["interrupted"] is None, "a complete run's JSON lacks \"interrupted\": null")
    results = [line for line in p.stderr.splitlines() if " median " in line]
    expect(len(results) == len(data["runs"]) == 6, f"{len(results)} result lines, {len(data['runs'])} records, expected 6")


def case_quiet(binary, tmp):
    p = run(binary, QUICK_RUN + ["--quiet"])
    expect(p.returncode == 0 and p.stderr == "", f"--quiet: status {p.returncode}, stderr {p.stderr!r}")
    p = run(binary, QUICK_RUN + ["--quiet", "--progress", "lines"])
    expect(p.returncode == 0, f"exit status {p.returncode}")
    check_benchmark_lines(p.stderr, ["fib", "nqueens"])
    expect(" median " not in p.stderr, "--quiet printed result lines")


def on_terminal(binary, args, cols):
    """slaw-bench's stderr on a pseudo-terminal `cols` columns wide: (exit status, what it wrote)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
    p = subprocess.Popen([binary] + args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    p.wait(timeout=300)
    text = out.decode()
    print(f"$ slaw-bench {' '.join(args)}  ({cols} columns) -> {p.returncode}\n{text[:1500]!r}")
    return p.returncode, text


def case_live(binary, tmp):
    status, text = on_terminal(binary, QUICK_RUN, 100)
    expect(status == 0, f"exit status {status}")
    segments = [s for line in text.replace("\r\n", "\n").split("\n") for s in line.split("\r")]
    live = [s.rstrip() for s in segments if " elapsed" in s]
    expect(live, "no live progress line")
    expect(any(re.match(r"\[1/2\] fib serial w=1 (building|rep 1/2) \|", s) for s in live), "no live line for fib, serial, w=1")
    expect(any(re.match(r"\[2/2\] nqueens slaw-dyn w=2 rep 2/2 \|", s) for s in live),
           "no live line for nqueens, slaw-dyn, w=2, rep 2/2")
    expect(live[0].endswith("elapsed, estimating the time left"), f"the first live line '{live[0]}' does not say it is estimating")
    expect(any(re.search(r" \| \S+ elapsed, ~\S+ left$", s) for s in live), "no live line with an estimate of the time left")
    for line in text.replace("\r\n", "\n").split("\n"):
        if " median " in line:  # a result line: the live line erased before it, not mixed with it
            shown = line.split("\r")[-1]
            expect(" median " in shown and "elapsed" not in shown, f"result line mixed with the live line: {line!r}")
    expect(len([s for s in segments if " median " in s]) == 6, "expected 6 result lines")
    expect(text.endswith("\r"), "the live line is not erased at the end")
    # A narrow terminal: the line is cut to its width (or it would wrap), the times kept whole.
    cols = 50
    status, text = on_terminal(binary, QUICK_RUN + ["--quiet", "--progress", "live"], cols)
    expect(status == 0, f"exit status {status}")
    live = [s.rstrip() for s in text.split("\r") if s.strip()]
    expect(live, "--quiet --progress live: no live line")
    for s in live:
        expect(len(s) <= cols - 1, f"'{s}' is wider than the terminal's {cols - 1} columns")
        expect(re.search(r" \| \S+ elapsed, (estimating the time left|~\S+ left)$", s), f"'{s}' lost its times")


FIB_CONFIGURATIONS = [("fib", "serial", 1), ("fib", "slaw-dyn", 1), ("fib", "slaw-dyn", 2)]


def case_interrupt(binary, tmp, sig, whole_group, args=INTERRUPTED_RUN, stop_in="nqueens", index=2, benchmarks=2,
                   want=FIB_CONFIGURATIONS, limit=10):
    path = os.path.join(tmp, "interrupted.json")
    cmd = [binary] + args + ["--progress", "lines", "--json", path]
    # A session of its own: a signal to its process group does not reach this script.
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    seen = []
    for line in p.stderr:
        seen.append(line)
        if f"] {stop_in}:" in line:
            break
    else:
        p.kill()
        raise Failed(f"the run ended before {stop_in} started:\n" + "".join(seen))
    time.sleep(0.3)  # its children are building or running their first repetition
    sent = time.monotonic()
    if whole_group:
        os.killpg(p.pid, sig)
    else:
        os.kill(p.pid, sig)
    try:
        rest, status = p.stderr.read(), p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        raise Failed("slaw-bench did not stop within 20 s of the signal")
    took = time.monotonic() - sent
    stderr = "".join(seen) + rest
    print(stderr)
    try:
        os.killpg(p.pid, 0)
        os.killpg(p.pid, signal.SIGKILL)
        raise Failed("processes of slaw-bench's group outlived it")
    except ProcessLookupError:
        pass
    name = signal.Signals(sig).name
    expect(status == 128 + sig, f"exit status {status}, expected {128 + sig}")
    expect(took < limit, f"it took {took:.1f} s to stop, expected less than {limit} s")
    expect("FAILED" not in stderr, "the interruption was reported as a failure")
    expect(f"interrupted by {name}" in stderr, f"stderr does not say it was interrupted by {name}")
    with open(path) as f:
        data = json.load(f)
    i = data.get("interrupted")
    expect(isinstance(i, dict), f"\"interrupted\" is {i!r}")
    expect(i["signal"] == name, f"signal {i['signal']!r}, expected {name}")
    expect(i["stopped_in"]["bench"] == stop_in and i["stopped_in"]["benchmark_index"] == index and i["benchmarks"] == benchmarks,
           f"stopped_in {i['stopped_in']}, benchmarks {i['benchmarks']}, expected {stop_in}, benchmark {index} of {benchmarks}")
    runs = data["runs"]
    expect(i["configurations_completed"] == len(runs), "configurations_completed is not the number of records")
    got = sorted((r["bench"], r["variant"], r["workers"]) for r in runs)
    expect(got == want, f"records {got}, expected the complete configurations {want}")
    for r in runs:
        expect(r["oracle_ok"] and len(r["seconds"]) == 2 and "process" not in r, f"incomplete or failed record {r}")
    rep = subprocess.run([sys.executable, REPORT, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    expect(rep.returncode == 0, f"report.py: status {rep.returncode}: {rep.stderr}")
    expect(rep.stdout.startswith(f"INTERRUPTED by {name}"), "report.py does not show the interruption first")
    expect(all(f"| {b} |" in rep.stdout for b, _, _ in want), "report.py's table lacks a benchmark")


CASES = {
    "lines": case_lines,
    "quiet": case_quiet,
    "live": case_live,
    "sigint": lambda b, t: case_interrupt(b, t, signal.SIGINT, False),
    "sigint_group": lambda b, t: case_interrupt(b, t, signal.SIGINT, True),
    "sigterm": lambda b, t: case_interrupt(b, t, signal.SIGTERM, False),
    # fft's child takes seconds to build its instance at the default size (4 s on a 2-core VM): the driver
    # kills it rather than wait for it.
    "sigterm_building": lambda b, t: case_interrupt(
        b, t, signal.SIGTERM, False, ["--bench", "fft", "--variant", "serial", "--workers", "1", "--reps", "1"],
        stop_in="fft", index=1, benchmarks=1, want=[], limit=2),
}


def main():
    run_cases(__file__, __doc__, CASES)


if __name__ == "__main__":
    main()
