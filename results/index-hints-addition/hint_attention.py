#!/usr/bin/env python3
"""How much an answer's hint attends to the operand digits of its own significance, by significance band.

For each document, `rotor analyze attention` recomputes the attention maps of a run's best checkpoint. In the answer
"h_s d_0 h_(s+1) d_1 ...", the hint h_(s+i) is the token that predicts digit i; this sums its attention over the
operand tokens of the same significance (the hint h_(s+i) and the digit after it, in both operands) among the query's
five strongest keys (so a lower bound of the whole mass). Each layer's row is one head, the one with the most such
mass over every answer position of every document, shown by band of 5 significances. A model that finds the digits
it adds by matching hints puts most of one head's attention there at every significance.

    results/index-hints-addition/hint_attention.py ROTOR RUN_DIR --split test_40 --docs 20
"""
import argparse
import collections
import json
import subprocess
import tempfile


def matching_masses(attention, masses):
    """Adds each answer hint's matching mass to masses[(layer, head, band)]."""
    tokens = attention["tokens"]
    answer = tokens.index("=")
    split = tokens.index("+")
    where = collections.defaultdict(list)  # hint -> operand token indices of that significance
    for t in range(answer):
        if t != split and tokens[t].startswith("h"):
            where[tokens[t]] += [t, t + 1]
    offset = int(tokens[answer + 1][1:])
    for m in attention["maps"]:
        for q in range(answer + 1, len(tokens), 2):  # the answer's hints
            if tokens[q] not in where:
                continue
            # top_keys: each query's five strongest keys, exact (the probability maps are pooled on long inputs)
            mass = sum(k["p"] for k in m["top_keys"][q] if k["key"] in where[tokens[q]])
            masses[(m["layer"], m["head"], (int(tokens[q][1:]) - offset) // 5)].append(mass)


def mean(values):
    return sum(values) / len(values)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("rotor")
    p.add_argument("run")
    p.add_argument("--split", default="test_40")
    p.add_argument("--docs", type=int, default=20)
    a = p.parse_args()
    masses = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as out:
        for doc in range(a.docs):
            subprocess.run([a.rotor, "analyze", "attention", a.run, "--split", a.split, "--doc", str(doc), "--out", out],
                           check=True, capture_output=True)
            with open(f"{out}/attention.json") as f:
                matching_masses(json.load(f), masses)
    bands = sorted({band for _, _, band in masses})
    print(f"{a.run.rstrip('/').split('/')[-1]} {a.split}, {a.docs} documents: each layer's head with the most "
          "attention on the operand tokens of the answer hint's own significance, mean over answer positions")
    print("layer\thead\t" + "\t".join(f"{5 * b}-{5 * b + 4}" for b in bands))
    for layer in sorted({layer for layer, _, _ in masses}):
        heads = {h for l, h, _ in masses if l == layer}
        best = max(heads, key=lambda h: mean([m for (l, hh, _), v in masses.items() if (l, hh) == (layer, h)
                                              for m in v]))
        cells = [f"{100 * mean(masses[(layer, best, b)]):.0f}%" if masses[(layer, best, b)] else "-" for b in bands]
        print(f"{layer}\t{best}\t" + "\t".join(cells))


if __name__ == "__main__":
    main()
