#!/usr/bin/env python3
"""Checks that a configuration whose process dies is reported, not dropped: pdfs's serial elision on a
1 MiB stack (serial_stack=1) overflows it at the default size and dies of SIGSEGV; slaw-bench must
exit with status 1, keep that configuration in the JSON with oracle_ok false and "process" saying it
was killed by SIGSEGV, and still run the other variant (slaw-dyn) correctly.

usage: bench/scripts/check_child_failure.py SLAW_BENCH JSON_OUT
"""
import json
import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, path = sys.argv[1], sys.argv[2]
    cmd = [binary, "--bench", "pdfs", "--arg", "serial_stack=1", "--variant", "serial,slaw-dyn", "--workers", "1",
           "--reps", "2", "--quiet", "--json", path]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    print(p.stderr.strip())
    bad = []
    if p.returncode != 1:
        bad.append(f"exit status {p.returncode}, expected 1")
    try:
        with open(path) as f:
            runs = {r["variant"]: r for r in json.load(f)["runs"]}
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"check_child_failure.py: FAILED: cannot read {path}: {e}")
    serial, dyn = runs.get("serial"), runs.get("slaw-dyn")
    if not serial:
        bad.append("the crashed serial configuration is missing from the JSON")
    elif serial["oracle_ok"] or "SIGSEGV" not in serial.get("process", ""):
        bad.append(f"serial not reported as killed by SIGSEGV: {serial.get('process')!r} / {serial['oracle']!r}")
    if "PROCESS FAILED" not in p.stderr or "SIGSEGV" not in p.stderr:
        bad.append("stderr does not report the failed process")
    if not dyn or not dyn["oracle_ok"] or len(dyn["seconds"]) != 2:
        bad.append("slaw-dyn did not run its 2 repetitions correctly")
    if bad:
        sys.exit("check_child_failure.py: FAILED: " + "; ".join(bad))
    print("check_child_failure.py: ok")


if __name__ == "__main__":
    main()
