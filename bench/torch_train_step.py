#!/usr/bin/python3
"""PyTorch peer of bench_train_step: the same model, the same step, timed the same way.

    /usr/bin/python3 bench/torch_train_step.py bench/configs/S-rope.yaml [--steps 10] [--warmup 2] [--threads N]
        [--precision fp32|bf16] [--mode train|infer] [--vocab N]

Reads the same rotor YAML (following `extends:`) for the shape and model, and builds
the model the way one would for speed in PyTorch 1.13 (no fused attention exists there):
one fused qkv Linear, pre-LN blocks, rotary tables and T5 bucket indices precomputed per
length, the attention bias added in place, softmax and dropout in place where autograd
allows, AdamW over all parameters, zero_grad(set_to_none=True). Positions: rope (interleaved
pairs, RoFormer), sinusoidal (Vaswani, x*sqrt(d) + PE), t5_bias (HF bidirectional buckets,
one table shared by the layers), alibi (symmetric -m_h |i-j|). Prints one human line on
stderr and one JSON object on stdout, like the C++ bench. --precision bf16 runs the forward and the loss
under torch.autocast("cpu", dtype=torch.bfloat16) (fp32 master weights, backward outside the
context); --mode infer times forward passes only (model.eval(), torch.no_grad()). train.objective
clm and mlm tie the output to the token embedding plus a bias (mlm after BERT's dense + GELU +
layer norm transform, with 15% of the slots replaced by [MASK] and scored); --vocab sets the
number of token ids (default 260, the byte tokenizer's). The JSON
carries the minor page faults per timed step, the allocator (tcmalloc when the driver
preloads it) and the OpenBLAS core, read from inside the process.
"""
import argparse
import json
import math
import os
import resource
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

import bench_process


def load_config(path):
    """A rotor YAML with `extends:` chains, merged key by key (the child wins)."""
    with open(path) as f:
        node = yaml.safe_load(f) or {}
    base = node.pop("extends", None)
    if base is None:
        return node
    merged = load_config(os.path.join(os.path.dirname(path), base))

    def merge(a, b):
        for k, v in b.items():
            a[k] = merge(a.get(k, {}), v) if isinstance(v, dict) else v
        return a

    return merge(merged, node)


def t5_buckets(n, num_buckets=32, max_distance=128):
    """[n, n] bucket of j - i, HF T5 _relative_position_bucket(bidirectional=True)."""
    pos = torch.arange(n)
    rel = pos[None, :] - pos[:, None]
    nb = num_buckets // 2
    ret = (rel > 0).long() * nb
    a = rel.abs()
    max_exact = nb // 2
    large = max_exact + (torch.log(a.double().clamp(min=1) / max_exact) / math.log(max_distance / max_exact)
                         * (nb - max_exact)).floor().long()
    return ret + torch.where(a < max_exact, a, large.clamp(max=nb - 1))


def alibi_slopes(h):
    def pow2(n):
        start = 2.0 ** (-2.0 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(h).is_integer():
        return pow2(h)
    c = 2 ** math.floor(math.log2(h))
    return pow2(c) + alibi_slopes(2 * c)[0::2][: h - c]


class Block(nn.Module):
    def __init__(self, d, h, ff, p, pa):
        super().__init__()
        self.h, self.p, self.pa = h, p, pa
        self.attn_norm, self.mlp_norm = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, ff), nn.Linear(ff, d)

    def attention(self, x, pos):
        B, N, D = x.shape
        H, dh = self.h, D // self.h
        q, k, v = self.qkv(x).view(B, N, 3, H, dh).permute(2, 0, 3, 1, 4)  # [B, H, N, dh] each
        if pos.rope is not None:
            q, k = pos.rotate(q), pos.rotate(k)
        q = q.reshape(B * H, N, dh)
        k = k.reshape(B * H, N, dh)
        v = v.reshape(B * H, N, dh)
        scale = 1.0 / math.sqrt(dh)
        s = torch.bmm(q, k.transpose(1, 2)).mul_(scale)
        if pos.bias is not None:  # [H, N, N], broadcast over the batch, in place
            s.view(B, H, N, N).add_(pos.bias)
        if pos.key_mask is not None:
            s = s.view(B, H, N, N).masked_fill_(pos.key_mask, float("-inf")).view(B * H, N, N)
        if pos.causal_mask is not None:  # [N, N] True above the diagonal: keys after the query
            s.masked_fill_(pos.causal_mask, float("-inf"))
        a = F.dropout(torch.softmax(s, dim=-1), self.pa, self.training)
        o = torch.bmm(a, v).view(B, H, N, dh).transpose(1, 2).reshape(B, N, D)
        return self.out(o)

    def forward(self, x, pos):
        x = x + F.dropout(self.attention(self.attn_norm(x), pos), self.p, self.training)
        return x + F.dropout(self.fc2(F.gelu(self.fc1(self.mlp_norm(x)))), self.p, self.training)


class Positions:
    """Per-forward position inputs: rope tables, the [H, N, N] bias, the key mask."""

    def __init__(self, rope=None, bias=None, key_mask=None, causal_mask=None):
        self.rope, self.bias, self.key_mask, self.causal_mask = rope, bias, key_mask, causal_mask

    def rotate(self, x):  # interleaved pairs (2i, 2i+1): x*cos + rot(x)*sin
        cos, sin = self.rope
        x1, x2 = x[..., 0::2], x[..., 1::2]
        rot = torch.stack((-x2, x1), dim=-1).flatten(-2)
        return torch.addcmul(x * cos, rot, sin)


class Model(nn.Module):
    def __init__(self, cfg, vocab=260):
        super().__init__()
        m = cfg["model"]
        # train.objective clm: a causal LM, output tied to the token embedding plus a bias (GPT-2), no pooling;
        # mlm: a masked LM, BERT's transform (dense, GELU, layer norm) before the same tied output.
        self.objective = cfg.get("train", {}).get("objective", "classify")
        self.causal, self.masked = self.objective == "clm", self.objective == "mlm"
        d, h = m["d_model"], m["heads"]
        self.d, self.h, self.p = d, h, m.get("dropout", 0.1)
        pcfg = m.get("position", {})
        self.kind = pcfg.get("type", "rope")
        self.base = pcfg.get("base", 10000.0)
        self.nb, self.maxd = pcfg.get("num_buckets", 32), pcfg.get("max_distance", 128)
        self.emb = nn.Embedding(vocab, d)
        nn.init.normal_(self.emb.weight, std=0.02)  # rotor's (BERT's) init; a tied output layer needs it
        self.blocks = nn.ModuleList(Block(d, h, m["d_ff"], self.p, m.get("attention_dropout", 0.1))
                                    for _ in range(m["layers"]))
        self.norm = nn.LayerNorm(d)
        if self.masked:
            self.transform, self.transform_norm = nn.Linear(d, d), nn.LayerNorm(d)
        if self.causal or self.masked:
            self.lm_bias = nn.Parameter(torch.zeros(vocab))
        else:
            self.head = nn.Linear(d, m.get("num_classes", 2))
        if self.kind == "t5_bias" and self.causal:
            sys.exit("torch_train_step.py: t5_bias has no causal form here (T5's decoder buckets); use rope, "
                     "sinusoidal or alibi")
        if self.kind == "t5_bias":
            self.t5 = nn.Parameter(torch.randn(self.nb, h) * 0.02)
        self._cache = {}

    def constants(self, n):
        """Per-length constants, computed once: rope cos/sin, T5 bucket ids, ALiBi bias, PE."""
        if n not in self._cache:
            dh = self.d // self.h
            c = {}
            if self.kind == "rope":
                theta = self.base ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)
                ang = torch.arange(n, dtype=torch.float64)[:, None] * theta[None]
                c["rope"] = (ang.cos().repeat_interleave(2, -1).float(), ang.sin().repeat_interleave(2, -1).float())
            elif self.kind == "sinusoidal":
                ang = torch.arange(n, dtype=torch.float64)[:, None] / 10000.0 ** (
                    torch.arange(0, self.d, 2, dtype=torch.float64) / self.d)
                pe = torch.zeros(n, self.d)
                pe[:, 0::2], pe[:, 1::2] = ang.sin(), ang.cos()
                c["pe"] = pe
            elif self.kind == "t5_bias":
                c["buckets"] = t5_buckets(n, self.nb, self.maxd)
            elif self.kind == "alibi":
                pos = torch.arange(n, dtype=torch.float32)
                c["alibi"] = -torch.tensor(alibi_slopes(self.h))[:, None, None] * (pos[None] - pos[:, None]).abs()
            if self.causal:
                c["causal"] = torch.ones(n, n, dtype=torch.bool).triu(1)
            self._cache = {n: c}
        return self._cache[n]

    def forward(self, tokens, lengths):
        B, N = tokens.shape
        c = self.constants(N)
        x = self.emb(tokens)
        if self.kind == "sinusoidal":
            x = torch.addcmul(c["pe"], x, torch.tensor(math.sqrt(self.d)))
        x = F.dropout(x, self.p, self.training)
        valid = torch.arange(N)[None, :] < lengths[:, None]  # [B, N]
        key_mask = None if bool(valid.all()) else ~valid[:, None, None, :]
        bias = None
        if self.kind == "t5_bias":
            bias = self.t5[c["buckets"]].permute(2, 0, 1)  # [H, N, N], shared by the layers
        elif self.kind == "alibi":
            bias = c["alibi"]
        pos = Positions(c.get("rope"), bias, key_mask, c.get("causal"))
        for blk in self.blocks:
            x = blk(x, pos)
        x = self.norm(x)
        if self.masked:
            x = self.transform_norm(F.gelu(self.transform(x)))
        if self.causal or self.masked:
            return F.linear(x, self.emb.weight, self.lm_bias)  # [B, N, V]
        w = valid.to(x.dtype).unsqueeze(-1)
        pooled = (x * w).sum(1) / lengths[:, None].to(x.dtype)
        return self.head(F.dropout(pooled, self.p, self.training))


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads; 0: the config's run.threads")
    ap.add_argument("--precision", choices=("fp32", "bf16"), default="fp32",
                    help="bf16: the forward and loss under torch.autocast('cpu', dtype=torch.bfloat16)")
    ap.add_argument("--mode", choices=("train", "infer"), default="train",
                    help="infer: forward only, model.eval() under torch.no_grad()")
    ap.add_argument("--vocab", type=int, default=260, help="token ids (default: the byte tokenizer's 4 + 256)")
    return ap.parse_args()


def make_batch(cfg, model, vocab):
    """Random tokens at full length; random class labels, next-token targets for a causal LM, or for a masked LM
    15% of the slots replaced by [MASK] (id 1, rotor's CLS id) with their tokens as the targets."""
    B, N = cfg["data"]["batch_size"], cfg["data"]["max_len"]
    tokens = torch.randint(4, vocab, (B, N))
    lengths = torch.full((B,), N)
    labels = torch.randint(0, cfg["model"].get("num_classes", 2), (B,))
    if model.causal:  # the last slot has no target
        labels = torch.cat([tokens[:, 1:], torch.full((B, 1), -100)], dim=1).reshape(-1)
    if model.masked:
        selected = torch.rand(B, N) < 0.15
        labels = torch.where(selected, tokens, torch.full_like(tokens, -100)).reshape(-1)
        tokens = torch.where(selected, torch.ones_like(tokens), tokens)
    return tokens, lengths, labels


def train_step(cfg, model, batch, autocast):
    """One optimizer update: the usual CPU mixed-precision recipe (fp32 master weights, backward outside autocast)."""
    tr = cfg.get("train", {})
    opt = torch.optim.AdamW(model.parameters(), lr=tr.get("lr", 3e-4), weight_decay=tr.get("weight_decay", 0.01),
                            betas=(tr.get("beta1", 0.9), tr.get("beta2", 0.999)), eps=tr.get("eps", 1e-8))
    clip = tr.get("clip_norm", 1.0)
    tokens, lengths, labels = batch
    model.train()

    def step():
        opt.zero_grad(set_to_none=True)
        with autocast():
            logits = model(tokens, lengths)
            out = F.cross_entropy(logits.reshape(-1, logits.shape[-1]) if logits.dim() == 3 else logits, labels)
        out.backward()
        if clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        return out.item()

    return step


def infer_step(model, batch, autocast):
    """One forward pass as an evaluation runs it: eval mode (no dropout), no autograd graph."""
    tokens, lengths, _ = batch
    model.eval()

    def step():
        with torch.no_grad(), autocast():
            model(tokens, lengths)
        return None

    return step


def time_steps(step, warmup, steps):
    """Per-step seconds of the timed steps, their minor page faults per step, the last step's value."""
    times, value, faults = [], None, 0
    for s in range(warmup + steps):
        if s == warmup:
            faults = bench_process.minor_faults()
        t0 = time.perf_counter()
        value = step()
        if s >= warmup:
            times.append(time.perf_counter() - t0)
    return times, (bench_process.minor_faults() - faults) / steps, value


def matmul_flops(cfg, model, vocab, passes):
    """(all, attention) matmul FLOPs per step; passes 3 for a training step (forward, dX, dW), 1 for a forward."""
    m, B, N = cfg["model"], cfg["data"]["batch_size"], cfg["data"]["max_len"]
    d, ff, L, C = m["d_model"], m["d_ff"], m["layers"], m.get("num_classes", 2)
    T, causal = B * N, model.causal
    head = 2.0 * B * d * C  # a classifier's head; a language model scores every slot over the vocabulary
    if causal or model.masked:  # (a masked one after BERT's d x d transform)
        head = 2.0 * T * d * vocab + (2.0 * T * d * d if model.masked else 0.0)
    linear = passes * (L * 2.0 * T * (4 * d * d + 2 * d * ff) + head)
    # A causal LM needs the products at or below the diagonal only: half (PyTorch 1.13 computes them all).
    attention = passes * L * 4.0 * B * N * N * d * (0.5 if causal else 1.0)
    return linear + attention, attention


def report(a, cfg, model, threads, times, faults, loss):
    B, N, T = cfg["data"]["batch_size"], cfg["data"]["max_len"], cfg["data"]["batch_size"] * cfg["data"]["max_len"]
    flops, attention = matmul_flops(cfg, model, a.vocab, 3 if a.mode == "train" else 1)
    med = statistics.median(times)
    rss = bench_process.peak_rss_mib()
    env = bench_process.environment()
    kind = cfg["model"].get("position", {}).get("type", "rope")
    print(f"{a.config} [torch {a.mode} {a.precision}, {env['allocator']}]: {N} x {B}, {kind}, {threads} threads: "
          f"median {med:.3f} s/step (min {min(times):.3f}, max {max(times):.3f}, {len(times)} steps), "
          f"{T / med:.0f} tokens/s, {flops * 1e-9:.2f} GFLOP matmul/step, {flops / med * 1e-9:.1f} GFLOP/s, "
          f"peak RSS {rss:.0f} MiB, {faults:.0f} minor faults/step" + (f", loss {loss:.4f}" if loss is not None else ""),
          file=sys.stderr)
    print(json.dumps(dict(impl="torch", config=a.config, mode=a.mode, precision=a.precision, position=kind,
                          objective=model.objective, vocab=a.vocab, causal=model.causal, seq=N, batch=B,
                          threads=threads, steps=len(times), warmup=a.warmup,
                          median_s=med, min_s=min(times), max_s=max(times), tokens_per_s=T / med,
                          matmul_gflop=flops * 1e-9, attention_gflop=attention * 1e-9, gflops=flops / med * 1e-9,
                          peak_rss_mib=rss, minflt_per_step=faults, loss=loss, times_s=times, **env)))


def main():
    a = parse_args()
    cfg = load_config(a.config)
    threads = a.threads or cfg.get("run", {}).get("threads", 1) or os.cpu_count()
    torch.set_num_threads(threads)
    torch.manual_seed(cfg.get("run", {}).get("seed", 42))
    model = Model(cfg, vocab=a.vocab)
    batch = make_batch(cfg, model, a.vocab)

    def autocast():
        return torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.precision == "bf16")

    step = train_step(cfg, model, batch, autocast) if a.mode == "train" else infer_step(model, batch, autocast)
    times, faults, loss = time_steps(step, a.warmup, a.steps)
    report(a, cfg, model, threads, times, faults, loss)


if __name__ == "__main__":
    main()
