#!/usr/bin/env bash
# Usage: test_plot_study.sh path/to/plot_study.py
# tools/plot_study.py on hand-written report.json files: a partial study (one
# variant without a finished run, so its numbers are null) with pairwise
# statistics draws every plot and one heatmap per cell; a variant n/a at a
# length says so with the reason; an older report
# without "statistics" draws no heatmap; splits swept at one length each (a
# generated task's test, test_128, ...) share one panel, training marked at the
# longest training sample where the report has it; a study swept at one
# split and length gets no length plot; a rotary variant's frequency use gets
# a plot per layer; a suite's randomized-positions gains get one plot, a suite
# without randomized twins none. Skipped (77) without matplotlib.
set -uo pipefail
script=$1
python=${ROTOR_PYTHON:-/usr/bin/python3}
"$python" -c "import matplotlib" 2>/dev/null || { echo "matplotlib is not installed: skipped"; exit 77; }
dir=$(mktemp -d /tmp/rotor-plot-XXXXXX)
trap 'rm -rf "$dir"' EXIT
source "$(dirname "$0")/../check.sh"

cat > "$dir/old.json" <<'JSON'
{"seeds": [1, 2], "evaluation": {"splits": ["test"], "lengths": [64, 128], "scalings": ["none", "ntk"]},
 "variants": [
  {"name": "rope", "training_length": 64,
   "val_curve": [{"step": 10, "accuracy": {"n": 2, "mean": 0.5, "std": 0.1, "min": 0.4, "max": 0.6}},
                 {"step": 20, "accuracy": {"n": 2, "mean": 0.7, "std": 0.1, "min": 0.6, "max": 0.8}}],
   "sweep": [{"split": "test", "length": 64, "scaling": "none", "available": true,
              "accuracy": {"n": 2, "mean": 0.71, "std": 0.02, "min": 0.7, "max": 0.72}},
             {"split": "test", "length": 128, "scaling": "none", "available": true,
              "accuracy": {"n": 2, "mean": 0.61, "std": 0.03, "min": 0.59, "max": 0.63}},
             {"split": "test", "length": 128, "scaling": "ntk", "available": true,
              "accuracy": {"n": 2, "mean": 0.66, "std": 0.02, "min": 0.64, "max": 0.68}}]},
  {"name": "alibi", "training_length": 64, "val_curve": [],
   "sweep": [{"split": "test", "length": 64, "scaling": "none", "available": true,
              "accuracy": {"n": 0, "mean": null, "std": null, "min": null, "max": null}},
             {"split": "test", "length": 128, "scaling": "none", "available": true,
              "accuracy": {"n": 0, "mean": null, "std": null, "min": null, "max": null}},
             {"split": "test", "length": 128, "scaling": "ntk", "available": false, "reason": "not rotary"}]},
  {"name": "none", "training_length": 64,
   "val_curve": [{"step": 10, "accuracy": {"n": 1, "mean": 0.45, "std": 0.0, "min": 0.45, "max": 0.45}}],
   "sweep": [{"split": "test", "length": 64, "scaling": "none", "available": true,
              "accuracy": {"n": 1, "mean": 0.52, "std": 0.0, "min": 0.52, "max": 0.52}},
             {"split": "test", "length": 128, "scaling": "none", "available": true,
              "accuracy": {"n": 1, "mean": 0.5, "std": 0.0, "min": 0.5, "max": 0.5}},
             {"split": "test", "length": 128, "scaling": "ntk", "available": false, "reason": "not rotary"}]}]}
JSON
"$python" - "$dir/old.json" "$dir/new.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
def variant(name, n, mean, tier):
    v = {"name": name, "n_seeds": n, "n_documents": 400 if n else 0, "mean": mean, "seed_std": 0.01 if n else None,
         "ci_low": mean - 0.04 if n else None, "ci_high": mean + 0.04 if n else None, "tier": tier,
         "indistinguishable_from_reference": False}
    return v
def pair(a, b, d, p, different):
    return {"a": a, "b": b, "n_seeds": 1, "difference": d, "ci_low": d - 0.03, "ci_high": d + 0.03, "p": p,
            "p_holm": p, "different": different}
cells = []
for length, rope, none, p in ((64, 0.71, 0.52, 0.0005), (128, 0.61, 0.5, 0.2)):
    cells.append({"split": "test", "length": length, "scaling": "none",
                  "variants": [variant("rope", 2, rope, 1), variant("alibi", 0, None, None),
                               variant("none", 1, none, 2 if p < 0.05 else 1)],
                  "pairs": [pair("rope", "none", rope - none, p, p < 0.05)]})
report["statistics"] = {"method": {"alpha": 0.05, "replicates": 2000}, "cells": cells}
json.dump(report, open(sys.argv[2], "w"))
PY

"$python" "$script" study "$dir/new.json" "$dir/new" > "$dir/new.log" 2>&1
check "partial report with statistics: exit 0" test $? -eq 0
for f in val_accuracy length_extrapolation pairwise_test_64 pairwise_test_128; do
  for ext in png svg; do check "partial report: $f.$ext" test -s "$dir/new/$f.$ext"; done
done
check "significant pair starred" grep -q -- '+19.0\*' "$dir/new/pairwise_test_64.svg"
"$python" "$script" study "$dir/old.json" "$dir/old" > "$dir/old.log" 2>&1
check "report without statistics: exit 0" test $? -eq 0
check "report without statistics: plots drawn" test -s "$dir/old/length_extrapolation.png"
check "report without statistics: no heatmap" test -z "$(ls "$dir/old" | grep pairwise)"
# RoPE's newer scalings (llama3, dynamic_ntk) and a name this script has no style for draw too.
sed 's/"ntk"/"dynamic_ntk"/g' "$dir/old.json" > "$dir/scalings.json"
"$python" "$script" study "$dir/scalings.json" "$dir/scalings" > "$dir/scalings.log" 2>&1
check "dynamic_ntk scaling: plots drawn" test -s "$dir/scalings/length_extrapolation.png"
sed 's/"ntk"/"some_new_scaling"/g' "$dir/old.json" > "$dir/unknown.json"
"$python" "$script" study "$dir/unknown.json" "$dir/unknown" > "$dir/unknown.log" 2>&1
check "a scaling without a style: plots drawn" test -s "$dir/unknown/length_extrapolation.png"
# A generated task: each split swept once at its own length reads as one curve over the splits.
"$python" - "$dir/old.json" "$dir/splits.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
report["evaluation"] = {"splits": ["test", "test_128"], "lengths": [], "scalings": ["none"]}
for v in report["variants"]:
    v["sweep"] = [dict(c, split="test" if c["length"] == 64 else "test_128") for c in v["sweep"] if c["scaling"] == "none"]
json.dump(report, open(sys.argv[2], "w"))
PY
"$python" "$script" study "$dir/splits.json" "$dir/splits" > "$dir/splits.log" 2>&1
check "one length per split: exit 0" test $? -eq 0
check "one length per split: one panel over the splits" grep -q "test accuracy by sample length" "$dir/splits/length_extrapolation.svg"
check "a report without the longest training sample marks the training window" \
  grep -q "training window" "$dir/splits/length_extrapolation.svg"
# With it, training ends at the longest training sample, not at the (longer) window.
"$python" - "$dir/splits.json" "$dir/longest.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for v in report["variants"]:
    v["longest_training_sample"] = 40
json.dump(report, open(sys.argv[2], "w"))
PY
"$python" "$script" study "$dir/longest.json" "$dir/longest" > "$dir/longest.log" 2>&1
check "longest training sample: exit 0" test $? -eq 0
check "longest training sample: marked" grep -q "longest training sample" "$dir/longest/length_extrapolation.svg"
check "longest training sample: the window is not" test -z "$(grep 'training window' "$dir/longest/length_extrapolation.svg")"
# One split at one length (a fine-tuning study): no length plot, and a stale one from an earlier drawing goes.
"$python" - "$dir/old.json" "$dir/single.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for v in report["variants"]:
    v["sweep"] = [c for c in v["sweep"] if c["length"] == 64]
json.dump(report, open(sys.argv[2], "w"))
PY
mkdir -p "$dir/single" && touch "$dir/single/length_extrapolation.png"
"$python" "$script" study "$dir/single.json" "$dir/single" > "$dir/single.log" 2>&1
check "one split at one length: exit 0" test $? -eq 0
check "one split at one length: validation plot drawn" test -s "$dir/single/val_accuracy.png"
check "one split at one length: no length plot" test ! -e "$dir/single/length_extrapolation.png"
# A variant n/a at a length (learned positions past their table) is labelled with the sweep's reason, not as
# unfinished; one with no finished run still reads so.
"$python" - "$dir/new.json" "$dir/na.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
alibi = next(v for v in report["variants"] if v["name"] == "alibi")
for c in alibi["sweep"]:
    if c["length"] == 128 and c["scaling"] == "none":
        c.update(available=False, reason="input of 128 positions is longer than model.position.max_len = 64")
        del c["accuracy"]
json.dump(report, open(sys.argv[2], "w"))
PY
"$python" "$script" study "$dir/na.json" "$dir/na" > "$dir/na.log" 2>&1
check "n/a variant: exit 0" test $? -eq 0
check "n/a variant: labelled n/a with the reason" grep -q "alibi: n/a at 128 tokens: input of 128" "$dir/na/pairwise_test_128.svg"
check "n/a variant: not called unfinished" test -z "$(grep 'no finished run' "$dir/na/pairwise_test_128.svg")"
check "variant without a finished run: still said" grep -q "no finished run: alibi" "$dir/na/pairwise_test_64.svg"
# A variant with finished runs that were not evaluated at this length (its data gives the split other lengths:
# index hints double a sample's tokens) is said so, not called unfinished.
"$python" - "$dir/new.json" "$dir/elsewhere.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
next(v for v in report["variants"] if v["name"] == "alibi")["finished"] = 2
json.dump(report, open(sys.argv[2], "w"))
PY
"$python" "$script" study "$dir/elsewhere.json" "$dir/elsewhere" > "$dir/elsewhere.log" 2>&1
check "variant evaluated elsewhere: exit 0" test $? -eq 0
check "variant evaluated elsewhere: said so" grep -q "not evaluated at 64 tokens: alibi" "$dir/elsewhere/pairwise_test_64.svg"
check "variant evaluated elsewhere: not called unfinished" \
  test -z "$(grep 'no finished run' "$dir/elsewhere/pairwise_test_64.svg")"
# A rotary variant's frequency use: one plot per layer, titled by the variant; one not measured draws none.
"$python" - "$dir/single.json" "$dir/freq.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
head = {"head": 0, "q_norm": [1.0, 2.0], "k_norm": [1.5, 0.5], "mean_contribution": [0.1, -0.2],
        "mean_abs_share": [0.4, 0.6], "mean_logit": -0.1}
pairs = [{"pair": 0, "dims": [0, 1], "frequency": 1.0}, {"pair": 1, "dims": [2, 3], "frequency": 0.01}]
report["frequency_use"] = [
    {"variant": "rope-randomized", "position": "rope", "seed": 1, "available": True, "split": "val", "windows": 2,
     "pairs": pairs, "layers": [{"layer": 0, "heads": [head]}, {"layer": 1, "heads": [head]}]},
    {"variant": "rope", "position": "rope", "seed": 1, "available": False, "reason": "not measured"}]
json.dump(report, open(sys.argv[2], "w"))
PY
"$python" "$script" study "$dir/freq.json" "$dir/freq" > "$dir/freq.log" 2>&1
check "frequency use: exit 0" test $? -eq 0
for l in 0 1; do check "frequency use: layer $l drawn" test -s "$dir/freq/frequencies_rope-randomized_L$l.png"; done
check "frequency use: titled by the variant" grep -q "rope-randomized layer 0: frequency use" "$dir/freq/frequencies_rope-randomized_L0.svg"
check "frequency use: none for the variant not measured" test ! -e "$dir/freq/frequencies_rope_L0.png"
# Length ticks within 8% of the one labelled before them (a variant whose data gives a split other window
# lengths) drop a line instead of overlapping it.
labels=$("$python" -c "import sys; sys.path.insert(0, sys.argv[1]); import plot_study as p; \
print(p.staggered_labels([79, 39, 76, 156, 116]))" "$(dirname "$script")")
check "close length ticks: staggered" test "$labels" = "['39', '76', '\\n79', '116', '156']"
# A suite of tasks: randomized positions' gains per task and encoding, the task means and the mean over the tasks
# with its interval; a suite without randomized twins (or without papers' scores) draws nothing.
cat > "$dir/suite.json" <<'JSON'
{"spec": "s.yaml", "tasks": [{"task": "copy"}, {"task": "parity"}, {"task": "listops"}],
 "papers_scores": {"learnt_tasks": ["copy"], "randomized_gain": {"mean": 0.05, "low": -0.6, "high": 0.7,
   "learnt_mean": 0.2, "gained": 2, "lost": 1, "equal": 0,
   "pairs": [{"plain": "rope", "randomized": "rope-randomized", "mean": 0.05, "learnt_mean": 0.3},
             {"plain": "alibi", "randomized": "alibi-randomized", "mean": 0.1, "learnt_mean": 0.1}],
   "by_task": {"copy": {"rope-randomized": 0.3, "alibi-randomized": 0.1}, "parity": {"rope-randomized": -0.2,
               "alibi-randomized": null}},
   "task_mean": {"copy": 0.2, "parity": -0.2}}}}
JSON
"$python" "$script" suite "$dir/suite.json" "$dir/suite" > "$dir/suite.log" 2>&1
check "suite: exit 0" test $? -eq 0
for ext in png svg; do check "suite: randomized_gain.$ext" test -s "$dir/suite/randomized_gain.$ext"; done
check "suite: a learnt task starred" grep -q "copy \*" "$dir/suite/randomized_gain.svg"
check "suite: a task without gains is no row" test -z "$(grep listops "$dir/suite/randomized_gain.svg")"
check "suite: the mean with its interval" grep -q "mean over tasks (95% interval)" "$dir/suite/randomized_gain.svg"
"$python" - "$dir/suite.json" "$dir/plain.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
del report["papers_scores"]["randomized_gain"]["task_mean"]  # an older report: no bars, the dots still drawn
json.dump(report, open(sys.argv[1].replace("suite", "older"), "w"))
report["papers_scores"]["randomized_gain"] = {"pairs": [], "by_task": {}}
json.dump(report, open(sys.argv[2], "w"))
PY
"$python" "$script" suite "$dir/older.json" "$dir/older" > "$dir/older.log" 2>&1
check "suite without task means: drawn" test -s "$dir/older/randomized_gain.png"
"$python" "$script" suite "$dir/plain.json" "$dir/plain" > "$dir/plain.log" 2>&1
check "suite without randomized twins: exit 0" test $? -eq 0
check "suite without randomized twins: no plot" test ! -e "$dir/plain/randomized_gain.png"
[ -n "${KEEP_PLOTS:-}" ] && cp -r "$dir/new" "$KEEP_PLOTS"
cat "$dir/new.log" "$dir/old.log"
checks_passed
