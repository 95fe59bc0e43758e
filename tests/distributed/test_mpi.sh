#!/usr/bin/env bash
# Usage: test_mpi.sh ROTOR COMPARE_CHECKPOINTS [MPIRUN]
# Data-parallel training as a user runs it, with 2 MPI ranks on a tiny model:
#   - 2 ranks x batch B train bit-identically to 1 rank x batch 2B (same
#     train.gradient_groups, also with 2 groups per rank and gradient
#     accumulation), and match 1 rank with its default groups to 1e-6;
#   - a 2-rank run stopped by SIGTERM to one rank and resumed equals the
#     uninterrupted run bit for bit, and resumes exactly on 1 rank too;
#   - resuming on a number of ranks that cannot reproduce the run is refused;
#   - a 2-rank eval writes the same metrics as a 1-rank eval;
#   - a rank killed outright ends the job within bounded time, and the last
#     checkpoint stays valid;
#   - `mpirun -np 2 rotor compare` shares a study's runs over the ranks and
#     writes the same report numbers as `rotor compare --jobs 2`.
set -uo pipefail
rotor=$1 compare=$2 mpirun=${3:-mpirun}
dir=$(mktemp -d /tmp/rotor-mpi-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/../check.sh"
# Shared memory without cross-process reads (CMA): containers often forbid them.
mpi=("$mpirun" --allow-run-as-root --oversubscribe --mca btl_vader_single_copy_mechanism none -np)  # then: N COMMAND...
ckpt() { printf '%s/checkpoints/step-%08d.h5' "$1" "$2"; }
train_losses() {  # the "loss" of every training event, one a line (spacing of the JSON writer aside)
  grep -E '"event": ?"train"' "$1/metrics.jsonl" | sed -E 's/.*"loss": ?([^,]*),.*/\1/'
}
wait_for_checkpoint() {
  for _ in $(seq 1 600); do
    [ -f "$1/checkpoints/latest" ] && return 0
    sleep 0.05
  done
  return 1
}
rank_pid() {  # rank_pid MPIRUN_PID K: the K-th rank process mpirun started
  ps -o pid= --ppid "$1" | sed -n "${2}p" | tr -d ' '
}

# Dropout on, so the per-group random streams are exercised too.
cat > "$dir/run.yaml" <<YAML
# Buckets of 2 KB: the tiny model's gradient travels in several overlapping sums.
run: {progress: lines, log_every: 5, threads: 1, mpi_bucket_bytes: 2048}
model: {d_model: 16, layers: 1, heads: 2, d_ff: 32, dropout: 0.1, attention_dropout: 0.1}
data: {task: listops-easy, train_size: 200, eval_size: 40, max_len: 32, batch_size: 16, eval_windows: all,
       data_dir: $dir/data}
train: {max_steps: 20, eval_every: 10, checkpoint_every: 10, keep_last: 2}
YAML

# 1. Two ranks with 8 examples each against one rank with the whole batch of 16.
"$rotor" train "$dir/run.yaml" --set train.gradient_groups=2 --out "$dir/one" > "$dir/one.log" 2>&1
check "1 rank, 2 groups: exit 0" test $? -eq 0
"${mpi[@]}" 2 "$rotor" train "$dir/run.yaml" --out "$dir/two" > "$dir/two.log" 2>&1
check "2 ranks: exit 0" test $? -eq 0
check "2 ranks x 8 == 1 rank x 16 with 2 gradient groups, bit for bit" \
  "$compare" "$(ckpt "$dir/one" 20)" "$(ckpt "$dir/two" 20)"
check "training losses logged" test "$(train_losses "$dir/one" | wc -l)" -eq 4
check "2 ranks log the same training losses" test "$(train_losses "$dir/one")" = "$(train_losses "$dir/two")"
check "2 ranks: rank 0 alone reports" test "$(grep -c 'val step 20' "$dir/two.log")" -eq 1
# Two groups per rank and two micro-batches per step: each rank keeps per-group gradients across micro-batches.
acc=(--set train.gradient_groups=4 --set train.grad_accumulation=2)
"$rotor" train "$dir/run.yaml" "${acc[@]}" --out "$dir/one-acc" > "$dir/one-acc.log" 2>&1
"${mpi[@]}" 2 "$rotor" train "$dir/run.yaml" "${acc[@]}" --out "$dir/two-acc" > "$dir/two-acc.log" 2>&1
check "4 groups, 2 micro-batches: 2 ranks == 1 rank, bit for bit" \
  "$compare" "$(ckpt "$dir/one-acc" 20)" "$(ckpt "$dir/two-acc" 20)"

# Without dropout (its streams are per group), the default single group of a
# plain run differs only in summation order.
nodrop=(--set model.dropout=0 --set model.attention_dropout=0)
"$rotor" train "$dir/run.yaml" "${nodrop[@]}" --out "$dir/plain" > "$dir/plain.log" 2>&1
"${mpi[@]}" 2 "$rotor" train "$dir/run.yaml" "${nodrop[@]}" --out "$dir/two-nodrop" > "$dir/two-nodrop.log" 2>&1
check "2 ranks within 1e-6 of a plain 1-rank run" "$compare" "$(ckpt "$dir/plain" 20)" "$(ckpt "$dir/two-nodrop" 20)" 1e-6

# 2. SIGTERM to one rank: every rank stops after the same step, one checkpoint.
sed -i 's/max_steps: 20,/max_steps: 100000,/; s/checkpoint_every: 10/checkpoint_every: 20/' "$dir/run.yaml"
"${mpi[@]}" 2 "$rotor" train "$dir/run.yaml" --out "$dir/stopped" > "$dir/stopped.log" 2>&1 &
launcher=$!
check "SIGTERM: a checkpoint appears" wait_for_checkpoint "$dir/stopped"
kill -TERM "$(rank_pid "$launcher" 2)"
wait "$launcher"
check "SIGTERM: the job exits 143 (got $?)" test $? -eq 143
stop=$(sed -n 's/.*stopped by SIGTERM at step \([0-9]*\).*/\1/p' "$dir/stopped.log")
check "SIGTERM: rank 0 reports the stop once" test "$(grep -c 'stopped by SIGTERM' "$dir/stopped.log")" -eq 1
check "SIGTERM: checkpoint of the stop step $stop" test -f "$(ckpt "$dir/stopped" "${stop:-0}")"
end=$((stop + 7))
cp -r "$dir/stopped" "$dir/stopped-1rank"
"${mpi[@]}" 2 "$rotor" train "$dir/run.yaml" --out "$dir/stopped" --resume auto --stop-after $end > "$dir/resumed.log" 2>&1
check "resume on 2 ranks: exit 0" test $? -eq 0
"${mpi[@]}" 2 "$rotor" train "$dir/run.yaml" --out "$dir/straight" --stop-after $end > "$dir/straight.log" 2>&1
check "stopped and resumed == uninterrupted, bit for bit" "$compare" "$(ckpt "$dir/stopped" $end)" "$(ckpt "$dir/straight" $end)"
"$rotor" train "$dir/run.yaml" --out "$dir/stopped-1rank" --resume auto --stop-after $end > "$dir/resumed-1.log" 2>&1
check "a 2-rank checkpoint resumes exactly on 1 rank (it keeps 2 gradient groups)" \
  "$compare" "$(ckpt "$dir/stopped-1rank" $end)" "$(ckpt "$dir/straight" $end)"

# 3. A 1-rank run (1 gradient group) cannot be reproduced by 2 ranks: refused.
"${mpi[@]}" 2 "$rotor" train "$dir/run.yaml" "${nodrop[@]}" --out "$dir/plain" --resume auto --stop-after 25 > "$dir/refused.log" 2>&1
check "different number of ranks: refused" test $? -ne 0
check "different number of ranks: says why" grep -q "cannot resume .* on 2 ranks: it was trained with train.gradient_groups = 1" "$dir/refused.log"

# 4. Sharded evaluation.
"$rotor" eval "$(ckpt "$dir/two" 20)" --split test --output "$dir/eval-1.json" > /dev/null 2>&1
"${mpi[@]}" 2 "$rotor" eval "$(ckpt "$dir/two" 20)" --split test --output "$dir/eval-2.json" > /dev/null 2>&1
check "2-rank eval: exit 0" test $? -eq 0
check "2-rank eval == 1-rank eval" cmp -s "$dir/eval-1.json" "$dir/eval-2.json"

# 5. A rank killed outright: the job ends on its own, the last checkpoint stays valid.
"${mpi[@]}" 2 "$rotor" train "$dir/run.yaml" --out "$dir/killed" > "$dir/killed.log" 2>&1 &
launcher=$!
check "kill -9: a checkpoint appears" wait_for_checkpoint "$dir/killed"
kill -KILL "$(rank_pid "$launcher" 2)"
start=$SECONDS
for _ in $(seq 1 300); do kill -0 "$launcher" 2>/dev/null || break; sleep 0.1; done
check "kill -9: the job ends within 30 s" test $((SECONDS - start)) -lt 30
wait "$launcher"
check "kill -9: the job reports failure" test $? -ne 0
"$rotor" train "$dir/run.yaml" --out "$dir/killed" --resume auto --stop-after 1 > "$dir/after-kill.log" 2>&1
check "kill -9: the newest checkpoint resumes" grep -q "resumed from" "$dir/after-kill.log"

# 6. A study spread over 2 ranks: same runs, same report numbers as --jobs 2.
cat > "$dir/study-base.yaml" <<YAML
# Buckets of 2 KB: the tiny model's gradient travels in several overlapping sums.
run: {progress: lines, log_every: 5, threads: 1, mpi_bucket_bytes: 2048}
model: {d_model: 16, layers: 1, heads: 2, d_ff: 32}
data: {task: listops-easy, train_size: 200, eval_size: 40, max_len: 16, batch_size: 8, data_dir: $dir/data}
train: {max_steps: 12, eval_every: 6, keep_last: 2}
YAML
cat > "$dir/study.yaml" <<YAML
base: study-base.yaml
seeds: [1, 2]
variants: [rope, none, alibi]
YAML
"$rotor" compare "$dir/study.yaml" --out "$dir/study-jobs" --jobs 2 > "$dir/study-jobs.log" 2>&1
check "study --jobs 2: exit 0" test $? -eq 0
"${mpi[@]}" 2 "$rotor" compare "$dir/study.yaml" --out "$dir/study-mpi" > "$dir/study-mpi.log" 2>&1
check "study on 2 ranks: exit 0" test $? -eq 0
check "study on 2 ranks: both ranks trained" grep -q "rank 1: run" "$dir/study-mpi.log"
check "study on 2 ranks: says it is shared" grep -q "shared by 2 MPI ranks" "$dir/study-mpi.log"
report_numbers() {  # the report's accuracies and statistics, without timings and paths
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
print(json.dumps([r["statistics"]["cells"], r["verdicts"],
  [{k: v["metrics"][k] for k in v["metrics"] if "accuracy" in k or "f1" in k} for v in r["variants"]]], sort_keys=True))' "$1"
}
check "study on 2 ranks: the report numbers of --jobs 2" \
  test "$(report_numbers "$dir/study-mpi/report.json")" = "$(report_numbers "$dir/study-jobs/report.json")"
"${mpi[@]}" 2 "$rotor" compare "$dir/study.yaml" --out "$dir/study-mpi" --jobs 2 > "$dir/study-both.log" 2>&1
check "mpirun with --jobs: refused" grep -q "use mpirun -np or --jobs" "$dir/study-both.log"

checks_passed || { for f in "$dir"/*.log; do echo "== $f"; tail -15 "$f"; done; exit 1; }
