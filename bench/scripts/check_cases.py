"""The shared frame of the ctest checks that run one named case each (check_listing.py, check_progress.py).

A script defines CASES = {name: function(binary, tmpdir)}, whose functions call expect(); its main() is
run_cases(__file__, __doc__, CASES). `SCRIPT --list` prints the case names as a CMake list (for
bench/CMakeLists.txt, one ctest per case); `SCRIPT BINARY CASE` runs one case in a temporary directory
and exits non-zero, saying what failed, if it did.
"""
import os
import sys
import tempfile


class Failed(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failed(what)


def run_cases(script, doc, cases):
    me = os.path.basename(script)
    if sys.argv[1:] == ["--list"]:
        print(";".join(cases), end="")  # a CMake list
        return
    if len(sys.argv) != 3 or sys.argv[2] not in cases:
        sys.exit(doc)
    binary, name = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        try:
            cases[name](binary, tmp)
        except Failed as e:
            sys.exit(f"{me}: {name}: FAILED: {e}")
    print(f"{me}: {name}: ok")
