#!/bin/bash
# Bias-type encodings at 8192 tokens (XL, batch 1, 2 threads): fused against composed attention, step time and
# peak RSS; composed runs under a 20 GB address-space limit (the VM has 24 GiB), so one that needs more fails
# with bad_alloc and is recorded as failed. Writes bench/results/bias-encodings-8k.jsonl.
cd "$(dirname "$0")/.."
out=bench/results/bias-encodings-8k.jsonl; : > $out; : > bench/results/bias-encodings-8k.log
for t in alibi kerple alibi_directional fire; do
  for k in fused composed; do
    echo "== $t $k" >&2
    ( ulimit -v 20000000; timeout 600 ./build/bench/bench_train_step bench/configs/XL-$t.yaml --steps 2 --warmup 1 --threads 2 --set model.attention_kernel=$k ) >> $out 2>> bench/results/bias-encodings-8k.log || echo "{\"config\": \"XL-$t\", \"attention_kernel\": \"$k\", \"failed\": \"exit $?\"}" >> $out
  done
done
