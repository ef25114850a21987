#!/usr/bin/env python3
"""Checks slaw-bench --help and --list against what the program itself accepts and runs.

usage: bench/scripts/check_listing.py --list              the case names (one ctest each)
       bench/scripts/check_listing.py SLAW_BENCH CASE     runs one case

  help      --help and -h exit 0 with the same text, which shows every option of --list --json's "options"
            with its value's form; each of them is accepted by the parser (one that takes a value asks for
            it, a flag lets the parser go on to the next argument); every --option the text names is one;
            the options known when this test was written are all there
  list      --list --json: the benchmarks, variants and sizes are exactly those the parser accepts (from
            the error messages of --bench, --variant and --size), every parameter has a description and a
            value at every size, the test-size values are those a real run records, every variable a
            variant reads is explained, and the text shows all of it
  list_env  the SLAW_* variables the slaw variants are said to read, plus those slaw-bench sets, are
            exactly those the runtime reads (from its warning about an unknown SLAW_ variable), and each
            variant reads its own: set one of them, the runtime warns "is ignored" under exactly the
            variants that do not list it
  locality  the locality rows (--list --json's "locality": slaw-places, tbb-places, omp-places) run the same
            non-empty set of benchmarks (those with a locality version; the others are skipped), every
            oracle passing; slaw-places deploys SLAW_PLACES=cores (bound close when it has a CPU per worker)
            unless SLAW_PLACES is set; a row's child_env reaches its child process unless the environment
            sets the variable (libgomp's OMP_DISPLAY_ENV shows what each child got)
"""
import atexit
import json
import os
import re
import shutil
import subprocess
import tempfile

# The options slaw-bench had when this test was written: losing one is a failure.
KNOWN_OPTIONS = {"--list", "--bench", "--size", "--arg", "--variant", "--workers", "--reps", "--json", "--quiet",
                 "--progress", "--help"}
# A valid setting of each SLAW_ variable (with what it needs to be used), for list_env.
# A one-worker SLAW deployment file (docs/guide/places.md) for SLAW_DEPLOYMENT's sample.
_TMP = tempfile.mkdtemp(prefix="check_listing.")
atexit.register(shutil.rmtree, _TMP, True)
DEPLOYMENT_FILE = os.path.join(_TMP, "one_worker.deploy")
with open(DEPLOYMENT_FILE, "w") as _f:
    _f.write("1 1\n0 @ 0 -> 0\n")

SAMPLE_SETTINGS = {
    "SLAW_S": {"SLAW_S": "8"},
    "SLAW_F": {"SLAW_F": "8"},
    "SLAW_INT": {"SLAW_INT": "8"},
    "SLAW_K": {"SLAW_K": "4096"},
    "SLAW_STATS": {"SLAW_STATS": "0"},
    "SLAW_TRACE": {"SLAW_TRACE": "policy"},
    "SLAW_TRACE_EVENTS": {"SLAW_TRACE_EVENTS": "1024", "SLAW_TRACE": "timeline:/dev/null"},
    "SLAW_PLACES": {"SLAW_PLACES": "flat"},
    "SLAW_BIND": {"SLAW_BIND": "false"},
    "SLAW_DEPLOYMENT": {"SLAW_DEPLOYMENT": DEPLOYMENT_FILE},
    "SLAW_DISPLAY_PLACES": {"SLAW_DISPLAY_PLACES": "0"},
    # These apply to more than one place only (the flat deployment warns that it ignores them).
    "SLAW_TOPOLOGY": {"SLAW_TOPOLOGY": "synthetic:pack:2 core:2 pu:1", "SLAW_PLACES": "cores"},
    "SLAW_REMOTE": {"SLAW_REMOTE": "none", "SLAW_PLACES": "cores"},
    "SLAW_IDLE_ORDER": {"SLAW_IDLE_ORDER": "paper", "SLAW_PLACES": "cores"},
    "SLAW_MAILBOX": {"SLAW_MAILBOX": "64", "SLAW_PLACES": "cores"},
    "SLAW_RECORD": {"SLAW_RECORD": "/dev/null"},
    "SLAW_ARBITER": {"SLAW_ARBITER": "off"},
    "SLAW_DESIRE": {"SLAW_DESIRE": "asteal", "SLAW_ARBITER_NAME": "/slaw-check-listing"},
    "SLAW_QUANTUM_MS": {"SLAW_QUANTUM_MS": "5", "SLAW_ARBITER_NAME": "/slaw-check-listing"},
    "SLAW_BETA": {"SLAW_BETA": "3", "SLAW_ARBITER_NAME": "/slaw-check-listing"},
    "SLAW_CORES": {"SLAW_CORES": "2", "SLAW_ARBITER_NAME": "/slaw-check-listing"},
    "SLAW_ARBITER_NAME": {"SLAW_ARBITER_NAME": "/slaw-check-listing"},
    "SLAW_LOOP_CHUNK_NS": {"SLAW_LOOP_CHUNK_NS": "2000"},
    "SLAW_LOOP_SPLIT_NS": {"SLAW_LOOP_SPLIT_NS": "16000"},
}


from check_cases import expect, run_cases  # noqa: E402  (the shared case frame, same directory)


def run(binary, args, env=None, unset=()):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("SLAW_") and k not in unset}
    full_env.update(env or {})
    return subprocess.run([binary] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300,
                          env=full_env)


def listing(binary, tmp):
    path = os.path.join(tmp, "list.json")
    p = run(binary, ["--list", "--json", path])
    expect(p.returncode == 0, f"--list --json: exit status {p.returncode}: {p.stderr}")
    with open(path) as f:
        return p.stdout, json.load(f)


def accepted_names(binary, option):
    """The names `option` accepts, from the parser's message for an unknown one."""
    p = run(binary, [option, "zz-no-such-name"])
    expect(p.returncode == 2, f"{option} zz-no-such-name: exit status {p.returncode}")
    m = re.search(r"names \(([^)]*)\)", p.stderr) or re.search(r"expected ([\w, ]+ or \w+)", p.stderr)
    expect(m, f"{option}: no list of accepted names in {p.stderr!r}")
    return set(re.split(r", | or ", m.group(1)))


def case_help(binary, tmp):
    p = run(binary, ["--help"])
    expect(p.returncode == 0 and p.stderr == "" and p.stdout, f"--help: status {p.returncode}, stderr {p.stderr!r}")
    h = run(binary, ["-h"])
    expect(h.returncode == 0 and h.stdout == p.stdout, "-h does not print --help's text")
    text = p.stdout
    print(text)
    _, data = listing(binary, tmp)
    options = {o["name"]: o for o in data["options"]}
    expect(KNOWN_OPTIONS <= set(options), f"options missing: {sorted(KNOWN_OPTIONS - set(options))}")
    for name, o in options.items():
        shown = name + (", " + o["alias"] if o["alias"] else "") + (" " + o["value"] if o["value"] else "")
        expect(re.search(r"^  " + re.escape(shown) + r"( |$)", text, re.M), f"--help does not show '{shown}'")
        for spelling in [name] + ([o["alias"]] if o["alias"] else []):
            if o["value"]:
                q = run(binary, [spelling])
                expect(q.returncode == 2 and f"{spelling} needs a value" in q.stderr,
                       f"'{spelling}' alone: status {q.returncode}, {q.stderr!r}; expected it to ask for its value")
            else:
                q = run(binary, [spelling, "--zz-no-such-option"])
                expect(q.returncode == 2 and "unknown argument '--zz-no-such-option'" in q.stderr,
                       f"'{spelling} --zz-no-such-option': status {q.returncode}, {q.stderr!r}; expected the parser "
                       "to accept the flag and reject the next argument")
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", text))
    expect(named <= set(options), f"--help names options that are not in the table: {sorted(named - set(options))}")
    for status in ("130", "143", " 2 ", " 1 "):
        expect(status in text, f"--help does not explain exit status {status.strip()}")


def case_list(binary, tmp):
    text, data = listing(binary, tmp)
    print(text)
    benches = {b["name"]: b for b in data["benchmarks"]}
    variants = {v["name"]: v for v in data["variants"]}
    sizes = [z["name"] for z in data["sizes"]]
    expect(set(benches) == accepted_names(binary, "--bench"), "--list's benchmarks are not those --bench accepts")
    expect(set(variants) == accepted_names(binary, "--variant"), "--list's variants are not those --variant accepts")
    expect(set(sizes) == accepted_names(binary, "--size"), "--list's sizes are not those --size accepts")
    lines = text.splitlines()
    for name, b in benches.items():
        expect(b["what"], f"{name}: no description")
        start = [i for i, l in enumerate(lines) if l.split(" ", 1)[0] == name]
        expect(len(start) == 1, f"{name}: {len(start)} lines of the text start with its name, expected 1")
        block = lines[start[0]:]
        block = block[:next((i for i, l in enumerate(block) if not l.strip()), len(block))]
        expect(b["params"], f"{name}: no parameters")
        for prm in b["params"]:
            k = prm["key"]
            expect(prm["what"], f"{name}: parameter {k} has no description")
            expect(all(prm["values"].get(z) is not None for z in sizes), f"{name}: {k} lacks a value at some size")
            shown = " | ".join(prm["values"][z] for z in sizes)
            expect(any(re.match(r"\s+" + re.escape(k) + r"\s+" + re.escape(shown) + r"\s", l) for l in block),
                   f"{name}: the text does not show '{k}  {shown}'")
    for name, v in variants.items():
        expect(v["what"], f"variant {name}: no description")
        expect(re.search(r"^  " + re.escape(name) + r" ", text, re.M), f"variant {name} is not in the text")
    explained = {e["name"] for e in data["environment"]}
    for name, v in variants.items():
        for var in v["env"]:
            expect(var in explained, f"variant {name} reads {var}, which \"environment\" does not explain")
            expect(var in text, f"{var} is not in the text")
    for z in data["sizes"]:
        expect(z["what"] and re.search(r"^  " + z["name"] + r" ", text, re.M), f"size {z['name']} is not in the text")
    # The test-size values are those a run uses: a quick run of every benchmark records its parameters.
    path = os.path.join(tmp, "run.json")
    p = run(binary, ["--size", "test", "--variant", "serial", "--workers", "1", "--reps", "1", "--quiet", "--json", path])
    expect(p.returncode == 0, f"a run at --size test: exit status {p.returncode}: {p.stderr}")
    with open(path) as f:
        runs = {r["bench"]: r for r in json.load(f)["runs"]}
    expect(set(runs) == set(benches), f"the run recorded {sorted(runs)}, --list says {sorted(benches)}")
    for name, b in benches.items():
        listed = {prm["key"]: prm["values"]["test"] for prm in b["params"]}
        expect(runs[name]["params"] == listed, f"{name}: the run used {runs[name]['params']}, --list says {listed}")


def case_list_env(binary, tmp):
    _, data = listing(binary, tmp)
    p = run(binary, ["--list", "--variant", "slaw-dyn"], {"SLAW_ZQXJWV": "1"})
    m = re.search(r"slaw reads ((?:SLAW_\w+ ?)+)", p.stderr)
    expect(m, f"no list of the runtime's variables in {p.stderr!r}")
    runtime = set(m.group(1).split())
    slaw_rows = {v["name"]: set(v["env"]) for v in data["variants"] if v["kind"] == "slaw"}
    expect(slaw_rows, "no slaw variant")
    set_by = set(data["set_by_slaw_bench"])
    said = set().union(*slaw_rows.values()) | {v for v in set_by if v.startswith("SLAW_")}
    expect(said == runtime, f"the runtime reads {sorted(runtime)}; --list says {sorted(said)}")
    for var in sorted(runtime - set_by):
        expect(var in SAMPLE_SETTINGS, f"{var}: no sample setting in check_listing.py's SAMPLE_SETTINGS")
        for row, env in sorted(slaw_rows.items()):
            q = run(binary, ["--list", "--variant", row], SAMPLE_SETTINGS[var])
            expect(q.returncode == 0, f"{var} under {row}: exit status {q.returncode}: {q.stderr}")
            expect("unknown" not in q.stderr, f"{var} under {row}: {q.stderr!r}")
            ignored = re.search(re.escape(var) + r"=\S* is ignored", q.stderr) is not None
            expect(ignored == (var not in env),
                   f"{var} under {row}: the runtime {'ignores' if ignored else 'uses'} it, --list says the row "
                   f"{'reads' if var in env else 'does not read'} it ({q.stderr.strip()!r})")
            print(f"{var} under {row}: {'ignored' if ignored else 'read'}, as --list says")


def case_locality(binary, tmp):
    _, data = listing(binary, tmp)
    rows = {v["name"]: v for v in data["variants"] if v.get("locality")}
    expect({"slaw-places", "tbb-places", "omp-places"} <= set(rows), f"locality rows: {sorted(rows)}")
    expect(not any(v.get("locality") for v in data["variants"] if v["name"] in ("slaw-dyn", "tbb", "omp")),
           "a plain row is marked locality")
    path = os.path.join(tmp, "locality.json")
    p = run(binary, ["--size", "test", "--variant", ",".join(rows), "--workers", "1,2", "--reps", "1", "--quiet",
                     "--json", path])
    expect(p.returncode == 0, f"the locality rows at --size test: exit status {p.returncode}: {p.stderr}")
    with open(path) as f:
        runs = json.load(f)["runs"]
    ran = {}
    for r in runs:
        expect(r["oracle_ok"], f'{r["bench"]} {r["variant"]} w={r["workers"]}: {r["oracle"]}')
        ran.setdefault(r["variant"], set()).add((r["bench"], r["workers"]))
    all_benches = {b["name"] for b in data["benchmarks"]}
    sets = {row: ran.get(row, set()) for row in rows}
    first = next(iter(sets.values()))
    expect(first and all(x == first for x in sets.values()), f"the locality rows ran different benchmarks: {sets}")
    benches = {b for b, _ in first}
    expect(benches < all_benches and first == {(b, w) for b in benches for w in (1, 2)},
           f"locality rows ran {sorted(first)}; expected a proper subset of the benchmarks at 1 and 2 workers")
    print(f"locality rows ran {sorted(benches)} (skipped {sorted(all_benches - benches)})")
    # slaw-places's default deployment, read back from the counters' "places", and SLAW_PLACES winning.
    bench = sorted(benches)[0]
    cpus = len(os.sched_getaffinity(0))
    for env, source, binding in (({}, "SLAW_PLACES=cores", "close" if cpus >= 2 else "none"),
                                 ({"SLAW_PLACES": "flat"}, "SLAW_PLACES=flat", "none")):
        path = os.path.join(tmp, "slaw_places.json")
        p = run(binary, ["--bench", bench, "--size", "test", "--variant", "slaw-places", "--workers", "2", "--reps", "1",
                         "--quiet", "--json", path], env)
        expect(p.returncode == 0, f"slaw-places with {env}: exit status {p.returncode}: {p.stderr}")
        with open(path) as f:
            places = (json.load(f)["runs"][0].get("counters") or {}).get("places") or {}
        got = (places.get("source"), places.get("binding"))
        expect(got == (source, binding), f"slaw-places with {env or 'no SLAW_PLACES'}: deployed {got}, expected "
               f"{(source, binding)}")
        print(f"slaw-places with {env or 'no SLAW_PLACES'}: {source}, binding {binding}")
    # child_env: each default reaches the row's child unless the environment sets it.
    for name, row in rows.items():
        defaults = dict(kv.split("=", 1) for kv in row.get("child_env", []))
        omp = {k: v for k, v in defaults.items() if k in ("OMP_PLACES", "OMP_PROC_BIND")}
        if not omp:
            continue
        for env in ({}, {k: "threads" if k == "OMP_PLACES" else "spread" for k in omp}):
            p = run(binary, ["--bench", bench, "--size", "test", "--variant", name, "--workers", "1", "--reps", "1",
                             "--quiet"], dict(env, OMP_DISPLAY_ENV="true"), unset=tuple(omp))
            expect(p.returncode == 0, f"{name} with {env}: exit status {p.returncode}: {p.stderr}")
            for k, v in omp.items():
                want = env.get(k, v)
                # LLVM's libomp prints OMP_PLACES='cores'; GCC's libgomp prints OMP_PLACES = '{0},{1}' (the
                # expanded list), and the driver, linked with it too, prints its own (unset) values first.
                shown = re.findall(r"\b" + k + r"\s*=\s*'([^']*)'", p.stderr)
                child = shown[-1].lower() if shown else None
                ok = child == want or (k == "OMP_PLACES" and child is not None and child.startswith("{"))
                expect(ok, f"{name} with {env or 'no ' + k}: its child's OpenMP runtime shows {k}={shown}, "
                           f"expected {want}")
            print(f"{name} with {env or 'nothing set'}: the child got {({k: env.get(k, v) for k, v in omp.items()})}")


CASES = {"help": case_help, "list": case_list, "list_env": case_list_env, "locality": case_locality}


def main():
    run_cases(__file__, __doc__, CASES)


if __name__ == "__main__":
    main()
