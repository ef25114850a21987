#!/usr/bin/env python3
"""Checks that slaw-bench rejects a bad benchmark argument with exit status 2 and a message naming the
option, the bad value and the accepted values (and runs nothing).

usage: bench/scripts/check_args.py --list              the case names (one ctest each)
       bench/scripts/check_args.py SLAW_BENCH CASE     runs one case

The cases live here rather than in CMake because CMake 3.25's add_test drops empty arguments.
"""
import subprocess
import sys

WORKERS = "a comma-separated list of integers in [1, 4096], each at most once"
VARIANTS = ("serial, slaw-wf, slaw-hf, slaw-dyn, slaw-dfd, slaw-places, tbb, tbb-grain, omp, omp-dynamic, pstl, tbb-places, "
            "omp-places")
BENCHES = "barneshut, densemm, fft, fib"  # the start of the list is enough

# name: (arguments, fragments the message must contain)
CASES = {
    "workers_empty": (["--workers", ""], ["--workers ''", "empty list", WORKERS]),
    "workers_empty_item": (["--workers", "1,,2"], ["--workers '1,,2'", "item 2 is empty", WORKERS]),
    "workers_trailing_comma": (["--workers", "1,2,"], ["--workers '1,2,'", "item 3 is empty", WORKERS]),
    "workers_leading_comma": (["--workers", ",1"], ["--workers ',1'", "item 1 is empty", WORKERS]),
    "workers_duplicate": (["--workers", "1,2,1"], ["--workers '1,2,1'", "'1' given twice", WORKERS]),
    "workers_zero": (["--workers", "0"], ["--workers '0'", "'0' is not an integer in [1, 4096]", WORKERS]),
    "workers_not_a_number": (["--workers", "1,two"], ["--workers '1,two'", "'two' is not an integer", WORKERS]),
    "variant_empty": (["--variant", ""], ["--variant ''", "empty list", VARIANTS]),
    "variant_empty_item": (["--variant", "serial,,tbb"], ["--variant 'serial,,tbb'", "item 2 is empty", VARIANTS]),
    "variant_trailing_comma": (["--variant", "serial,"], ["--variant 'serial,'", "item 2 is empty", VARIANTS]),
    "variant_unknown": (["--variant", "serial,fast"], ["--variant 'serial,fast'", "unknown variant 'fast'", VARIANTS]),
    "variant_duplicate": (["--variant", "tbb,tbb"], ["--variant 'tbb,tbb'", "'tbb' given twice", VARIANTS]),
    "bench_empty": (["--bench", ""], ["--bench ''", "empty list", BENCHES]),
    "bench_empty_item": (["--bench", "fib,,uts"], ["--bench 'fib,,uts'", "item 2 is empty", BENCHES]),
    "bench_trailing_comma": (["--bench", "fib,"], ["--bench 'fib,'", "item 2 is empty", BENCHES]),
    "bench_unknown": (["--bench", "fib,nosuch"], ["--bench 'fib,nosuch'", "unknown benchmark 'nosuch'", BENCHES]),
    "bench_duplicate": (["--bench", "uts,uts"], ["--bench 'uts,uts'", "'uts' given twice", BENCHES]),
    "reps_empty": (["--reps", ""], ["--reps ''", "expected an integer in [1, 100000]"]),
    "size_unknown": (["--size", "huge"], ["--size 'huge'", "expected test, default or large"]),
    "arg_unknown_key": (["--bench", "uts", "--arg", "side=5"], ["--arg side", "uts has no parameter 'side'", "tree"]),
    "arg_twice": (["--bench", "fib", "--arg", "n=5", "--arg", "n=6"], ["--arg n", "given twice", "'5'", "'6'"]),
    "arg_twice_same_value": (["--bench", "fib", "--arg", "n=5", "--arg", "n=5"], ["--arg n", "given twice"]),
    # Checked before anything runs (it was said only after the whole suite ran): the progress lines
    # asked for would show a run.
    "json_missing_directory": (["--bench", "fib", "--variant", "serial", "--workers", "1", "--progress", "lines",
                                "--json", "/nonexistent-dir/out.json"],
                               ["--json /nonexistent-dir/out.json", "cannot write", "No such file or directory"]),
    "json_a_directory": (["--bench", "fib", "--variant", "serial", "--workers", "1", "--progress", "lines",
                          "--json", "/tmp"], ["--json /tmp", "cannot write", "Is a directory"]),
    "progress_unknown": (["--progress", "sometimes"], ["--progress 'sometimes'", "expected one of auto, live, lines, off"]),
    "progress_empty": (["--progress", ""], ["--progress ''", "expected one of auto, live, lines, off"]),
    "option_unknown": (["--verbose"], ["unknown argument '--verbose'", "--help"]),
    "value_missing": (["--workers"], ["--workers needs a value", "N[,N...]"]),
}


def main():
    if sys.argv[1:] == ["--list"]:
        print(";".join(CASES), end="")  # a CMake list
        return
    if len(sys.argv) != 3 or sys.argv[2] not in CASES:
        sys.exit(__doc__)
    binary, name = sys.argv[1], sys.argv[2]
    args, fragments = CASES[name]
    # A quick run if the arguments were wrongly accepted: the test then fails on the status, not a timeout.
    cmd = [binary, "--size", "test", "--reps", "1", "--quiet"] + args
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    bad = []
    if p.returncode != 2:
        bad.append(f"exit status {p.returncode}, expected 2")
    bad += [f"the message lacks {f!r}" for f in fragments if f not in p.stderr]
    if "median" in p.stderr or p.stdout or "slaw-bench: [1/" in p.stderr:
        bad.append("it ran something")
    print(f"check_args.py: {name}: {cmd!r}\n  stderr: {p.stderr.strip()}")
    if bad:
        sys.exit(f"check_args.py: {name}: FAILED: " + "; ".join(bad))
    print(f"check_args.py: {name}: ok")


if __name__ == "__main__":
    main()
