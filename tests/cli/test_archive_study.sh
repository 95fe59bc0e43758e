#!/usr/bin/env bash
# Usage: test_archive_study.sh path/to/rotor path/to/tools/archive_study.py
# A study that outlives its machine: packed without checkpoints, unpacked
# into an empty folder, the same command finds every run finished and
# `rotor compare --report` rebuilds the report from the archive alone; an
# unfinished run, or one stopped in its sweep, is left out (it would start
# over anyway); packing is
# deterministic.
set -uo pipefail
rotor=$(readlink -f "$1")
archive_study=$(readlink -f "$2")
source "$(dirname "$0")/../check.sh"
scratch_workdir archive-study

cat > "$dir/base.yaml" <<YAML
run: {progress: lines, log_every: 5, threads: 1}
model: {d_model: 16, layers: 1, heads: 2, d_ff: 32}
data: {task: listops-easy, train_size: 200, eval_size: 40, max_len: 16, batch_size: 8, data_dir: $dir/data}
train: {max_steps: 12, eval_every: 6, checkpoint_every: 4}
YAML
printf 'base: base.yaml\nseeds: [1]\nvariants: [rope, none]\nevaluation: {lengths: [16, 32]}\n' > "$dir/study.yaml"

"$rotor" compare "$dir/study.yaml" --out "$dir/study" > "$dir/study.log" 2>&1
check "study: exit 0" test $? -eq 0
# A third run, started and stopped: its checkpoints alone, no summary.
mkdir -p "$dir/study/runs/partial-seed1/checkpoints"
cp "$dir/study/runs/rope-seed1/config.yaml" "$dir/study/runs/partial-seed1/"
# A fourth, stopped in its sweep: trained (a summary) but no attention pass yet.
mkdir -p "$dir/study/runs/swept-seed1"
cp "$dir/study/runs/rope-seed1/config.yaml" "$dir/study/runs/rope-seed1/summary.json" "$dir/study/runs/swept-seed1/"
python3 "$archive_study" pack "$dir/study" "$dir/a.tar.xz" > "$dir/pack.log" 2>&1
check "pack: exit 0" test $? -eq 0
check "pack: 2 finished, 2 unfinished" grep -q "2 finished runs packed, 2 unfinished left behind" "$dir/pack.log"
check "pack: no checkpoint, no lock, no unfinished run" \
  bash -c "! tar -tJf '$dir/a.tar.xz' | grep -E 'checkpoints|\\.lock|partial-seed1|swept-seed1'"
check "pack: summaries and the manifest" bash -c "tar -tJf '$dir/a.tar.xz' | grep -q 'runs/rope-seed1/summary.json' &&
  tar -tJf '$dir/a.tar.xz' | grep -qx 'study.json'"
python3 "$archive_study" pack "$dir/study" "$dir/b.tar.xz" > /dev/null 2>&1
check "pack: the same study packs to the same bytes" cmp -s "$dir/a.tar.xz" "$dir/b.tar.xz"

python3 "$archive_study" unpack "$dir/a.tar.xz" "$dir/moved" > /dev/null 2>&1
check "unpack: exit 0" test $? -eq 0
"$rotor" compare "$dir/study.yaml" --out "$dir/moved" > "$dir/again.log" 2>&1
check "unpacked: the same command finds every run finished" grep -q "2 done, 0 to run" "$dir/again.log"
rm -f "$dir/moved/report.md"
"$rotor" compare --report "$dir/moved" > "$dir/report.log" 2>&1
check "unpacked: --report rebuilds the report" test -s "$dir/moved/report.md"
check "unpacked: the report has both runs" grep -q "2/2 finished runs" "$dir/report.log"

python3 "$archive_study" unpack "$dir/missing.tar.xz" "$dir/x" > "$dir/missing.log" 2>&1
check "unpack: a missing archive exits 2" test $? -eq 2
check "unpack: ... naming it" grep -q "missing.tar.xz: not found" "$dir/missing.log"
checks_passed
