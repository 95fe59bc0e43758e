#!/usr/bin/env bash
# Usage: test_diagnostics.sh path/to/rotor
# rotor analyze bias and rotor generate on tiny trained runs (issue 37): the
# bias of every offset encoding printed and written as bias.json (with the
# plot when matplotlib is there), a refusal naming an encoding without a bias,
# generated text that a seed fixes at any thread count, greedy text, and a
# refusal of a classifier checkpoint; the causal bias of a completion run and
# the bidirectional one of a transduction run.
set -uo pipefail
rotor=$1
python=${ROTOR_PYTHON:-/usr/bin/python3}
dir=$(mktemp -d /tmp/rotor-diagnostics-XXXXXX)
trap 'rm -rf "$dir"' EXIT
source "$(dirname "$0")/../check.sh"

cat > "$dir/run.yaml" <<YAML
run: {progress: none, threads: 1}
model: {d_model: 16, layers: 2, heads: 2, d_ff: 32}
data: {task: listops-easy, train_size: 64, eval_size: 16, max_len: 16, batch_size: 8, data_dir: $dir/data}
train: {max_steps: 2, eval_every: 0, checkpoint_every: 2}
YAML

for encoding in alibi t5_bias kerple fire alibi_directional; do
  "$rotor" train "$dir/run.yaml" --out "$dir/$encoding" --set model.position.type=$encoding > /dev/null 2>&1
  "$rotor" analyze bias "$dir/$encoding" --out "$dir/$encoding-bias" > "$dir/$encoding.log" 2>&1
  check "$encoding: analyze bias exits 0" test $? -eq 0
  check "$encoding: names the encoding and lengths" grep -q "^$encoding bias, bidirectional model, training length 16, distances up to 64" "$dir/$encoding.log"
  check "$encoding: bias.json has both queries" "$python" -c "
import json, sys
d = json.load(open('$dir/$encoding-bias/bias.json'))
assert d['encoding'] == '$encoding' and d['training_length'] == 16 and d['max_distance'] == 64
q = d['layers'][0]['queries']
assert [r['query_position'] for r in q] == [15, 64] and q[1]['distances'] == list(range(-64, 65))
assert all(abs(sum(a) - 1) < 1e-9 for r in q for a in r['attention'])
assert len(d['layers']) == (2 if '$encoding' == 'fire' else 1)
"
done
if "$python" -c "import matplotlib" 2>/dev/null; then
  check "the plot is drawn" test -s "$dir/alibi-bias/bias.png" -a -s "$dir/alibi-bias/bias.svg"
fi

"$rotor" train "$dir/run.yaml" --out "$dir/rope" > /dev/null 2>&1
"$rotor" analyze bias "$dir/rope" > "$dir/rope.log" 2>&1
code=$?
check "rope: refused with exit 1 (got $code)" test "$code" -eq 1
check "rope: names the encoding and rope-decay" grep -q "^error: model.position.type 'rope' adds no bias to the attention logits.*rotor analyze rope-decay" "$dir/rope.log"

# --- generate on a causal LM with ALiBi (a bias, so analyze bias reads its causal form too).
"$rotor" train "$dir/run.yaml" --out "$dir/clm" --set train.objective=clm --set model.position.type=alibi > /dev/null 2>&1
"$rotor" analyze bias "$dir/clm" > "$dir/clm-bias.log" 2>&1
check "clm: analyze bias reads the causal bias" grep -q "^alibi bias, causal model" "$dir/clm-bias.log"
# Causality is the objective row's: a completion run (a causal decoder) reads the causal bias, a transduction
# run (an encoder reading input and queries together) the bidirectional one.
for objective in completion transduction; do
  "$rotor" train "$dir/run.yaml" --out "$dir/$objective" --set train.objective=$objective --set data.task=reverse \
    --set data.generated.min_len=2 --set data.generated.max_len=5 --set data.generated.test_lengths=[5] \
    --set model.position.type=alibi > /dev/null 2>&1
  "$rotor" analyze bias "$dir/$objective" > "$dir/$objective-bias.log" 2>&1
done
check "completion: analyze bias reads the causal bias" grep -q "^alibi bias, causal model" "$dir/completion-bias.log"
check "transduction: analyze bias reads the bidirectional bias" grep -q "^alibi bias, bidirectional model" "$dir/transduction-bias.log"
prompt="[MAX 2 3 ] [MIN"
OMP_NUM_THREADS=1 "$rotor" generate "$dir/clm" --prompt "$prompt" --max-new 40 --seed 3 > "$dir/one.txt" 2> "$dir/one.err"
check "generate exits 0" test $? -eq 0
OMP_NUM_THREADS=2 "$rotor" generate "$dir/clm" --prompt "$prompt" --max-new 40 --seed 3 > "$dir/two.txt" 2> /dev/null
check "generate: the same seed gives the same text at 1 and 2 threads" cmp -s "$dir/one.txt" "$dir/two.txt"
check "generate: says the window slides" grep -q "^window 16 tokens" "$dir/one.err"
"$rotor" generate "$dir/clm" --prompt "$prompt" --max-new 5 --temperature 0 > "$dir/greedy.txt" 2> /dev/null
check "generate: greedy text, one line" test "$(wc -l < "$dir/greedy.txt")" -ge 1
"$rotor" generate "$dir/alibi" --prompt "$prompt" > "$dir/classifier.log" 2>&1
code=$?
check "generate: a classifier refused with exit 1 (got $code)" test "$code" -eq 1
check "generate: says what it needs" grep -q "rotor generate needs a causal language model (train.objective clm or completion); this checkpoint's objective is classify" "$dir/classifier.log"
checks_passed
