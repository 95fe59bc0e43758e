#!/usr/bin/env bash
# Usage: test_study_failures.sh path/to/rotor
# A run of a study that fails does not stop the others (issue 35): a finished
# run whose best checkpoint is damaged (its sweep not yet written) is named
# with how to redo it, the later runs still train, and the study exits 1 with
# a summary line; a child killed by SIGKILL under --jobs makes the study exit
# 1 with that line, not 137 as if the study itself had been killed.
set -uo pipefail
rotor=$(readlink -f "$1")
dir=$(mktemp -d /tmp/rotor-study-failures-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; [ -z "${KEEP:-}" ] && rm -rf "$dir"' EXIT
source "$(dirname "$0")/../check.sh"

cat > "$dir/base.yaml" <<YAML
run: {progress: lines, log_every: 5, threads: 1}
model: {d_model: 16, layers: 1, heads: 2, d_ff: 32}
data: {task: listops-easy, train_size: 200, eval_size: 40, max_len: 16, batch_size: 8, data_dir: $dir/data}
train: {max_steps: 10, eval_every: 5, checkpoint_every: 5, keep_last: 2}
YAML
printf 'base: base.yaml\nseeds: [1, 2]\nvariants: [rope]\n' > "$dir/study.yaml"

# --- A damaged best checkpoint without its sweep, then a run still to train.
"$rotor" compare "$dir/study.yaml" --out "$dir/damaged" > "$dir/first.log" 2>&1
check "damaged: the study first finishes" test $? -eq 0
run1="$dir/damaged/runs/rope-seed1"
best="$run1/checkpoints/$(cat "$run1/checkpoints/best")"
printf 'X' | dd of="$best" bs=1 seek=3000 conv=notrunc status=none
rm -f "$run1/length_sweep.json" "$dir/damaged/report.md"
rm -rf "$dir/damaged/runs/rope-seed2"
"$rotor" compare "$dir/study.yaml" --out "$dir/damaged" > "$dir/damaged.log" 2>&1
code=$?
check "damaged: exit 1 (got $code)" test "$code" -eq 1
check "damaged: names the run and how to redo it" \
  grep -q "run rope-seed1 failed; the study goes on without it. To redo it, .*delete $run1 first" "$dir/damaged.log"
check "damaged: names the damaged file" grep -q "^error: .*$(basename "$best").*checksum" "$dir/damaged.log"
check "damaged: the later run trained and swept" test -f "$dir/damaged/runs/rope-seed2/length_sweep.json"
check "damaged: summary line last" \
  grep -q "^study incomplete: 1 run did not finish (rope-seed1; see above), the others did; no report was written" \
  <(tail -n 1 "$dir/damaged.log")
check "damaged: no report from an incomplete study" test ! -f "$dir/damaged/report.md"

# --- A child killed by SIGKILL under --jobs 2: the other finishes, the study exits 1.
sed 's/max_steps: 10,/max_steps: 400,/' "$dir/base.yaml" > "$dir/slow.yaml"
printf 'base: slow.yaml\nseeds: [1, 2]\nvariants: [rope]\n' > "$dir/slow-study.yaml"
"$rotor" compare "$dir/slow-study.yaml" --out "$dir/killed" --jobs 2 > "$dir/killed.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do [ -f "$dir/killed/runs/rope-seed1/checkpoints/latest" ] && break; sleep 0.1; done
victim=$(pgrep -P "$pid" | head -n 1)
check "killed: a child to kill" test -n "$victim"
kill -s KILL "$victim"
wait "$pid"
code=$?
check "killed: exit 1, not 137 (got $code)" test "$code" -eq 1
check "killed: says which run was killed and how to resume" grep -q "by signal 9 (SIGKILL); rerun the same command" "$dir/killed.log"
check "killed: summary line last" grep -q "^study incomplete: 1 run did not finish (rope-seed[12]; see above)" <(tail -n 1 "$dir/killed.log")
check "killed: the other run finished" grep -q "done: rope-seed[12] in" "$dir/killed.log"

checks_passed
