#!/usr/bin/env bash
# Usage: test_sequence_objectives.sh path/to/rotor
# train.objective transduction and completion end to end on reverse-string
# (issue 36): a tiny run of each trains, `rotor eval` prints its metrics,
# `rotor predict --split` prints every sample's output with the expected one
# and counts as right exactly the samples eval's sequence accuracy or exact
# match counts; a sequence task under another objective, and an objective
# without a sequence task, are refused naming data.task and train.objective.
set -uo pipefail
rotor=$1
python=${ROTOR_PYTHON:-/usr/bin/python3}
source "$(dirname "$0")/../check.sh"
plot_study=$(cd "$(dirname "$0")/../../tools" && pwd)/plot_study.py
scratch_workdir sequence-objectives

cat > run.yaml <<YAML
run: {progress: none, threads: 1, seed: 3}
model: {d_model: 32, layers: 2, heads: 4, d_ff: 64, dropout: 0.0, attention_dropout: 0.0, position: {type: rope}}
data:
  task: reverse-string
  train_size: 256
  eval_size: 32
  max_len: 18          # completion: 8 input symbols, "=", 8 answer symbols, the end mark's position
  eval_max_len: 22     # test_10 whole
  batch_size: 16
  generated: {min_len: 4, max_len: 8, test_lengths: [10]}
train: {lr: 3.0e-3, warmup_steps: 10, max_steps: 60, eval_every: 30}
YAML

for objective in transduction completion; do
  sample_metric=sequence_accuracy
  [ "$objective" = completion ] && sample_metric=exact_match
  "$rotor" train run.yaml --out "$objective" --set train.objective=$objective > "$objective.log" 2>&1
  check "$objective: trains" test $? -eq 0
  "$rotor" eval "$objective" --split test > "$objective-eval.log" 2>&1
  check "$objective: eval exits 0" test $? -eq 0
  check "$objective: eval prints its metrics" grep -q "token_accuracy\|token accuracy" "$objective-eval.log"
  check "$objective: eval prints $sample_metric" grep -q "$sample_metric\|${sample_metric//_/ }" "$objective-eval.log"
  "$rotor" predict "$objective" --split test_10 > "$objective-predict.jsonl" 2> "$objective-predict.log"
  check "$objective: predict exits 0" test $? -eq 0
  "$rotor" eval "$objective" --split test_10 > /dev/null 2>&1
  check "$objective: predict prints every sample, right as eval counts it" "$python" -c "
import glob, json
lines = [json.loads(l) for l in open('$objective-predict.jsonl')]
assert len(lines) == 32, len(lines)
assert all(set(l) == {'index', 'input', 'expected', 'predicted', 'right'} for l in lines)
assert all(l['expected'] == ' '.join(reversed(l['input'].split())) for l in lines)
assert all(l['right'] == (l['predicted'] == l['expected']) for l in lines)
record = json.load(open(glob.glob('$objective/eval-test_10*.json')[0]))
value = record['metrics']['$sample_metric'] if 'metrics' in record else record['$sample_metric']
assert abs(sum(l['right'] for l in lines) / len(lines) - value) < 1e-9, value
"
done

# rotor generate on a completion run answers a prompt of its task ("=" appended, greedy, up to the end mark):
# given predict's budget (the answer's length and the end mark) it prints what predict printed, for right and
# wrong samples alike. reverse (90 symbols) on inputs of 2 to 4, 800 steps (2 s): some samples right.
"$rotor" train run.yaml --out answerer --set train.objective=completion --set data.task=reverse \
  --set data.generated.min_len=2 --set data.generated.max_len=4 --set data.generated.test_lengths=[4] \
  --set data.max_len=10 --set data.eval_max_len=10 --set train.max_steps=800 --set train.eval_every=0 > answerer.log 2>&1
check "completion on reverse: trains" test $? -eq 0
"$rotor" predict answerer --split test > answerer-predict.jsonl 2> /dev/null
"$python" -c "
import json
for l in open('answerer-predict.jsonl'):
    l = json.loads(l)
    print(len(l['expected'].split()) + 1, l['input'], sep='\t', end='\t')
    print(l['predicted'], 'right' if l['right'] else 'wrong', sep='\t')" > answerer-cases.tsv
check "some of its test samples are right and some wrong" test "$(cut -f4 answerer-cases.tsv | sort -u | wc -l)" -eq 2
while IFS=$'\t' read -r budget input predicted right; do
  answer=$("$rotor" generate answerer --prompt "$input" --max-new "$budget" 2> generate.log)
  check "generate answers '$input' as predict does ($right: '$answer' vs '$predicted')" test "$answer" = "$predicted"
done < answerer-cases.tsv
check "generate shows the prompt with its answer mark" grep -q "^prompt: .* =$" generate.log
"$rotor" generate answerer --prompt "$input x" > /dev/null 2> unknown.log
check "generate: a symbol the task lacks is refused by name" grep -q "^error: --prompt: 'x' is not a symbol of the run's task" unknown.log
"$rotor" generate transduction --prompt "1 0" > /dev/null 2> transduction-generate.log
check "generate: a transduction run is refused, naming the causal objectives" \
  grep -q "needs a causal language model (train.objective clm or completion); this checkpoint's objective is transduction" transduction-generate.log

# A study over the task: its sweep scores every sample, and the statistics take each sample's right target
# tokens out of its target tokens (token accuracy, the papers' measure) per evaluation split.
sed 's/^train: {/train: {objective: transduction, /' run.yaml > base.yaml
printf 'base: base.yaml\nout_dir: study\nseeds: [1, 2]\nvariants: [rope, alibi]\nevaluation: {splits: [test, test_10]}\n' > study.yaml
"$rotor" compare study.yaml --jobs 2 > study.log 2>&1
check "a transduction study runs" test $? -eq 0
check "... with intervals per evaluation split" "$python" -c "
import json
sweep = json.load(open('study/runs/rope-seed1/length_sweep.json'))
cells = {c['split']: c for c in sweep['cells']}
assert set(cells) == {'test', 'test_10'}
for c in cells.values():
    assert len(c['sample_numerators']) == 32 and all(0 <= n <= d for n, d in zip(c['sample_numerators'], c['sample_denominators']))
    assert abs(sum(c['sample_numerators']) / sum(c['sample_denominators']) - c['metrics']['token_accuracy']) < 1e-12
"
check "... whose runs' test scores are the sweep's points, each split evaluated once" "$python" -c "
import json
for run in ('rope-seed1', 'alibi-seed2'):
    scores = json.load(open(f'study/runs/{run}/summary.json'))['scores']
    for c in json.load(open(f'study/runs/{run}/length_sweep.json'))['cells']:
        assert scores[c['split']] == c['metrics'], (run, c['split'], scores[c['split']], c['metrics'])
"
check "... so the sweep after training had nothing left to evaluate" bash -c "! grep -q ' sweep 1/' study/runs/*/compare.log"
check "... and the report's statistics for test_10" grep -q '^\*\*test_10\*\*' study/report.md
check "... and the papers' best-of-seeds score" grep -qE '^\| rope \| [0-9.]+ \| [0-9.]+ \| 2 \| 1 \|$' study/report.md
# The report names the objective's metrics, not a classifier's: every Results cell of token accuracy is a number.
check "... whose Results table gives token and sequence accuracy" "$python" -c "
lines = open('study/report.md').read().split('## Results')[1].split('##')[0].strip().splitlines()
header = [c.strip() for c in lines[0].strip('|').split('|')]
assert header[3:7] == ['Val token accuracy', 'Val sequence accuracy', 'Test token accuracy', 'Test sequence accuracy'], header
rows = [[c.strip() for c in l.strip('|').split('|')] for l in lines[2:]]
assert [r[0] for r in rows] == ['rope', 'alibi'], rows
for r in rows:
    for cell in (r[3], r[5]):
        assert cell != '–' and 0 <= float(cell.split(' ± ')[0]) <= 100, r
"
check "... and report.csv splits them by split" grep -q '^variant,rope,,token_accuracy,test_10,' study/report.csv
check "... and report.json gives the longest training sample (8 symbols, 8 queries) beside the window" "$python" -c "
import json
for v in json.load(open('study/report.json'))['variants']:
    assert v['longest_training_sample'] == 16 and v['training_length'] == 18, v
"
"$python" "$plot_study" study study/report.json plots > plot.log 2>&1
check "... and plot_study.py draws it" test $? -eq 0
check "... token accuracy against length" test -s plots/length_extrapolation.png
check "... in the report too" grep -q '^!\[length_extrapolation\](plots/length_extrapolation.png)' study/report.md

"$rotor" train run.yaml --out classify --set train.objective=classify > classify.log 2>&1
check "a sequence task under classify is refused" test $? -ne 0
check "... naming data.task and train.objective" grep -q "data.task: 'reverse-string' is a sequence task.*train.objective classify does not read" classify.log
"$rotor" train run.yaml --out listops --set train.objective=completion --set data.task=listops-easy > listops.log 2>&1
check "completion without a sequence task is refused" test $? -ne 0
check "... naming data.task and train.objective" grep -q "data.task: 'listops-easy' has no per-token targets.*train.objective completion" listops.log

checks_passed
