#!/usr/bin/env bash
# Usage: test_analyze_frequencies.sh path/to/rotor
# rotor analyze frequencies on tiny trained runs (issue 37): a rope run's
# per-head summary and frequencies.json (pairs, norms, shares summing to 1,
# contributions summing to the mean logit), the plot when matplotlib is there,
# a causal p_rope run, and a refusal naming an encoding without rotations.
set -uo pipefail
rotor=$1
python=${ROTOR_PYTHON:-/usr/bin/python3}
dir=$(mktemp -d /tmp/rotor-frequencies-XXXXXX)
trap 'rm -rf "$dir"' EXIT
source "$(dirname "$0")/../check.sh"

cat > "$dir/run.yaml" <<YAML
run: {progress: none, threads: 1}
model: {d_model: 16, layers: 2, heads: 2, d_ff: 32}
data: {task: listops-easy, train_size: 64, eval_size: 16, max_len: 16, batch_size: 8, data_dir: $dir/data}
train: {max_steps: 2, eval_every: 0, checkpoint_every: 2}
YAML

"$rotor" train "$dir/run.yaml" --out "$dir/rope" --set model.position.type=rope > /dev/null 2>&1
"$rotor" analyze frequencies "$dir/rope" --windows 8 --out "$dir/rope-freq" > "$dir/rope.log" 2>&1
check "rope: analyze frequencies exits 0" test $? -eq 0
check "rope: says what it summarises" grep -q "^pairs carrying most of |q.k| over 8 windows of val (at most 16 tokens)" "$dir/rope.log"
check "rope: one line per layer and head" test "$(grep -c '^  layer [01] head [01]: pair' "$dir/rope.log")" -eq 4
check "rope: frequencies.json holds the numbers" "$python" -c "
import json
d = json.load(open('$dir/rope-freq/frequencies.json'))
assert d['position'] == 'rope' and d['layout'] == 'interleaved' and d['windows'] == 8
assert [p['dims'] for p in d['pairs']] == [[0, 1], [2, 3], [4, 5], [6, 7]]
assert d['pairs'][0]['frequency'] == 1.0 and d['pairs'][1]['frequency'] < 1.0
for layer in d['layers']:
    for h in layer['heads']:
        assert abs(sum(h['mean_abs_share']) - 1) < 1e-9
        assert abs(sum(h['mean_contribution']) - h['mean_logit']) < 1e-9
        assert all(n > 0 for n in h['q_norm'] + h['k_norm'])
"
if "$python" -c "import matplotlib" 2>/dev/null; then
  check "rope: one plot per layer" test -s "$dir/rope-freq/frequencies_L0.png" -a -s "$dir/rope-freq/frequencies_L1.svg"
fi

"$rotor" train "$dir/run.yaml" --out "$dir/prope" --set train.objective=clm --set model.position.type=p_rope \
  --set model.position.layout=half > /dev/null 2>&1
"$rotor" analyze frequencies "$dir/prope" --windows 4 --out "$dir/prope-freq" > "$dir/prope.log" 2>&1
check "p_rope clm: analyze frequencies exits 0" test $? -eq 0
check "p_rope clm: half pairs, the slowest unrotated" "$python" -c "
import json
d = json.load(open('$dir/prope-freq/frequencies.json'))
assert d['layout'] == 'half' and [p['dims'] for p in d['pairs']] == [[0, 4], [1, 5], [2, 6], [3, 7]]
assert d['pairs'][2]['frequency'] > 0 and d['pairs'][3]['frequency'] == 0
"

"$rotor" train "$dir/run.yaml" --out "$dir/alibi" --set model.position.type=alibi > /dev/null 2>&1
"$rotor" analyze frequencies "$dir/alibi" > "$dir/alibi.log" 2>&1
code=$?
check "alibi: refused with exit 1 (got $code)" test "$code" -eq 1
check "alibi: names the encoding and the rotary ones" grep -q "^error: model.position.type: alibi does not rotate q and k.*(rope, xpos or p_rope)" "$dir/alibi.log"
checks_passed
