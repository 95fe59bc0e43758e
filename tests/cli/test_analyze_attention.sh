#!/usr/bin/env bash
# Usage: test_analyze_attention.sh path/to/rotor
# `rotor analyze attention` and `analyze offsets` (issue 37) on tiny trained
# runs, a classifier (ALiBi, a [CLS] slot) and a causal language model (RoPE,
# bf16): their files, the numbers' invariants, and the refusals that name the
# option and its valid range.
set -uo pipefail
rotor=$1
source "$(dirname "$0")/../check.sh"
scratch_workdir analyze
two_class_corpus
common='run: {progress: none, threads: 1}
data: {train_path: corpus, val_path: corpus, test_path: corpus, max_len: 16, batch_size: 4, tokenizer: byte}'
printf '%s\nmodel: {d_model: 16, layers: 2, heads: 2, d_ff: 32, pooling: cls, position: {type: alibi}}\n%s\n' \
  "$common" 'train: {max_steps: 4, eval_every: 2}' > cls.yaml
printf '%s\nmodel: {d_model: 16, layers: 1, heads: 2, d_ff: 32, position: {type: rope}}\n%s\n' \
  "$common" 'train: {objective: clm, max_steps: 4, eval_every: 2}' > clm.yaml
"$rotor" train cls.yaml --out runs/cls > cls.log 2>&1
check "train the classifier" test $? -eq 0
"$rotor" train clm.yaml --out runs/clm --set run.precision=bf16 > clm.log 2>&1
check "train the causal language model" test $? -eq 0

"$rotor" analyze attention runs/cls --input "red green" --layer 1 > att.log 2>&1
check "analyze attention --input exits 0" test $? -eq 0
for f in attention.json attention_L1_H0.png attention_L1_H1.svg; do
  check "RUN/analysis/$f written" test -s "runs/cls/analysis/$f"
done
check "one map per head of layer 1, [CLS] then the tokens on the axes, rows summing to 1" python3 -c '
import json, sys
d = json.load(open("runs/cls/analysis/attention.json"))
assert [(m["layer"], m["head"]) for m in d["maps"]] == [(1, 0), (1, 1)], d["maps"]
assert d["tokens"] == ["[CLS]"] + list("red green"), d["tokens"]
for m in d["maps"]:
    assert len(m["probabilities"]) == 10 and len(m["top_keys"]) == 10
    assert all(abs(sum(r) - 1) < 1e-5 for r in m["probabilities"])'

"$rotor" analyze attention runs/clm --doc 2 --max-len 12 --out clm-att > clm-att.log 2>&1
check "analyze attention --doc on the language model exits 0" test $? -eq 0
check "causal: no query attends a later key" python3 -c '
import json
d = json.load(open("clm-att/attention.json"))
assert d["precision"] == "bf16" and d["length"] == 12, (d["precision"], d["length"])
for m in d["maps"]:
    p = m["probabilities"]
    assert all(p[i][j] == 0 for i in range(12) for j in range(i + 1, 12))'

for run in cls clm; do
  "$rotor" analyze offsets "runs/$run" --out "off-$run" > "off-$run.log" 2>&1
  check "analyze offsets $run exits 0" test $? -eq 0
  check "analyze offsets $run: a plot per layer" test -s "off-$run/offsets_L0.png"
  check "analyze offsets $run prints each head's mean distance" grep -q "layer 0 head 1: " "off-$run.log"
done
check "profiles sum to 1; the causal model has no mass after the query" python3 -c '
import json
for run in ("cls", "clm"):
    d = json.load(open(f"off-{run}/offsets.json"))
    for layer in d["layers"]:
        for h in layer["heads"]:
            assert abs(sum(h["profile"]) - 1) < 1e-5, (run, sum(h["profile"]))
            if run == "clm":
                assert all(m == 0 for m in h["profile"][d["max_offset"] + 1:])'

# Refusals: the option, what was given and the valid range; nothing written.
refused() {  # refused NAME MESSAGE ARGS...
  local name=$1 message=$2
  shift 2
  "$rotor" analyze "$@" --out refused > refused.log 2>&1
  check "$name: exit 1" test $? -eq 1
  check "$name: says '$message'" grep -qF -- "$message" refused.log
  check "$name: writes nothing" test ! -e refused
}
"$rotor" analyze offsets runs/cls --out cls.yaml > file.log 2>&1
check "--out naming a file: exit 1" test $? -eq 1
check "--out naming a file: says so" grep -qF -- "--out cls.yaml is a file, not a folder" file.log
refused "layer out of range" "--layer 2 is out of range: the model has 2 layers (0..1)" \
  attention runs/cls --input red --layer 2
refused "head out of range" "--head 5 is out of range: the model has 2 heads (0..1)" \
  attention runs/cls --input red --head 5
refused "doc out of range" "--doc 24 is out of range: split val has 24 documents (0..23)" \
  attention runs/cls --doc 24
"$rotor" analyze attention runs/cls > none.log 2>&1
check "neither --input nor --doc: usage error" test $? -eq 2
check "neither --input nor --doc: says which" grep -qF "give --input TEXT or --doc N" none.log
"$rotor" analyze offsets runs/cls --query e --out q-cls > q.log 2>&1
check "--query e: exit 0" test $? -eq 0
check "--query e: says whose rows" grep -qF "from the queries that are 'e'" q.log
check "--query e: recorded in the JSON" python3 -c 'import json,sys; sys.exit(json.load(open("q-cls/offsets.json"))["query"] != "e")'
"$rotor" analyze offsets runs/cls --query ab > q2.log 2>&1
check "--query of two tokens: exit 1" test $? -eq 1
check "--query of two tokens: says so" grep -qF "tokenizer makes 2 tokens of it" q2.log

# A transduction run's encoder always read its input with the queries: --input must be such a sample, in the
# task's symbols; its offsets are over input and queries together.
cat > transduction.yaml <<'YAML'
run: {progress: none, threads: 1}
data: {task: reverse-string, train_size: 32, eval_size: 8, max_len: 16, batch_size: 4, generated: {min_len: 4, max_len: 8, test_lengths: [8]}}
model: {d_model: 16, layers: 1, heads: 2, d_ff: 32, position: {type: rope}}
train: {objective: transduction, max_steps: 2, eval_every: 0}
YAML
"$rotor" train transduction.yaml --out runs/transduction > transduction.log 2>&1
check "train the transduction model" test $? -eq 0
"$rotor" analyze attention runs/transduction --input "1 0 1" --out td > td.log 2>&1
check "transduction --input without queries: exit 1" test $? -eq 1
check "... names the queries it needs" grep -qF "a transduction run's encoder reads the input followed by one query '?' per output symbol, as it was trained; write them (e.g. '1 0 1 ? ? ?')" td.log
"$rotor" analyze attention runs/transduction --input "1 2 ? ?" --out td > td.log 2>&1
check "transduction --input with a symbol the task lacks: exit 1" test $? -eq 1
check "... says which" grep -qF "a symbol is not one of the run's task ([UNK] in '1 [UNK] ? ?')" td.log
"$rotor" analyze attention runs/transduction --input "1 0 1 ? ? ?" --out td > td.log 2>&1
check "transduction --input with its queries: maps 6 slots" grep -q "^attention of 6 slots" td.log
"$rotor" analyze offsets runs/transduction --windows 4 --query "?" --out td > td.log 2>&1
check "transduction offsets from the queries: exit 0" test $? -eq 0
check "... reaching back from the queries over the input (4 to 8 symbols) and the queries before them" python3 -c '
import json
d = json.load(open("td/offsets.json"))
assert d["query"] == "?", d["query"]
for head in d["layers"][0]["heads"]:
    seen = [o for o, m in zip(d["offsets"], head["profile"]) if m > 0]
    assert abs(sum(head["profile"]) - 1) < 1e-6 and -15 <= min(seen) <= -4 and max(seen) <= 7, (min(seen), max(seen))'
checks_passed
