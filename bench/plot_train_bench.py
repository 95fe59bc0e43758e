#!/usr/bin/python3
"""Plots step time against tokens per step from run_train_bench.py results.

    /usr/bin/python3 bench/plot_train_bench.py bench/results/train-*.json --out bench/results/step-time.png

One line per (implementation and precision, position encoding, threads) over the sequence lengths found
(S 512 .. XXL 32768), log-log, next to the attention FLOPs per step scaled to meet the
first point of the fastest line: a curve that stays under the FLOPs line grows no faster
than the attention work. Failed runs (out of memory, timeout) are named in their line's label.
"""
import argparse
import collections
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


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
        with open(path) as f:
            run = json.load(f)
        for s in run["samples"]:
            if a.threads and str(s["threads"]) not in a.threads.split(","):
                continue
            impl = f"{s['impl']} {s.get('precision', 'fp32')}"  # runs before --precision were fp32
            key = (impl, s.get("position") or s["config_name"].split("-", 1)[-1], s["threads"])
            if "median_s" not in s:
                failed[key].add(s["config_name"])
                continue
            tokens = s["seq"]
            lines[key].setdefault(tokens, []).append(s["median_s"])
            attention[tokens] = s["attention_gflop"]
    fig, ax = plt.subplots(figsize=(8, 5.5))
    best_first = None
    for key in sorted(lines):
        pts = sorted((n, sorted(v)[len(v) // 2]) for n, v in lines[key].items())
        xs, ys = zip(*pts)
        note = f" (failed: {', '.join(sorted(failed[key]))})" if failed.get(key) else ""
        ax.plot(xs, ys, marker="o", label=f"{key[0]} {key[1]} {key[2]}t{note}")
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
