#!/usr/bin/env bash
# Usage: test_compare.sh path/to/rotor
# `rotor compare` as a user runs it: --jobs 2 trains runs in child processes
# and writes the report; a suite of tasks writes a report per task and one
# across them; SIGTERM to the study stops every run at a checkpoint
# (exit 143) and a rerun resumes them; spec errors exit 1 with one message,
# usage errors exit 2; `rotor analyze rope-decay` prints the curve.
set -uo pipefail
rotor=$1
dir=$(mktemp -d /tmp/rotor-compare-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/../check.sh"

cat > "$dir/base.yaml" <<YAML
run: {progress: lines, log_every: 5, threads: 1}
model: {d_model: 16, layers: 1, heads: 2, d_ff: 32}
data: {task: listops-easy, train_size: 200, eval_size: 40, max_len: 16, batch_size: 8, data_dir: $dir/data}
train: {max_steps: 20, eval_every: 10, keep_last: 2}
YAML
cat > "$dir/study.yaml" <<YAML
base: base.yaml
seeds: [1]
variants: [rope, sinusoidal]
evaluation: {lengths: [16, 32], scalings: [none, yarn]}
YAML

"$rotor" compare "$dir/study.yaml" --out "$dir/study" --jobs 2 > "$dir/study.log" 2>&1
check "--jobs 2: exit 0" test $? -eq 0
check "--jobs 2: runs in child processes" grep -q "run 2 of 2 started" "$dir/study.log"
check "--jobs 2: child logs" test -s "$dir/study/runs/sinusoidal-seed1/compare.log"
for f in report.md report.csv report.json study.json; do
  check "--jobs 2: $f written" test -s "$dir/study/$f"
done
check "--jobs 2: rope swept with yarn" grep -q '| rope | yarn |' "$dir/study/report.md"
"$rotor" compare "$dir/study.yaml" --out "$dir/study" > "$dir/again.log" 2>&1
check "rerun: exit 0" test $? -eq 0
check "rerun: nothing to run" grep -q "2 done, 0 to run" "$dir/again.log"
rm "$dir/study/report.md"
"$rotor" compare --report "$dir/study" > "$dir/report.log" 2>&1
check "--report: exit 0 and report.md" test -s "$dir/study/report.md"

# SIGTERM to the study: both children checkpoint and stop; a rerun resumes.
sed 's/max_steps: 20,/max_steps: 1000000, checkpoint_every: 10,/' "$dir/base.yaml" > "$dir/long.yaml"
sed 's/base: base.yaml/base: long.yaml/; s/variants: \[rope, sinusoidal\]/variants: [rope]/; s/seeds: \[1\]/seeds: [1, 2]/' \
  "$dir/study.yaml" > "$dir/long-study.yaml"
"$rotor" compare "$dir/long-study.yaml" --out "$dir/long" --jobs 2 > "$dir/long.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  [ -f "$dir/long/runs/rope-seed1/checkpoints/latest" ] && [ -f "$dir/long/runs/rope-seed2/checkpoints/latest" ] && break
  sleep 0.1
done
kill -s TERM "$pid"
wait "$pid"
code=$?
check "SIGTERM: exit 143 (got $code)" test "$code" -eq 143
check "SIGTERM: says how to continue" grep -q "rerun the same command" "$dir/long.log"
for seed in 1 2; do
  check "SIGTERM: seed $seed saved" grep -q "stopped by SIGTERM" "$dir/long/runs/rope-seed$seed/compare.log"
done
sed -i 's/max_steps: 1000000,/max_steps: 30,/' "$dir/long.yaml"
"$rotor" compare "$dir/long-study.yaml" --out "$dir/long" --jobs 2 > "$dir/long2.log" 2>&1
check "resume: exit 0" test $? -eq 0
check "resume: resumed from a checkpoint" grep -q "resumed from" "$dir/long/runs/rope-seed1/compare.log"
check "resume: report" test -s "$dir/long/report.md"

# A suite of tasks: one study per task (children get --task), then the report across them.
printf 'tasks: {one: base.yaml, two: base.yaml}\nseeds: [1]\nvariants: [rope, none]\n' > "$dir/suite.yaml"
"$rotor" compare "$dir/suite.yaml" --out "$dir/suite" --jobs 2 > "$dir/suite.log" 2>&1
check "suite: exit 0" test $? -eq 0
for task in one two; do
  check "suite: task $task has its report" test -s "$dir/suite/$task/report.md"
  check "suite: task $task trained by children" test -s "$dir/suite/$task/runs/none-seed1/compare.log"
done
check "suite: the separation table (whole samples: listops-easy test holds up to 64 tokens)" grep -q "^| two | test @ 64 |" "$dir/suite/report.md"
check "suite: one length per task, so no longest-evaluation table" test -z "$(grep "Longest evaluation" "$dir/suite/report.md")"
check "suite: per-run attention usage" test -s "$dir/suite/one/runs/rope-seed1/attention.json"
rm "$dir/suite/report.md"
"$rotor" compare --report "$dir/suite" > "$dir/suite-report.log" 2>&1
check "suite: --report rebuilds it" test -s "$dir/suite/report.md"

# Errors and usage.
printf 'base: base.yaml\nseeds: [1]\nvariants: [rope, rotary]\n' > "$dir/bad.yaml"
(cd "$dir" && "$rotor" compare bad.yaml > bad.log 2>&1)
check "bad spec: exit 1" test $? -eq 1
check "bad spec: names the line" grep -q "^error: bad.yaml:3: variants: unknown variant 'rotary'" "$dir/bad.log"
check "bad spec: nothing ran" test ! -e "$dir/runs"
"$rotor" compare > /dev/null 2>&1
check "no spec: exit 2" test $? -eq 2
"$rotor" analyze rope-decay --head-dim 128 --max-distance 5 > "$dir/decay.txt" 2>&1
check "rope-decay: exit 0" test $? -eq 0
check "rope-decay: D(1) of RoFormer Figure 2" grep -q "^ *1 *1 *31.538166" "$dir/decay.txt"
"$rotor" analyze rope-decay --head-dim 7 > "$dir/decay-bad.txt" 2>&1
check "rope-decay: odd head dim exits 1" test $? -eq 1

checks_passed
