#!/usr/bin/env python3
"""Checks the timeline traces of random programs against the rules of docs/guide/tracing.md.

Usage: check_traces.py TRACE_RANDOM [PROGRAMS]

Runs TRACE_RANDOM (tests/trace/trace_random.cpp) for PROGRAMS programs (default 40) on each of its
configurations (work stealing under wf, hf and dyn on 1, 2 and 8 workers; DFDeques with K = 1024 on 2
and 8), then checks every trace it wrote:
  * it is valid JSON with traceEvents and otherData, and nothing was dropped;
  * every task segment was closed by the recorder (no "closed": false), with a duration >= 0;
  * the segments of one worker never overlap;
  * every flow has both ends (one "s" and one "f" per id), the start no later than the end;
  * timestamps never decrease along each worker's events;
  * the segments match the runtime's counters (SLAW_STATS of the same runtime):
      work-first segments of worker w = its spawns_wf - its give-ups at a spawn,
      stolen segments = steals_preempted + steals_fresh (a stolen task may start on another worker
        than its thief: totals),
      help-first segments + steals from fresh deques = spawns_hf,
      mailbox segments = mailbox_takes (places),
      one root segment (one run per runtime),
      park and wake instants of worker w = its parks and wakes, give-up instants = quota_giveups.
Then it breaks one passing trace in each of these ways and makes sure the check rejects every copy.
Exit status 0 if every trace passes, 1 otherwise (each failure is printed with its file).
"""
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from decimal import Decimal

SEGMENT_KINDS = {"root", "wf", "hf", "stolen", "resumed", "mailbox"}


def load(path, stats_path):
    with open(path) as f:
        trace = json.load(f, parse_float=Decimal)  # exact decimals: ts + dur is compared with the next ts
    with open(stats_path) as f:
        stats = json.loads(f.readline())
    return trace, stats


def check_trace(trace, stats):
    """The rules' violations in one trace (a list of messages; empty if it passes)."""
    errors = []

    def fail(msg):
        errors.append(msg)

    events = trace.get("traceEvents")
    other = trace.get("otherData")
    if not isinstance(events, list) or not isinstance(other, dict):
        return ["no traceEvents list or no otherData object"]
    workers = other.get("workers")
    if workers != stats["workers"]:
        fail(f"otherData.workers = {workers}, the counters have {stats['workers']}")
    if other.get("dropped_total") != 0:
        fail(f"{other.get('dropped_total')} events dropped: the counters cannot be compared")

    last_ts = {}
    segments = defaultdict(list)
    kinds = Counter()               # (tid, cat) -> segments
    instants = Counter()            # (tid, name) -> instants
    give_ups = Counter()            # (tid, at) -> give-up instants
    flow_starts, flow_ends = {}, {}
    for e in events:
        ph = e.get("ph")
        if ph == "M":
            continue
        tid, ts = e.get("tid"), e.get("ts")
        if not isinstance(tid, int) or not 0 <= tid < workers or ts is None:
            fail(f"event without a worker's tid or a ts: {e}")
            continue
        if tid in last_ts and ts < last_ts[tid]:
            fail(f"worker {tid}: ts {ts} after {last_ts[tid]} (timestamps go back)")
        last_ts[tid] = ts
        if ph == "X":
            cat = e.get("cat")
            if cat not in SEGMENT_KINDS:
                fail(f"segment of unknown kind {cat!r}")
            if e.get("args", {}).get("closed") is False:
                fail(f"worker {tid}: segment at ts {ts} was never closed by the recorder")
            if e["dur"] < 0:
                fail(f"worker {tid}: segment at ts {ts} has a negative duration")
            segments[tid].append((ts, e["dur"]))
            kinds[(tid, cat)] += 1
        elif ph in ("s", "f"):
            table = flow_starts if ph == "s" else flow_ends
            if e["id"] in table:
                fail(f"flow {e['id']} has two '{ph}' events")
            table[e["id"]] = e
        elif ph == "i":
            instants[(tid, e["name"])] += 1
            if e["name"] == "give-up":
                give_ups[(tid, e["args"]["at"])] += 1

    for tid, segs in segments.items():
        segs.sort()
        for (t0, d0), (t1, _) in zip(segs, segs[1:]):
            if t0 + d0 > t1:
                fail(f"worker {tid}: segment [{t0}, {t0 + d0}] overlaps the next one at {t1}")
    for fid in flow_starts.keys() - flow_ends.keys():
        fail(f"flow {fid} has a start and no end")
    for fid in flow_ends.keys() - flow_starts.keys():
        fail(f"flow {fid} has an end and no start")
    for fid in flow_starts.keys() & flow_ends.keys():
        if flow_starts[fid]["ts"] > flow_ends[fid]["ts"]:
            fail(f"flow {fid} ends before it starts")

    per = stats["per_worker"]
    total = stats["total"]
    for w in range(workers):
        c = per[w]
        expect = c["spawns_wf"] - give_ups[(w, "spawn")]
        if kinds[(w, "wf")] != expect:
            fail(f"worker {w}: {kinds[(w, 'wf')]} work-first segments, the counters say {expect} "
                 f"(spawns_wf {c['spawns_wf']} - {give_ups[(w, 'spawn')]} give-ups at a spawn)")
        for name, counter in (("park", "parks"), ("wake", "wakes")):
            if instants[(w, name)] != c[counter]:
                fail(f"worker {w}: {instants[(w, name)]} {name} instants, the counters say {counter} = {c[counter]}")
    kind_total = Counter()
    for (tid, cat), k in kinds.items():
        kind_total[cat] += k
    steals = total["steals_preempted"] + total["steals_fresh"]
    if kind_total["stolen"] != steals:
        fail(f"{kind_total['stolen']} stolen segments, the counters say {steals} steals")
    fresh_steals = sum(1 for s in flow_starts.values() if s["args"]["deque"] == "fresh")
    if kind_total["hf"] + fresh_steals != total["spawns_hf"]:
        fail(f"{kind_total['hf']} help-first segments + {fresh_steals} steals from fresh deques, "
             f"the counters say spawns_hf = {total['spawns_hf']}")
    if kind_total["mailbox"] != total.get("mailbox_takes", 0):
        fail(f"{kind_total['mailbox']} mailbox segments, the counters say mailbox_takes = {total.get('mailbox_takes', 0)}")
    if kind_total["root"] != 1:
        fail(f"{kind_total['root']} root segments for one run")
    if sum(give_ups.values()) != total["quota_giveups"]:
        fail(f"{sum(give_ups.values())} give-up instants, the counters say quota_giveups = {total['quota_giveups']}")
    return errors


def mutants(trace):
    """Copies of a passing trace, each broken in one way the rules forbid: the check must reject each."""
    events = trace["traceEvents"]

    def without(pred):
        i = next(i for i, e in enumerate(events) if pred(e))
        return dict(trace, traceEvents=events[:i] + events[i + 1:])

    def changed(pred, change):
        i = next(i for i, e in enumerate(events) if pred(e))
        e = copy.deepcopy(events[i])
        change(e)
        return dict(trace, traceEvents=events[:i] + [e] + events[i + 1:])

    segs = [e for e in events if e["ph"] == "X"]
    followed = next(a for a, b in zip(segs, segs[1:]) if a["tid"] == b["tid"])
    timed = [e for e in events if e["ph"] != "M"]
    later = next(b for a, b in zip(timed, timed[1:]) if a["tid"] == b["tid"] and b["ts"] > a["ts"])
    yield "a flow end removed", without(lambda e: e["ph"] == "f")
    yield "a segment left open", changed(lambda e: e["ph"] == "X", lambda e: e.update(args={"closed": False}))
    yield "overlapping segments", changed(lambda e: e is followed, lambda e: e.update(dur=e["dur"] + Decimal(10**6)))
    yield "a timestamp going back", changed(lambda e: e is later, lambda e: e.update(ts=Decimal(0)))
    yield "a work-first segment missing", without(lambda e: e.get("cat") == "wf")
    yield "a stolen segment missing", without(lambda e: e.get("cat") == "stolen")
    yield "a park missing", without(lambda e: e.get("name") == "park")


def self_test(paths):
    """Each mutant of a passing trace with steals, work-first spawns and parks must fail the check."""
    for path in paths:
        trace, stats = load(path, path[: -len(".json")] + ".stats.json")
        cats = {e.get("cat") for e in trace["traceEvents"]}
        names = {e.get("name") for e in trace["traceEvents"]}
        if {"wf", "stolen"} <= cats and "park" in names and any(e["ph"] == "f" for e in trace["traceEvents"]) \
                and not check_trace(trace, stats):
            break
    else:
        print("check_traces: no trace with a steal, work-first spawns and parks to test the check on", file=sys.stderr)
        return False
    ok = True
    for what, broken in mutants(trace):
        if not check_trace(broken, stats):
            print(f"check_traces: the check accepts {os.path.basename(path)} with {what}", file=sys.stderr)
            ok = False
    return ok


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    driver = sys.argv[1]
    programs = sys.argv[2] if len(sys.argv) == 3 else "40"
    with tempfile.TemporaryDirectory(prefix="slaw-traces-") as out:
        run = subprocess.run([driver, out, programs], stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:
            print(run.stderr, file=sys.stderr)
            print(f"check_traces: {driver} failed with status {run.returncode}", file=sys.stderr)
            return 1
        traces = sorted(p for p in glob.glob(os.path.join(out, "*.json")) if not p.endswith(".stats.json"))
        failed = 0
        totals = Counter()
        for path in traces:
            try:
                errors = check_trace(*load(path, path[: -len(".json")] + ".stats.json"))
            except (OSError, ValueError) as e:
                errors = [f"cannot load: {e}"]
            if errors:
                failed += 1
                print(f"{os.path.basename(path)}:", file=sys.stderr)
                for e in errors[:20]:
                    print(f"  {e}", file=sys.stderr)
            else:
                with open(path) as f:
                    for e in json.load(f)["traceEvents"]:
                        totals[e.get("cat") if e["ph"] == "X" else e["ph"]] += 1
        if not traces:
            print(f"check_traces: {driver} wrote no trace", file=sys.stderr)
            return 1
        print(f"check_traces: {len(traces) - failed} of {len(traces)} traces pass; segments by kind: "
              + ", ".join(f"{k} {totals[k]}" for k in sorted(SEGMENT_KINDS)) + f"; flows {totals['s']}")
        if not self_test(traces):
            return 1
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
