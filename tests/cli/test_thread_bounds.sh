#!/usr/bin/env bash
# Usage: test_thread_bounds.sh path/to/rotor
# OMP_NUM_THREADS far beyond the machine (issue 35): with the default
# run.threads 0 ("every core") libgomp crashed creating its team (exit 139) in
# train and eval. Every command bounds the count to 4 x the cores with one
# warning (a study's sweep included); eval and predict apply the stored
# run.threads, bounded the same way.
set -uo pipefail
rotor=$1
dir=$(mktemp -d /tmp/rotor-threads-XXXXXX)
trap 'rm -rf "$dir"' EXIT
source "$(dirname "$0")/../check.sh"
most=$((4 * $(getconf _NPROCESSORS_ONLN)))
warned() {  # LOG SOURCE: exactly one warning that SOURCE was lowered to $most threads
  test "$(grep -c "^warning: $2 is more than 4 x this machine's [0-9]* cores; using $most threads\$" "$1")" -eq 1
}

cat > "$dir/run.yaml" <<YAML
run: {progress: none}
model: {d_model: 16, layers: 1, heads: 2, d_ff: 32}
data: {task: listops-easy, train_size: 64, eval_size: 16, max_len: 32, batch_size: 8, data_dir: $dir/data}
train: {max_steps: 4, eval_every: 2, checkpoint_every: 2}
YAML
printf '{"text": "[MAX 1 2 ]"}\n' > "$dir/input.jsonl"

export OMP_NUM_THREADS=100000
"$rotor" train "$dir/run.yaml" --out "$dir/run" > "$dir/train.log" 2>&1
code=$?
check "train: exit 0 (got $code)" test "$code" -eq 0
check "train: one warning naming OMP_NUM_THREADS" warned "$dir/train.log" "OMP_NUM_THREADS=100000"
check "train: the checkpoint records the bounded count" \
  grep -q "$most threads" <("$rotor" inspect "$dir/run/checkpoints/step-00000004.h5" 2>&1)
"$rotor" eval "$dir/run" > "$dir/eval.log" 2>&1
code=$?
check "eval: exit 0 (got $code)" test "$code" -eq 0
check "eval: one warning" warned "$dir/eval.log" "OMP_NUM_THREADS=100000"
"$rotor" predict "$dir/run" --input "$dir/input.jsonl" > "$dir/predict.log" 2>&1
code=$?
check "predict: exit 0 (got $code)" test "$code" -eq 0
check "predict: one warning" warned "$dir/predict.log" "OMP_NUM_THREADS=100000"
"$rotor" analyze rope-decay --head-dim 64 --max-distance 8 > "$dir/analyze.log" 2>&1
check "analyze: exit 0" test $? -eq 0
printf 'base: run.yaml\nseeds: [1]\nvariants: [rope]\n' > "$dir/study.yaml"
"$rotor" compare "$dir/study.yaml" --out "$dir/study" > "$dir/compare.log" 2>&1
code=$?
check "compare (training and sweep): exit 0 (got $code)" test "$code" -eq 0
check "compare: one warning" warned "$dir/compare.log" "OMP_NUM_THREADS=100000"
unset OMP_NUM_THREADS

# eval and predict apply run.threads; a stored config is not held to this machine, so it is bounded too.
"$rotor" eval "$dir/run" --set run.threads=100000 > "$dir/eval-set.log" 2>&1
code=$?
check "eval --set run.threads: exit 0 (got $code)" test "$code" -eq 0
check "eval --set run.threads: applied, lowered, one warning" warned "$dir/eval-set.log" "run.threads 100000"
"$rotor" predict "$dir/run" --input "$dir/input.jsonl" --set run.threads=100000 > "$dir/predict-set.log" 2>&1
check "predict --set run.threads: exit 0" test $? -eq 0
check "predict --set run.threads: applied, lowered" warned "$dir/predict-set.log" "run.threads 100000"

checks_passed
