#!/usr/bin/python3
"""Runs rotor's training-step bench and the PyTorch peer alternately, in one run.

    /usr/bin/python3 bench/run_train_bench.py --configs S-rope,L-t5_bias --threads 1,2 --reps 3 --steps 10

For every repetition, config and thread count, each implementation runs once (the order
rotates every repetition), pinned with taskset to the first `threads` CPUs. The machine
probe (pure FMA loop and the engine GEMM at 1 and 2 threads) runs once per repetition too.
Prints a table of medians over repetitions, each implementation's speed ÷ PyTorch's at
PyTorch's best thread count (and best variant) in this run, and peak RSS; writes
everything (every sample) to bench/results/train-<UTC time>.json.

Implementations are `--impl LABEL=COMMAND` (repeatable; COMMAND is split like a shell
line and gets CONFIG --steps --warmup --threads appended); labels starting with "torch"
are PyTorch. Default: rotor=build/bench/bench_train_step and torch=the peer. Variants
compare in one run, e.g. an older build, or a different OpenBLAS core:
  --impl before=/tmp/old/bench_train_step --impl "rotor=env -u OPENBLAS_CORETYPE build/bench/bench_train_step"
"""
import argparse
import datetime
import json
import os
import shlex
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def config_path(name):
    return name if name.endswith(".yaml") else os.path.join(HERE, "configs", name + ".yaml")


def run_json(cmd, timeout, pin):
    """Runs one bench command; returns its JSON line, or {'error': why}."""
    if pin:
        cmd = ["taskset", "-c", pin] + cmd
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout} s"}
    sys.stderr.write(p.stderr[-2000:])
    if p.returncode != 0:
        return {"error": f"exit {p.returncode} (signal {-p.returncode})" if p.returncode < 0
                else f"exit {p.returncode}: {p.stderr.strip()[-300:]}"}
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    return [json.loads(l) for l in lines] if len(lines) > 1 else json.loads(lines[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--configs", default="S-rope,S-t5_bias", help="names in bench/configs or YAML paths, comma-separated")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--steps", type=int, default=10, help="timed steps per command")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--impl", action="append", default=[], metavar="LABEL=COMMAND",
                    help="an implementation to time (repeatable); see above")
    ap.add_argument("--probe", default=os.path.join(ROOT, "build", "bench", "bench_peak_probe"),
                    help="bench_peak_probe command (split like a shell line); '' to skip")
    ap.add_argument("--no-pin", action="store_true", help="do not taskset to the first N CPUs")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per command")
    ap.add_argument("--out", default="", help="JSON file (default bench/results/train-<UTC time>.json)")
    a = ap.parse_args()

    specs = a.impl or ["rotor=" + os.path.join(ROOT, "build", "bench", "bench_train_step"),
                       "torch=/usr/bin/python3 " + os.path.join(HERE, "torch_train_step.py")]
    impls = [(spec.split("=", 1)[0], shlex.split(spec.split("=", 1)[1])) for spec in specs]
    threads = [int(t) for t in a.threads.split(",")]
    configs = a.configs.split(",")
    started = datetime.datetime.utcnow()
    run = dict(started=started.isoformat(timespec="seconds") + "Z", load_start=os.getloadavg(), threads=threads,
               steps=a.steps, warmup=a.warmup, reps=a.reps, impls={label: " ".join(cmd) for label, cmd in impls},
               openblas_coretype_env=os.environ.get("OPENBLAS_CORETYPE"), samples=[], probe=[])

    for rep in range(a.reps):
        if a.probe:
            out = run_json(shlex.split(a.probe) + ["--threads", a.threads], a.timeout, None if a.no_pin else f"0-{max(threads) - 1}")
            for o in out if isinstance(out, list) else [out]:
                run["probe"].append(dict(o, rep=rep))
        for c in configs:
            for t in threads:
                order = impls[rep % len(impls):] + impls[:rep % len(impls)]
                for label, cmd in order:
                    full = cmd + [config_path(c), "--steps", str(a.steps), "--warmup", str(a.warmup), "--threads", str(t)]
                    r = run_json(full, a.timeout, None if a.no_pin else ",".join(str(i) for i in range(t)))
                    r.update(impl=label, config_name=c, threads=t, rep=rep, load=os.getloadavg()[0])
                    run["samples"].append(r)
                    print(f"rep {rep} {c} {label} {t}t: " +
                          (f"{r['median_s']:.3f} s/step, {r['peak_rss_mib']:.0f} MiB" if "median_s" in r
                           else r["error"]), file=sys.stderr, flush=True)
    run["load_end"] = os.getloadavg()
    run["summary"] = summarize(run, configs, threads, [i[0] for i in impls])
    print_table(run, configs, threads, [i[0] for i in impls])
    out = a.out or os.path.join(HERE, "results", f"train-{started.strftime('%Y-%m-%dT%H%M')}.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(run, f, indent=1)
    print(f"\nwrote {out}")


def summarize(run, configs, threads, impls):
    """Median over repetitions per (config, impl, threads); ratios vs torch's best thread count."""
    rows = []
    for c in configs:
        cell = {}
        for label in impls:
            for t in threads:
                ok = [s for s in run["samples"] if s["config_name"] == c and s["impl"] == label and s["threads"] == t
                      and "median_s" in s]
                errs = [s["error"] for s in run["samples"] if s["config_name"] == c and s["impl"] == label
                        and s["threads"] == t and "error" in s]
                if ok:
                    cell[(label, t)] = dict(median_s=statistics.median(s["median_s"] for s in ok),
                                            runs=[s["median_s"] for s in ok],
                                            tokens_per_s=statistics.median(s["tokens_per_s"] for s in ok),
                                            gflops=statistics.median(s["gflops"] for s in ok),
                                            peak_rss_mib=max(s["peak_rss_mib"] for s in ok), errors=errs)
                else:
                    cell[(label, t)] = dict(errors=errs)
        torch_times = [v["median_s"] for (label, t), v in cell.items() if label.startswith("torch") and "median_s" in v]
        torch_best = min(torch_times) if torch_times else None
        for (label, t), v in cell.items():
            if torch_best and "median_s" in v:
                v["speed_vs_torch_best"] = torch_best / v["median_s"]
            rows.append(dict(config=c, impl=label, threads=t, **v))
    probe = {}
    for p in run["probe"]:
        if "gflops" in p:
            probe.setdefault(f"{p['probe']} {p['threads']}t", []).append(p["gflops"])
    return dict(rows=rows, probe={k: statistics.median(v) for k, v in probe.items()}, probe_runs=probe)


def print_table(run, configs, threads, impls):
    s = run["summary"]
    print(f"\nstarted {run['started']}, load average {run['load_start'][0]:.1f} at start, "
          f"{run['load_end'][0]:.1f} at end; {run['reps']} reps x {run['steps']} timed steps (+{run['warmup']} warm-up)")
    print("\nimplementations: " + "; ".join(f"{k} = `{v}`" for k, v in run["impls"].items()) +
          f"; OPENBLAS_CORETYPE in the environment: {run['openblas_coretype_env']}")
    print("\n| config | impl | threads | s/step (median) | per-rep medians | tokens/s | matmul GFLOP/s | "
          "speed ÷ torch best | peak RSS MiB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in s["rows"]:
        if "median_s" not in r:
            print(f"| {r['config']} | {r['impl']} | {r['threads']} | failed: {'; '.join(r['errors'])[:80]} | | | | | |")
            continue
        runs = ", ".join(f"{x:.2f}" for x in r["runs"])
        ratio = f"{r['speed_vs_torch_best']:.2f}" if "speed_vs_torch_best" in r else "-"
        print(f"| {r['config']} | {r['impl']} | {r['threads']} | {r['median_s']:.3f} | {runs} | {r['tokens_per_s']:.0f} | "
              f"{r['gflops']:.1f} | {ratio} | {r['peak_rss_mib']:.0f} |")
    if s["probe"]:
        print("\nmachine probe (median GFLOP/s over reps): " +
              ", ".join(f"{k} {v:.1f}" for k, v in sorted(s["probe"].items())))


if __name__ == "__main__":
    main()
