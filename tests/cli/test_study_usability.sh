#!/usr/bin/env bash
# Usage: test_study_usability.sh path/to/rotor
# What got in the way of a new user (issue 35, items 10, 14 and 15), as they
# see it: `compare --dry-run` says what a study will do and trains nothing; a
# classifier whose encoding and pooling cannot see order is warned about; the
# console names a fine-tune's source; the token cache stays out of the
# directory rotor runs from, and the console says where it is; `eval --data`
# reads a folder as data.train_path does.
set -uo pipefail
rotor=$1
source "$(dirname "$0")/../check.sh"
scratch_workdir usability
two_class_corpus
cat > run.yaml <<YAML
run: {progress: none, threads: 1}
model: {d_model: 16, layers: 1, heads: 2, d_ff: 32}
data: {train_path: corpus, val_path: corpus, test_path: corpus, max_len: 16, batch_size: 4}
train: {max_steps: 4, eval_every: 0, checkpoint_every: 2}
YAML

# The token cache: in the user's cache folder, said on the console, no data/ where rotor runs.
"$rotor" train run.yaml --out runs/base > base.log 2>&1
check "train on a folder exits 0" test $? -eq 0
check "no data/ folder in the working directory" test ! -e data
check "the token cache is in \$XDG_CACHE_HOME/rotor/tokens" test -n "$(compgen -G "$XDG_CACHE_HOME/rotor/tokens/*.tokens")"
check "the console says where the token cache is" grep -qF "token cache: $XDG_CACHE_HOME/rotor/tokens/" base.log
check "rope with mean pooling is not warned about" bash -c '! grep -q "cannot tell a sequence" base.log'

# eval --data: the folder the run was trained on, with and without a trailing slash.
"$rotor" eval runs/base --data corpus > eval.log 2>&1
check "eval --data FOLDER exits 0" test $? -eq 0
check "eval --data FOLDER scores its 24 documents" grep -q "^corpus: 24 documents" eval.log
"$rotor" eval runs/base --data corpus/ > eval-slash.log 2>&1
check "eval --data FOLDER/ names it too" grep -q "^corpus: 24 documents" eval-slash.log

# A fine-tune names its pre-trained source and step.
"$rotor" train run.yaml --out runs/tuned --set model.init_from=runs/base > tuned.log 2>&1
check "fine-tune exits 0" test $? -eq 0
check "fine-tune names its source and step" \
  grep -qE "^encoder: pre-trained, from .*/runs/base/checkpoints/step-00000004\.h5 \(step 4, classify\)" tuned.log
"$rotor" train run.yaml --out runs/tuned --set model.init_from=runs/base --set train.max_steps=6 --resume auto \
  > tuned-resume.log 2>&1
check "a resumed fine-tune says so" grep -qE "resumed from .* at step 4 .*; a fine-tune of .*step-00000004\.h5" \
  tuned-resume.log

# Symmetric ALiBi with mean pooling cannot see order: warned at load; with CLS pooling it can.
"$rotor" train run.yaml --out runs/alibi --set model.position.type=alibi --set train.max_steps=1 > alibi.log 2>&1
check "alibi + mean pooling exits 0" test $? -eq 0
check "alibi + mean pooling is warned about" grep -qF \
  "warning: model.position.type alibi with model.pooling mean cannot tell a sequence from its reverse" alibi.log
"$rotor" train run.yaml --out runs/alibi-cls --set model.position.type=alibi --set model.pooling=cls \
  --set train.max_steps=1 > alibi-cls.log 2>&1
check "alibi + cls pooling is not warned about" bash -c '! grep -q "cannot tell a sequence" alibi-cls.log'

# compare --dry-run: the runs, the keys that differ, a time estimate; nothing trained or written.
cat > study.yaml <<YAML
base: run.yaml
seeds: [1, 2]
variants: [rope, alibi]
YAML
"$rotor" compare study.yaml --out study --dry-run --jobs 2 > dry.log 2> dry.err
check "dry run exits 0" test $? -eq 0
check "dry run counts the runs" grep -qF "4 runs (2 variants x 2 seeds)" dry.log
check "dry run lists each run" grep -qE "^  alibi-seed2 +to train$" dry.log
check "dry run shows where the variants differ" grep -qE "^  alibi +model.position.type: alibi" dry.log
check "dry run estimates from timed steps" grep -qE "^  rope +[0-9.]+ s a step x 8 steps \(2 runs of 4, [0-9]+ threads\) = " dry.log
check "dry run gives a total for --jobs 2" grep -qE "total: about .* of training with --jobs 2" dry.log
check "dry run creates no study folder" test ! -e study
# Once a run is under way, the dry run says where it resumes and counts only what is left.
"$rotor" compare study.yaml --out study --only rope-seed1 > /dev/null 2>&1
"$rotor" compare study.yaml --out study --dry-run > dry2.log 2>&1
check "dry run after a run: it is finished" grep -qE "^  rope-seed1 +finished$" dry2.log
check "dry run after a run: its steps are not counted" grep -qE "^  rope +[0-9.]+ s a step x 4 steps \(1 run of 4, 1 threads\)" dry2.log
check "dry run leaves the other runs alone" test ! -e study/runs/rope-seed2

checks_passed
