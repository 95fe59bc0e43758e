#!/usr/bin/python3
"""Independent PyTorch reference for rotor's tiny Transformer encoder classifier.

Writes one HDF5 "golden" file per variant (params, input batch, logits, loss and
d loss / d param) that the C++ tests compare against.  Everything is float64 and
written with plain torch tensor ops from the formulas in the comments -- no
nn.TransformerEncoder / nn.MultiheadAttention.

    /usr/bin/python3 tools/golden/make_golden.py --out tests/data/golden
    /usr/bin/python3 tools/golden/make_golden.py --self-test      # checks only

See tools/golden/README.md for the file layout.
"""
import argparse
import math
import os
import zlib

import numpy as np
import torch

torch.set_default_dtype(torch.float64)
torch.set_num_threads(1)  # single-threaded reductions -> bit-identical reruns

# --------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------
BASE = dict(
    vocab_size=20, d_model=16, heads=2, layers=2, d_ff=32, classes=2,
    max_len=16, ln_eps=1e-5, rope_base=10000.0, rope_fraction=1.0,
    rope_layout="", t5_num_buckets=32, t5_max_distance=128,
    fire_width=32, fire_init_L=3.5,  # the paper's L starts at 512; 3.5 puts the batch's positions on both sides
    cope_npos_max=4,  # CoPE: counts over the batch's 7 keys pass 3, so some are clamped
    position_type="none", attention="softmax", norm="pre", pooling="mean",
)

VARIANTS = {
    "rope_interleaved":    dict(position_type="rope", rope_layout="interleaved"),
    "rope_half":           dict(position_type="rope", rope_layout="half"),
    "rope_half_partial":   dict(position_type="rope", rope_layout="half", rope_fraction=0.5),
    "sinusoidal":          dict(position_type="sinusoidal"),
    "learned":             dict(position_type="learned"),
    "t5_bias":             dict(position_type="t5_bias"),
    "alibi":               dict(position_type="alibi"),
    "none":                dict(position_type="none"),
    "linear_rope":         dict(position_type="rope", rope_layout="interleaved", attention="linear"),
    "linear_rope_code":    dict(position_type="rope", rope_layout="interleaved", attention="linear",
                                linear_rotation="before_feature_map"),
    "sinusoidal_post_cls": dict(position_type="sinusoidal", norm="post", pooling="cls"),
    "alibi_max":           dict(position_type="alibi", pooling="max"),
    "fire":                dict(position_type="fire"),
    "kerple":              dict(position_type="kerple"),
    "alibi_directional":   dict(position_type="alibi_directional"),
    # xPos with a small scale base so that the 7-token batch feels the decay
    "xpos":                dict(position_type="xpos", rope_layout="interleaved",
                                xpos_scale_base=4.0, xpos_gamma=0.4),
    # p-RoPE: 2 of the 4 frequency pairs of each 8-dim head rotate
    "p_rope":              dict(position_type="p_rope", rope_layout="half", kept_frequency_fraction=0.5),
    # RoPE's frequency schedules (rope_inv_freq), the 7-token batch past each one's turning point:
    # llama3 with L = 64 puts the 4 pairs of an 8-dim head in all three bands (kept, ramp, divided);
    # dynamic NTK with L = 4 grows the base for the batch's 7 positions; resonance rounds 2 pi / theta_i
    "rope_llama3":         dict(position_type="rope", rope_layout="half", rope_scaling="llama3",
                                scaling_factor=4.0, original_max_len=64, low_freq_factor=1.0, high_freq_factor=4.0),
    "rope_dynamic_ntk":    dict(position_type="rope", rope_layout="interleaved", rope_scaling="dynamic_ntk",
                                scaling_factor=2.0, original_max_len=4),
    "rope_resonance":      dict(position_type="rope", rope_layout="interleaved", resonance=1),
    # LongRoPE (Phi-3's form): the batch's 7 positions pass L = 4 (long factors), or stay within L = 16 (short
    # factors); the attention factor sqrt(1 + ln s / ln L) in both
    "rope_longrope":       dict(position_type="rope", rope_layout="interleaved", rope_scaling="longrope",
                                scaling_factor=4.0, original_max_len=4, short_factors=[1.0, 1.25, 1.5, 2.0],
                                long_factors=[1.0, 2.0, 4.0, 8.0]),
    "rope_longrope_short": dict(position_type="rope", rope_layout="half", rope_scaling="longrope",
                                scaling_factor=2.0, original_max_len=16, short_factors=[1.0, 1.25, 1.5, 2.0],
                                long_factors=[1.0, 2.0, 4.0, 8.0]),
    # Sandwich: d' = 8 of the 16 model dims, and d' = d_model (0) in the decoder
    "sandwich":            dict(position_type="sandwich", sandwich_dims=8),
    "sandwich_causal":     dict(position_type="sandwich", sandwich_dims=0, causal=1),
    # CoPE (Golovneva et al. 2024): counted positions, interpolated embeddings; the paper's decoder and the
    # encoder form (gates counted on both sides of the query)
    "cope":                dict(position_type="cope"),
    "cope_causal":         dict(position_type="cope", causal=1),
    # Qwen's log-length query scaling past a training length of 4: the batch's positions 4..6 are scaled
    "rope_logn":           dict(position_type="rope", rope_layout="interleaved", logn_scaling=1, original_max_len=4),
    "alibi_logn":          dict(position_type="alibi", logn_scaling=1, original_max_len=4),
    # causal attention (query i sees keys j <= i) with each encoding's decoder form from its paper
    "t5_bias_causal":      dict(position_type="t5_bias", causal=1),
    "fire_causal":         dict(position_type="fire", causal=1),
    "kerple_causal":       dict(position_type="kerple", causal=1),
    "alibi_causal":        dict(position_type="alibi", causal=1),
    "xpos_causal":         dict(position_type="xpos", rope_layout="interleaved",
                                xpos_scale_base=4.0, xpos_gamma=0.4, causal=1),
    # causal linear attention: both RoPE forms' sums over keys j <= i (prefix sums)
    "linear_rope_causal":  dict(position_type="rope", rope_layout="interleaved", attention="linear", causal=1),
    "linear_rope_code_causal": dict(position_type="rope", rope_layout="interleaved", attention="linear",
                                    linear_rotation="before_feature_map", causal=1),
    # model.interleaved_position: a second encoding on layers first, first + every, ... (here of 2 layers):
    # Llama 4's iRoPE (no positions on the last layer of each group), RoPE at two bases (Gemma 3's and
    # ModernBERT's global layers), and two biases with parameters of their own
    "rope_irope":          dict(position_type="rope", rope_layout="interleaved",
                                interleave=dict(every=2, first=1, position_type="none")),
    "rope_two_bases":      dict(position_type="rope", rope_layout="half",
                                interleave=dict(every=2, first=0, position_type="rope", rope_layout="half",
                                                rope_base=100.0)),
    "t5_bias_kerple":      dict(position_type="t5_bias",
                                interleave=dict(every=2, first=1, position_type="kerple")),
    # language models: the encoder without pooling, output tied to the token embedding (lm_model)
    "lm_causal_rope":      dict(position_type="rope", rope_layout="interleaved", causal=1, lm="causal"),
    "lm_causal_alibi":     dict(position_type="alibi", causal=1, lm="causal"),
    "lm_masked_rope":      dict(position_type="rope", rope_layout="half", lm="masked"),
    # positions the data gives each token (data.generated.positions: coupled): COUPLED_POSITIONS, repeated
    # and descending, in place of 0..N-1, in every formula that reads a position
    "rope_coupled":        dict(position_type="rope", rope_layout="interleaved", coupled=1),
    "sinusoidal_coupled":  dict(position_type="sinusoidal", coupled=1),
    "t5_bias_coupled":     dict(position_type="t5_bias", coupled=1),
    "alibi_coupled":       dict(position_type="alibi", coupled=1),
    "learned_coupled":     dict(position_type="learned", coupled=1),
    "kerple_coupled":      dict(position_type="kerple", coupled=1),
    "fire_coupled":        dict(position_type="fire", coupled=1),
    "sandwich_coupled":    dict(position_type="sandwich", sandwich_dims=8, coupled=1),
    "xpos_coupled":        dict(position_type="xpos", rope_layout="interleaved",
                                xpos_scale_base=4.0, xpos_gamma=0.4, coupled=1),
    "p_rope_coupled":      dict(position_type="p_rope", rope_layout="half", kept_frequency_fraction=0.5, coupled=1),
    "alibi_directional_coupled": dict(position_type="alibi_directional", coupled=1),
    "rope_coupled_causal": dict(position_type="rope", rope_layout="interleaved", coupled=1, causal=1),
    "alibi_coupled_causal": dict(position_type="alibi", coupled=1, causal=1),
    "t5_bias_coupled_causal": dict(position_type="t5_bias", coupled=1, causal=1),
    "kerple_coupled_causal": dict(position_type="kerple", coupled=1, causal=1),
    "fire_coupled_causal": dict(position_type="fire", coupled=1, causal=1),
    # the frequency schedules and the query scaling at the data's positions: each row's current length is its
    # largest position + 1 (4 and 3), past L = 2, so dynamic NTK's base and LongRoPE's factors are the row's own
    "rope_llama3_coupled": dict(position_type="rope", rope_layout="half", rope_scaling="llama3", scaling_factor=4.0,
                                original_max_len=64, low_freq_factor=1.0, high_freq_factor=4.0, coupled=1),
    "rope_dynamic_ntk_coupled": dict(position_type="rope", rope_layout="interleaved", rope_scaling="dynamic_ntk",
                                     scaling_factor=2.0, original_max_len=2, coupled=1),
    "rope_resonance_coupled": dict(position_type="rope", rope_layout="interleaved", resonance=1, coupled=1),
    "rope_longrope_coupled": dict(position_type="rope", rope_layout="interleaved", rope_scaling="longrope",
                                  scaling_factor=4.0, original_max_len=3, short_factors=[1.0, 1.25, 1.5, 2.0],
                                  long_factors=[1.0, 2.0, 4.0, 8.0], coupled=1),
    "rope_logn_coupled":   dict(position_type="rope", rope_layout="interleaved", logn_scaling=1, original_max_len=2,
                                coupled=1),
    "xpos_coupled_causal": dict(position_type="xpos", rope_layout="interleaved", xpos_scale_base=4.0, xpos_gamma=0.4,
                                coupled=1, causal=1),
    "sandwich_coupled_causal": dict(position_type="sandwich", sandwich_dims=0, coupled=1, causal=1),
}

TOKENS = [[3, 7, 1, 12, 19, 5, 8], [4, 4, 9, 2, 11, 0, 0]]
LENGTHS = [7, 5]
# The coupled variants' token positions: two operands and an answer digit by digit (row 0), and a row whose
# positions descend and repeat; padding slots at 0, as rotor's batches pad them.
COUPLED_POSITIONS = [[1, 2, 3, 0, 1, 2, 1], [2, 1, 0, 1, 1, 0, 0]]
LABELS = [1, 0]
# The language models' targets, one per slot of TOKENS, -100 where unscored. causal: slot i
# predicts token i + 1 (slot 2 of row 0 is left unscored, as are padding and each row's last
# token); masked: the original tokens of the slots BERT's masking selected.
LM_TARGETS = {
    "causal": [[7, 1, -100, 19, 5, 8, -100], [4, 9, 2, 11, -100, -100, -100]],
    "masked": [[-100, 9, -100, -100, 13, -100, -100], [6, -100, -100, 2, -100, -100, -100]],
}
IGNORE = -100


def make_config(variant):
    cfg = dict(BASE)
    cfg.update(VARIANTS[variant])
    cfg["variant"] = variant
    return cfg


def make_batch():
    return (torch.tensor(TOKENS, dtype=torch.int64),
            torch.tensor(LENGTHS, dtype=torch.int64),
            torch.tensor(LABELS, dtype=torch.int64))


def variant_seed(variant):
    # Per-variant seed: CRC32 of the variant name (stable across Python runs,
    # unlike hash()).
    return zlib.crc32(variant.encode("ascii"))


# --------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------
def param_specs(cfg):
    """Ordered list of (name, shape, kind).  Initialisation draws in this order."""
    d, f, V = cfg["d_model"], cfg["d_ff"], cfg["vocab_size"]
    specs = [("embed.tokens.weight", (V, d), "embed")]
    if cfg["position_type"] == "learned":
        specs.append(("embed.positions.weight", (cfg["max_len"], d), "embed"))
    if cfg["pooling"] == "cls":
        specs.append(("embed.cls", (d,), "embed"))
    for i in range(cfg["layers"]):
        p = "layers.%d." % i
        specs += [(p + "attn_norm.weight", (d,), "ln_w"), (p + "attn_norm.bias", (d,), "ln_b")]
        for m in ("q", "k", "v", "out"):
            specs += [(p + "attn.%s.weight" % m, (d, d), "w"), (p + "attn.%s.bias" % m, (d,), "b")]
        specs += [(p + "mlp_norm.weight", (d,), "ln_w"), (p + "mlp_norm.bias", (d,), "ln_b")]
        specs += [(p + "mlp.fc1.weight", (f, d), "w"), (p + "mlp.fc1.bias", (f,), "b"),
                  (p + "mlp.fc2.weight", (d, f), "w"), (p + "mlp.fc2.bias", (d,), "b")]
    specs += position_param_specs(cfg)
    if "interleave" in cfg:
        specs += position_param_specs(interleaved_cfg(cfg))
    if cfg["norm"] == "pre":  # post-LN blocks end normalised: no final norm (BERT, RoFormer)
        specs += [("final_norm.weight", (d,), "ln_w"), ("final_norm.bias", (d,), "ln_b")]
    if cfg.get("lm") == "masked":  # BERT's transform before the tied output
        specs += [("lm_head.transform.weight", (d, d), "w"), ("lm_head.transform.bias", (d,), "b"),
                  ("lm_head.norm.weight", (d,), "ln_w"), ("lm_head.norm.bias", (d,), "ln_b")]
    if cfg.get("lm"):
        specs.append(("lm_head.bias", (V,), "b"))
    else:
        specs += [("head.weight", (cfg["classes"], d), "w"), ("head.bias", (cfg["classes"],), "b")]
    return specs


def position_param_specs(cfg):
    """The parameters of cfg's position encoding that attention reads."""
    specs = []
    if cfg["position_type"] == "t5_bias":
        specs.append(("position.t5_bias.weight", (cfg["t5_num_buckets"], cfg["heads"]), "embed"))
    if cfg["position_type"] == "fire":  # one FIRE module per layer
        W = cfg["fire_width"]
        for i in range(cfg["layers"]):
            p = "layers.%d.attn.fire." % i
            specs += [(p + "mlp.fc1.weight", (W, 1), "w"), (p + "mlp.fc1.bias", (W,), "b"),
                      (p + "mlp.fc2.weight", (cfg["heads"], W), "w"), (p + "mlp.fc2.bias", (cfg["heads"],), "b"),
                      (p + "c", (1,), "fire_c"), (p + "threshold_scale", (1,), "fire_threshold_scale")]
    if cfg["position_type"] == "cope":  # each layer's position embeddings, [npos_max, head_dim]
        for i in range(cfg["layers"]):
            specs.append(("layers.%d.attn.cope.embeddings" % i,
                          (cfg["cope_npos_max"], cfg["d_model"] // cfg["heads"]), "embed"))
    if cfg["position_type"] == "kerple":
        specs += [("position.kerple.r1", (cfg["heads"],), "kerple_r1"),
                  ("position.kerple.r2", (cfg["heads"],), "kerple_r2")]
    if cfg["position_type"] == "alibi_directional":  # learned slopes, starting from the fixed split
        specs += [("position.alibi_directional.slopes_before", (cfg["heads"],), "slopes_before"),
                  ("position.alibi_directional.slopes_after", (cfg["heads"],), "slopes_after")]
    return specs


def interleaved_cfg(cfg):
    """cfg with the interleaved encoding in place of the variant's: its own position keys on the
    defaults of BASE, the model's other keys as they are."""
    inter = cfg["interleave"]
    assert not cfg.get("logn_scaling"), "logn scaling is the model's, not one layer's: not covered here"
    c = {k: v for k, v in cfg.items() if k != "interleave" and k not in POSITION_KEYS}
    c.update({k: BASE[k] for k in POSITION_KEYS if k in BASE})
    c.update({k: v for k, v in inter.items() if k not in ("every", "first")})
    return c


def layer_cfg(cfg, i):
    """The config block i's attention reads: the interleaved encoding's on layers first, first + every, ..."""
    inter = cfg.get("interleave")
    if inter and i >= inter["first"] and (i - inter["first"]) % inter["every"] == 0:
        return interleaved_cfg(cfg)
    return cfg


def init_params(cfg, seed):
    """weights N(0,0.3^2); biases N(0,0.1^2); LN weight 1+0.1N, LN bias 0.1N;
    embedding tables / t5 table / cls vector N(0,0.5^2); KERPLE's r1 ~ U(0,2),
    r2 ~ U(0,1), both clamped to >= 0.01 (as its code); directional ALiBi
    slopes: the fixed split of the 2H-head schedule; FIRE's c 0.3+0.05N and
    threshold multiplier 1+0.05N."""
    g = torch.Generator().manual_seed(seed)
    params = {}
    for name, shape, kind in param_specs(cfg):
        z = torch.randn(shape, generator=g, dtype=torch.float64)
        if kind in ("kerple_r1", "kerple_r2"):
            u = torch.rand(shape, generator=g, dtype=torch.float64)
            t = (2.0 * u if kind == "kerple_r1" else u).clamp(min=KERPLE_EPS)
        elif kind in ("slopes_before", "slopes_after"):
            before, after = directional_alibi_slopes(shape[0])
            t = torch.tensor(before if kind == "slopes_before" else after)
        elif kind == "w":
            t = 0.3 * z
        elif kind == "b":
            t = 0.1 * z
        elif kind == "ln_w":
            t = 1.0 + 0.1 * z
        elif kind == "ln_b":
            t = 0.1 * z
        elif kind == "fire_c":
            t = 0.3 + 0.05 * z
        elif kind == "fire_threshold_scale":  # the multiplier of fire_init_L, learned from 1 in the paper
            t = 1.0 + 0.05 * z
        else:  # embed / t5 table / cls
            t = 0.5 * z
        params[name] = t
    return params


# --------------------------------------------------------------------------
# Building blocks
# --------------------------------------------------------------------------
def linear(x, w, b):
    # y = x W^T + b   (W is [out, in])
    return x @ w.t() + b


def layer_norm(x, w, b, eps):
    # LN(x) = (x - mean) / sqrt(var + eps) * w + b, biased variance over last dim
    mu = x.mean(dim=-1, keepdim=True)
    var = ((x - mu) ** 2).mean(dim=-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * w + b


def gelu(x):
    # exact GELU: 0.5 x (1 + erf(x / sqrt(2)))
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def sinusoidal_table(n, d, positions=None):
    # PE[p, 2i] = sin(p / 10000^(2i/d)),  PE[p, 2i+1] = cos(p / 10000^(2i/d)), at p = 0..n-1 or at
    # `positions` (any shape: the rows come out in its shape, with d appended)
    p = (torch.arange(n, dtype=torch.float64) if positions is None else positions)[..., None]
    two_i = torch.arange(0, d, 2, dtype=torch.float64)
    ang = p / torch.pow(torch.tensor(10000.0), two_i / d)
    pe = torch.zeros(*ang.shape[:-1], d)
    pe[..., 0::2] = torch.sin(ang)
    pe[..., 1::2] = torch.cos(ang)
    return pe


def rope_angles(n, r, base):
    # theta_i = base^(-2i/r), i = 0..r/2-1 ;  angle[m, i] = m * theta_i
    i = torch.arange(r // 2, dtype=torch.float64)
    theta = torch.pow(torch.tensor(float(base)), -2.0 * i / r)
    m = torch.arange(n, dtype=torch.float64)
    return m[:, None] * theta[None, :]                      # [n, r/2]


TWO_PI = 2.0 * math.pi


def rope_inv_freq(cfg, r, n):
    """theta_i (i < r/2) of the variant's frequency schedule for a forward of n positions, written
    from Hugging Face transformers' modeling_rope_utils (rope_type llama3 and dynamic) and the
    Resonance RoPE paper (Wang et al. 2024, arXiv 2403.00071, Algorithm 1):
      default:  theta_i = 1 / base^(2i/r)
      llama3 (_compute_llama3_parameters): wavelen = 2 pi / theta; L = original_max_len;
                wavelen < L/high: theta;  wavelen > L/low: theta / factor;
                else (1 - s) theta / factor + s theta,  s = (L / wavelen - low) / (high - low)
      dynamic (_compute_dynamic_ntk_parameters): seq_len = max(n, L);
                base' = base (factor seq_len / L - (factor - 1))^(r / (r - 2)); theta_i = 1 / base'^(2i/r)
      longrope (_compute_longrope_parameters, longrope_frequency_update): seq_len = n;
                theta_i = 1 / (lambda_i base^(2i/r)), lambda = long_factor if seq_len > L else short_factor
      resonance: theta_i = 2 pi / round(2 pi / theta_i), after the schedule"""
    base, scaling = cfg["rope_base"], cfg.get("rope_scaling", "none")
    exponent = torch.arange(0, r, 2, dtype=torch.float64) / r
    if scaling == "dynamic_ntk":
        L, factor = cfg["original_max_len"], cfg["scaling_factor"]
        seq_len = max(n, L)
        base = base * ((factor * seq_len / L) - (factor - 1)) ** (r / (r - 2))
    inv = 1.0 / (base ** exponent)
    if scaling == "llama3":
        L, factor = cfg["original_max_len"], cfg["scaling_factor"]
        low, high = cfg["low_freq_factor"], cfg["high_freq_factor"]
        wavelen = TWO_PI / inv
        scaled = torch.where(wavelen > L / low, inv / factor, inv)
        smooth = (L / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = ~(wavelen < L / high) & ~(wavelen > L / low)
        inv = torch.where(medium, smoothed, scaled)
    if scaling == "longrope":  # the short factors while seq_len = max position + 1 <= L, the long ones past it
        factors = cfg["long_factors"] if n > cfg["original_max_len"] else cfg["short_factors"]
        inv = 1.0 / (torch.tensor(factors, dtype=torch.float64) * base ** exponent)
    if cfg.get("resonance", 0):
        inv = TWO_PI / torch.round(TWO_PI / inv)
    return inv


def longrope_attention_factor(cfg):
    """_compute_longrope_parameters: sqrt(1 + ln(factor) / ln(L)) for factor > 1, else 1; it multiplies
    cos and sin, so q and k after their rotation."""
    factor, L = cfg["scaling_factor"], cfg["original_max_len"]
    return math.sqrt(1 + math.log(factor) / math.log(L)) if factor > 1 else 1.0


def rope(x, layout, fraction=1.0, base=10000.0, theta=None, positions=None):
    """Rotate x [..., N, dh] by position m = 0..N-1, or m = positions[b, n] ([B, N]: x is [B, H, N, dh]).
    r = int(dh * fraction) rotated dims; dims >= r pass through.
    pair (a, b) = (2i, 2i+1) for 'interleaved', (i, i + r/2) for 'half':
        x'_a = x_a cos(m theta_i) - x_b sin(m theta_i)
        x'_b = x_b cos(m theta_i) + x_a sin(m theta_i)
    """
    n, dh = x.shape[-2], x.shape[-1]
    r = int(dh * fraction)
    if positions is not None:  # angle[b, 1, n, i] = positions[b, n] * theta_i, or theta[b, i]: each row's schedule
        if theta is None:
            theta = torch.pow(torch.tensor(float(base)), -2.0 * torch.arange(r // 2, dtype=torch.float64) / r)
        ang = positions[:, None, :, None] * (theta if theta.dim() == 1 else theta[:, None, None, :])
    elif theta is None:
        ang = rope_angles(n, r, base)
    else:  # a frequency schedule's theta_i: angle[m, i] = m * theta_i
        ang = torch.arange(n, dtype=torch.float64)[:, None] * theta[None, :]
    cos, sin = torch.cos(ang), torch.sin(ang)                # [n, r/2]
    if layout == "interleaved":
        a_idx = torch.arange(0, r, 2)
        b_idx = torch.arange(1, r, 2)
    elif layout == "half":
        a_idx = torch.arange(0, r // 2)
        b_idx = torch.arange(r // 2, r)
    else:
        raise ValueError(layout)
    xa, xb = x[..., a_idx], x[..., b_idx]
    out = x.clone()
    out[..., a_idx] = xa * cos - xb * sin
    out[..., b_idx] = xb * cos + xa * sin
    return out


def xpos(x, downscale, scale_base, gamma, base=10000.0, positions=None):
    """xPos (Sun et al. 2022, arXiv 2212.10554; torchscale XPOS) on x [..., N, d],
    position m = 0..N-1, pairs (2i, 2i+1) as in the paper:
        zeta_i = (2i/d + gamma) / (1 + gamma),  s[m, i] = zeta_i^(m / scale_base)
        queries: x_m -> R(m theta_i) x_m * s[m, i];  keys (downscale): ... / s[m, i]
    written in torchscale's form x * cos' + rotate_every_two(x) * sin', with
    cos' and sin' the scaled tables duplicated per pair, so that q_m . k_n
    carries zeta_i^((m - n) / scale_base). positions [B, N]: m = positions[b, n] (x is [B, H, N, d])."""
    n, d = x.shape[-2], x.shape[-1]
    i = torch.arange(d // 2, dtype=torch.float64)
    zeta = (2.0 * i / d + gamma) / (1.0 + gamma)
    m = torch.arange(n, dtype=torch.float64) if positions is None else positions[:, None, :]
    scale = zeta ** (m[..., None] / scale_base)              # [n, d/2], or [B, 1, n, d/2]
    if downscale:
        scale = 1.0 / scale
    theta = torch.pow(torch.tensor(float(base)), -2.0 * i / d)
    ang = m[..., None] * theta                                # m * theta_i, as rope_angles
    cos = (torch.cos(ang) * scale).repeat_interleave(2, dim=-1)
    sin = (torch.sin(ang) * scale).repeat_interleave(2, dim=-1)
    every_two = torch.stack((-x[..., 1::2], x[..., 0::2]), dim=-1).flatten(-2)
    return x * cos + every_two * sin


def p_rope(x, layout, kept, base=10000.0, positions=None):
    """p-RoPE (Barbero et al. 2024, arXiv 2410.06205) on x [..., N, d]: pair i of
    RoPE's d/2 pairs turns by m theta_i, theta_i = base^(-2i/d) over the whole
    head, for the kept = p * d/2 highest frequencies (i < kept); the others are
    left as they are. Written as complex multiplication z_i * e^{i m theta_i}."""
    n, d = x.shape[-2], x.shape[-1]
    k = round(kept * d / 2)
    if layout == "interleaved":
        a_idx, b_idx = torch.arange(0, d, 2), torch.arange(1, d, 2)
    else:
        a_idx, b_idx = torch.arange(0, d // 2), torch.arange(d // 2, d)
    z = torch.complex(x[..., a_idx], x[..., b_idx])         # [..., n, d/2]
    i = torch.arange(d // 2, dtype=torch.float64)
    theta = torch.where(i < k, torch.pow(torch.tensor(float(base)), -2.0 * i / d), torch.zeros(()))
    m = torch.arange(n, dtype=torch.float64) if positions is None else positions[:, None, :]  # [n] or [B, 1, n]
    ang = m[..., None] * theta
    turn = torch.polar(torch.ones_like(ang), ang)
    out = torch.empty_like(x)
    out[..., a_idx] = (z * turn).real
    out[..., b_idx] = (z * turn).imag
    return out


def t5_bucket(rel, num_buckets=32, max_distance=128):
    """HF T5 bidirectional bucket of rel = j - i (key minus query), integer tensor.
        nb = num_buckets // 2 ; ret = (rel > 0) * nb ; n = |rel| ; max_exact = nb // 2
        bucket = n                                                      if n < max_exact
               = min(nb-1, max_exact + floor(log(n/max_exact)/log(max_distance/max_exact)
                                             * (nb - max_exact)))       otherwise
        return ret + bucket        (logs in float64)
    """
    nb = num_buckets // 2
    ret = (rel > 0).to(torch.int64) * nb
    n = rel.abs()
    max_exact = nb // 2
    nf = n.to(torch.float64).clamp(min=1.0)  # clamp only avoids log(0); unused branch
    large = max_exact + torch.floor(torch.log(nf / max_exact)
                                    / math.log(max_distance / max_exact)
                                    * (nb - max_exact)).to(torch.int64)
    large = torch.clamp(large, max=nb - 1)
    return ret + torch.where(n < max_exact, n, large)


def t5_decoder_bucket(rel, num_buckets=32, max_distance=128):
    """T5's decoder (unidirectional) bucket of rel = j - i: only keys j <= i exist,
    at distance n = i - j (keys j > i are masked: n taken as 0), and all the buckets
    serve that one side:
        max_exact = num_buckets // 2
        bucket = n                                                      if n < max_exact
               = min(num_buckets-1, max_exact + floor(log(n/max_exact)/log(max_distance/max_exact)
                                                      * (num_buckets - max_exact)))  otherwise
    """
    n = (-rel).clamp(min=0)
    max_exact = num_buckets // 2
    nf = n.to(torch.float64).clamp(min=1.0)  # clamp only avoids log(0); unused branch
    large = max_exact + torch.floor(torch.log(nf / max_exact)
                                    / math.log(max_distance / max_exact)
                                    * (num_buckets - max_exact)).to(torch.int64)
    return torch.where(n < max_exact, n, torch.clamp(large, max=num_buckets - 1))


def t5_bias(n, table, num_buckets, max_distance, causal=False, positions=None):
    # bias[h, i, j] = T[bucket(p_j - p_i), h], the decoder's buckets when causal; p = 0..n-1, or
    # positions [B, n] (then the bias is [B, H, n, n])
    if positions is not None:
        pos = positions.to(torch.int64)
        rel = pos[:, None, :] - pos[:, :, None]               # [b, i, j] -> p_j - p_i
        bucket = t5_decoder_bucket if causal else t5_bucket
        return table[bucket(rel, num_buckets, max_distance)].permute(0, 3, 1, 2)
    pos = torch.arange(n)
    rel = pos[None, :] - pos[:, None]                        # [i, j] -> j - i
    bucket = t5_decoder_bucket if causal else t5_bucket
    b = bucket(rel, num_buckets, max_distance)               # [n, n]
    return table[b].permute(2, 0, 1)                         # [H, n, n]


def alibi_slopes(n_heads):
    """get_slopes from ofirpress/attention_with_linear_biases."""
    def pow2(n):
        start = 2.0 ** (-2.0 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n_heads).is_integer():
        return pow2(n_heads)
    closest = 2 ** math.floor(math.log2(n_heads))
    return pow2(closest) + alibi_slopes(2 * closest)[0::2][: n_heads - closest]


def directional_alibi_slopes(n_heads):
    """ALiBi's schedule for 2H heads split into two interleaved halves: keys
    before the query take slopes 1, 3, 5, ... (0-based odd: for a power-of-two H,
    ALiBi's own H-head schedule), keys after take slopes 0, 2, 4, ..."""
    both = alibi_slopes(2 * n_heads)
    return both[1::2], both[0::2]


def directional_alibi_bias(n, before, after, pos=None):
    # bias[h, i, j] = -before_h (p_i - p_j) for p_j < p_i ;  -after_h (p_j - p_i) for p_j > p_i; p = 0..n-1 or a row's
    pos = torch.arange(n, dtype=torch.float64) if pos is None else pos
    rel = pos[:, None] - pos[None, :]                        # [i, j] -> i - j
    return -(before[:, None, None] * rel.clamp(min=0)[None] + after[:, None, None] * (-rel).clamp(min=0)[None])


KERPLE_EPS = 1e-2  # KERPLE's code keeps r1, r2 >= 0.01


def kerple_bias(n, r1, r2, pos=None):
    # KERPLE (log): bias[h, i, j] = -r1_h log(1 + r2_h |p_i - p_j|), p = 0..n-1 or one row's positions
    pos = torch.arange(n, dtype=torch.float64) if pos is None else pos
    dist = (pos[:, None] - pos[None, :]).abs()
    return -r1[:, None, None] * torch.log1p(r2[:, None, None] * dist[None])


def position_bias(n, P, cfg, pre):
    """[H, n, n] additive logit bias of the variant's position encoding in layer `pre`, or None."""
    pt = cfg["position_type"]
    positions = cfg.get("slot_positions")
    if positions is not None:
        # causal: each bias as rotor reads its table of offsets (or FIRE its pair bias) at p_i - p_j, which in a
        # decoder may be negative (a key before the query can sit at a larger position): ALiBi's and KERPLE's
        # |p_i - p_j|, FIRE's encoder form, T5's decoder buckets of p_j - p_i; keys after the query masked
        assert pt in ("rope", "xpos", "p_rope", "sinusoidal", "learned", "t5_bias", "alibi", "alibi_directional",
                      "kerple", "fire", "sandwich"), "coupled positions: not covered here"
        if pt == "alibi":
            return alibi_bias(n, cfg["heads"], positions)
        per_row = {  # one row's [H, n, n] at its positions p (1-D), stacked to [B, H, n, n]
            "kerple": lambda p: kerple_bias(n, P["position.kerple.r1"], P["position.kerple.r2"], p),
            "fire": lambda p: fire_bias_at(p, p, P, pre + "fire.", cfg),
            "sandwich": lambda p: sandwich_bias(n, cfg["heads"], cfg["sandwich_dims"] or cfg["d_model"], p),
            "alibi_directional": lambda p: directional_alibi_bias(
                n, P["position.alibi_directional.slopes_before"], P["position.alibi_directional.slopes_after"], p),
        }.get(pt)
        if per_row:
            return torch.stack([per_row(row) for row in positions])
    if pt == "t5_bias":
        return t5_bias(n, P["position.t5_bias.weight"], cfg["t5_num_buckets"], cfg["t5_max_distance"],
                       cfg.get("causal", 0), positions)
    if cfg.get("causal", 0) and pt in ("alibi", "kerple", "fire"):
        return causal_bias(n, P, cfg, pre)
    if pt == "alibi":
        return alibi_bias(n, cfg["heads"], positions)
    if pt == "kerple":
        return kerple_bias(n, P["position.kerple.r1"], P["position.kerple.r2"])
    if pt == "alibi_directional":
        return directional_alibi_bias(n, P["position.alibi_directional.slopes_before"],
                                      P["position.alibi_directional.slopes_after"])
    if pt == "fire":
        return fire_bias(n, P, pre + "fire.", cfg)
    if pt == "sandwich":
        return sandwich_bias(n, cfg["heads"], cfg["sandwich_dims"] or cfg["d_model"])
    return None


def sandwich_bias(n, heads, dims, pos=None):
    """Sandwich (Chi et al. 2023, "Dissecting Transformer Length Extrapolation via the Lens of
    Receptive Field Analysis", arXiv 2212.10356): the inner product of the two positions' d'-dim
    sinusoidal embeddings, p_m = [sin(m w_i), cos(m w_i)] for w_i = 1 / 10000^(2i/d'), i = 1..d'/2,
    less d'/2 (0 at m = n), head h = 1..H divided by 8h/H (ALiBi's range; NeMo's sandwich_pos_bias).
    Built from the embeddings themselves, not the cos((m - n) w_i) identity. Returns [H, n, n], at
    positions 0..n-1 or at one row's `pos`."""
    pos = torch.arange(n, dtype=torch.float64) if pos is None else pos
    w = 1.0 / 10000.0 ** (2.0 * torch.arange(1, dims // 2 + 1, dtype=torch.float64) / dims)
    ang = pos[:, None] * w[None, :]
    p = torch.cat([torch.sin(ang), torch.cos(ang)], dim=-1)        # [n, d']
    h = torch.arange(1, heads + 1, dtype=torch.float64)
    return (p @ p.t() - dims / 2)[None] / (8.0 * h / heads)[:, None, None]


def causal_bias(n, P, cfg, pre):
    """The decoder biases as their papers write them, for keys j <= i (d = i - j >= 0;
    keys j > i are masked, d is taken as 0 there):
        ALiBi (Press et al. 2022):  -m_h d
        KERPLE log (Chi et al. 2022):  -r1_h log(1 + r2_h d)
        FIRE (Li et al. 2023):  f_theta( psi(d) / (psi(max(L, i)) + eps) ),  psi(x) = log(|c| x + 1)
    Returns [H, n, n]."""
    pos = torch.arange(n, dtype=torch.float64)
    d = (pos[:, None] - pos[None, :]).clamp(min=0)          # [i, j] -> i - j on and below the diagonal
    pt = cfg["position_type"]
    if pt == "alibi":
        return -torch.tensor(alibi_slopes(cfg["heads"]))[:, None, None] * d[None]
    if pt == "kerple":
        r1, r2 = P["position.kerple.r1"], P["position.kerple.r2"]
        return -r1[:, None, None] * torch.log(1.0 + r2[:, None, None] * d[None])
    f = pre + "fire."
    c, L = P[f + "c"], torch.abs(P[f + "threshold_scale"] * cfg["fire_init_L"])
    psi = lambda x: torch.log(torch.abs(c) * x + 1.0)
    u = psi(d) / (psi(torch.maximum(pos, L))[:, None] + FIRE_EPS)  # the query's position i in the normaliser
    hidden = torch.relu(linear(u[..., None], P[f + "mlp.fc1.weight"], P[f + "mlp.fc1.bias"]))
    return linear(hidden, P[f + "mlp.fc2.weight"], P[f + "mlp.fc2.bias"]).permute(2, 0, 1)


def alibi_bias(n, n_heads, positions=None):
    # bias[h, i, j] = -m_h |p_i - p_j|, p = 0..n-1 or positions [B, n] (then [B, H, n, n])
    m = torch.tensor(alibi_slopes(n_heads))
    if positions is not None:
        dist = (positions[:, None, :] - positions[:, :, None]).abs()
        return -m[None, :, None, None] * dist[:, None]
    pos = torch.arange(n, dtype=torch.float64)
    dist = (pos[None, :] - pos[:, None]).abs()
    return -m[:, None, None] * dist[None]


FIRE_EPS = 1e-6  # added to the normaliser, as in the FIRE paper's code


def fire_bias(n, P, pre, cfg):
    """FIRE (Li et al., "Functional Interpolation for Relative Positions Improves
    Long Context Transformers", arXiv:2310.04418). The paper, causal (j <= i):
        b(i, j) = f_theta( psi(i - j) / psi(max(L, i)) ),  psi(x) = log(c x + 1),
    f_theta: Linear(1, W) -> ReLU -> Linear(W, H); c learned; L = |s| * L0 with
    the multiplier s learned; the code takes |c x| and adds eps to the normaliser.
    Encoder form (rotor's): j > i mirrors j < i with the later position as the
    query, i.e. u = sign(i - j) psi(|i - j|) / (psi(max(L, i, j)) + eps).
    Returns [H, n, n]."""
    pos = torch.arange(n, dtype=torch.float64)
    return fire_bias_at(pos, pos, P, pre, cfg)


def fire_bias_at(qpos, kpos, P, pre, cfg):
    # fire_bias for queries at qpos and keys at kpos: [H, len(qpos), len(kpos)]
    c, s = P[pre + "c"], P[pre + "threshold_scale"]
    rel = qpos[:, None] - kpos[None, :]                                  # i - j
    later = torch.maximum(qpos[:, None], kpos[None, :])                  # max(i, j)
    L = torch.abs(s * cfg["fire_init_L"])
    psi = lambda x: torch.log(torch.abs(c * x) + 1.0)
    u = torch.sign(rel) * psi(rel.abs()) / (psi(torch.maximum(later, L)) + FIRE_EPS)
    hidden = torch.relu(linear(u[..., None], P[pre + "mlp.fc1.weight"], P[pre + "mlp.fc1.bias"]))
    return linear(hidden, P[pre + "mlp.fc2.weight"], P[pre + "mlp.fc2.bias"]).permute(2, 0, 1)


def logn_factors(n, L):
    """Qwen's use_logn_attn (QwenLM/Qwen modeling_qwen.py): for 1-based position i,
    log(i, L) = ln i / ln L if i > L else 1; the query at 0-based slot m takes entry m + 1."""
    return torch.tensor([math.log(i, L) if i > L else 1.0 for i in range(1, n + 1)], dtype=torch.float64)


def softmax_attention(q, k, v, key_valid, bias=None, causal=False):
    """q,k,v [B,H,N,dh]; key_valid [B,N] bool; bias [H,N,N], [B,H,N,N] (per-row positions) or None.
    s = q k^T / sqrt(dh) + bias + mask (mask = -inf at invalid keys, and at keys
    j > i when causal); o = softmax_j(s) v"""
    dh, n = q.shape[-1], q.shape[-2]
    s = q @ k.transpose(-1, -2) / math.sqrt(dh)
    if bias is not None:
        s = s + (bias if bias.dim() == 4 else bias[None])
    s = s.masked_fill(~key_valid[:, None, None, :], float("-inf"))
    if causal:
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    p = torch.softmax(s, dim=-1)
    return p @ v


def cope_attention(q, k, v, key_valid, pos_emb, npos_max, causal):
    """CoPE (Golovneva et al. 2024, "Contextual Position Encoding", the paper's listing): the masked
    logits' sigmoid gates, summed from each key up to the query (gates.flip(-1).cumsum(-1).flip(-1)),
    clamped at npos_max - 1; the query's scores against the integer positions' embeddings
    (q @ pos_emb^T, pos_emb [npos_max, dh]) gathered at ceil and floor and mixed by the fraction,
    added to the logits. Encoder form (no causal mask): a key after the query sums the gates from
    the query to it (cumsum over the keys at or after the query)."""
    dh, n = q.shape[-1], q.shape[-2]
    s = q @ k.transpose(-1, -2) / math.sqrt(dh)
    s = s.masked_fill(~key_valid[:, None, None, :], float("-inf"))
    if causal:
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    gates = torch.sigmoid(s)
    if causal:
        pos = gates.flip(-1).cumsum(dim=-1).flip(-1)
    else:
        upto_query = gates.tril().flip(-1).cumsum(dim=-1).flip(-1)  # key j <= i: gates of j..i
        from_query = gates.triu().cumsum(dim=-1)                    # key j >= i: gates of i..j
        before = torch.ones(n, n, dtype=torch.bool).tril()
        pos = torch.where(before, upto_query, from_query)
    pos = pos.clamp(max=npos_max - 1)
    pos_ceil, pos_floor = pos.ceil().long(), pos.floor().long()
    logits_int = q @ pos_emb.transpose(0, 1)
    w = pos - pos_floor
    cope = logits_int.gather(-1, pos_ceil) * w + logits_int.gather(-1, pos_floor) * (1 - w)
    p = torch.softmax(s + cope, dim=-1)
    return p @ v


def elu_feature(x):
    # phi(x) = elu(x) + 1 = x + 1 (x > 0) ; exp(x) (x <= 0)
    return torch.where(x > 0, x + 1.0, torch.exp(torch.clamp(x, max=0.0)))


def linear_attention_rope(q, k, v, key_valid, base=10000.0, eps=1e-6):
    """RoFormer eq. 19.  q,k,v [B,H,N,dh]; key_valid [B,N] bool.
        phi_q = phi(q), phi_k = phi(k) * valid
        num_m = sum_n (R_m phi_q_m) . (R_n phi_k_n) v_n
        den_m = sum_n phi_q_m . phi_k_n            (unrotated)
        o_m   = num_m / (den_m + eps)"""
    fq = elu_feature(q)
    fk = elu_feature(k) * key_valid[:, None, :, None].to(k.dtype)
    rq = rope(fq, "interleaved", 1.0, base)
    rk = rope(fk, "interleaved", 1.0, base)
    num = (rq @ rk.transpose(-1, -2)) @ v                    # [B,H,N,dh]
    den = fq @ fk.sum(dim=-2, keepdim=True).transpose(-1, -2)  # [B,H,N,1]
    return num / (den + eps)


def linear_attention_rope_first(q, k, v, key_valid, base=10000.0, eps=1e-6):
    """Linear attention on rotated inputs (RoPE before the feature map, as
    RoFormer's released code): q' = R q, k' = R k, then plain linear attention
        o_m = sum_n phi(q'_m) . phi(k'_n) v_n / (sum_n phi(q'_m) . phi(k'_n) + eps)
    with padding keys dropped."""
    fq = elu_feature(rope(q, "interleaved", 1.0, base))
    fk = elu_feature(rope(k, "interleaved", 1.0, base)) * key_valid[:, None, :, None].to(k.dtype)
    num = (fq @ fk.transpose(-1, -2)) @ v
    den = (fq @ fk.transpose(-1, -2)).sum(dim=-1, keepdim=True)
    return num / (den + eps)


def causal_linear_attention_rope(q, k, v, key_valid, rotate_first=False, base=10000.0, eps=1e-6):
    """Causal linear attention with RoPE (q,k,v [B,H,N,dh]; key_valid [B,N] bool): the sums
    over all keys of eq. 19 (or of the rotate-first form) taken over keys j <= i only, as the
    prefix sums of Katharopoulos et al. 2020 ("Transformers are RNNs", sec. 3.3.1):
        S_i = sum_{j<=i} nk_j v_j^T   [dh, dh]        z_i = sum_{j<=i} dk_j   [dh]
        o_i = nq_i^T S_i / (dq_i . z_i + eps)
    eq. 19:             nq = R_i phi(q_i), nk = R_j phi(k_j);  dq = phi(q), dk = phi(k) (unrotated)
    rotate-first (code): nq = dq = phi(R_i q_i),  nk = dk = phi(R_j k_j)
    Padding keys are dropped (zero features); eps in the denominator as the non-causal forms
    (and fast-transformers' 1e-6; the papers write none)."""
    keep = key_valid[:, None, :, None].to(k.dtype)
    if rotate_first:
        dq = nq = elu_feature(rope(q, "interleaved", 1.0, base))
        dk = nk = elu_feature(rope(k, "interleaved", 1.0, base)) * keep
    else:
        dq, dk = elu_feature(q), elu_feature(k) * keep
        nq, nk = rope(dq, "interleaved", 1.0, base), rope(dk, "interleaved", 1.0, base)
    S = torch.cumsum(nk[..., :, None] * v[..., None, :], dim=-3)   # [B,H,N,dh,dh]: S_i
    z = torch.cumsum(dk, dim=-2)                                    # [B,H,N,dh]: z_i
    num = (nq[..., :, None] * S).sum(dim=-2)                        # nq_i^T S_i
    den = (dq * z).sum(dim=-1, keepdim=True)
    return num / (den + eps)


def split_heads(x, h):
    # [B,N,D] -> [B,H,N,dh]; head h takes features [h*dh, (h+1)*dh)
    B, N, D = x.shape
    return x.view(B, N, h, D // h).transpose(1, 2)


def merge_heads(x):
    # [B,H,N,dh] -> [B,N,H*dh]
    B, H, N, dh = x.shape
    return x.transpose(1, 2).reshape(B, N, H * dh)


def attention(u, P, pre, cfg, key_valid):
    """Multi-head attention of layer prefix `pre` on u [B,N,D]."""
    H, n = cfg["heads"], u.shape[1]
    q = split_heads(linear(u, P[pre + "q.weight"], P[pre + "q.bias"]), H)
    k = split_heads(linear(u, P[pre + "k.weight"], P[pre + "k.bias"]), H)
    v = split_heads(linear(u, P[pre + "v.weight"], P[pre + "v.bias"]), H)
    pt = cfg["position_type"]
    if cfg["attention"] == "linear":
        assert pt == "rope" and cfg["rope_layout"] == "interleaved" and cfg["rope_fraction"] == 1.0
        rotate_first = cfg.get("linear_rotation") == "before_feature_map"
        if cfg.get("causal", 0):
            o = causal_linear_attention_rope(q, k, v, key_valid, rotate_first, cfg["rope_base"])
        elif rotate_first:
            o = linear_attention_rope_first(q, k, v, key_valid, cfg["rope_base"])
        else:
            o = linear_attention_rope(q, k, v, key_valid, cfg["rope_base"])
    else:
        if pt == "rope":
            theta = None
            positions = cfg.get("slot_positions")
            if "rope_scaling" in cfg or "resonance" in cfg:
                r = int(q.shape[-1] * cfg["rope_fraction"])
                # at the data's positions a row's current length is its largest position + 1 (Positions::end)
                theta = (rope_inv_freq(cfg, r, n) if positions is None else
                         torch.stack([rope_inv_freq(cfg, r, int(row.max().item()) + 1) for row in positions]))
            q = rope(q, cfg["rope_layout"], cfg["rope_fraction"], cfg["rope_base"], theta, positions)
            k = rope(k, cfg["rope_layout"], cfg["rope_fraction"], cfg["rope_base"], theta, positions)
            if cfg.get("rope_scaling") == "longrope":
                assert cfg["rope_fraction"] == 1.0  # HF scales cos and sin: the rotated dims only
                q, k = q * longrope_attention_factor(cfg), k * longrope_attention_factor(cfg)
        elif pt == "xpos":
            assert cfg["rope_layout"] == "interleaved"
            positions = cfg.get("slot_positions")
            q = xpos(q, False, cfg["xpos_scale_base"], cfg["xpos_gamma"], cfg["rope_base"], positions)
            k = xpos(k, True, cfg["xpos_scale_base"], cfg["xpos_gamma"], cfg["rope_base"], positions)
        elif pt == "p_rope":
            positions = cfg.get("slot_positions")
            q = p_rope(q, cfg["rope_layout"], cfg["kept_frequency_fraction"], cfg["rope_base"], positions)
            k = p_rope(k, cfg["rope_layout"], cfg["kept_frequency_fraction"], cfg["rope_base"], positions)
        if cfg.get("logn_scaling", 0):  # the queries after their rotation, keys untouched
            positions = cfg.get("slot_positions")
            if positions is None:
                q = q * logn_factors(n, cfg["original_max_len"])[None, None, :, None]
            else:  # the query at position p takes log(p + 1, L) past L
                L = cfg["original_max_len"]
                f = torch.where(positions + 1 > L, torch.log(positions + 1) / math.log(L), torch.ones_like(positions))
                q = q * f[:, None, :, None]
        if pt == "cope":
            o = cope_attention(q, k, v, key_valid, P[pre + "cope.embeddings"], cfg["cope_npos_max"],
                               cfg.get("causal", 0))
        else:
            o = softmax_attention(q, k, v, key_valid, position_bias(n, P, cfg, pre), cfg.get("causal", 0))
    return linear(merge_heads(o), P[pre + "out.weight"], P[pre + "out.bias"])


def mlp(u, P, pre):
    # MLP(u) = fc2(gelu(fc1(u)))
    return linear(gelu(linear(u, P[pre + "fc1.weight"], P[pre + "fc1.bias"])),
                  P[pre + "fc2.weight"], P[pre + "fc2.bias"])


def block(x, P, i, cfg, key_valid):
    """pre-LN : h = x + Attn(LN_a(x));  x = h + MLP(LN_m(h))
       post-LN: h = LN_a(x + Attn(x));  x = LN_m(h + MLP(h))"""
    p = "layers.%d." % i
    eps = cfg["ln_eps"]
    ln_a = lambda t: layer_norm(t, P[p + "attn_norm.weight"], P[p + "attn_norm.bias"], eps)
    ln_m = lambda t: layer_norm(t, P[p + "mlp_norm.weight"], P[p + "mlp_norm.bias"], eps)
    attn = lambda t: attention(t, P, p + "attn.", layer_cfg(cfg, i), key_valid)
    ff = lambda t: mlp(t, P, p + "mlp.")
    if cfg["norm"] == "pre":
        h = x + attn(ln_a(x))
        return h + ff(ln_m(h))
    h = ln_a(x + attn(x))
    return ln_m(h + ff(h))


def model(P, cfg, tokens, lengths, labels):
    """Returns (logits [B,C], loss scalar)."""
    return model_with_hidden(P, cfg, tokens, lengths, labels)[:2]


def model_with_hidden(P, cfg, tokens, lengths, labels):
    """Returns (logits [B,C], loss scalar, hidden states [B,N,D] after the last block and final norm);
    for the language models (logits [B,N,V], loss, hidden) from lm_model, their labels LM_TARGETS."""
    if cfg.get("lm"):
        return lm_model(P, cfg, tokens, lengths)
    x, key_valid, lengths = encoder_hidden(P, cfg, tokens, lengths)
    if cfg["pooling"] == "mean":
        m = key_valid.to(x.dtype)[..., None]
        pooled = (x * m).sum(dim=1) / lengths.to(x.dtype)[:, None]
    elif cfg["pooling"] == "cls":
        pooled = x[:, 0]
    elif cfg["pooling"] == "max":
        pooled = x.masked_fill(~key_valid[..., None], float("-inf")).max(dim=1).values
    else:
        raise ValueError(cfg["pooling"])
    logits = linear(pooled, P["head.weight"], P["head.bias"])
    # cross-entropy: mean_b [ logsumexp(logits_b) - logits_b[label_b] ]
    loss = (torch.logsumexp(logits, dim=-1) - logits.gather(1, labels[:, None])[:, 0]).mean()
    return logits, loss, x


def encoder_hidden(P, cfg, tokens, lengths):
    """The encoder: (hidden [B,N,D] after the last block and final norm, key_valid [B,N], lengths
    with the CLS slot)."""
    d = cfg["d_model"]
    x = P["embed.tokens.weight"][tokens]                     # [B,N,D]
    if cfg["position_type"] == "sinusoidal":
        x = x * math.sqrt(d)                                 # Vaswani scaling
    lengths = lengths.clone()
    if cfg["pooling"] == "cls":                              # prepend CLS at position 0
        B = x.shape[0]
        x = torch.cat([P["embed.cls"].expand(B, 1, d), x], dim=1)
        lengths = lengths + 1
    B, N, _ = x.shape
    positions = None
    if cfg.get("coupled"):  # the data's positions; a CLS slot at 0 moves every token's on by one
        positions = torch.tensor(COUPLED_POSITIONS, dtype=torch.float64)
        if cfg["pooling"] == "cls":
            positions = torch.cat([torch.zeros(B, 1), positions + 1], dim=1)
        cfg = dict(cfg, slot_positions=positions)
    if cfg["position_type"] == "sinusoidal":
        x = x + (sinusoidal_table(N, d)[None] if positions is None else sinusoidal_table(N, d, positions))
    elif cfg["position_type"] == "learned":
        table = P["embed.positions.weight"]
        x = x + (table[:N][None] if positions is None else table[positions.to(torch.int64)])
    key_valid = torch.arange(N)[None, :] < lengths[:, None]  # [B,N]
    for i in range(cfg["layers"]):
        x = block(x, P, i, cfg, key_valid)
    if cfg["norm"] == "pre":
        x = layer_norm(x, P["final_norm.weight"], P["final_norm.bias"], cfg["ln_eps"])
    return x, key_valid, lengths


def lm_model(P, cfg, tokens, lengths):
    """Language-model heads on the encoder (no CLS, no pooling). Returns (logits [B,N,V], loss, hidden).
    E = embed.tokens.weight is also the output layer (tied, as GPT-2 and BERT), b = lm_head.bias:
      causal (GPT-2, Radford et al. 2019): causal attention (cfg causal = 1); logits = h E^T + b
      masked (BERT, Devlin et al. 2019, its pre-training head): h' = LN(gelu(h W_t^T + b_t)),
              W_t, b_t = lm_head.transform, LN = lm_head.norm; logits = h' E^T + b
    loss = mean over slots with target != -100 of [logsumexp(logits_slot) - logits_slot[target]]."""
    x, _, _ = encoder_hidden(P, cfg, tokens, lengths)
    h = x
    if cfg["lm"] == "masked":
        h = gelu(linear(h, P["lm_head.transform.weight"], P["lm_head.transform.bias"]))
        h = layer_norm(h, P["lm_head.norm.weight"], P["lm_head.norm.bias"], cfg["ln_eps"])
    logits = h @ P["embed.tokens.weight"].t() + P["lm_head.bias"]
    flat = logits.reshape(-1, logits.shape[-1])
    targets = torch.tensor(LM_TARGETS[cfg["lm"]], dtype=torch.int64).reshape(-1)
    scored = targets != IGNORE
    rows, wanted = flat[scored], targets[scored]
    loss = (torch.logsumexp(rows, dim=-1) - rows.gather(1, wanted[:, None])[:, 0]).mean()
    return logits, loss, x


def forward_backward(params, cfg):
    """Returns (logits, loss, grads, hidden) with grads = d loss / d param."""
    tokens, lengths, labels = make_batch()
    P = {k: v.detach().clone().requires_grad_(True) for k, v in params.items()}
    logits, loss, hidden = model_with_hidden(P, cfg, tokens, lengths, labels)
    loss.backward()
    return logits.detach(), loss.detach(), {k: P[k].grad.detach() for k in P}, hidden.detach()


# --------------------------------------------------------------------------
# HDF5 output
# --------------------------------------------------------------------------
STR_ATTRS = ("variant", "position_type", "attention", "norm", "pooling")
OPTIONAL_STR_ATTRS = ("linear_rotation", "lm")  # lm: causal | masked (the lm_* variants)
INT_ATTRS = ("vocab_size", "d_model", "heads", "layers", "d_ff", "classes")
FLOAT_ATTRS = ("ln_eps",)
INTERLEAVED = "model.interleaved_position."
OPTIONAL_INT_ATTRS = ("causal",)  # causal 1: query i attends keys j <= i

# The position keys: each cfg entry this reference reads, written as the attribute model.position.<key>
# under rotor's name and in its declared type (bool as int64 0 or 1).
POSITION_KEYS = {
    "rope_layout": ("layout", str), "rope_base": ("base", float), "rope_fraction": ("fraction", float),
    "rope_scaling": ("scaling", str), "scaling_factor": ("scaling_factor", float),
    "original_max_len": ("original_max_len", int), "low_freq_factor": ("low_freq_factor", float),
    "high_freq_factor": ("high_freq_factor", float), "resonance": ("resonance", bool),
    "logn_scaling": ("logn_scaling", bool), "max_len": ("max_len", int),
    "t5_num_buckets": ("num_buckets", int), "t5_max_distance": ("max_distance", int),
    "fire_width": ("mlp_width", int), "fire_init_L": ("initial_threshold", float),
    "xpos_scale_base": ("xpos_scale_base", float), "xpos_gamma": ("xpos_gamma", float),
    "kept_frequency_fraction": ("kept_frequency_fraction", float), "sandwich_dims": ("sandwich_dims", int),
    "cope_npos_max": ("npos_max", int),
    "short_factors": ("short_factors", list), "long_factors": ("long_factors", list),
}
# The BASE entries each position type reads; the others (POSITION_KEYS outside BASE) where a variant sets them.
READS = {
    "rope": ("rope_layout", "rope_base", "rope_fraction"),
    "xpos": ("rope_layout", "rope_base", "xpos_scale_base", "xpos_gamma"),
    "p_rope": ("rope_layout", "rope_base", "kept_frequency_fraction"),
    "learned": ("max_len",),
    "t5_bias": ("t5_num_buckets", "t5_max_distance"),
    "fire": ("fire_width", "fire_init_L"),
    "sandwich": ("sandwich_dims",),
    "cope": ("cope_npos_max",),
}
# What this reference hard-codes, in rotor's terms: sinusoidal's Vaswani scales (embeddings x sqrt(d) plus
# the bare table) are embedding_scale sqrt_d with position.scale sqrt(1/2); directional ALiBi's slopes are
# parameters (learned, starting from the fixed split).
FIXED_ATTRS = {
    "sinusoidal": {"embedding_scale": "sqrt_d", "model.position.scale": math.sqrt(0.5)},
    "alibi_directional": {"model.position.learned_slopes": np.int64(1)},
}


def str_attr(s):  # fixed-length ASCII, null-padded (at least 1 byte)
    b = s.encode("ascii")
    return np.array(b, dtype="S%d" % max(1, len(b)))


def position_attrs(cfg):
    """{model.position.<key>: value} for the position keys cfg's encoding reads."""
    pt = cfg["position_type"]
    names = list(READS.get(pt, ())) + [k for k in POSITION_KEYS if k in cfg and k not in BASE]
    convert = {str: str_attr, int: np.int64, float: np.float64, bool: lambda v: np.int64(1 if v else 0),
               list: lambda v: np.array(v, dtype=np.float64)}
    out = {}
    for name in names:
        key, kind = POSITION_KEYS[name]
        out["model.position." + key] = convert[kind](cfg[name])
    for k, v in FIXED_ATTRS.get(pt, {}).items():
        out[k] = str_attr(v) if isinstance(v, str) else v
    return out


def write_attrs(f, cfg):
    """cfg's root attributes (README: HDF5 layout) into the open file f, replacing any there."""
    for k in list(f.attrs):
        del f.attrs[k]
    for k in STR_ATTRS:
        f.attrs.create(k, str_attr(cfg[k]))
    for k in OPTIONAL_STR_ATTRS:  # only where a variant sets them
        if k in cfg:
            f.attrs.create(k, str_attr(cfg[k]))
    for k in INT_ATTRS:
        f.attrs.create(k, np.int64(cfg[k]))
    for k in FLOAT_ATTRS:
        f.attrs.create(k, np.float64(cfg[k]))
    for k in OPTIONAL_INT_ATTRS:
        if k in cfg:
            f.attrs.create(k, np.int64(cfg[k]))
    for k, v in position_attrs(cfg).items():
        f.attrs.create(k, v)
    if "interleave" in cfg:  # model.interleaved_position.{every, first, type} and its encoding's keys
        inter = cfg["interleave"]
        f.attrs.create(INTERLEAVED + "every", np.int64(inter["every"]))
        f.attrs.create(INTERLEAVED + "first", np.int64(inter["first"]))
        f.attrs.create(INTERLEAVED + "type", str_attr(inter["position_type"]))
        for k, v in position_attrs(interleaved_cfg(cfg)).items():
            f.attrs.create(INTERLEAVED + k[len("model.position."):], v)


def write_h5(path, cfg, params, logits, loss, grads, hidden=None):
    import h5py
    tokens, lengths, labels = make_batch()
    with h5py.File(path, "w", track_order=False) as f:
        write_attrs(f, cfg)
        kw = dict(track_times=False)
        f.create_dataset("input/tokens", data=tokens.numpy(), **kw)
        f.create_dataset("input/lengths", data=lengths.numpy(), **kw)
        f.create_dataset("input/labels", data=labels.numpy(), **kw)
        if cfg.get("lm"):
            f.create_dataset("input/targets", data=np.array(LM_TARGETS[cfg["lm"]], dtype=np.int64), **kw)
        if cfg.get("coupled"):
            f.create_dataset("input/positions", data=np.array(COUPLED_POSITIONS, dtype=np.int64), **kw)
        for name, _, _ in param_specs(cfg):
            f.create_dataset("params/" + name, data=params[name].numpy(), **kw)
            f.create_dataset("grads/" + name, data=grads[name].numpy(), **kw)
        f.create_dataset("output/logits", data=logits.numpy(), **kw)
        f.create_dataset("output/loss", data=np.float64(loss.item()), **kw)
        if hidden is not None:  # causal variants: every position's output, not only the pooled one
            f.create_dataset("output/hidden", data=hidden.numpy(), **kw)
        if cfg["position_type"] == "alibi_directional":
            # extra: the fixed split at 2, 3, 8 and 12 heads, for the C++ schedule (the batch has 2 heads)
            for h in (2, 3, 8, 12):
                before, after = directional_alibi_slopes(h)
                f.create_dataset("aux/slopes_before_%d" % h, data=np.array(before), **kw)
                f.create_dataset("aux/slopes_after_%d" % h, data=np.array(after), **kw)
        for name, values in schedule_aux(cfg).items():
            f.create_dataset("aux/" + name, data=values.numpy(), **kw)
        if cfg["position_type"] == "t5_bias":
            # extra: bucket table over a wide range (the batch itself only hits |rel| < 8)
            rel = torch.arange(-300, 301)
            f.create_dataset("aux/t5_rel", data=rel.numpy(), **kw)
            bucket = t5_decoder_bucket if cfg.get("causal", 0) else t5_bucket
            f.create_dataset("aux/t5_bucket", data=bucket(
                rel, cfg["t5_num_buckets"], cfg["t5_max_distance"]).numpy(), **kw)


def schedule_aux(cfg):
    """Extra frequency tables at real sizes (the batch's head has 4 pairs): Llama 3.1's own
    schedule (r = 128, base 500000, factor 8, low 1, high 4, L = 8192); dynamic NTK (r = 64,
    L = 8192, factor 2) for forwards of 100, 8192, 8193 and 100000 positions; Resonance RoPE
    (r = 64, base 10000)."""
    scaling = cfg.get("rope_scaling", "resonance" if cfg.get("resonance", 0) else None)
    if scaling == "llama3":
        llama = dict(rope_base=500000.0, rope_scaling="llama3", scaling_factor=8.0, original_max_len=8192,
                     low_freq_factor=1.0, high_freq_factor=4.0)
        return {"llama31_inv_freq": rope_inv_freq(llama, 128, 1)}
    if scaling == "dynamic_ntk":
        dyn = dict(rope_base=10000.0, rope_scaling="dynamic_ntk", scaling_factor=2.0, original_max_len=8192)
        return {"dynamic_inv_freq_%d" % n: rope_inv_freq(dyn, 64, n) for n in (100, 8192, 8193, 100000)}
    if scaling == "resonance":
        return {"resonance_inv_freq": rope_inv_freq(dict(rope_base=10000.0, resonance=1), 64, 1)}
    return {}


def interleave_from_attrs(attrs):
    """cfg["interleave"] from the model.interleaved_position.* attributes (prefix removed)."""
    inter = dict(every=int(attrs.pop("every")), first=int(attrs.pop("first")),
                 position_type=attrs.pop("type").decode("ascii").rstrip("\0"))
    name_of = {key: (name, kind) for name, (key, kind) in POSITION_KEYS.items()}
    for key, v in attrs.items():
        name, kind = name_of[key]
        inter[name] = v.decode("ascii").rstrip("\0") if kind is str else kind(v)
    return inter


def read_h5(path):
    """Returns (cfg, params, tokens, lengths, labels, logits, loss, grads)."""
    import h5py
    with h5py.File(path, "r") as f:
        cfg = {}
        cfg_name = {"model.position." + key: (name, kind) for name, (key, kind) in POSITION_KEYS.items()}
        inter = {}
        for k, v in f.attrs.items():
            if k.startswith(INTERLEAVED):
                inter[k[len(INTERLEAVED):]] = v
            elif k in cfg_name:
                name, kind = cfg_name[k]
                cfg[name] = v.decode("ascii").rstrip("\0") if kind is str else kind(v)
            elif isinstance(v, (bytes, np.bytes_)):
                cfg[k] = v.decode("ascii").rstrip("\0")
            elif k in INT_ATTRS + OPTIONAL_INT_ATTRS:
                cfg[k] = int(v)
            else:  # ln_eps, and the FIXED_ATTRS the reference hard-codes
                cfg[k] = float(v)
        if inter:
            cfg["interleave"] = interleave_from_attrs(inter)
        params = {k: torch.from_numpy(f["params"][k][()]) for k in f["params"]}
        grads = {k: torch.from_numpy(f["grads"][k][()]) for k in f["grads"]}
        inp = [torch.from_numpy(f["input"][k][()]) for k in ("tokens", "lengths", "labels")]
        if "positions" in f["input"]:  # a coupled variant: the model reads COUPLED_POSITIONS
            if f["input"]["positions"][()].tolist() != COUPLED_POSITIONS:
                raise ValueError(path + ": /input/positions differ from COUPLED_POSITIONS")
            cfg["coupled"] = 1
        logits = torch.from_numpy(f["output/logits"][()])
        loss = float(f["output/loss"][()])
    return (cfg, params, *inp, logits, loss, grads)


# --------------------------------------------------------------------------
# Self-tests
# --------------------------------------------------------------------------
def t5_bucket_literal(rel, num_buckets=32, max_distance=128):
    # Scalar re-statement of HF T5 _relative_position_bucket(bidirectional=True).
    num_buckets //= 2
    ret = num_buckets if rel > 0 else 0
    n = abs(rel)
    max_exact = num_buckets // 2
    if n < max_exact:
        return ret + n
    val = max_exact + int(math.log(n / max_exact) / math.log(max_distance / max_exact)
                          * (num_buckets - max_exact))
    return ret + min(val, num_buckets - 1)


def t5_decoder_bucket_literal(rel, num_buckets=32, max_distance=128):
    # Scalar re-statement of HF T5 _relative_position_bucket(bidirectional=False).
    n = max(-rel, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return n
    val = max_exact + int(math.log(n / max_exact) / math.log(max_distance / max_exact)
                          * (num_buckets - max_exact))
    return min(val, num_buckets - 1)


def self_test(verbose=True):
    results = []

    def ok(name, cond, extra=""):
        results.append((name, bool(cond)))
        if verbose:
            print("  [%s] %s %s" % ("PASS" if cond else "FAIL", name, extra))

    g = torch.Generator().manual_seed(0)
    rnd = lambda *s: torch.randn(*s, generator=g)

    # gradcheck: rope (all layouts), linear attention, softmax attention w/ bias+mask
    for layout, frac in (("interleaved", 1.0), ("half", 1.0), ("half", 0.5), ("interleaved", 0.5)):
        x = rnd(2, 2, 5, 8).requires_grad_(True)
        ok("gradcheck rope %s frac=%g" % (layout, frac),
           torch.autograd.gradcheck(lambda t: rope(t, layout, frac), (x,)))
    valid = torch.tensor([[True] * 5, [True, True, True, False, False]])
    q, k, v = (rnd(2, 2, 5, 8).requires_grad_(True) for _ in range(3))
    ok("gradcheck linear_attention_rope",
       torch.autograd.gradcheck(lambda a, b, c: linear_attention_rope(a, b, c, valid), (q, k, v)))
    ok("gradcheck linear_attention_rope_first",
       torch.autograd.gradcheck(lambda a, b, c: linear_attention_rope_first(a, b, c, valid), (q, k, v)))
    bias = rnd(2, 5, 5)
    ok("gradcheck softmax_attention",
       torch.autograd.gradcheck(lambda a, b, c: softmax_attention(a, b, c, valid, bias), (q, k, v)))
    emb = rnd(3, 8)  # npos_max 3: the longer counts of 5 keys are clamped
    for causal in (0, 1):
        ok("gradcheck cope_attention causal=%d" % causal,
           torch.autograd.gradcheck(lambda a, b, c, e: cope_attention(a, b, c, valid, e, 3, causal),
                                    (q, k, v, emb.clone().requires_grad_(True))))
    # CoPE's encoder form: its tril/triu split equals the count written as a loop over the keys between
    with torch.no_grad():
        s = torch.sigmoid(rnd(5, 5))
        split = torch.where(torch.ones(5, 5, dtype=torch.bool).tril(), s.tril().flip(-1).cumsum(-1).flip(-1),
                            s.triu().cumsum(-1))
        loops = torch.tensor([[sum(s[i, t].item() for t in range(min(i, j), max(i, j) + 1)) for j in range(5)]
                              for i in range(5)])
    ok("cope encoder count == the loop over the keys between", torch.allclose(split, loops, atol=1e-14, rtol=0))
    xs = rnd(3, 16).requires_grad_(True)
    w, b = (1 + 0.1 * rnd(16)), 0.1 * rnd(16)
    ok("gradcheck layer_norm+gelu",
       torch.autograd.gradcheck(lambda t: gelu(layer_norm(t, w, b, 1e-5)), (xs,)))

    # RoPE relative property: <R_m q, R_n k> depends only on m - n
    N, worst = 12, 0.0
    qv, kv = rnd(8), rnd(8)
    for layout, frac in (("interleaved", 1.0), ("half", 1.0), ("half", 0.5)):
        Q = rope(qv.expand(N, 8), layout, frac)          # row m = R_m q
        K = rope(kv.expand(N, 8), layout, frac)
        S = Q @ K.t()                                    # S[m, n]
        for delta in range(-(N - 1), N):
            diag = torch.diagonal(S, offset=-delta)      # entries with m - n = delta
            worst = max(worst, (diag - diag[0]).abs().max().item())
    ok("rope scores depend only on m-n", worst < 1e-12, "(max dev %.1e)" % worst)

    # rope at m=0 is identity; half layout == interleaved after permuting dims
    x = rnd(3, 6, 8)
    ok("rope position 0 identity", torch.equal(rope(x, "half")[:, 0], x[:, 0]))
    perm = torch.tensor([0, 4, 1, 5, 2, 6, 3, 7])        # interleaved dim j -> half slot
    inter = rope(x, "interleaved")
    half = rope(x[..., perm.argsort()], "half")          # x_half[perm[j]] = x_inter[j]
    ok("rope half == permuted interleaved", torch.allclose(half[..., perm], inter, atol=1e-14))
    # interleaved == complex multiplication (LLaMA style): (x_2i + i x_2i+1) * e^{i m theta_i}
    ang = rope_angles(6, 8, 10000.0)
    xc = torch.view_as_complex(x.reshape(3, 6, 4, 2).contiguous())
    llama = torch.view_as_real(xc * torch.polar(torch.ones_like(ang), ang)).reshape(3, 6, 8)
    ok("rope interleaved == complex form", torch.allclose(inter, llama, atol=1e-14))
    # half == GPT-NeoX / HF rotate_half form: x cos + rotate_half(x) sin
    cos, sin = torch.cos(ang).repeat(1, 2), torch.sin(ang).repeat(1, 2)
    neox = x * cos + torch.cat([-x[..., 4:], x[..., :4]], dim=-1) * sin
    ok("rope half == rotate_half form", torch.allclose(rope(x, "half"), neox, atol=1e-14))
    part = rope(x, "half", 0.5)
    ok("rope partial leaves dims >= r", torch.equal(part[..., 4:], x[..., 4:]))

    # xPos: gradcheck; scores depend only on m - n and carry zeta^((m-n)/B)
    xg = rnd(2, 5, 8).requires_grad_(True)
    for down in (False, True):
        ok("gradcheck xpos downscale=%s" % down,
           torch.autograd.gradcheck(lambda t: xpos(t, down, 3.0, 0.4), (xg,)))
    Q, K = xpos(qv.expand(N, 8), False, 3.0, 0.4), xpos(kv.expand(N, 8), True, 3.0, 0.4)
    S, worst = Q @ K.t(), 0.0
    for delta in range(-(N - 1), N):
        diag = torch.diagonal(S, offset=-delta)
        worst = max(worst, (diag - diag[0]).abs().max().item())
    ok("xpos scores depend only on m-n", worst < 1e-12, "(max dev %.1e)" % worst)
    zeta = (torch.arange(4, dtype=torch.float64) / 4 + 0.4) / 1.4      # (2i/d + gamma)/(1 + gamma), d = 8
    ang = rope_angles(N, 8, 10000.0)
    s_54 = (zeta ** (1 / 3.0) * ((qv[0::2] - 1j * qv[1::2]) * (kv[0::2] + 1j * kv[1::2])
                                * torch.exp(1j * (ang[4] - ang[5])))).real.sum()
    ok("xpos q_5 . k_4 == sum_i zeta_i^(1/B) Re(conj(q_i) k_i e^{i theta_i})",
       abs(S[5, 4].item() - s_54.item()) < 1e-12)

    # p-RoPE: gradcheck; unrotated pairs are the input; kept pairs are RoPE's
    for layout in ("interleaved", "half"):
        ok("gradcheck p_rope %s" % layout,
           torch.autograd.gradcheck(lambda t: p_rope(t, layout, 0.5), (xg,)))
    pr = p_rope(x, "half", 0.5)
    ok("p_rope: the low-frequency pairs (2, 6), (3, 7) are the input",
       torch.equal(pr[..., [2, 3, 6, 7]], x[..., [2, 3, 6, 7]]))
    ok("p_rope: the kept pairs are rope's", torch.allclose(pr[..., [0, 1, 4, 5]],
                                                           rope(x, "half")[..., [0, 1, 4, 5]], atol=1e-14))
    ok("p_rope p=1 == rope", torch.allclose(p_rope(x, "interleaved", 1.0), inter, atol=1e-14))

    # frequency schedules: dynamic NTK is the default at and below L; llama3 against a scalar loop over
    # Meta's llama-models apply_scaling; resonance wavelengths are whole numbers
    dyn = dict(rope_base=10000.0, rope_scaling="dynamic_ntk", scaling_factor=2.0, original_max_len=8192)
    plain = 1.0 / (10000.0 ** (torch.arange(0, 64, 2, dtype=torch.float64) / 64))
    ok("dynamic ntk == default for n <= L", torch.equal(rope_inv_freq(dyn, 64, 8192), plain)
       and torch.equal(rope_inv_freq(dyn, 64, 5), plain) and not torch.equal(rope_inv_freq(dyn, 64, 8193), plain))
    llama = dict(rope_base=500000.0, rope_scaling="llama3", scaling_factor=8.0, original_max_len=8192,
                 low_freq_factor=1.0, high_freq_factor=4.0)
    loop = []
    for f in (1.0 / (500000.0 ** (torch.arange(0, 128, 2, dtype=torch.float64) / 128))).tolist():
        w = 2 * math.pi / f
        if w < 8192 / 4.0:
            loop.append(f)
        elif w > 8192 / 1.0:
            loop.append(f / 8.0)
        else:
            sm = (8192 / w - 1.0) / (4.0 - 1.0)
            loop.append((1 - sm) * f / 8.0 + sm * f)
    ok("llama3 == apply_scaling loop", torch.allclose(rope_inv_freq(llama, 128, 1), torch.tensor(loop),
                                                      rtol=1e-15, atol=0))
    wl = TWO_PI / rope_inv_freq(dict(rope_base=10000.0, resonance=1), 64, 1)
    ok("resonance wavelengths are integers", (wl - wl.round()).abs().max().item() < 1e-9)

    # Sandwich: 0 on the diagonal, of m - n only, symmetric, the cos identity, head h scaled by H/(8h)
    sb = sandwich_bias(9, 2, 8)
    ident = torch.tensor([[sum(math.cos((m - k) / 10000 ** (2 * i / 8)) for i in range(1, 5)) - 4
                           for k in range(9)] for m in range(9)])
    ok("sandwich == sum of cosines, scaled per head",
       torch.allclose(sb[0], ident * 2 / 8, atol=1e-14, rtol=0) and torch.allclose(sb[1], ident * 2 / 16, atol=1e-14,
                                                                                    rtol=0))
    ok("sandwich symmetric, 0 at m = n, negative elsewhere",
       torch.allclose(sb, sb.transpose(1, 2), atol=1e-14, rtol=0) and sb.diagonal(dim1=1, dim2=2).abs().max() < 1e-14
       and bool((sb[:, ~torch.eye(9, dtype=torch.bool)] < 0).all()))

    # log-length scaling: 1 up to L, ln(n)/ln(L) after, spot value at n = 7, L = 4
    lf = logn_factors(7, 4)
    ok("logn factors", torch.equal(lf[:4], torch.ones(4)) and abs(lf[6].item() - math.log(7) / math.log(4)) < 1e-15
       and bool((lf[4:] > 1).all()))

    # T5 buckets vs literal re-statement
    rel = torch.arange(-300, 301)
    vec = t5_bucket(rel)
    lit = torch.tensor([t5_bucket_literal(int(r)) for r in rel])
    ok("t5 buckets rel -300..300 == literal", torch.equal(vec, lit))
    ok("t5 bucket ranges", int(vec.min()) == 0 and int(vec.max()) == 31)
    dec = t5_decoder_bucket(rel)
    lit = torch.tensor([t5_decoder_bucket_literal(int(r)) for r in rel])
    ok("t5 decoder buckets rel -300..300 == literal, all 32 used by keys j <= i",
       torch.equal(dec, lit) and sorted(set(dec[rel <= 0].tolist())) == list(range(32)))

    # ALiBi, KERPLE and FIRE: the papers' decoder biases equal the encoder forms on keys j <= i
    below = torch.ones(9, 9, dtype=torch.bool).tril()
    for variant in ("alibi_causal", "kerple_causal", "fire_causal"):
        cfg = make_config(variant)
        P = init_params(cfg, variant_seed(variant))
        enc = dict(cfg, causal=0)
        diff = (causal_bias(9, P, cfg, "layers.1.attn.") - position_bias(9, P, enc, "layers.1.attn."))[:, below]
        ok("%s == encoder form restricted to j <= i" % variant, diff.abs().max().item() < 1e-14)

    # FIRE: gradcheck in every parameter; keys j <= i get the paper's causal
    # formula; offset-only while max(i, j) <= L, at positions near 1e5
    fc = make_config("fire")
    FP = {k: v for k, v in init_params(fc, variant_seed("fire")).items() if ".attn.fire." in k}
    pre = "layers.0.attn.fire."
    names = [k for k in FP if k.startswith(pre)]
    def fire_of(*vals):
        return fire_bias(6, dict(zip(names, vals)), pre, fc)
    ok("gradcheck fire_bias (MLP, c, threshold)", torch.autograd.gradcheck(
        fire_of, tuple(FP[k].clone().requires_grad_(True) for k in names)))
    b = fire_bias(9, FP, pre, fc)
    c0, L0 = FP[pre + "c"].item(), abs(FP[pre + "threshold_scale"].item()) * fc["fire_init_L"]
    worst = 0.0
    for i in range(9):
        for j in range(i + 1):
            u = math.log(c0 * (i - j) + 1) / (math.log(c0 * max(L0, i) + 1) + FIRE_EPS)
            hid = torch.relu(FP[pre + "mlp.fc1.weight"][:, 0] * u + FP[pre + "mlp.fc1.bias"])
            ref = FP[pre + "mlp.fc2.weight"] @ hid + FP[pre + "mlp.fc2.bias"]
            worst = max(worst, (b[:, i, j] - ref).abs().max().item())
    ok("fire keys j <= i == the paper's causal formula", worst < 1e-13, "(max dev %.1e)" % worst)
    far = dict(FP)
    far[pre + "threshold_scale"] = torch.tensor([1e5 / fc["fire_init_L"]])  # L = 1e5
    near, shifted = torch.arange(12.0), torch.arange(12.0) + 99980
    same = torch.equal(fire_bias_at(near, near, far, pre, fc), fire_bias_at(shifted, shifted, far, pre, fc))
    differs = not torch.equal(fire_bias_at(near, near, FP, pre, fc), fire_bias_at(shifted, shifted, FP, pre, fc))
    ok("fire depends on i - j only while max(i, j) <= L (positions to 1e5)", same and differs)

    # ALiBi slopes
    ok("alibi slopes H=2", alibi_slopes(2) == [1 / 16, 1 / 256])
    ok("alibi slopes H=8", alibi_slopes(8) == [2.0 ** -(i + 1) for i in range(8)])
    before8, after8 = directional_alibi_slopes(8)
    ok("directional split H=8: before == alibi, after halfway",
       all(abs(b - 2.0 ** -(i + 1)) < 1e-15 and abs(a - 2.0 ** -(i + 0.5)) < 1e-15
           for i, (b, a) in enumerate(zip(before8, after8))))
    m = torch.tensor(alibi_slopes(4))
    ok("directional alibi with equal slopes == symmetric alibi",
       torch.allclose(directional_alibi_bias(9, m, m), alibi_bias(9, 4), atol=0, rtol=0))
    db = directional_alibi_bias(5, torch.tensor([0.5]), torch.tensor([0.25]))[0]
    ok("directional alibi spot values", db[3, 1].item() == -1.0 and db[1, 3].item() == -0.5)

    # KERPLE (log): spot value, symmetry, decrease with distance, gradcheck in r1, r2
    kb = kerple_bias(6, torch.tensor([1.5]), torch.tensor([0.5]))[0]
    ok("kerple spot value", abs(kb[0, 4].item() + 1.5 * math.log(3.0)) < 1e-15 and kb[2, 2].item() == 0.0)
    ok("kerple symmetric and decreasing",
       torch.equal(kb, kb.t()) and bool((kb[0, 1:] < kb[0, :-1]).all()))
    r1, r2 = (torch.rand(3, generator=g) + 0.1 for _ in range(2))
    ok("gradcheck kerple bias", torch.autograd.gradcheck(
        lambda a, b: kerple_bias(7, a, b), (r1.requires_grad_(True), r2.requires_grad_(True))))

    # linear attention: matches a per-query loop straight from eq. 19
    o = linear_attention_rope(q, k, v, valid).detach()
    fq, fk = elu_feature(q.detach()), elu_feature(k.detach())
    ang = rope_angles(5, 8, 10000.0)
    ref = torch.zeros_like(o)
    for bb in range(2):
        for hh in range(2):
            for m in range(5):
                num, den = torch.zeros(8), 0.0
                for n in range(5):
                    if not valid[bb, n]:
                        continue
                    rq = rope_vec(fq[bb, hh, m], ang[m])
                    rk = rope_vec(fk[bb, hh, n], ang[n])
                    num = num + (rq @ rk) * v[bb, hh, n].detach()
                    den = den + fq[bb, hh, m] @ fk[bb, hh, n]
                ref[bb, hh, m] = num / (den + 1e-6)
    ok("linear attention == eq.19 loop", torch.allclose(o, ref, atol=1e-12))

    # linear attention with RoPE first: a per-query loop over phi(R q) . phi(R k)
    o = linear_attention_rope_first(q, k, v, valid).detach()
    ref = torch.zeros_like(o)
    for bb in range(2):
        for hh in range(2):
            for m in range(5):
                fqm = elu_feature(rope_vec(q[bb, hh, m].detach(), ang[m]))
                num, den = torch.zeros(8, dtype=o.dtype), 0.0
                for n in range(5):
                    if valid[bb, n]:
                        w = fqm @ elu_feature(rope_vec(k[bb, hh, n].detach(), ang[n]))
                        num, den = num + w * v[bb, hh, n].detach(), den + w
                ref[bb, hh, m] = num / (den + 1e-6)
    ok("linear attention rope-first == loop", torch.allclose(o, ref, atol=1e-12))

    # causal linear attention (both forms): gradcheck; a per-query loop over keys j <= i; at a
    # row's last valid slot (and the padded ones after it) the non-causal formula over the row
    for first, whole in ((False, linear_attention_rope), (True, linear_attention_rope_first)):
        form = "rope-first" if first else "eq.19"
        ok("gradcheck causal linear attention %s" % form, torch.autograd.gradcheck(
            lambda a, b, c: causal_linear_attention_rope(a, b, c, valid, first), (q, k, v)))
        o = causal_linear_attention_rope(q, k, v, valid, first).detach()
        qd, kd, vd = q.detach(), k.detach(), v.detach()
        ref = torch.zeros_like(o)
        for bb in range(2):
            for hh in range(2):
                for m in range(5):
                    num, den = torch.zeros(8), 0.0
                    for n in range(m + 1):
                        if not valid[bb, n]:
                            continue
                        if first:
                            dq = nq = elu_feature(rope_vec(qd[bb, hh, m], ang[m]))
                            dk = nk = elu_feature(rope_vec(kd[bb, hh, n], ang[n]))
                        else:
                            dq, dk = elu_feature(qd[bb, hh, m]), elu_feature(kd[bb, hh, n])
                            nq, nk = rope_vec(dq, ang[m]), rope_vec(dk, ang[n])
                        num, den = num + (nq @ nk) * vd[bb, hh, n], den + dq @ dk
                    ref[bb, hh, m] = num / (den + 1e-6)
        ok("causal linear attention %s == loop over j <= i" % form, torch.allclose(o, ref, atol=1e-12))
        w = whole(qd, kd, vd, valid)
        ok("causal linear attention %s at a row's last slots == non-causal over the row" % form,
           torch.allclose(o[0, :, 4], w[0, :, 4], atol=1e-13, rtol=0)
           and torch.allclose(o[1, :, 2:], w[1, :, 2:], atol=1e-13, rtol=0))

    # sinusoidal table vs scalar formula
    pe = sinusoidal_table(7, 16)
    ok("sinusoidal table", abs(pe[5, 6] - math.sin(5 / 10000 ** (6 / 16))) < 1e-15
       and abs(pe[5, 7] - math.cos(5 / 10000 ** (6 / 16))) < 1e-15)

    # padding invariance: changing pad token ids must not change logits (mean/max pooling)
    for variant in ("rope_interleaved", "linear_rope", "alibi_max", "sinusoidal_post_cls"):
        cfg = make_config(variant)
        P = init_params(cfg, variant_seed(variant))
        t, l, y = make_batch()
        lo1, _ = model(P, cfg, t, l, y)
        t2 = t.clone()
        t2[1, 5:] = torch.tensor([17, 13])
        lo2, _ = model(P, cfg, t2, l, y)
        ok("pad-invariance %s" % variant, torch.allclose(lo1, lo2, atol=1e-13, rtol=0))

    # language models: the causal LM never reads ahead (changing token t leaves slots < t);
    # the masked LM's head (rope: not in the torch.nn cross-check) against torch.nn.functional
    for variant in ("lm_causal_rope", "lm_causal_alibi"):
        cfg = make_config(variant)
        P = init_params(cfg, variant_seed(variant))
        t, l, y = make_batch()
        lo1, _ = model(P, cfg, t, l, y)
        t2 = t.clone()
        t2[:, 3] = torch.tensor([17, 13])
        lo2, _ = model(P, cfg, t2, l, y)
        ok("causal LM %s: slots < 3 unchanged, slot 3 changed" % variant,
           torch.equal(lo1[:, :3], lo2[:, :3]) and not torch.equal(lo1[:, 3], lo2[:, 3]))
    # causal linear attention in the model: changing token 3 leaves the hidden states of slots
    # 0..2; one layer's state at a row's last token is the non-causal model's there
    for variant in ("linear_rope_causal", "linear_rope_code_causal"):
        cfg = make_config(variant)
        P = init_params(cfg, variant_seed(variant))
        t, l, y = make_batch()
        x1 = model_with_hidden(P, cfg, t, l, y)[2]
        t2 = t.clone()
        t2[:, 3] = torch.tensor([17, 13])
        x2 = model_with_hidden(P, cfg, t2, l, y)[2]
        ok("%s: slots < 3 unchanged, slot 3 changed" % variant,
           torch.equal(x1[:, :3], x2[:, :3]) and not torch.equal(x1[:, 3], x2[:, 3]))
        one = dict(cfg, layers=1)
        xc = model_with_hidden(P, one, t, l, y)[2]
        xb = model_with_hidden(P, dict(one, causal=0), t, l, y)[2]
        ok("%s, one layer: last tokens' states == non-causal model's" % variant,
           torch.allclose(xc[0, 6], xb[0, 6], atol=1e-13, rtol=0)
           and torch.allclose(xc[1, 4], xb[1, 4], atol=1e-13, rtol=0)
           and not torch.allclose(xc[0, 5], xb[0, 5], atol=1e-6))
    cfg = make_config("lm_masked_rope")
    P = init_params(cfg, variant_seed("lm_masked_rope"))
    t, l, y = make_batch()
    lo1, ls1, x = model_with_hidden(P, cfg, t, l, y)
    import torch.nn.functional as F
    h = F.layer_norm(F.gelu(F.linear(x, P["lm_head.transform.weight"], P["lm_head.transform.bias"])), (16,),
                     P["lm_head.norm.weight"], P["lm_head.norm.bias"], cfg["ln_eps"])
    lo2 = F.linear(h, P["embed.tokens.weight"], P["lm_head.bias"])
    ls2 = F.cross_entropy(lo2.reshape(-1, 20), torch.tensor(LM_TARGETS["masked"]).reshape(-1), ignore_index=IGNORE)
    ok("masked LM head == torch.nn.functional", torch.allclose(lo1, lo2, atol=1e-12, rtol=0)
       and abs(ls1 - ls2) < 1e-12)

    # cross-check the manual model against torch.nn building blocks for every
    # variant without RoPE (additive biases go in via a float attn_mask)
    for variant, vcfg in VARIANTS.items():
        rotations = ("rope", "xpos", "p_rope")
        if (vcfg.get("position_type") in rotations or vcfg.get("interleave", {}).get("position_type") in rotations
                or vcfg.get("logn_scaling") or vcfg.get("position_type") == "cope" or vcfg.get("coupled")):
            # torch.nn has no rotations, no query scaling, and no mask computed from q and k (CoPE); nn_reference
            # builds its masks and tables at 0..N-1, not at the coupled variants' positions
            continue
        cfg = make_config(variant)
        P = init_params(cfg, variant_seed(variant))
        t, l, y = make_batch()
        lo1, ls1 = model(P, cfg, t, l, y)
        lo2, ls2 = (nn_lm_reference if cfg.get("lm") else nn_reference)(P, cfg, t, l, y)
        ok("torch.nn cross-check %s" % variant,
           torch.allclose(lo1, lo2, atol=1e-12, rtol=0) and abs(ls1 - ls2) < 1e-12,
           "(max dev %.1e)" % (lo1 - lo2).abs().max().item())

    return all(r for _, r in results), results


def nn_reference(P, cfg, tokens, lengths, labels):
    """Same model built from torch.nn.TransformerEncoderLayer (test only; no RoPE)."""
    import torch.nn.functional as F
    x, pad, lengths = nn_hidden(P, cfg, tokens, lengths)
    with torch.no_grad():
        valid = (~pad)[..., None]
        if cfg["pooling"] == "mean":
            pooled = (x * valid).sum(1) / lengths[:, None]
        elif cfg["pooling"] == "cls":
            pooled = x[:, 0]
        else:
            pooled = torch.where(valid, x, torch.full_like(x, -math.inf)).amax(1)
        logits = F.linear(pooled, P["head.weight"], P["head.bias"])
        return logits, F.cross_entropy(logits, labels)


def nn_lm_reference(P, cfg, tokens, lengths, labels):
    """The language models' heads from torch.nn.functional on nn_hidden (test only; no RoPE):
    F.linear with the embedding as weight (tied), F.cross_entropy's ignore_index."""
    import torch.nn.functional as F
    x, _, _ = nn_hidden(P, cfg, tokens, lengths)
    with torch.no_grad():
        if cfg["lm"] == "masked":
            x = F.gelu(F.linear(x, P["lm_head.transform.weight"], P["lm_head.transform.bias"]))
            x = F.layer_norm(x, (cfg["d_model"],), P["lm_head.norm.weight"], P["lm_head.norm.bias"], cfg["ln_eps"])
        logits = F.linear(x, P["embed.tokens.weight"], P["lm_head.bias"])
        targets = torch.tensor(LM_TARGETS[cfg["lm"]]).reshape(-1)
        return logits, F.cross_entropy(logits.reshape(-1, cfg["vocab_size"]), targets, ignore_index=IGNORE)


def nn_hidden(P, cfg, tokens, lengths):
    """The encoder from torch.nn.TransformerEncoderLayer: (hidden [B,N,D], pad [B,N], lengths)."""
    import torch.nn as nn
    import torch.nn.functional as F
    d, H = cfg["d_model"], cfg["heads"]
    x = F.embedding(tokens, P["embed.tokens.weight"])
    if cfg["position_type"] == "sinusoidal":
        x = x * math.sqrt(d)
    if cfg["pooling"] == "cls":
        x = torch.cat([P["embed.cls"].expand(x.shape[0], 1, d), x], dim=1)
        lengths = lengths + 1
    B, N, _ = x.shape
    if cfg["position_type"] == "sinusoidal":
        x = x + sinusoidal_table(N, d)
    elif cfg["position_type"] == "learned":
        x = x + P["embed.positions.weight"][:N]
    pad = torch.arange(N)[None, :] >= lengths[:, None]
    with torch.no_grad():
        for i in range(cfg["layers"]):
            p = "layers.%d." % i
            bias = position_bias(N, P, layer_cfg(cfg, i), p + "attn.")  # per layer: FIRE's modules, interleaving
            # nn adds attn_mask after the 1/sqrt(dh) scaling; [B*H, N, N], batch-major
            if cfg.get("causal", 0):  # -inf above the diagonal, added to the bias
                future = torch.full((N, N), -math.inf).triu(1)
                bias = future.expand(H, N, N) if bias is None else bias + future
            attn_mask = None if bias is None else bias.repeat(B, 1, 1)
            layer = nn.TransformerEncoderLayer(d, H, cfg["d_ff"], dropout=0.0, activation="gelu",
                                               layer_norm_eps=cfg["ln_eps"], batch_first=True,
                                               norm_first=cfg["norm"] == "pre").train()
            sa = layer.self_attn
            sa.in_proj_weight.copy_(torch.cat([P[p + "attn.%s.weight" % m] for m in "qkv"]))
            sa.in_proj_bias.copy_(torch.cat([P[p + "attn.%s.bias" % m] for m in "qkv"]))
            sa.out_proj.weight.copy_(P[p + "attn.out.weight"]); sa.out_proj.bias.copy_(P[p + "attn.out.bias"])
            layer.linear1.weight.copy_(P[p + "mlp.fc1.weight"]); layer.linear1.bias.copy_(P[p + "mlp.fc1.bias"])
            layer.linear2.weight.copy_(P[p + "mlp.fc2.weight"]); layer.linear2.bias.copy_(P[p + "mlp.fc2.bias"])
            layer.norm1.weight.copy_(P[p + "attn_norm.weight"]); layer.norm1.bias.copy_(P[p + "attn_norm.bias"])
            layer.norm2.weight.copy_(P[p + "mlp_norm.weight"]); layer.norm2.bias.copy_(P[p + "mlp_norm.bias"])
            x = layer(x, src_mask=attn_mask, src_key_padding_mask=pad)
        if cfg["norm"] == "pre":
            x = F.layer_norm(x, (d,), P["final_norm.weight"], P["final_norm.bias"], cfg["ln_eps"])
        return x, pad, lengths


def rope_vec(x, ang):
    # explicit 2x2 rotation of pairs (2i, 2i+1) -- used by the eq.19 loop test
    out = x.clone()
    for i in range(ang.shape[0]):
        c, s = math.cos(ang[i]), math.sin(ang[i])
        out[2 * i] = x[2 * i] * c - x[2 * i + 1] * s
        out[2 * i + 1] = x[2 * i + 1] * c + x[2 * i] * s
    return out


# --------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="tests/data/golden", help="output directory")
    ap.add_argument("--self-test", action="store_true", help="run self-tests only")
    ap.add_argument("--skip-self-test", action="store_true")
    ap.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS),
                    help="write only these variants' files (default: all)")
    ap.add_argument("--attributes-only", action="store_true",
                    help="rewrite the root attributes of the existing files, leaving their datasets as they are")
    args = ap.parse_args()

    if not args.skip_self_test:
        print("self-test:")
        good, _ = self_test()
        if not good:
            raise SystemExit("self-test FAILED")
    if args.self_test:
        return
    os.makedirs(args.out, exist_ok=True)
    if args.attributes_only:
        import h5py
        for variant in args.variants:
            with h5py.File(os.path.join(args.out, variant + ".h5"), "r+") as f:
                write_attrs(f, make_config(variant))
        return
    for variant in args.variants:
        cfg = make_config(variant)
        params = init_params(cfg, variant_seed(variant))
        logits, loss, grads, hidden = forward_backward(params, cfg)
        path = os.path.join(args.out, variant + ".h5")
        write_h5(path, cfg, params, logits, loss, grads, hidden if cfg.get("causal", 0) else None)
        print("%-22s loss=%.12f  logits=%s" % (variant, loss.item(),
                                             np.array2string(logits.numpy().ravel(), precision=6)))


if __name__ == "__main__":
    main()
