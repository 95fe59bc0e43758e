#!/usr/bin/python3
"""A whole study timed end to end with two rotor builds, interleaved, and their reports compared.

    /usr/bin/python3 bench/study_ab.py --a build/rotor --b /tmp/rotor-85b2645/build/rotor \
        --spec /tmp/rotor-85b2645/configs/compare/separation-quick.yaml --jobs 2 --order ABBA

What a user waits for is a study, not a step: process starts, data generation, training,
evaluation, the length sweep and the scheduler all count. Each leg runs `rotor compare SPEC
--jobs N --out DIR` in a fresh directory under --out (never the spec's own out_dir, so no
finished run is skipped), in the order --order gives (ABBA by default, so a drift of the
host's speed over the hour falls on both builds alike). Each leg's wall time comes from a
monotonic clock; its user and system CPU seconds and largest process's peak RSS from the
kernel's accounting of the finished process tree (os.wait4 on the study, whose run processes
it waits for).

Then every number two legs' reports share (report.csv, one per task of a suite: accuracies,
losses and perplexities by split, length and scaling; elapsed times and rates left out, they
are what is measured) is compared: how many are equal to the last digit and the largest
difference. Legs of one build must agree exactly (rotor is deterministic); across builds they
agree exactly where the math is unchanged, and where a kernel's summation order changed the
difference has to be read against the study's own intervals (report.md).

Prints a table and writes everything to --out/study_ab.json.
"""
import argparse
import collections
import csv
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time

# report.csv metrics that measure the machine, not the model: never compared.
TIMING_METRICS = {"elapsed_s", "tokens_per_s", "wall_s", "steps_per_s"}


def run_leg(binary, spec, jobs, out_dir, log_path):
    """Runs one study; returns wall seconds, CPU seconds and peak RSS (MiB) of its process tree."""
    if out_dir.exists():
        shutil.rmtree(out_dir)
    cmd = [binary, "compare", spec, "--jobs", str(jobs), "--out", str(out_dir)]
    start = time.monotonic()
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"study_ab: {' '.join(cmd)} exited with {code}; see {log_path}")
    # ru_maxrss of a waited child covers its largest descendant (Linux: kibibytes).
    return {"wall_s": wall, "user_s": usage.ru_utime, "sys_s": usage.ru_stime,
            "peak_rss_mib": usage.ru_maxrss / 1024.0}


def report_values(study_dir):
    """The model's numbers in a study's report.csv files (one per task of a suite), keyed by the
    file's folder and every column but the value."""
    values = {}
    for path in sorted(study_dir.rglob("report.csv")):
        task = str(path.parent.relative_to(study_dir))
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row["metric"] in TIMING_METRICS or row["value"] == "":
                    continue
                columns = ("scope", "variant", "seed", "metric", "split", "step", "length", "scaling")
                values[(task, *(row.get(c, "") for c in columns))] = float(row["value"])
    if not values:
        sys.exit(f"study_ab: no report.csv with numbers under {study_dir}")
    return values


def compare_reports(a, b):
    """How two reports' shared numbers agree: counts, exact matches and the largest difference."""
    shared = sorted(set(a) & set(b))
    diffs = [(abs(a[k] - b[k]), k) for k in shared]
    largest = max(diffs) if diffs else (0.0, None)
    if largest[0] == 0.0:
        largest = (0.0, None)
    unequal = collections.Counter(f"{k[0]}/{k[2]}" for d, k in diffs if d != 0.0)  # task/variant: numbers differing
    return {"shared": len(shared), "only_in_one": len(set(a) ^ set(b)),
            "equal": sum(1 for d, _ in diffs if d == 0.0), "largest_difference": largest[0],
            "largest_at": list(largest[1]) if largest[1] else None, "unequal_by_variant": dict(unequal)}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--a", required=True, help="rotor binary A (this build)")
    p.add_argument("--b", required=True, help="rotor binary B (the baseline)")
    p.add_argument("--spec", required=True, help="study spec (YAML)")
    p.add_argument("--spec-a", help="A's own spec, where a default changed after B and A must be told B's "
                   "value to do the same math (default: --spec)")
    p.add_argument("--jobs", type=int, default=2, help="rotor compare --jobs (default 2)")
    p.add_argument("--order", default="ABBA", help="legs in order, letters A and B (default ABBA)")
    p.add_argument("--out", default="runs/study_ab", help="folder for the legs and study_ab.json")
    args = p.parse_args()
    if not args.order or set(args.order) - {"A", "B"}:
        p.error("--order takes the letters A and B only, e.g. ABBA")
    return args


def main():
    args = parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    binaries = {"A": args.a, "B": args.b}
    specs = {"A": args.spec_a or args.spec, "B": args.spec}
    legs = []
    for i, which in enumerate(args.order):
        leg_dir = out / f"leg{i + 1}-{which}"
        print(f"leg {i + 1} of {len(args.order)}: {which} = {binaries[which]}", flush=True)
        stats = run_leg(binaries[which], specs[which], args.jobs, leg_dir, out / f"leg{i + 1}-{which}.log")
        legs.append({"leg": i + 1, "build": which, "binary": binaries[which], "dir": str(leg_dir), **stats})
        print(f"  wall {stats['wall_s']:.1f} s, cpu {stats['user_s'] + stats['sys_s']:.1f} s, "
              f"peak RSS {stats['peak_rss_mib']:.0f} MiB", flush=True)

    values = [report_values(pathlib.Path(leg["dir"])) for leg in legs]
    pairs = []
    for i in range(len(legs)):
        for j in range(i + 1, len(legs)):
            pairs.append({"legs": [i + 1, j + 1], "builds": legs[i]["build"] + legs[j]["build"],
                          **compare_reports(values[i], values[j])})

    walls = {w: [leg["wall_s"] for leg in legs if leg["build"] == w] for w in "AB"}
    summary = {w: statistics.median(v) for w, v in walls.items() if v}
    print("\nbuild  legs  median wall (s)")
    for w, v in walls.items():
        if v:
            print(f"{w:5}  {len(v):4}  {summary[w]:15.1f}")
    if len(summary) == 2:
        print(f"B / A wall time (A's speed-up): {summary['B'] / summary['A']:.3f}")
    print("\nreport numbers, leg against leg (timings left out):")
    for pr in pairs:
        print(f"  legs {pr['legs'][0]} and {pr['legs'][1]} ({pr['builds']}): {pr['equal']} of {pr['shared']} equal, "
              f"largest difference {pr['largest_difference']:.6g}"
              + (f" at {pr['largest_at']}" if pr["largest_at"] else ""))
        for where, n in sorted(pr["unequal_by_variant"].items()):
            print(f"    {where}: {n} differ")
    result = {"spec": args.spec, "spec_a": specs["A"], "jobs": args.jobs, "order": args.order, "legs": legs,
              "pairs": pairs, "median_wall_s": summary}
    (out / "study_ab.json").write_text(json.dumps(result, indent=1))
    print(f"\nwritten: {out / 'study_ab.json'}")


if __name__ == "__main__":
    main()
