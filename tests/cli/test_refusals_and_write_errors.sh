#!/usr/bin/env bash
# Usage: test_refusals_and_write_errors.sh path/to/rotor
# Requests that rotor used to carry out as something else, and writes that
# failed without a word (issue 35): eval --stride above the window, a
# gradient accumulation longer than an epoch, eval's standard output on a full
# disk, and analyze --out naming a device or a read-only folder.
set -uo pipefail
rotor=$1
dir=$(mktemp -d /tmp/rotor-refusals-XXXXXX)
mounted=""
trap '[ -n "$mounted" ] && umount "$mounted"; rm -rf "$dir"' EXIT
source "$(dirname "$0")/../check.sh"

cat > "$dir/run.yaml" <<YAML
run: {progress: none, threads: 1}
model: {d_model: 16, layers: 1, heads: 2, d_ff: 32}
data: {task: listops-easy, train_size: 64, eval_size: 16, max_len: 32, batch_size: 8, data_dir: $dir/data}
train: {max_steps: 4, eval_every: 0, checkpoint_every: 2}
YAML

# --- eval --stride above the window: refused, not run as plain windows under a "sliding" label.
"$rotor" train "$dir/run.yaml" --out "$dir/clm" --set train.objective=clm > "$dir/clm.log" 2>&1
check "clm: trains" test $? -eq 0
"$rotor" eval "$dir/clm" --stride 1000 --max-len 16 > "$dir/stride.log" 2>&1
code=$?
check "stride: exit 1 (got $code)" test "$code" -eq 1
check "stride: names the stride and the window" grep -q "^error: --stride 1000: a window of 16 tokens (--max-len) has at most 16 new tokens to score; give --stride 16 or less" "$dir/stride.log"
check "stride: nothing scored" bash -c "! grep -q perplexity '$dir/stride.log'"
"$rotor" eval "$dir/clm" --stride 1000 > "$dir/stride-own.log" 2>&1
check "stride: above the run's own window (32) too" grep -q "^error: --stride 1000: a window of 32 tokens (the run's evaluation length; --max-len sets another)" "$dir/stride-own.log"
"$rotor" eval "$dir/clm" --stride 16 --max-len 16 > "$dir/stride-ok.log" 2>&1
check "stride: equal to the window is accepted" test $? -eq 0

# --- train.grad_accumulation above an epoch's batches (64 documents / 8 = 8 batches).
"$rotor" train "$dir/run.yaml" --out "$dir/accumulation" --set train.grad_accumulation=50 > "$dir/accumulation.log" 2>&1
code=$?
check "accumulation: exit 1 (got $code)" test "$code" -eq 1
check "accumulation: names the key and the numbers" grep -q "^error: train.grad_accumulation: 50 batches per update are more than the 8 batches of an epoch" "$dir/accumulation.log"
check "accumulation: nothing trained" test ! -e "$dir/accumulation/checkpoints/latest"
"$rotor" train "$dir/run.yaml" --out "$dir/accumulation-ok" --set train.grad_accumulation=8 > /dev/null 2>&1
check "accumulation: a whole epoch per update is accepted" test $? -eq 0

# --- eval's results on a full disk: an error, not exit 0.
"$rotor" eval "$dir/clm" > /dev/full 2> "$dir/full.log"
code=$?
check "stdout full: exit 1 (got $code)" test "$code" -eq 1
check "stdout full: says why" grep -q "^error: standard output: cannot write: No space left on device" "$dir/full.log"
printf '{"text": "[MAX 1 2 ]"}\n' > "$dir/input.jsonl"
"$rotor" train "$dir/run.yaml" --out "$dir/classifier" > /dev/null 2>&1
"$rotor" predict "$dir/classifier" --input "$dir/input.jsonl" > /dev/full 2> "$dir/predict-full.log"
code=$?
check "predict stdout full: exit 1 (got $code)" test "$code" -eq 1
check "predict stdout full: one message, with the reason" test "$(grep -c '^error: ' "$dir/predict-full.log")" -eq 1
check "predict stdout full: says why" grep -q "^error: standard output: cannot write the predictions: No space left on device" "$dir/predict-full.log"

# --- analyze --out: a device is not a file name; a write names its reason.
"$rotor" analyze rope-decay --head-dim 8 --max-distance 4 --out /dev/full > /dev/null 2> "$dir/dev.log"
code=$?
check "out device: exit 1 (got $code)" test "$code" -eq 1
check "out device: refused, naming it" grep -q "^error: --out /dev/full: /dev/full is a device or pipe, not a file name" "$dir/dev.log"
check "out device: nothing written into /dev" test ! -e /dev/full.json
mkdir "$dir/folder"
"$rotor" analyze rope-decay --head-dim 8 --max-distance 4 --out "$dir/folder" > /dev/null 2> "$dir/folder.log"
check "out directory: refused" grep -q "is a directory, not a file name" "$dir/folder.log"
if mkdir -p "$dir/ro" && mount -t tmpfs -o size=64k,ro tmpfs "$dir/ro" 2>/dev/null; then
  mounted="$dir/ro"
  "$rotor" analyze rope-decay --head-dim 8 --max-distance 4 --out "$dir/ro/decay" > /dev/null 2> "$dir/ro.log"
  code=$?
  check "out read-only: exit 1 (got $code)" test "$code" -eq 1
  check "out read-only: names the file and the reason" grep -q "^error: $dir/ro/decay.json: cannot write: Read-only file system" "$dir/ro.log"
else
  echo "note: cannot mount a tmpfs here; the read-only --out case is skipped"
fi

checks_passed
