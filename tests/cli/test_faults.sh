#!/usr/bin/env bash
# Usage: test_faults.sh path/to/rotor
# Regression tests for the defects found under injected faults (issue 11):
# a full disk, a cut metrics line, a finished run resumed, a stop during the
# last step or the final checkpoint, every checkpoint damaged.
set -uo pipefail
rotor=$1
dir=$(mktemp -d /tmp/rotor-faults-XXXXXX)
mounted=""
trap 'kill $(jobs -p) 2>/dev/null; [ -n "$mounted" ] && umount "$mounted"; rm -rf "$dir"' EXIT
source "$(dirname "$0")/../check.sh"
finals() { grep -c '"event":"final"' "$1"; }

cat > "$dir/run.yaml" <<YAML
run: {progress: lines, log_every: 5, threads: 1}
model: {d_model: 16, layers: 1, heads: 2, d_ff: 32}
data: {task: listops-easy, train_size: 200, eval_size: 40, max_len: 32, batch_size: 8, data_dir: $dir/data}
train: {max_steps: 30, eval_every: 10, checkpoint_every: 10, keep_last: 100}
YAML

# --- A full disk during a checkpoint write: one clear error, exit 1, the previous checkpoint intact.
full_disk() {  # full_disk RUN_DIR LIMIT_COMMAND...: a run whose checkpoint writes hit the limit
  local run=$1; shift
  ( "$@"; exec "$rotor" train "$dir/run.yaml" --out "$run" --set train.max_steps=1000 ) > "$run.log" 2>&1
}
run="$dir/ulimit"
full_disk "$run" ulimit -f 8   # 8 KiB per file: config and metrics fit, a checkpoint does not
code=$?
check "ulimit -f: exit 1 (got $code)" test "$code" -eq 1
check "ulimit -f: names the file and the cause" grep -q "^error: .*step-00000010.h5.tmp-[0-9]*: write failed: File too large" "$run.log"
check "ulimit -f: no temporary left" bash -c "! ls '$run/checkpoints/' | grep -q tmp"
if mkdir -p "$dir/small" && mount -t tmpfs -o size=400k tmpfs "$dir/small" 2>/dev/null; then
  mounted="$dir/small"
  run="$dir/small/run"
  full_disk "$run" true
  code=$?
  check "full tmpfs: exit 1 (got $code)" test "$code" -eq 1
  check "full tmpfs: says the disk is full" grep -qE "^error: .*(No space left on device|disk full)" "$run.log"
  latest=$(cat "$run/checkpoints/latest")
  check "full tmpfs: an earlier checkpoint was written" test -n "$latest"
  check "full tmpfs: the previous checkpoint is intact" "$rotor" inspect "$run/checkpoints/$latest" > /dev/null
  umount "$mounted"; mounted=""
else
  echo "note: cannot mount a tmpfs here; the full-disk case runs with ulimit -f only"
fi

# --- A metrics.jsonl whose last line was cut by a kill: dropped with a warning on resume.
run="$dir/torn"
"$rotor" train "$dir/run.yaml" --out "$run" --stop-after 20 > "$run.log" 2>&1
check "torn: first part exits 0" test $? -eq 0
printf '{"event": "train", "step": ' >> "$run/metrics.jsonl"  # killed mid-line
"$rotor" train "$dir/run.yaml" --out "$run" --resume auto > "$run.resume.log" 2>&1
check "torn: resume exits 0" test $? -eq 0
check "torn: warns about the cut line" grep -q "warning: .*metrics.jsonl:[0-9]*: dropping the last line, cut short" "$run.resume.log"
check "torn: every line of the log is complete" bash -c "! grep -v '}\$' '$run/metrics.jsonl'"

# --- A finished run: says so, exits 0, writes nothing.
cp "$run/metrics.jsonl" "$dir/metrics.before"
"$rotor" train "$dir/run.yaml" --out "$run" --resume auto > "$run.again.log" 2>&1
check "finished: exits 0" test $? -eq 0
check "finished: says so" grep -q "this run already finished at step 30" "$run.again.log"
check "finished: metrics.jsonl untouched" cmp -s "$run/metrics.jsonl" "$dir/metrics.before"
check "finished: one final event per split" test "$(finals "$run/metrics.jsonl")" -eq 2
# Stopped during the final test evaluation (no summary yet, final events half written): finishes once.
rm "$run/summary.json"
head -n 1 <(grep '"event":"final"' "$run/metrics.jsonl") >> "$run/metrics.jsonl"
"$rotor" train "$dir/run.yaml" --out "$run" --resume auto > "$run.final.log" 2>&1
check "final again: exits 0" test $? -eq 0
check "final again: no duplicate final events" test "$(finals "$run/metrics.jsonl")" -eq 2
check "final again: summary written" test -f "$run/summary.json"

# --- SIGTERM/SIGINT during the last step's checkpoint write: stop like at any other step.
for sig in TERM INT; do
  run="$dir/last-$sig"
  ROTOR_TEST_WRITE_PAUSE_MS=1500 "$rotor" train "$dir/run.yaml" --out "$run" --set train.checkpoint_every=0 \
    --set train.eval_every=0 --set train.max_epochs=0 > "$run.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do ls "$run/checkpoints/" 2>/dev/null | grep -q 'step-00000030.h5.tmp' && break; sleep 0.05; done
  kill -s "$sig" "$pid"
  wait "$pid"
  code=$?
  expected=$([ "$sig" = INT ] && echo 130 || echo 143)
  check "last step $sig: exit $expected (got $code)" test "$code" -eq "$expected"
  check "last step $sig: no test evaluation" test ! -f "$run/summary.json"
  check "last step $sig: the final checkpoint is committed" test "$(cat "$run/checkpoints/latest")" = step-00000030.h5
  "$rotor" train "$dir/run.yaml" --out "$run" --set train.checkpoint_every=0 --set train.eval_every=0 \
    --set train.max_epochs=0 --resume auto > "$run.resume.log" 2>&1
  check "last step $sig: resume finishes" test -f "$run/summary.json"
done

# --- Every checkpoint damaged: an error listing them; nothing started, nothing erased.
run="$dir/damaged"
"$rotor" train "$dir/run.yaml" --out "$run" --stop-after 20 > "$run.log" 2>&1
for f in "$run"/checkpoints/step-*.h5; do printf 'X' | dd of="$f" bs=1 seek=1000 conv=notrunc status=none; done
cp "$run/metrics.jsonl" "$dir/metrics.before"
"$rotor" train "$dir/run.yaml" --out "$run" --resume auto > "$run.resume.log" 2>&1
check "all damaged: exit 1" test $? -eq 1
check "all damaged: says so" grep -q "^error: every checkpoint in $run/checkpoints is damaged; nothing was changed" "$run.resume.log"
check "all damaged: lists step 10" grep -q "skipping $run/checkpoints/step-00000010.h5: whole-file checksum mismatch" "$run.resume.log"
check "all damaged: lists step 20" grep -q "skipping $run/checkpoints/step-00000020.h5: whole-file checksum mismatch" "$run.resume.log"
check "all damaged: metrics.jsonl untouched" cmp -s "$run/metrics.jsonl" "$dir/metrics.before"

checks_passed
