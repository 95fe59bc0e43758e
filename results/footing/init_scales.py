# The residual stream's RMS against each pre-LN block's update at initialisation, for the embedding
# scales of results/footing/README.md: a numpy restatement of rotor's encoder at the Brown/SOTU size (d 128,
# 4 heads, d_ff 512, 2 layers, weights N(0, 0.02), biases 0, LN gains 1, tanh-approximate GELU; attention
# without dropout or padding). Run: /usr/bin/python3 results/footing/init_scales.py (numpy only, ~10 s).
import numpy as np
from math import sqrt

rng = np.random.default_rng(0)
d, H, dff, L, N, V = 128, 4, 512, 2, 256, 16000


def gelu(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def ln(x):
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)


def rms(x):
    return float(np.sqrt((x ** 2).mean()))


def table(n, d):  # rotor's interleaved sin/cos table, RMS sqrt(1/2) per row
    p, j = np.arange(n)[:, None], np.arange(d)[None, :]
    a = p * 10000.0 ** (-(j - j % 2) / d)
    return np.where(j % 2 == 0, np.sin(a), np.cos(a))


shapes = dict(q=(d, d), k=(d, d), v=(d, d), o=(d, d), f1=(d, dff), f2=(dff, d))
W = [{k: rng.normal(0, 0.02, s) for k, s in shapes.items()} for _ in range(L)]


def block(x, w):  # pre-LN: x + attn(LN x), then + mlp(LN x)
    h = ln(x)
    q, k, v = h @ w["q"], h @ w["k"], h @ w["v"]
    dh, out = d // H, np.zeros_like(x)
    for i in range(H):
        s = slice(i * dh, (i + 1) * dh)
        a = q[:, s] @ k[:, s].T / np.sqrt(dh)
        a = np.exp(a - a.max(-1, keepdims=True))
        out[:, s] = (a / a.sum(-1, keepdims=True)) @ v[:, s]
    att = out @ w["o"]
    mlp = gelu(ln(x + att) @ w["f1"]) @ w["f2"]
    return x + att + mlp, rms(att), rms(mlp)


ids = rng.integers(0, V, N)
bert = rng.normal(0, 0.02, (V, d))[ids]
vaswani = rng.normal(0, d ** -0.5, (V, d))[ids] * sqrt(d)
P = table(N, d)
cases = [
    ("none: tokens N(0, 0.02)", bert, 0 * P),
    ("sinusoidal before: Vaswani, unit tokens + bare table", vaswani, P),
    ("sinusoidal after: tokens N(0, 0.02) + table x 0.02/sqrt(1/2)", bert, P * 0.02 / sqrt(0.5)),
    ("BERT tokens + bare table (positions 35x tokens)", bert, P),
]
for name, tokens, positions in cases:
    x = tokens + positions
    line = f"{name}: tokens {rms(tokens):.3f}, positions {rms(positions):.3f}"
    for i, w in enumerate(W):
        x, a, m = block(x, w)
        line += f" | block {i}: attn {a:.4f}, mlp {m:.4f}, stream {rms(x):.3f}"
    print(line)
