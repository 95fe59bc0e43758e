#!/usr/bin/python3
"""Self-consistency check of the golden files written by make_golden.py.

For every tests/data/golden/*.h5:
  1. rebuild the config from the root attributes and the model from /params
     (NOT from the seed), run forward + backward on /input, and compare with
     /output/logits, /output/loss and /grads;
  2. spot-check /grads against central finite differences of the loss
     (a few entries of every parameter tensor);
  3. check the stored params equal a fresh seeded initialisation (determinism).

    /usr/bin/python3 tools/golden/check_golden.py [--dir tests/data/golden]
"""
import argparse
import glob
import os
import sys

import torch

sys.dont_write_bytecode = True  # keep tools/golden free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_golden as mg  # noqa: E402

RTOL, ATOL = 1e-12, 1e-13      # rerun vs stored (should be ~bit-identical)
FD_H, FD_TOL = 1e-5, 1e-7      # finite-difference step and abs+rel tolerance


def loss_of(P, cfg, tokens, lengths, labels):
    return mg.model(P, cfg, tokens, lengths, labels)[1].item()


def check_file(path, fd_per_tensor=3):
    cfg, params, tokens, lengths, labels, logits, loss, grads = mg.read_h5(path)
    problems = []

    # the stored batch is the spec batch
    t0, l0, y0 = mg.make_batch()
    if not (torch.equal(tokens, t0) and torch.equal(lengths, l0) and torch.equal(labels, y0)):
        problems.append("input batch differs from spec")
    # parameter set is exactly the expected one
    expected = [n for n, _, _ in mg.param_specs(cfg)]
    if sorted(expected) != sorted(params) or sorted(params) != sorted(grads):
        problems.append("param/grad name set mismatch")

    # 1. rerun from stored params
    P = {k: v.clone().requires_grad_(True) for k, v in params.items()}
    lo, ls = mg.model(P, cfg, tokens, lengths, labels)
    ls.backward()
    if not torch.allclose(lo.detach(), logits, rtol=RTOL, atol=ATOL):
        problems.append("logits mismatch")
    if abs(ls.item() - loss) > ATOL + RTOL * abs(loss):
        problems.append("loss mismatch")
    worst_g = 0.0
    for k in params:
        d = (P[k].grad - grads[k]).abs().max().item()
        worst_g = max(worst_g, d)
        if not torch.allclose(P[k].grad, grads[k], rtol=RTOL, atol=ATOL):
            problems.append("grad mismatch " + k)

    # 2. central finite differences on a few entries per tensor
    g = torch.Generator().manual_seed(123)
    worst_fd, n_fd = 0.0, 0
    base = {k: v.clone() for k, v in params.items()}
    for k, v in params.items():
        flat_n = v.numel()
        # prefer entries with non-zero gradient (unused embedding rows have grad 0)
        nz = torch.nonzero(grads[k].reshape(-1)).reshape(-1)
        pool = nz if nz.numel() > 0 else torch.arange(flat_n)
        pick = pool[torch.randperm(pool.numel(), generator=g)[:fd_per_tensor]]
        for idx in pick.tolist():
            Pp = dict(base); Pm = dict(base)
            Pp[k] = v.clone().reshape(-1); Pp[k][idx] += FD_H; Pp[k] = Pp[k].reshape(v.shape)
            Pm[k] = v.clone().reshape(-1); Pm[k][idx] -= FD_H; Pm[k] = Pm[k].reshape(v.shape)
            fd = (loss_of(Pp, cfg, tokens, lengths, labels)
                  - loss_of(Pm, cfg, tokens, lengths, labels)) / (2 * FD_H)
            an = grads[k].reshape(-1)[idx].item()
            err = abs(fd - an) / (1.0 + abs(an))
            worst_fd = max(worst_fd, err)
            n_fd += 1
            if err > FD_TOL:
                problems.append("finite-diff mismatch %s[%d]: fd=%.3e an=%.3e" % (k, idx, fd, an))

    # 3. stored params == fresh seeded init
    fresh = mg.init_params(mg.make_config(cfg["variant"]), mg.variant_seed(cfg["variant"]))
    if any(not torch.equal(fresh[k], params[k]) for k in params):
        problems.append("stored params differ from seeded init")

    return problems, worst_g, worst_fd, n_fd, loss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="tests/data/golden")
    args = ap.parse_args()
    # make_golden's files only: the seq_* files of make_sequence_golden.py hold another layout
    files = [f for f in sorted(glob.glob(os.path.join(args.dir, "*.h5"))) if os.path.basename(f)[:-3] in mg.VARIANTS]
    if not files:
        raise SystemExit("no .h5 files in " + args.dir)
    missing = set(mg.VARIANTS) - {os.path.basename(f)[:-3] for f in files}
    failed = bool(missing)
    if missing:
        print("missing variants:", sorted(missing))
    for f in files:
        problems, wg, wfd, nfd, loss = check_file(f)
        status = "OK  " if not problems else "FAIL"
        print("%s %-24s loss=%.10f  max|grad rerun diff|=%.1e  fd(%d) max rel err=%.1e"
              % (status, os.path.basename(f), loss, wg, nfd, wfd))
        for p in problems:
            print("     ", p)
        failed |= bool(problems)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
