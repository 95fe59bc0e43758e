#!/usr/bin/python3
"""Runs rotor's training-step (or inference) bench and the PyTorch peer alternately, in one run.

    /usr/bin/python3 bench/run_train_bench.py --configs S-rope,L-t5_bias --threads 1,2 --precision fp32,bf16 \
        --reps 3 --steps 10
    /usr/bin/python3 bench/run_train_bench.py --mode infer --configs S-rope,4k-rope --threads 1,2 --reps 3

For every repetition, config, precision and thread count, each implementation runs once (the
order rotates every repetition), pinned with taskset to the first `threads` CPUs. The machine
probe (pure FMA loop and the engine GEMM at 1 and 2 threads) runs once per repetition too.
Prints a table of medians over repetitions, each implementation's speed ÷ PyTorch's at
PyTorch's best thread count (and best variant) in this run, in the same precision and in
any precision, minor page faults per timed step and peak RSS; writes everything (every
sample) to bench/results/<mode>-<UTC time>.json.

`--mode train` times training steps; `--mode infer` times forward passes as an evaluation
runs them (rotor: NoGradGuard, no dropout; PyTorch: model.eval(), torch.no_grad()).
`--precision fp32,bf16` interleaves both: rotor under a PrecisionScope, PyTorch under
torch.autocast("cpu", dtype=torch.bfloat16).

The PyTorch peer runs at its best: tcmalloc preloaded (LD_PRELOAD of
/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4; PyTorch allocates a fresh tensor per op,
and glibc malloc hands large ones back as fresh mmap pages that fault on every step). Its
allocator is --torch-allocator (default tcmalloc; glibc to compare). rotor's is the one it
was linked with (tcmalloc, or tuned glibc malloc in a -DROTOR_TCMALLOC=OFF build);
--rotor-allocator tcmalloc preloads tcmalloc for the other implementations too (an older
build, say). Every sample records the allocator and OpenBLAS core its process actually
mapped and the OPENBLAS_CORETYPE it saw.

Implementations are `--impl LABEL=COMMAND` (repeatable; COMMAND is split like a shell
line and gets CONFIG --steps --warmup --threads appended, and --precision, --mode and --vocab
unless fp32, train and the default); labels
starting with "torch" are PyTorch. Default: rotor=build/bench/bench_train_step and
torch=the peer. Variants compare in one run, e.g. an older build, or a different OpenBLAS core:
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
TCMALLOC = "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4"


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", choices=("train", "infer"), default="train",
                    help="train: whole training steps; infer: forward passes as an evaluation runs them")
    ap.add_argument("--configs", default="", help="names in bench/configs or YAML paths, comma-separated "
                    "(default S-rope,S-t5_bias to train, S-rope,4k-rope to infer)")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--precision", default="fp32", help="fp32, bf16 or both, comma-separated")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--steps", type=int, default=10, help="timed steps per command")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--vocab", type=int, default=0,
                    help="token ids of every command (a language model's output layer scales with it); "
                    "0: the benches' default, the byte tokenizer's 260")
    ap.add_argument("--impl", action="append", default=[], metavar="LABEL=COMMAND",
                    help="an implementation to time (repeatable); see above")
    ap.add_argument("--torch-allocator", choices=("tcmalloc", "glibc"), default="tcmalloc",
                    help="malloc for the torch* implementations (default tcmalloc, preloaded)")
    ap.add_argument("--rotor-allocator", choices=("linked", "tcmalloc"), default="linked",
                    help="malloc for the other implementations: the one each binary links (default), "
                    "or tcmalloc preloaded")
    ap.add_argument("--probe", default=os.path.join(ROOT, "build", "bench", "bench_peak_probe"),
                    help="bench_peak_probe command (split like a shell line); '' to skip")
    ap.add_argument("--no-pin", action="store_true", help="do not taskset to the first N CPUs")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per command")
    ap.add_argument("--out", default="", help="JSON file (default bench/results/<mode>-<UTC time>.json)")
    a = ap.parse_args()
    a.configs = (a.configs or ("S-rope,S-t5_bias" if a.mode == "train" else "S-rope,4k-rope")).split(",")
    a.threads = [int(t) for t in a.threads.split(",")]
    a.precision = a.precision.split(",")
    bad = [p for p in a.precision if p not in ("fp32", "bf16")]
    if bad:
        ap.error(f"--precision: expected fp32 and/or bf16, got {','.join(bad)}")
    return a


def implementations(a):
    """[(label, command, allocator, environment)] from --impl (or the defaults) and the allocator flags."""
    specs = a.impl or ["rotor=" + os.path.join(ROOT, "build", "bench", "bench_train_step"),
                       "torch=/usr/bin/python3 " + os.path.join(HERE, "torch_train_step.py")]
    impls = []
    for spec in specs:
        label, cmd = spec.split("=", 1)
        allocator = a.torch_allocator if label.startswith("torch") else a.rotor_allocator
        env = dict(os.environ)
        if allocator == "tcmalloc":
            if not os.path.exists(TCMALLOC):
                sys.exit(f"run_train_bench.py: {TCMALLOC} not found, needed to preload tcmalloc for '{label}': "
                         "apt-get install libtcmalloc-minimal4, or pass --torch-allocator glibc "
                         "(or leave --rotor-allocator at linked)")
            env["LD_PRELOAD"] = " ".join(filter(None, [TCMALLOC, env.get("LD_PRELOAD")]))
        impls.append((label, shlex.split(cmd), allocator, env))
    return impls


def config_path(name):
    return name if name.endswith(".yaml") else os.path.join(HERE, "configs", name + ".yaml")


def run_json(cmd, timeout, pin, env=None):
    """Runs one bench command; returns its JSON line, or {'error': why}."""
    if pin:
        cmd = ["taskset", "-c", pin] + cmd
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout} s"}
    sys.stderr.write(p.stderr[-2000:])
    if p.returncode != 0:
        return {"error": f"exit {p.returncode} (signal {-p.returncode})" if p.returncode < 0
                else f"exit {p.returncode}: {p.stderr.strip()[-300:]}"}
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    return [json.loads(l) for l in lines] if len(lines) > 1 else json.loads(lines[-1])


def extra_flags(precision, mode, vocab):
    """--precision, --mode and --vocab when not the defaults, so builds older than those flags still run fp32
    training."""
    return ((["--precision", precision] if precision != "fp32" else []) +
            (["--mode", mode] if mode != "train" else []) + (["--vocab", str(vocab)] if vocab else []))


def run_samples(run, a, impls):
    """Every repetition: the probe, then each (config, precision, threads) cell with the impls in rotated order."""
    for rep in range(a.reps):
        if a.probe:
            out = run_json(shlex.split(a.probe) + ["--threads", ",".join(map(str, a.threads))], a.timeout,
                           None if a.no_pin else f"0-{max(a.threads) - 1}")
            for o in out if isinstance(out, list) else [out]:
                run["probe"].append(dict(o, rep=rep))
        for c in a.configs:
            for prec in a.precision:
                for t in a.threads:
                    for label, cmd, _, env in impls[rep % len(impls):] + impls[:rep % len(impls)]:
                        full = cmd + [config_path(c), "--steps", str(a.steps), "--warmup", str(a.warmup),
                                      "--threads", str(t)] + extra_flags(prec, a.mode, a.vocab)
                        r = run_json(full, a.timeout, None if a.no_pin else ",".join(str(i) for i in range(t)), env)
                        r.update(impl=label, config_name=c, precision=prec, threads=t, rep=rep,
                                 load=os.getloadavg()[0])
                        run["samples"].append(r)
                        print(f"rep {rep} {c} {prec} {label} {t}t: " +
                              (f"{r['median_s']:.3f} s/step, {r['peak_rss_mib']:.0f} MiB, "
                               f"{r.get('minflt_per_step', float('nan')):.0f} faults/step" if "median_s" in r else r["error"]),
                              file=sys.stderr, flush=True)


def main():
    a = parse_args()
    impls = implementations(a)
    started = datetime.datetime.utcnow()
    run = dict(started=started.isoformat(timespec="seconds") + "Z", load_start=os.getloadavg(), mode=a.mode,
               threads=a.threads, precisions=a.precision, vocab=a.vocab or 260, steps=a.steps, warmup=a.warmup, reps=a.reps,
               impls={label: dict(command=" ".join(cmd), allocator=alloc, ld_preload=env.get("LD_PRELOAD"))
                      for label, cmd, alloc, env in impls},
               openblas_coretype_env=os.environ.get("OPENBLAS_CORETYPE"), samples=[], probe=[])
    run_samples(run, a, impls)
    run["load_end"] = os.getloadavg()
    run["summary"] = summarize(run, a.configs, [i[0] for i in impls])
    print_table(run)
    out = a.out or os.path.join(HERE, "results", f"{a.mode}-{started.strftime('%Y-%m-%dT%H%M')}.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(run, f, indent=1)
    print(f"\nwrote {out}")


def cell_summary(ok, errs):
    """Medians over repetitions of one (config, precision, impl, threads) cell."""
    if not ok:
        return dict(errors=errs)
    med = lambda key: statistics.median(s[key] for s in ok)
    return dict(median_s=med("median_s"), runs=[s["median_s"] for s in ok], tokens_per_s=med("tokens_per_s"),
                gflops=med("gflops"), minflt_per_step=statistics.median(s.get("minflt_per_step", float("nan")) for s in ok),
                peak_rss_mib=max(s["peak_rss_mib"] for s in ok),
                allocator="/".join(sorted({s.get("allocator", "?") for s in ok})), errors=errs)


def summarize(run, configs, impls):
    """Cells per (config, precision, impl, threads); ratios vs torch's best time, same precision and any."""
    rows = []
    for c in configs:
        cells = {}
        for prec in run["precisions"]:
            for label in impls:
                for t in run["threads"]:
                    mine = [s for s in run["samples"] if (s["config_name"], s["precision"], s["impl"], s["threads"])
                            == (c, prec, label, t)]
                    cells[(prec, label, t)] = cell_summary([s for s in mine if "median_s" in s],
                                                           [s["error"] for s in mine if "error" in s])
        torch = {k: v["median_s"] for k, v in cells.items() if k[1].startswith("torch") and "median_s" in v}
        for (prec, label, t), v in cells.items():
            same = [s for k, s in torch.items() if k[0] == prec]
            if "median_s" in v and same:
                v["speed_vs_torch_best"] = min(same) / v["median_s"]
            if "median_s" in v and torch:
                v["speed_vs_torch_best_any_precision"] = min(torch.values()) / v["median_s"]
            rows.append(dict(config=c, precision=prec, impl=label, threads=t, **v))
    probe = {}
    for p in run["probe"]:
        if "gflops" in p:
            probe.setdefault(f"{p['probe']} {p['threads']}t", []).append(p["gflops"])
    return dict(rows=rows, probe={k: statistics.median(v) for k, v in probe.items()}, probe_runs=probe)


def impl_lines(run):
    """One line per implementation: its command, the allocator asked for, and what its processes saw."""
    lines = []
    for label, spec in run["impls"].items():
        seen = [s for s in run["samples"] if s["impl"] == label and "median_s" in s]
        saw = lambda key: "/".join(sorted({str(s.get(key) or "unset") for s in seen})) or "?"
        lines.append(f"- {label} = `{spec['command']}`: allocator {spec['allocator']} (mapped: {saw('allocator')}), "
                     f"OPENBLAS_CORETYPE {saw('openblas_coretype_env')}, OpenBLAS core {saw('blas_core')}")
    return lines


def print_table(run):
    s = run["summary"]
    unit = "s/step" if run["mode"] == "train" else "s/forward"
    print(f"\n{run['mode']}: started {run['started']}, load average {run['load_start'][0]:.1f} at start, "
          f"{run['load_end'][0]:.1f} at end; {run['reps']} reps x {run['steps']} timed steps (+{run['warmup']} "
          f"warm-up)\n")
    print("\n".join(impl_lines(run)))
    print(f"\n| config | precision | impl | allocator | threads | {unit} (median) | per-rep medians | tokens/s | "
          "matmul GFLOP/s | ÷ torch best, same precision | ÷ torch best, any precision | minor faults/step | "
          "peak RSS MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in s["rows"]:
        head = f"| {r['config']} | {r['precision']} | {r['impl']} |"
        if "median_s" not in r:
            print(f"{head} | {r['threads']} | failed: {'; '.join(r['errors'])[:80]} | | | | | | | |")
            continue
        runs = ", ".join(f"{x:.2f}" for x in r["runs"])
        ratio = lambda key: f"{r[key]:.2f}" if key in r else "-"
        print(f"{head} {r['allocator']} | {r['threads']} | {r['median_s']:.3f} | {runs} | {r['tokens_per_s']:.0f} | "
              f"{r['gflops']:.1f} | {ratio('speed_vs_torch_best')} | {ratio('speed_vs_torch_best_any_precision')} | "
              f"{r['minflt_per_step']:.0f} | {r['peak_rss_mib']:.0f} |")
    if s["probe"]:
        print("\nmachine probe (median GFLOP/s over reps): " +
              ", ".join(f"{k} {v:.1f}" for k, v in sorted(s["probe"].items())))


if __name__ == "__main__":
    main()
