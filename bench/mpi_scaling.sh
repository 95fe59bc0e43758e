#!/usr/bin/env bash
# Usage: bench/mpi_scaling.sh [ROTOR] [STEPS]
# Data-parallel throughput on config S (d_model 256, 4 layers, 4 heads,
# d_ff 1024, seq 512 x batch 16 = 8192 tokens per step, RoPE, AdamW,
# dropout 0.1), one OpenMP thread per rank, in one run:
#   1 rank; 2 ranks with the gradient sums overlapped with the backward pass;
#   2 ranks without overlap (run.mpi_overlap=false).
# Reports the median step time and tokens/s over STEPS steps after one
# warm-up step, the gradient bytes each rank sends per step and the time it
# waits for the sums. Writes bench/results/mpi-<date>.{txt,json}.
# Runtime: about (STEPS + 1) x 2.5 x the 1-rank step time (5-6 s here), plus data generation.
set -euo pipefail
cd "$(dirname "$0")/.."
rotor=$(realpath "${1:-build/rotor}")
steps=${2:-4}
mpirun=${MPIRUN:-mpirun}
work=$(mktemp -d /tmp/rotor-mpi-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p bench/results
out=bench/results/mpi-$(date -u +%F)

# ListOps documents of up to 2000 tokens, cut to 512-token windows: full batches.
cat > "$work/s.yaml" <<YAML
run: {progress: none, log_every: 1, threads: 1}
model: {d_model: 256, layers: 4, heads: 4, d_ff: 1024, dropout: 0.1, attention_dropout: 0.1,
        position: {type: rope}}
data: {task: listops-2k, train_size: 512, eval_size: 16, max_len: 512, batch_size: 16, data_dir: $work/data}
train: {max_steps: $((steps + 1)), eval_every: 0, checkpoint_every: 0}
YAML

run() {  # run NAME RANKS [--set KEY=VALUE...]
  local name=$1 ranks=$2; shift 2
  local launcher=()
  [ "$ranks" -gt 1 ] && launcher=("$mpirun" --allow-run-as-root --oversubscribe --bind-to none -np "$ranks" -x OMP_NUM_THREADS=1 -x OMP_WAIT_POLICY=PASSIVE)
  echo "== $name" >&2
  OMP_NUM_THREADS=1 timeout 1200 "${launcher[@]}" "$rotor" train "$work/s.yaml" "$@" --out "$work/$name" > "$work/$name.log" 2>&1
}
run one-rank 1
run two-ranks-overlap 2 --set run.mpi_overlap=true
run two-ranks-no-overlap 2 --set run.mpi_overlap=false

/usr/bin/python3 - "$work" "$out" "$(nproc)" "$(cat /proc/loadavg)" <<'PY'
import json, re, statistics, sys
work, out, cores, load = sys.argv[1:5]
rows = []
for name, ranks in [("one-rank", 1), ("two-ranks-overlap", 2), ("two-ranks-no-overlap", 2)]:
    events = [e for e in map(json.loads, open(f"{work}/{name}/metrics.jsonl")) if e["event"] == "train"]
    rates = [e["tokens_per_s"] for e in events[1:]]  # the first step includes start-up
    params = int(re.search(r"model: (\d+) parameters", open(f"{work}/{name}.log").read()).group(1))
    comm = re.search(r"communication: (\d+) gradient bytes .*?, ([\d.]+) ms per step waiting", open(f"{work}/{name}.log").read())
    rate = statistics.median(rates)
    rows.append({"run": name, "ranks": ranks, "steps_measured": len(rates), "tokens_per_s": rate,
                 "step_s": 8192 / rate, "tokens_per_s_each_step": rates, "parameters": params,
                 "gradient_bytes_sent_per_rank_per_step": int(comm.group(1)) if comm else 0,
                 "wait_ms_per_step": float(comm.group(2)) if comm else 0.0})
base = rows[0]["tokens_per_s"]
lines = [f"rotor data-parallel, config S (8192 tokens/step), 1 thread per rank; {cores} cores, loadavg at end {load}",
         f"{'run':22s} {'step s':>7s} {'tokens/s':>9s} {'speed-up':>8s} {'bytes sent/rank/step':>21s} {'wait ms/step':>12s}"]
for r in rows:
    lines.append(f"{r['run']:22s} {r['step_s']:7.2f} {r['tokens_per_s']:9.0f} {r['tokens_per_s'] / base:8.2f} "
                 f"{r['gradient_bytes_sent_per_rank_per_step']:21d} {r['wait_ms_per_step']:12.1f}")
lines.append(f"gradient buffer: {rows[0]['parameters']} float32 = {4 * rows[0]['parameters']} bytes; "
             f"ring all-reduce volume 2(N-1)/N x that per rank")
open(out + ".txt", "w").write("\n".join(lines) + "\n")
json.dump({"cores": int(cores), "loadavg": load, "runs": rows}, open(out + ".json", "w"), indent=1)
print("\n".join(lines))
PY
echo "written: $out.txt $out.json"
