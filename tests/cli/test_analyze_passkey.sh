#!/usr/bin/env bash
# Usage: test_analyze_passkey.sh path/to/rotor
# `rotor analyze passkey` (issue 37) on tiny causal runs: the depth x length
# grid printed and written as passkey.json (with its heatmap when matplotlib
# is there), lengths beyond a rotary model's training length evaluated, those
# beyond a learned table n/a with the reason, and the refusals of a
# classifier, of a completion model (causal, but it reads no text), of a window too short for a trial and of a depth outside [0, 1].
set -uo pipefail
rotor=$1
python=${ROTOR_PYTHON:-/usr/bin/python3}
source "$(dirname "$0")/../check.sh"
scratch_workdir passkey
mkdir -p corpus
for i in $(seq 1 12); do echo "The grass is green. The pass key is 1234$i. Remember it." > "corpus/doc$i.txt"; done
cat > clm.yaml <<'YAML'
run: {progress: none, threads: 1}
data: {train_path: corpus, val_path: corpus, test_path: corpus, max_len: 32, batch_size: 4, tokenizer: byte}
model: {d_model: 16, layers: 1, heads: 2, d_ff: 32, position: {type: rope}}
train: {objective: clm, max_steps: 4, eval_every: 2}
YAML
"$rotor" train clm.yaml --out runs/rope > rope.log 2>&1
check "train the rotary causal model" test $? -eq 0
"$rotor" train clm.yaml --out runs/learned --set model.position.type=learned --set model.position.max_len=128 > learned.log 2>&1
check "train the learned-position causal model" test $? -eq 0
"$rotor" train clm.yaml --out runs/mlm --set train.objective=mlm > mlm.log 2>&1
check "train the masked language model" test $? -eq 0
cat > completion.yaml <<'YAML'
run: {progress: none, threads: 1}
data: {task: reverse, train_size: 32, eval_size: 8, max_len: 12, batch_size: 4, generated: {min_len: 2, max_len: 5, test_lengths: [5]}}
model: {d_model: 16, layers: 1, heads: 2, d_ff: 32, position: {type: rope}}
train: {objective: completion, max_steps: 2, eval_every: 0}
YAML
"$rotor" train completion.yaml --out runs/completion > completion.log 2>&1
check "train the completion model (a causal decoder of a task's symbols)" test $? -eq 0

"$rotor" analyze passkey runs/rope --lengths 128,256 --depths 0,0.5,1 --trials 3 --seed 4 > rope-pk.log 2>&1
check "analyze passkey exits 0" test $? -eq 0
check "prints the grid, a row per depth" grep -qE "^ +0\.5 +[0-9.]+ +[0-9.]+$" rope-pk.log
check "passkey.json: a cell per depth and length, 8x the training length evaluated" "$python" -c '
import json
d = json.load(open("runs/rope/analysis/passkey.json"))
assert d["lengths"] == [128, 256] and d["depths"] == [0, 0.5, 1] and d["trials"] == 3 and d["seed"] == 4, d
assert d["training_length"] == 32 and d["position"] == "rope" and d["unavailable"] == []
cells = d["cells"]
assert [(c["depth"], c["length"]) for c in cells] == [(x, n) for x in (0, 0.5, 1) for n in (128, 256)]
for c in cells:
    assert c["trials"] == 3 and 0 <= c["exact"] <= 3 and c["accuracy"] == c["exact"] / 3
    assert 0 <= c["token_accuracy"] <= 1 and 0 <= c["mean_depth"] <= 1
    assert c["depth"] not in (0, 1) or c["mean_depth"] == c["depth"]  # the filler start and end are boundaries'
if "$python" -c "import matplotlib" 2>/dev/null; then
  check "the heatmap is drawn" test -s runs/rope/analysis/passkey.png -a -s runs/rope/analysis/passkey.svg
fi
"$rotor" analyze passkey runs/rope --lengths 128 --depths 0,0.5,1 --trials 3 --seed 4 --out again > /dev/null 2>&1
check "the seed fixes the keys: the same numbers again" "$python" -c '
import json
a, b = json.load(open("runs/rope/analysis/passkey.json")), json.load(open("again/passkey.json"))
assert [c for c in a["cells"] if c["length"] == 128] == b["cells"]'

"$rotor" analyze passkey runs/learned --lengths 128,256 --depths 0.5 --trials 2 --out learned-pk > learned-pk.log 2>&1
check "learned positions: exits 0" test $? -eq 0
check "learned positions: 256 is n/a, with the reason" \
  grep -qF "n/a at 256 tokens: --lengths 256: windows of 256 tokens need 256 positions, but the learned position table has 128 rows" learned-pk.log
check "learned positions: 128 evaluated, 256 n/a in the JSON" "$python" -c '
import json
d = json.load(open("learned-pk/passkey.json"))
assert "accuracy" in d["cells"][0] and "accuracy" not in d["cells"][1], d["cells"]
assert [u["length"] for u in d["unavailable"]] == [256] and "128 rows" in d["unavailable"][0]["reason"]'
if "$python" -c "import matplotlib" 2>/dev/null; then
  check "learned positions: the heatmap is drawn with its n/a column" test -s learned-pk/passkey.png
fi

# Refusals: what was wrong and what was expected; nothing written.
refused() {  # refused NAME CODE MESSAGE ARGS...
  local name=$1 code=$2 message=$3
  shift 3
  "$rotor" analyze passkey "$@" --out refused > refused.log 2>&1
  check "$name: exit $code" test $? -eq "$code"
  check "$name: says '$message'" grep -qF -- "$message" refused.log
  check "$name: writes nothing" test ! -e refused
}
refused "a masked language model" 1 "rotor analyze passkey needs a causal language model (train.objective clm or completion); this checkpoint's objective is mlm" runs/mlm
refused "a completion model, which reads no text" 1 "rotor analyze passkey hides the key in English filler text, so it needs a causal language model trained on text (train.objective clm); this checkpoint's objective is completion, trained on data.task 'reverse' alone" runs/completion
refused "a window too short for a trial" 1 "--lengths 64: a passkey trial needs a window of at least 101 tokens" \
  runs/rope --lengths 128,64
refused "the default lengths of a short run" 1 "--lengths 32: a passkey trial needs a window of at least" runs/rope
refused "a depth beyond 1" 2 "--depths: Value 1.5 not in range 0.000000 to 1.000000" runs/rope --depths 0,1.5
checks_passed
