#!/usr/bin/python3
"""Scaling estimate for data-parallel rotor on 8-64 machines, from a
bench/mpi_scaling.sh result (bench/results/mpi-<date>.json).

Per step, each machine computes its share of the batch and then sums the
float32 gradient; a ring all-reduce moves 2 (N-1)/N x gradient bytes per
machine (rotor's reduce-scatter + all-gather moves the same), plus a latency
of about 2 (N-1) messages x ALPHA. Two regimes:
  weak:   each machine keeps the measured per-step batch (global batch grows
          with N): compute per step stays T1, the measured 1-rank step time;
  strong: the global batch stays the measured one (16 windows): compute is
          T1 x ceil(B / N) / B, and N cannot usefully exceed B.
Efficiency = compute / (compute + communication), i.e. with no overlap; the
overlap hides up to the backward pass (about 2/3 of compute) of it.

Usage: bench/mpi_scaling_estimate.py RESULT.json [ALPHA_US]
"""
import json
import math
import sys

result = json.load(open(sys.argv[1]))
alpha = float(sys.argv[2]) * 1e-6 if len(sys.argv) > 2 else 50e-6  # TCP message latency
one = result["runs"][0]
t1 = one["step_s"]
grad_bytes = 4 * one["parameters"]
batch = 16
print(f"T1 = {t1:.2f} s per step (1 rank, 1 thread, measured), gradient = {grad_bytes / 1e6:.2f} MB, "
      f"latency {alpha * 1e6:.0f} us per message")
print(f"{'N':>3s} {'link':>9s} {'comm ms':>8s} {'weak: eff':>10s} {'strong: step s':>15s} {'eff':>6s}")
for n in (8, 16, 32, 64):
    for gbit in (10, 100):
        comm = 2 * (n - 1) / n * grad_bytes * 8 / (gbit * 1e9) + 2 * (n - 1) * alpha
        weak = t1 / (t1 + comm)
        strong_compute = t1 * math.ceil(batch / n) / batch
        strong = (t1 / n) / (strong_compute + comm)  # against perfect T1 / N
        print(f"{n:3d} {gbit:6d} Gb {1e3 * comm:8.1f} {100 * weak:9.1f}% {strong_compute + comm:15.3f} {100 * strong:5.1f}%")
