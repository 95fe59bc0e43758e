#!/usr/bin/env bash
# Usage: test_cli.sh path/to/rotor
# Checks what a user sees: SIGINT/SIGTERM/SIGHUP save a checkpoint and exit 130/143/129,
# the run resumes from it, a second process is refused, errors are one clear
# message with exit 1, usage errors exit 2.
set -uo pipefail
rotor=$1
dir=$(mktemp -d /tmp/rotor-cli-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/../check.sh"

cat > "$dir/run.yaml" <<YAML
run: {progress: lines, log_every: 5, threads: 1}
model: {d_model: 16, layers: 1, heads: 2, d_ff: 32}
data: {task: listops-easy, train_size: 400, eval_size: 40, max_len: 32, batch_size: 8, data_dir: $dir/data}
train: {max_steps: 1000000, eval_every: 0, checkpoint_every: 20, keep_last: 2}
YAML

wait_for_checkpoint() {  # the run directory has a committed checkpoint
  for _ in $(seq 1 600); do
    [ -f "$1/checkpoints/latest" ] && return 0
    sleep 0.1
  done
  return 1
}

for sig in INT TERM HUP; do
  run="$dir/run-$sig"
  "$rotor" train "$dir/run.yaml" --out "$run" > "$run.log" 2>&1 &
  pid=$!
  check "$sig: a checkpoint appears" wait_for_checkpoint "$run"
  # A second process on the same run directory is refused while the first runs.
  "$rotor" train "$dir/run.yaml" --out "$run" --resume auto > "$dir/second.log" 2>&1
  check "$sig: second process exits 1" test $? -eq 1
  check "$sig: second process names the lock" grep -q "in use by another rotor process" "$dir/second.log"
  kill -s "$sig" "$pid"
  wait "$pid"
  code=$?
  case $sig in INT) expected=130 ;; TERM) expected=143 ;; HUP) expected=129 ;; esac
  check "$sig: exit code $expected (got $code)" test "$code" -eq "$expected"
  check "$sig: says it saved" grep -q "checkpoint saved" "$run.log"
  step=$(sed -n 's/.*stopped by SIG[A-Z]* at step \([0-9]*\).*/\1/p' "$run.log")
  check "$sig: checkpoint of the stop step $step" test -f "$(printf '%s/checkpoints/step-%08d.h5' "$run" "$step")"
  "$rotor" train "$dir/run.yaml" --out "$run" --resume auto --stop-after $((step + 3)) > "$run.resume.log" 2>&1
  check "$sig: resume exits 0" test $? -eq 0
  check "$sig: resumed from the stop step" grep -q "resumed from .* at step $step" "$run.resume.log"
done

# A second Ctrl-C leaves at once; the committed checkpoints stay readable.
run="$dir/run-twice"
"$rotor" train "$dir/run.yaml" --out "$run" > "$run.log" 2>&1 &
pid=$!
check "twice: a checkpoint appears" wait_for_checkpoint "$run"
kill -s INT "$pid"; kill -s INT "$pid"
wait "$pid"
check "twice: exit code 130" test $? -eq 130
check "twice: latest checkpoint is valid" "$rotor" inspect "$run/checkpoints/$(cat "$run/checkpoints/latest")" > /dev/null

# Evaluate and predict with a checkpoint of the runs above.
ckpt="$dir/run-INT/checkpoints/$(cat "$dir/run-INT/checkpoints/latest")"
printf '{"text": "[MAX 1 7 ]", "label": "7"}\n{"text": "[MIN 4 [SM 5 5 ] ]", "label": "0"}\n' > "$dir/few.jsonl"
"$rotor" eval "$ckpt" --data "$dir/few.jsonl" --output "$dir/few-metrics.json" > "$dir/eval.log" 2>&1
check "eval --data exits 0" test $? -eq 0
check "eval --data reports 2 documents" grep -q '"documents":2' "$dir/few-metrics.json"
"$rotor" eval "$ckpt" --split val --max-len 16 --set run.progress=lines > "$dir/eval-val.log" 2>&1
check "eval --split val --max-len 16" grep -q "windows of 16 tokens" "$dir/eval-val.log"
check "eval reports its input tokens/s" grep -q "^eval val [0-9]* input tokens in .* s, [0-9]* tokens/s" "$dir/eval-val.log"
"$rotor" predict "$ckpt" --input "$dir/few.jsonl" --output "$dir/pred.jsonl" > /dev/null 2>&1
check "predict writes one line per document" test "$(wc -l < "$dir/pred.jsonl")" -eq 2
check "predict gives a label and probabilities" grep -q '"label":"[^"]*","probabilities":{"0":' "$dir/pred.jsonl"
"$rotor" predict "$ckpt" --input "$dir/few.jsonl" --set model.position.scaling=ntk \
  --set model.position.scaling_factor=2 > "$dir/pred-set.jsonl" 2> "$dir/pred-set.log"
check "predict accepts --set" test "$(wc -l < "$dir/pred-set.jsonl")" -eq 2
printf '{"text": "[MAX 1 7 ]"}\n{"text": ""}\n' > "$dir/empty-text.jsonl"
"$rotor" predict "$ckpt" --input "$dir/empty-text.jsonl" > /dev/null 2> "$dir/empty-text.log"
check "predict with an empty text exits 1" test $? -eq 1
check "predict names the line of the empty text" grep -q "empty-text.jsonl:2: empty text in field 'text'" "$dir/empty-text.log"
check "predict gives no internal message" bash -c "! grep -q 'masked_mean_pool\|unexpected' '$dir/empty-text.log'"
printf 'id,text\na1,[MAX 1 7 ]\na2,[MIN 4 3 ]\n' > "$dir/few.csv"
"$rotor" predict "$ckpt" --input "$dir/few.csv" --output "$dir/pred-csv.jsonl" > /dev/null 2>&1
check "predict reads CSV and carries the id column" grep -q '^{"index":1,"id":"a2","label":' "$dir/pred-csv.jsonl"
# An output that cannot be written: exit 1, one message naming the file, no claim that it was written.
"$rotor" predict "$ckpt" --input "$dir/few.jsonl" --output /dev/full > /dev/null 2> "$dir/pred-full.log"
check "predict to a full disk exits 1" test $? -eq 1
check "predict to a full disk names it" grep -q "^error: /dev/full: cannot write: No space left on device" "$dir/pred-full.log"
check "predict to a full disk claims nothing" bash -c "! grep -q 'predictions written' '$dir/pred-full.log'"
"$rotor" eval "$ckpt" --data "$dir/few.jsonl" --output /dev/full > "$dir/eval-full.log" 2>&1
check "eval to a full disk exits 1" test $? -eq 1
check "eval to a full disk names it" grep -q "^error: /dev/full: cannot write: No space left on device" "$dir/eval-full.log"
check "eval to a full disk claims nothing" bash -c "! grep -q 'metrics written' '$dir/eval-full.log'"
"$rotor" predict "$ckpt" --input "$dir/few.jsonl" > /dev/full 2> "$dir/stdout-full.log"
check "predict to a full standard output exits 1" test $? -eq 1
# A checkpoint may be named by a pointer or by its run directory: its best
# checkpoint, or its newest when no evaluation ran (and then it says so).
check "inspect RUN/checkpoints/latest" bash -c "'$rotor' inspect '$dir/run-INT/checkpoints/latest' | grep -q '^checkpoint .*step-'"
"$rotor" train "$dir/run.yaml" --out "$dir/run-short" --stop-after 10 > /dev/null 2>&1  # before any evaluation
check "inspect RUN without evaluations: latest, said" \
  bash -c "'$rotor' inspect '$dir/run-short' | grep -q '^checkpoint .*step-00000010.h5 (latest: no evaluation ran'"
"$rotor" eval "$dir/run-INT" --data "$dir/few.jsonl" > "$dir/eval-run.log" 2>&1
check "eval RUN exits 0" test $? -eq 0
check "eval RUN writes next to the run" test -f "$dir/run-INT/eval-few.json"
run="$dir/run-best"
sed -e 's/max_steps: 1000000, eval_every: 0, checkpoint_every: 20, keep_last: 2/max_steps: 60, eval_every: 20, keep_last: 1/' \
  "$dir/run.yaml" > "$dir/best.yaml"
"$rotor" train "$dir/best.yaml" --out "$run" > "$run.log" 2>&1
check "evaluated run exits 0" test $? -eq 0
best_step=$(sed -n 's/.*best checkpoint: step \([0-9]*\).*/\1/p' "$run.log")
best_file=$(printf 'step-%08d.h5' "$best_step")
check "best pointer names the best step ($best_step)" test "$(cat "$run/checkpoints/best")" = "$best_file"
check "best checkpoint kept by keep_last" test -f "$run/checkpoints/$best_file"
check "inspect RUN is its best checkpoint" \
  bash -c "'$rotor' inspect '$run' | grep -q '^checkpoint .*$best_file (best on validation)'"
# Several lengths in one call: a table, one file per length, named after it.
"$rotor" eval "$run" --split val --max-len 16,32 > "$dir/sweep.log" 2>&1
check "eval --max-len 16,32 exits 0" test $? -eq 0
check "eval --max-len list prints a table row per length" \
  bash -c "grep -q '^ *16  *0\.[0-9]*  .*eval-val-L16.json' '$dir/sweep.log' && grep -q '^ *32  .*eval-val.json' '$dir/sweep.log'"
check "eval-val-L16.json records its length" grep -q '"eval_max_len":16,"eval_windows":"first","overrides":\[\]' "$run/eval-val-L16.json"
check "eval-val.json records the checkpoint" grep -q "\"checkpoint\":\"[^\"]*$best_file\"" "$run/eval-val.json"
"$rotor" eval "$run" --split val --max-len 16 --set model.position.scaling=ntk --set model.position.scaling_factor=2 \
  > /dev/null 2>&1
check "--set gets a file of its own" grep -q '"overrides":\["model.position.scaling=ntk","model.position.scaling_factor=2"\]' \
  "$run/eval-val-L16-ntk2.json"
check "the plain result is still there" grep -q '"overrides":\[\]' "$run/eval-val-L16.json"
"$rotor" eval "$run" --split val --max-len 16,32 --output "$dir/one.json" > "$dir/sweep-output.log" 2>&1
check "--output with several lengths exits 1" test $? -eq 1
check "--output with several lengths says why" grep -q "one file per length" "$dir/sweep-output.log"
printf '{"text": "[MAX 1 7 ]", "label": "11"}\n' > "$dir/unseen.jsonl"
"$rotor" eval "$ckpt" --data "$dir/unseen.jsonl" > "$dir/unseen.log" 2>&1
check "eval with an unseen label exits 1" test $? -eq 1
check "eval names the unseen label" grep -q "11" "$dir/unseen.log"

# Errors: one message naming the file and line, exit 1.
printf 'train:\n  max_steps: 10\nmodel:\n  posiiton: {type: rope}\n' > "$dir/bad.yaml"
"$rotor" train "$dir/bad.yaml" > "$dir/bad.log" 2>&1
check "bad config exits 1" test $? -eq 1
check "bad config names file, line and suggestion" \
  grep -q "bad.yaml:4: unknown key 'model.posiiton.type' (did you mean 'model.position.type'?)" "$dir/bad.log"
# A diverging run stops with the step named, exit 1.
sed -e 's/max_steps: 1000000/max_steps: 50, lr: 1.0e+30, clip_norm: 0, warmup_steps: 0, schedule: constant/' \
  "$dir/run.yaml" > "$dir/nan.yaml"
"$rotor" train "$dir/nan.yaml" --out "$dir/nan" > "$dir/nan.log" 2>&1
check "non-finite loss exits 1" test $? -eq 1
check "non-finite loss names the step" grep -q "error: step [0-9]*: the training loss is" "$dir/nan.log"
printf 'not a checkpoint' > "$dir/fake.h5"
"$rotor" inspect "$dir/fake.h5" > "$dir/fake.log" 2>&1
check "corrupt checkpoint exits 1" test $? -eq 1
check "corrupt checkpoint is named" grep -q "fake.h5" "$dir/fake.log"
check "no stack trace" bash -c "! grep -qi 'HDF5-DIAG\|terminate called' '$dir/fake.log'"
"$rotor" train > /dev/null 2>&1
check "usage error exits 2" test $? -eq 2
"$rotor" --help > "$dir/help.log" 2>&1
check "help lists the commands" grep -q "predict" "$dir/help.log"

checks_passed
