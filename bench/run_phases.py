#!/usr/bin/python3
"""Where one study run's wall time goes, by phase, with one or more rotor builds interleaved.

    /usr/bin/python3 bench/run_phases.py --impl after=build/rotor --impl before=/tmp/rotor-before \
        --spec configs/compare/separation-quick.yaml --task order,offset-4,bigram --runs rope-seed1,alibi-seed1

Each run is `rotor compare SPEC --task T --only RUN` in a fresh folder, one process, its output read line by line
as it comes: the phases end at the first line of each kind. start: to the "model:" line (data loaded, model built);
train: to "train done" (steps and validations); final_eval: to "summary:" (the best checkpoint on every held-out
split); sweep: to the last "sweep" line (none: 0); diagnostics: to the exit (attention, offsets, frequencies). The
builds alternate within each run (A B B A), so a drift of the host falls on both. Prints a line per leg and the
phases summed over runs per build (means of a build's two legs), and writes everything to --out as JSON.
"""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import time

PHASES = ("start", "train", "final_eval", "sweep", "diagnostics")


def timed_run(binary, spec, task, run, out_dir):
    """Seconds of each phase of one run (PHASES order) and its total."""
    shutil.rmtree(out_dir, ignore_errors=True)
    cmd = [binary, "compare", spec, "--task", task, "--only", run, "--out", str(out_dir)]
    start, marks = time.monotonic(), {}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:
        now = time.monotonic() - start
        for key, prefix in (("start", "model:"), ("train", "train done"), ("final_eval", "summary:")):
            if line.startswith(prefix):
                marks.setdefault(key, now)
        if line.lstrip().startswith("sweep ") and "scaling" in line:
            marks["sweep"] = now
    if proc.wait() != 0:
        sys.exit(f"run_phases: {' '.join(cmd)} exited with {proc.returncode}")
    marks.setdefault("sweep", marks["final_eval"])
    marks["diagnostics"] = time.monotonic() - start
    ends = [marks[p] for p in PHASES]
    return {"phases": dict(zip(PHASES, [b - a for a, b in zip([0.0] + ends, ends)])), "total": ends[-1]}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--impl", action="append", required=True, help="NAME=rotor binary; two give A B B A per run")
    p.add_argument("--spec", required=True, help="study spec (a suite: with --task)")
    p.add_argument("--task", default="", help="comma-separated tasks of a suite spec (default: the spec itself)")
    p.add_argument("--runs", required=True, help="comma-separated runs, <variant>-seed<seed>")
    p.add_argument("--out", default="runs/run_phases", help="folder for the runs and run_phases.json")
    args = p.parse_args()
    impls = dict(i.split("=", 1) for i in args.impl)
    order = list(impls) + list(reversed(impls)) if len(impls) > 1 else list(impls)
    out = pathlib.Path(args.out)
    legs = []
    for task in args.task.split(",") if args.task else [""]:
        for run in args.runs.split(","):
            for leg, name in enumerate(order):
                t = timed_run(impls[name], args.spec, task, run, out / f"{name}-{leg}")
                legs.append({"impl": name, "task": task, "run": run, **t})
                print(f"{task or '-':12} {run:16} {name:8} total {t['total']:6.2f} s  " +
                      "  ".join(f"{k} {v:.2f}" for k, v in t["phases"].items()), flush=True)
    sums = {}
    for name in impls:
        mine = [leg for leg in legs if leg["impl"] == name]
        share = len(mine) / len({(leg["task"], leg["run"]) for leg in mine})  # legs per run
        sums[name] = {k: sum(leg["phases"][k] for leg in mine) / share for k in PHASES}
        total = sum(sums[name].values())
        print(f"{name}: {total:.1f} s over the runs; " +
              ", ".join(f"{k} {v:.1f} s ({100 * v / total:.1f}%)" for k, v in sums[name].items()))
    (out / "run_phases.json").write_text(json.dumps({"spec": args.spec, "impls": impls, "legs": legs,
                                                     "summed": sums}, indent=1))
    print(f"written: {out / 'run_phases.json'}")


if __name__ == "__main__":
    main()
