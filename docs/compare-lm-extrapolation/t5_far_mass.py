#!/usr/bin/python3
"""How much attention T5's learned bias alone gives to keys past the training length.

    /usr/bin/python3 docs/compare-lm-extrapolation/t5_far_mass.py runs/compare/lm-extrapolation

For each t5-bias run of the study, the last query of a window of L bytes weights the key at distance d by
exp(table[bucket(d)]) before content is considered (T5's causal bucketing, as models/t5_relative_bias.cpp).
Prints the share of that weight on keys at distance >= the training length (128), per head.
"""
import math
import pathlib
import sys

import h5py
import numpy as np


def bucket(n, buckets=32, max_distance=128):
    exact = buckets // 2
    if n < exact:
        return n
    return min(buckets - 1, exact + int(math.log(n / exact) / math.log(max_distance / exact) * (buckets - exact)))


def main():
    study = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "runs/compare/lm-extrapolation")
    trained = 128
    for run in sorted(study.glob("runs/t5-bias-seed*")):
        best = run / "checkpoints" / (run / "checkpoints" / "best").read_text().strip()
        with h5py.File(best, "r") as f:
            table = np.array(f["model/position.t5_bias.weight"])  # [buckets, heads]
        for length in (256, 512, 1024, 4096):
            weight = np.exp(table[[bucket(d) for d in range(length)]])
            share = weight[trained:].sum(0) / weight.sum(0)
            print(f"{run.name} L={length}: share past {trained} per head {[round(float(s), 3) for s in share]}")
        print(f"{run.name} bias by bucket, head 0: {[round(float(b), 2) for b in table[:, 0]]}")


if __name__ == "__main__":
    main()
