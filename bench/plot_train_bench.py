#!/usr/bin/python3
"""Plots step time against tokens per step from run_train_bench.py results.

    /usr/bin/python3 bench/plot_train_bench.py bench/results/train-*.json --out bench/results/step-time.png

One line per (implementation, precision, position encoding, threads) over the sequence lengths found
(S 512 .. XXL 32768), log-log, next to the attention FLOPs per step scaled to meet the
first point of the fastest line: a curve that stays under the FLOPs line grows no faster
than the attention work. Colour: implementation and encoding; line: solid fp32, dashed bf16;
marker: thread count. Failed runs (out of memory, timeout) are named in their line's label.
Results are run_train_bench.py's JSON ({"samples": [...]}) or JSON lines of samples.
"""
import argparse
import collections
import itertools
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def samples(path):
    """The samples of one results file: run_train_bench.py's JSON or JSON lines."""
    with open(path) as f:
        if path.endswith(".jsonl"):
            return [json.loads(line) for line in f if line.strip()]
        return json.load(f)["samples"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--out", default="step-time.png")
    ap.add_argument("--threads", default="", help="only these thread counts, e.g. 1 (default: all)")
    a = ap.parse_args()
    lines = collections.defaultdict(dict)  # (impl precision, position, threads) -> {tokens: median s}
    failed = collections.defaultdict(set)
    attention = {}
    for path in a.results:
        for s in samples(path):
            if a.threads and str(s["threads"]) not in a.threads.split(","):
                continue
            precision = s.get("precision", "fp32")  # runs before --precision were fp32
            position = s.get("position") or s["config"].rsplit("/", 1)[-1].split("-", 1)[-1].removesuffix(".yaml")
            key = (s["impl"], position, precision, s["threads"])
            if "median_s" not in s:
                failed[key].add(s.get("config_name", s["config"]))
                continue
            tokens = s["seq"]
            lines[key].setdefault(tokens, []).append(s["median_s"])
            attention[tokens] = s["attention_gflop"]
    fig, ax = plt.subplots(figsize=(8, 5.5))
    best_first = None
    families = sorted({key[:2] for key in lines})  # (impl, position): one colour each
    palette = plt.get_cmap("tab10" if len(families) <= 10 else "tab20")
    markers = dict(zip(sorted({key[3] for key in lines}), itertools.cycle("osD^v")))
    for key in sorted(lines):
        pts = sorted((n, sorted(v)[len(v) // 2]) for n, v in lines[key].items())
        xs, ys = zip(*pts)
        note = f" (failed: {', '.join(sorted(failed[key]))})" if failed.get(key) else ""
        ax.plot(xs, ys, color=palette(families.index(key[:2])), linestyle="--" if key[2] == "bf16" else "-",
                marker=markers[key[3]], label=f"{key[0]} {key[2]} {key[1]} {key[3]}t{note}")
        if best_first is None or ys[0] < best_first[1]:
            best_first = pts[0]
    if best_first and attention:
        ns = sorted(attention)
        scale = best_first[1] / attention[best_first[0]] if attention[best_first[0]] else 0
        ax.plot(ns, [attention[n] * scale for n in ns], "k--", label="attention FLOPs (scaled to the fastest first point)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("sequence length (S 512 x 16, L 2048 x 4, XL 8192 x 1, XXL 32768 x 1)")
    ax.set_ylabel("median s / training step")
    ax.set_title("Training step time against sequence length")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print(f"wrote {a.out}; failed: {dict((str(k), sorted(v)) for k, v in failed.items())}")


if __name__ == "__main__":
    main()
