#!/usr/bin/env bash
# Usage: test_resume_integrity.sh path/to/rotor
# What a run directory means after a kill inside the final save, a resume on
# edited data, and a fine-tune from a run that has not finished (issue 35,
# items 2, 4 and 5).
set -uo pipefail
rotor=$1
dir=$(mktemp -d /tmp/rotor-resume-integrity-XXXXXX)
trap 'kill -9 $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/../check.sh"

for i in $(seq 1 300); do echo "line $i: the quick brown fox jumps over the lazy dog, $((i * 7 % 13)) times"; done > "$dir/train.txt"
head -n 40 "$dir/train.txt" > "$dir/val.txt"
sed -n 41,60p "$dir/train.txt" > "$dir/test.txt"
cat > "$dir/lm.yaml" <<YAML
run: {progress: lines, log_every: 4, threads: 1}
model: {d_model: 16, layers: 1, heads: 2, d_ff: 32}
data: {train_path: $dir/train.txt, val_path: $dir/val.txt, test_path: $dir/test.txt, tokenizer: byte, max_len: 32,
       batch_size: 4, data_dir: $dir/data}
train: {objective: clm, max_steps: 12, eval_every: 4, checkpoint_every: 4, warmup_steps: 1}
YAML

# kill_during RUN FILE-PATTERN: resumes RUN with every atomic write paused, and
# SIGKILLs it once a temporary matching the pattern is in RUN/checkpoints.
kill_during() {
  ROTOR_TEST_WRITE_PAUSE_MS=1500 "$rotor" train "$dir/lm.yaml" --out "$1" --resume auto > "$1.killed.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 400); do ls "$1/checkpoints/" 2>/dev/null | grep -q "$2" && break; sleep 0.05; done
  kill -9 "$pid"
  wait "$pid" 2>/dev/null
}

# --- Item 2: killed after the final checkpoint's `latest` moved, before `best` did (every evaluation improves).
run="$dir/killed"
"$rotor" train "$dir/lm.yaml" --out "$run" --stop-after 8 > "$run.log" 2>&1
check "best window: first part exits 0" test $? -eq 0
kill_during "$run" '^best\.tmp-'
check "best window: latest names the final step" test "$(cat "$run/checkpoints/latest")" = step-00000012.h5
check "best window: best still names step 8" test "$(cat "$run/checkpoints/best")" = step-00000008.h5
check "best window: no summary" test ! -f "$run/summary.json"
"$rotor" eval "$run" > "$run.eval.log" 2>&1
check "best window: eval RUN takes the recorded best, step 12" grep -q "^checkpoint $run/checkpoints/step-00000012.h5 (best on validation)" "$run.eval.log"
check "best window: eval RUN says the pointer is stale" grep -q "warning: $run/checkpoints/best does not name step-00000012.h5" "$run.eval.log"
"$rotor" train "$dir/lm.yaml" --out "$run" --resume auto > "$run.resume.log" 2>&1
check "best window: resume exits 0" test $? -eq 0
check "best window: resume says it moved best" grep -q "note: $run/checkpoints/best named step-00000008.h5; now step-00000012.h5" "$run.resume.log"
check "best window: best names step 12" test "$(cat "$run/checkpoints/best")" = step-00000012.h5
check "best window: no temporary left" bash -c "! ls '$run/checkpoints/' | grep -q tmp"
check "best window: summary best_step 12" grep -q '"best_step": *12' "$run/summary.json"
"$rotor" eval "$run" > "$run.eval2.log" 2>&1
check "best window: eval RUN quiet after the repair" bash -c "! grep -q warning '$run.eval2.log'"
"$rotor" train "$dir/lm.yaml" --out "$dir/tuned" --stop-after 1 --set model.init_from="$run" > "$dir/tuned.log" 2>&1
check "best window: init_from RUN starts from step 12" grep -q "init_from:.*killed/checkpoints/step-00000012.h5" "$dir/tuned/config.yaml"

# --- Item 2: killed after the final step file, before `latest` moved: the resume redoes the step.
run="$dir/killed-latest"
"$rotor" train "$dir/lm.yaml" --out "$run" --stop-after 8 > "$run.log" 2>&1
kill_during "$run" '^latest\.tmp-'
check "latest window: latest still names step 8" test "$(cat "$run/checkpoints/latest")" = step-00000008.h5
"$rotor" train "$dir/lm.yaml" --out "$run" --resume auto > "$run.resume.log" 2>&1
check "latest window: resume exits 0" test $? -eq 0
check "latest window: pointers name step 12" test "$(cat "$run/checkpoints/latest")$(cat "$run/checkpoints/best")" = step-00000012.h5step-00000012.h5
check "latest window: no temporary left" bash -c "! ls '$run/checkpoints/' | grep -q tmp"
check "latest window: same summary as the killed-best run" cmp -s <(grep -o '"best_step":[^,]*' "$run/summary.json") <(grep -o '"best_step":[^,]*' "$dir/killed/summary.json")

# --- Item 4: a causal LM resumed on an edited corpus is refused, naming the file, unless asked.
run="$dir/edited"
"$rotor" train "$dir/lm.yaml" --out "$run" --stop-after 4 > "$run.log" 2>&1
echo "a line added after the checkpoint" >> "$dir/train.txt"
"$rotor" train "$dir/lm.yaml" --out "$run" --resume auto > "$run.refused.log" 2>&1
check "edited: refused with exit 1" test $? -eq 1
check "edited: names the file" grep -q "^error: cannot resume $run/checkpoints/step-00000004.h5: the data changed since it was written: $dir/train.txt changed" "$run.refused.log"
check "edited: names the flag" grep -q -- "--allow-data-change" "$run.refused.log"
check "edited: nothing written" test ! -f "$run/checkpoints/step-00000008.h5"
"$rotor" train "$dir/lm.yaml" --out "$run" --resume auto --allow-data-change > "$run.allowed.log" 2>&1
check "edited: --allow-data-change proceeds" test $? -eq 0
check "edited: and warns" grep -q "^warning: the data changed since .*: $dir/train.txt changed" "$run.allowed.log"
check "edited: the run finished" test -f "$run/summary.json"
check "--help names --allow-data-change" bash -c "'$rotor' train --help | grep -q -- --allow-data-change"

# --- Item 5: model.init_from a run that has not finished, or is still training.
run="$dir/half"
"$rotor" train "$dir/lm.yaml" --out "$run" --stop-after 4 > "$run.log" 2>&1
"$rotor" train "$dir/lm.yaml" --out "$dir/ft1" --stop-after 1 --set model.init_from="$run" > "$dir/ft1.log" 2>&1
check "unfinished: refused with exit 1" test $? -eq 1
check "unfinished: says so, with its step" grep -q "^error: model.init_from: the run $run has not finished (no summary.json), at step 4" "$dir/ft1.log"
"$rotor" train "$dir/lm.yaml" --out "$dir/ft2" --stop-after 1 \
  --set model.init_from="$run/checkpoints/step-00000004.h5" > "$dir/ft2.log" 2>&1
check "unfinished: a checkpoint file named is taken" test $? -eq 0
ROTOR_TEST_WRITE_PAUSE_MS=3000 "$rotor" train "$dir/lm.yaml" --out "$run" --resume auto > "$run.resume.log" 2>&1 &
pid=$!
for _ in $(seq 1 400); do ls "$run/checkpoints/" | grep -q 'tmp-' && break; sleep 0.05; done
"$rotor" train "$dir/lm.yaml" --out "$dir/ft3" --stop-after 1 --set model.init_from="$run" > "$dir/ft3.log" 2>&1
check "training: refused with exit 1" test $? -eq 1
check "training: says it is still training" grep -q "^error: model.init_from: the run $run is still training (pid $pid), at step" "$dir/ft3.log"
kill -9 "$pid"
wait "$pid" 2>/dev/null

checks_passed
