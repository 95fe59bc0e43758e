#!/usr/bin/python3
"""Two diagnostics of the lm-extrapolation study, from each run's best checkpoint and config.

    /usr/bin/python3 results/lm-extrapolation/bias_diagnostics.py runs/compare/lm-extrapolation

T5 (every t5-bias run): the last query of a window of L tokens weights the key at distance d by
exp(table[bucket(d)]) before content is considered, with T5's decoder buckets as the independent
reference (tools/golden/make_golden.py) computes them. Prints the share of that weight on keys at
least the training length back, per head.

FIRE (every fire run, per layer): the learned threshold L = |s| * initial_threshold and c, and the
distance d' at which a query at the end of a training window sees the same normalised input
psi(d') / psi(max(L, N - 1)) as a query at position 4095 sees for a key 10 tokens back,
psi(x) = log(|c| x + 1) (the FIRE paper's bias without its eps).
"""
import math
import pathlib
import sys

import h5py
import numpy as np
import torch
import yaml

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools" / "golden"))
from make_golden import t5_decoder_bucket  # noqa: E402


def best_checkpoint(run):
    folder = run / "checkpoints"
    return folder / (folder / "best").read_text().strip()


def t5(run, config, trained):
    position = config["model"]["position"]
    with h5py.File(best_checkpoint(run), "r") as f:
        table = np.array(f["model/position.t5_bias.weight"], dtype=np.float64)  # [buckets, heads]
    for length in (256, 512, 1024, 4096):
        rel = -torch.arange(length)  # key minus query: the keys before the last query
        buckets = t5_decoder_bucket(rel, position["num_buckets"], position["max_distance"]).numpy()
        weight = np.exp(table[buckets])
        share = weight[trained:].sum(0) / weight.sum(0)
        print(f"{run.name} L={length}: weight share at distance >= {trained}, per head: "
              f"{[round(float(s), 3) for s in share]}")


def fire(run, config, trained, far_query=4095, distance=10):
    initial = config["model"]["position"]["initial_threshold"]
    psi = lambda c, x: math.log(abs(c) * x + 1.0)
    with h5py.File(best_checkpoint(run), "r") as f:
        for layer in range(config["model"]["layers"]):
            pre = f"model/layers.{layer}.attn.fire."
            c, s = float(f[pre + "c"][0]), float(f[pre + "threshold_scale"][0])
            L = abs(s) * initial
            u = psi(c, distance) / psi(c, max(L, far_query))
            same = (math.exp(u * psi(c, max(L, trained - 1))) - 1.0) / abs(c)  # psi(d') = u * psi(max(L, N-1))
            print(f"{run.name} layer {layer}: c {c:.2f}, L {L:.0f} ({abs(s):.2f} x {initial}); a key {distance} back "
                  f"at position {far_query} looks like one {same:.1f} back at position {trained - 1}")


def main():
    study = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "runs/compare/lm-extrapolation")
    for run in sorted(study.glob("runs/*-seed*")):
        config = yaml.safe_load((run / "config.yaml").read_text())
        kind, trained = config["model"]["position"]["type"], config["data"]["max_len"]
        if kind == "t5_bias":
            t5(run, config, trained)
        elif kind == "fire":
            fire(run, config, trained)


if __name__ == "__main__":
    main()
