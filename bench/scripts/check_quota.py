#!/usr/bin/env python3
"""Checks the DFDeques counters of a slaw-bench JSON file: in every slaw-dfd run the largest net
allocation of one quota period (quota_max_used) is at most K, and nothing overran the quota.

usage: bench/scripts/check_quota.py RESULTS.json K       (K in bytes, or inf)
"""
import json
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    path, k = sys.argv[1], sys.argv[2]
    if k != "inf" and not k.isdigit():
        sys.exit(f"check_quota.py: K='{k}': expected a byte count or inf")
    with open(path) as f:
        runs = json.load(f)["runs"]
    checked, bad = 0, []
    for r in runs:
        if r["variant"] != "slaw-dfd":
            continue
        c = r.get("counters") or {}
        t = c.get("total", {})
        checked += 1
        where = f'{r["bench"]} w={r["workers"]}'
        if c.get("scheduler") != "dfdeques":
            bad.append(f"{where}: scheduler is {c.get('scheduler')}, not dfdeques")
        if k == "inf":
            if t.get("quota_giveups", 0) or (c.get("dfd") or {}).get("max_deques", 0) > r["workers"]:
                bad.append(f"{where}: K=inf but {t.get('quota_giveups')} give-ups, {c['dfd']['max_deques']} deques")
        elif t.get("quota_max_used", 0) > int(k):
            bad.append(f"{where}: quota_max_used {t['quota_max_used']} > K={k}")
        elif t.get("quota_overrun_bytes", 0):
            bad.append(f"{where}: {t['quota_overrun_bytes']} bytes allocated beyond the quota")
    if not checked:
        sys.exit(f"check_quota.py: {path} has no slaw-dfd run")
    for b in bad:
        print("check_quota.py:", b)
    print(f"check_quota.py: {checked} slaw-dfd runs, K={k}: {'FAILED' if bad else 'ok'}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
