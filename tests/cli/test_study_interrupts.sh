#!/usr/bin/env bash
# Usage: test_study_interrupts.sh path/to/rotor
# `rotor compare --jobs 2` interrupted as users do (issue 21): a spec named
# without a folder resumes under another spelling (./study.yaml) and from
# another folder; SIGKILL of the study leaves no child running; SIGHUP stops
# like SIGTERM and names the runs that did not finish; a child killed by a
# signal is reported with how to resume; a second study process on the same
# folder, or another spec for it, is refused before study.json changes.
set -uo pipefail
rotor=$(readlink -f "$1")
dir=$(mktemp -d /tmp/rotor-interrupts-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/../check.sh"

mkdir -p "$dir/specs"
cat > "$dir/specs/long.yaml" <<YAML
run: {progress: lines, log_every: 5, threads: 1}
model: {d_model: 16, layers: 1, heads: 2, d_ff: 32}
data: {task: listops-easy, train_size: 200, eval_size: 40, max_len: 16, batch_size: 8, data_dir: ../data}
train: {max_steps: 1000000, eval_every: 10, checkpoint_every: 10, keep_last: 2}
YAML
cp "$dir/specs/long.yaml" "$dir/specs/hup-base.yaml"
printf 'base: long.yaml\nout_dir: ../study\nseeds: [1, 2]\nvariants: [rope]\n' > "$dir/specs/study.yaml"
printf 'base: hup-base.yaml\nseeds: [1, 2]\nvariants: [rope]\n' > "$dir/specs/hup.yaml"

wait_for_checkpoints() {  # STUDY_DIR: both runs have a committed checkpoint
  for _ in $(seq 1 600); do
    [ -f "$1/runs/rope-seed1/checkpoints/latest" ] && [ -f "$1/runs/rope-seed2/checkpoints/latest" ] && return 0
    sleep 0.1
  done
  return 1
}
alive() {  # PID runs (a zombie left to a container's init does not count)
  [ -e "/proc/$1" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null
}
all_gone() {  # PIDS...: none alive within 10 s
  for _ in $(seq 1 100); do
    local left=0
    for p in "$@"; do alive "$p" && left=1; done
    [ "$left" = 0 ] && return 0
    sleep 0.1
  done
  return 1
}
finish_soon() {  # BASE STUDY_DIR: max_steps 10 past the newest checkpoint (a resumable change)
  local last=0 s
  for seed in 1 2; do
    s=$(sed 's/step-0*\([0-9]*\).h5/\1/' "$2/runs/rope-seed$seed/checkpoints/latest")
    [ "$s" -gt "$last" ] && last=$s
  done
  sed -i "s/max_steps: [0-9]*,/max_steps: $((last + 10)),/" "$1"
}

# SIGKILL of the study, started as `rotor compare study.yaml` inside specs/.
(cd "$dir/specs" && exec "$rotor" compare study.yaml --jobs 2) > "$dir/kill.log" 2>&1 &
pid=$!
check "kill: out_dir is relative to the spec's folder" wait_for_checkpoints "$dir/study"
children=$(pgrep -P "$pid" | tr '\n' ' ')
check "kill: two children ($children)" test "$(wc -w <<< "$children")" -eq 2
kill -s KILL "$pid"
wait "$pid" 2>/dev/null
# shellcheck disable=SC2086
check "kill: no child outlives the study" all_gone $children
for seed in 1 2; do
  check "kill: seed $seed checkpointed on the way out" grep -q "stopped by SIGTERM" "$dir/study/runs/rope-seed$seed/compare.log"
done
finish_soon "$dir/specs/long.yaml" "$dir/study"
(cd "$dir/specs" && "$rotor" compare ./study.yaml --jobs 2) > "$dir/kill2.log" 2>&1
check "kill: rerun as ./study.yaml exits 0" test $? -eq 0
for seed in 1 2; do
  check "kill: seed $seed resumed, not refused" grep -q "resumed from" "$dir/study/runs/rope-seed$seed/compare.log"
done
(cd "$dir" && "$rotor" compare specs/study.yaml) > "$dir/kill3.log" 2>&1
check "kill: from the parent folder, the same study" grep -q "in $dir/study; 2 done, 0 to run" "$dir/kill3.log"

# SIGHUP of the study, after a second process and a killed child.
(cd "$dir/specs" && exec "$rotor" compare hup.yaml --out ../hup --jobs 2) > "$dir/hup.log" 2>&1 &
pid=$!
check "hup: checkpoints" wait_for_checkpoints "$dir/hup"
manifest=$(md5sum < "$dir/hup/study.json")
(cd "$dir/specs" && "$rotor" compare hup.yaml --out ../hup) > "$dir/second.log" 2>&1
check "second process: exit 1" test $? -eq 1
check "second process: refused by the study lock" grep -q "study directory ../hup is in use by another rotor process" "$dir/second.log"
check "second process: study.json untouched" test "$(md5sum < "$dir/hup/study.json")" = "$manifest"
children=$(pgrep -P "$pid" | tr '\n' ' ')
victim=${children%% *}
kill -s KILL "$victim"
for _ in $(seq 1 100); do grep -q "killed: rope-seed. by signal 9" "$dir/hup.log" && break; sleep 0.1; done
check "killed child: says how to resume" grep -q "by signal 9 (SIGKILL); rerun the same command to resume it from its last checkpoint" "$dir/hup.log"
kill -s HUP "$pid"
wait "$pid"
code=$?
check "hup: exit 129 (got $code)" test "$code" -eq 129
# shellcheck disable=SC2086
check "hup: no child remains" all_gone $children
check "hup: names the runs not finished" grep -q "not finished: rope-seed[12], rope-seed[12]; rerun the same command" "$dir/hup.log"
check "hup: the other child checkpointed" grep -q "stopped by SIGHUP" "$dir"/hup/runs/rope-seed*/compare.log
(cd "$dir/specs" && "$rotor" compare study.yaml --out ../hup) > "$dir/other.log" 2>&1
check "another spec: exit 1" test $? -eq 1
check "another spec: names both" grep -q "holds the study of another spec, hup.yaml (see ../hup/study.json), not study.yaml" "$dir/other.log"
check "another spec: study.json untouched" test "$(md5sum < "$dir/hup/study.json")" = "$manifest"
finish_soon "$dir/specs/hup-base.yaml" "$dir/hup"
(cd "$dir/specs" && "$rotor" compare hup.yaml --out ../hup --jobs 2) > "$dir/hup2.log" 2>&1
check "hup: rerun exits 0" test $? -eq 0
check "hup: resumed" grep -q "resumed from" "$dir/hup/runs/rope-seed1/compare.log"

checks_passed
