#!/usr/bin/env python3
"""How much an answer's hint attends to the operand digits of its own significance, by significance band.

For each document, `rotor analyze attention` recomputes the attention maps of a run's best checkpoint. In the answer
"h_s d_0 h_(s+1) d_1 ...", the hint h_(s+i) is the token that predicts digit i; this sums its attention over the
operand tokens of the same significance (the hint h_(s+i) and the digit after it, in both operands) among the query's
five strongest keys (so a lower bound of the whole mass), takes the head of
each layer with the most such mass, and averages over answer positions in bands of 5 significances. A model that finds
the digits it adds by matching hints puts most of one head's attention there.

    results/index-hints-addition/hint_attention.py ROTOR RUN_DIR --split test_40 --docs 20
"""
import argparse
import collections
import json
import subprocess
import tempfile


def matching_mass(attention):
    tokens = attention["tokens"]
    answer = tokens.index("=")
    split = tokens.index("+")
    where = collections.defaultdict(list)  # hint -> operand token indices of that significance
    for t in range(answer):
        if t != split and tokens[t].startswith("h"):
            where[tokens[t]] += [t, t + 1]
    first = tokens[answer + 1]
    offset = int(first[1:])
    out = collections.defaultdict(lambda: collections.defaultdict(list))  # layer -> band -> masses
    for m in attention["maps"]:
        for q in range(answer + 1, len(tokens), 2):  # the answer's hints
            if not tokens[q].startswith("h") or tokens[q] not in where:
                continue
            # top_keys: each query's five strongest keys, exact (the probability maps are pooled on long inputs)
            mass = sum(k["p"] for k in m["top_keys"][q] if k["key"] in where[tokens[q]])
            out[m["layer"]][(int(tokens[q][1:]) - offset) // 5].append((m["head"], q, mass))
    result = {}
    for layer, bands in out.items():
        for band, cells in bands.items():
            per_head = collections.defaultdict(list)
            for head, _, mass in cells:
                per_head[head].append(mass)
            result[(layer, band)] = max(sum(v) / len(v) for v in per_head.values())
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("rotor")
    p.add_argument("run")
    p.add_argument("--split", default="test_40")
    p.add_argument("--docs", type=int, default=20)
    a = p.parse_args()
    sums = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as out:
        for doc in range(a.docs):
            subprocess.run([a.rotor, "analyze", "attention", a.run, "--split", a.split, "--doc", str(doc), "--out", out],
                           check=True, capture_output=True)
            with open(f"{out}/attention.json") as f:
                for key, mass in matching_mass(json.load(f)).items():
                    sums[key].append(mass)
    layers = sorted({layer for layer, _ in sums})
    bands = sorted({band for _, band in sums})
    print(f"{a.run.rstrip('/').split('/')[-1]} {a.split}, {a.docs} documents: the best head's attention on the "
          "operand tokens of the answer hint's own significance, mean over answer positions")
    print("layer\t" + "\t".join(f"{5 * b}-{5 * b + 4}" for b in bands))
    for layer in layers:
        print(f"{layer}\t" + "\t".join(f"{100 * sum(sums[(layer, b)]) / len(sums[(layer, b)]):.0f}%"
                                       if sums[(layer, b)] else "-" for b in bands))


if __name__ == "__main__":
    main()
