#!/usr/bin/env python3
"""Golden files for rotor's two sequence-task objectives, written from the papers' set-ups.

train.objective transduction (Deletang et al. 2023, "Neural Networks and the Chomsky Hierarchy";
their experiments/utils.py make_model_with_empty_targets): a bidirectional encoder reads the
input followed by one empty query token per output symbol and predicts output[i] at the i-th
query; the loss is the cross entropy on those positions only, averaged over them.

train.objective completion (Kazemnejad et al. 2023, "The Impact of Positional Encoding on Length
Generalization in Transformers"): a causal decoder reads prompt, "=", answer; next-token cross
entropy on the answer tokens and the end mark "." only (the prompt is not scored), averaged.

Both on reverse-string (Deletang et al.: input over {0, 1}, output the input reversed), two
samples of different lengths in one padded batch, so the loss is the mean over the batch's
targeted positions (the authors' batches hold one length each, where the two means agree).
The model is rotor's language-model head on the tiny encoder of make_golden.py (imported from
there, checked there): transduction the masked head (BERT's transform, tied output),
completion the causal one. What this script adds, and checks, is the objective: which
positions read what and which predict what, and the loss over them.

Writes tests/data/golden/seq_transduction_rope.h5 and seq_completion_alibi.h5: make_golden's
attributes and /params, plus the string attribute `objective`, `symbols` (space-separated,
ids first_symbol_id, first_symbol_id + 1, ...) and the int64 `first_symbol_id`; /input/tokens
[B, N] (padded with 0), /input/lengths [B], /input/targets [B, N] (the token each position
must predict, -1 where none), /output/logits [B, N, V], /output/loss, /grads/<name>.

  /usr/bin/python3 tools/golden/make_sequence_golden.py --out tests/data/golden
  /usr/bin/python3 tools/golden/make_sequence_golden.py --check   # self-test + reload the files
"""
import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_golden as mg  # noqa: E402  (the model; float64 defaults set there)

NO_TARGET = -1
SYMBOLS = ["0", "1", "?", "=", "."]  # the task's alphabet, the query, the answer mark, the end mark
FIRST_SYMBOL_ID = 4                   # after rotor's PAD, CLS, SEP, UNK
SAMPLES = [("0 1 1", "1 1 0"), ("1 0 0 1 0", "0 1 0 0 1")]  # reverse-string: (input, output)
FILES = {
    "seq_transduction_rope": dict(objective="transduction", lm="masked", position_type="rope",
                                  rope_layout="half"),
    "seq_completion_alibi": dict(objective="completion", lm="causal", causal=1, position_type="alibi"),
}


def ids(symbols):
    return [FIRST_SYMBOL_ID + SYMBOLS.index(s) for s in symbols]


def transduction_sample(inp, out):
    """Deletang et al.: [input, empty tape of len(output)]; the i-th empty cell predicts output[i]."""
    tokens = ids(inp) + ids(["?"] * len(out))
    targets = [NO_TARGET] * len(inp) + ids(out)
    return tokens, targets


def completion_sample(inp, out):
    """Kazemnejad et al.: the sequence prompt = answer . read causally; position t predicts token t + 1,
    scored where token t + 1 belongs to the answer or is the end mark."""
    sequence = ids(inp) + ids(["="]) + ids(out) + ids(["."])
    tokens = sequence[:-1]
    targets = [sequence[t + 1] if t + 1 > len(inp) else NO_TARGET for t in range(len(tokens))]
    return tokens, targets


def make_batch(objective):
    rows = [(transduction_sample if objective == "transduction" else completion_sample)(i.split(), o.split())
            for i, o in SAMPLES]
    n = max(len(t) for t, _ in rows)
    tokens = torch.tensor([t + [0] * (n - len(t)) for t, _ in rows], dtype=torch.int64)
    targets = torch.tensor([g + [NO_TARGET] * (n - len(g)) for _, g in rows], dtype=torch.int64)
    lengths = torch.tensor([len(t) for t, _ in rows], dtype=torch.int64)
    return tokens, lengths, targets


def head_logits(P, cfg, tokens, lengths):
    """Every position's scores over the vocabulary (make_golden.lm_model's head, without its loss)."""
    h, _, _ = mg.encoder_hidden(P, cfg, tokens, lengths)
    if cfg["lm"] == "masked":
        h = mg.gelu(mg.linear(h, P["lm_head.transform.weight"], P["lm_head.transform.bias"]))
        h = mg.layer_norm(h, P["lm_head.norm.weight"], P["lm_head.norm.bias"], cfg["ln_eps"])
    return h @ P["embed.tokens.weight"].t() + P["lm_head.bias"]


def targeted_loss(logits, targets):
    """Mean over the targeted positions of -log softmax(logits)[target], written out."""
    scored = targets != NO_TARGET
    rows, wanted = logits[scored], targets[scored]
    return (torch.logsumexp(rows, dim=-1) - rows.gather(1, wanted[:, None])[:, 0]).mean()


def make_config(name):
    cfg = dict(mg.BASE)
    cfg.update(FILES[name])
    cfg["variant"] = name
    return cfg


def forward_backward(name):
    cfg = make_config(name)
    params = mg.init_params(cfg, mg.variant_seed(name))
    tokens, lengths, targets = make_batch(cfg["objective"])
    P = {k: v.detach().clone().requires_grad_(True) for k, v in params.items()}
    logits = head_logits(P, cfg, tokens, lengths)
    loss = targeted_loss(logits, targets)
    loss.backward()
    return cfg, params, (tokens, lengths, targets), logits.detach(), loss.detach(), {k: P[k].grad for k in P}


def self_test():
    ok = True

    def check(what, cond):
        nonlocal ok
        print("  [%s] %s" % ("ok" if cond else "FAIL", what))
        ok = ok and bool(cond)

    tokens, _, targets = make_batch("transduction")
    check("transduction: the queries predict the output, the input predicts nothing",
          targets[0].tolist()[:6] == [-1, -1, -1] + ids("1 1 0".split()) and tokens[0, 3:6].tolist() == ids("???"))
    tokens, _, targets = make_batch("completion")
    check("completion: '=' predicts the answer's first symbol, the last answer symbol the end mark",
          targets[0].tolist()[:7] == [-1, -1, -1] + ids("1 1 0 .".split()))
    for name in FILES:
        cfg, params, (tokens, lengths, targets), logits, loss, _ = forward_backward(name)
        flat = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                                                 ignore_index=NO_TARGET)
        check(name + ": the loss equals torch's cross_entropy with ignore_index", abs(flat - loss) < 1e-12)
        # The authors' form, one sample at a time (their batches hold one length): the mean over the
        # output slice (transduction: output[:, -len(output):]), weighted by its length.
        total = 0.0
        for b, (inp, out) in enumerate(SAMPLES):
            n = int(lengths[b])
            alone = head_logits(params, cfg, tokens[b:b + 1, :n], lengths[b:b + 1])[0]
            k = len(out.split()) + (1 if cfg["objective"] == "completion" else 0)
            total += torch.nn.functional.cross_entropy(alone[n - k:], targets[b, n - k:n], reduction="sum")
        check(name + ": the padded batch's loss is the per-sample slices' mean", abs(total / (targets != -1).sum()
                                                                                    - loss) < 1e-12)
        if cfg["lm"] == "causal":
            changed = tokens.clone()
            changed[0, 4] = ids(["0"])[0] if tokens[0, 4] != ids(["0"])[0] else ids(["1"])[0]
            after = head_logits(params, cfg, changed, lengths)
            check(name + ": positions before a changed answer token keep their scores (causal)",
                  torch.equal(after[0, :4], logits[0, :4]) and not torch.equal(after[0, 4:], logits[0, 4:]))
    return ok


def write(path, name):
    import h5py
    cfg, params, (tokens, lengths, targets), logits, loss, grads = forward_backward(name)
    mg.write_h5(path, cfg, params, logits, loss, grads)
    with h5py.File(path, "a") as f:  # the objective's batch in place of make_golden's
        for key, value in (("tokens", tokens), ("lengths", lengths), ("targets", targets)):
            if "input/" + key in f:
                del f["input/" + key]
            f.create_dataset("input/" + key, data=value.numpy(), track_times=False)
        del f["input/labels"]
        for key, value in (("objective", cfg["objective"]), ("symbols", " ".join(SYMBOLS))):
            f.attrs.create(key, np.array(value.encode("ascii")))
        f.attrs.create("first_symbol_id", np.int64(FIRST_SYMBOL_ID))
    print("%-24s loss=%.12f" % (name, loss.item()))


def reload_and_compare(path, name):
    import h5py
    _, _, (tokens, _, targets), logits, loss, grads = forward_backward(name)
    with h5py.File(path, "r") as f:
        same = (np.array_equal(f["input/tokens"][()], tokens.numpy())
                and np.array_equal(f["input/targets"][()], targets.numpy())
                and np.allclose(f["output/logits"][()], logits.numpy(), rtol=0, atol=1e-12)
                and abs(float(f["output/loss"][()]) - loss.item()) < 1e-12
                and all(np.allclose(f["grads/" + k][()], g.numpy(), rtol=0, atol=1e-12) for k, g in grads.items()))
    print("  [%s] %s reproduces" % ("ok" if same else "FAIL", path))
    return same


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="tests/data/golden")
    ap.add_argument("--check", action="store_true", help="self-test and compare the files in --out; write nothing")
    args = ap.parse_args()
    print("self-test:")
    if not self_test():
        raise SystemExit("self-test FAILED")
    paths = {name: os.path.join(args.out, name + ".h5") for name in FILES}
    if args.check:
        if not all(reload_and_compare(p, n) for n, p in paths.items()):
            raise SystemExit("golden files differ")
        return
    for name, path in paths.items():
        write(path, name)


if __name__ == "__main__":
    main()
