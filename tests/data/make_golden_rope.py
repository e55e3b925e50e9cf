"""The RoPE part of make_golden.py: its cases (ROPE_CASES), Hugging Face's inv_freq for each
scaling (hf_rope_inv_freq), the rotation and an encoder forward pass with it in PyTorch
(rope_rotate, rope_reference_output), and the inv_freq golden table. make_golden.py runs
them.
"""
from __future__ import annotations

import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "golden")

ROPE_CASES = [
    ("rope_half",
     "RoPE, layout half (rotate_half), rotary_dim = head dim 8, post-LN relu",
     dict(seed=21, d_model=32, n_heads=4, d_ff=64, lengths=[11, 11],
          positional=dict(kind="rope"))),
    ("rope_offset_2p24",
     "rope_half's model and tokens at offset 2^24 - 16: the same output (relative positions)",
     dict(seed=21, d_model=32, n_heads=4, d_ff=64, lengths=[11, 11],
          positional=dict(kind="rope", offset=(1 << 24) - 16))),
    ("rope_interleaved_partial",
     "RoPE, layout interleaved, rotary_dim 8 of head dim 16, pre-LN gelu, final norm",
     dict(seed=22, d_model=64, n_heads=4, d_ff=96, lengths=[13, 13], activation="gelu",
          norm_first=True, final_norm=True,
          positional=dict(kind="rope", layout="interleaved", rotary_dim=8))),
    ("rope_linear",
     "RoPE, linear scaling factor 4, offset 5, scale_embedding",
     dict(seed=23, d_model=32, n_heads=2, d_ff=64, lengths=[10], scale_embedding=True,
          positional=dict(kind="rope", offset=5, scaling=dict(type="linear", factor=4.0)))),
    ("rope_ntk",
     "RoPE, ntk scaling factor 8, base 500, d_model 48 with 3 heads of 16",
     dict(seed=24, d_model=48, n_heads=3, d_ff=64, lengths=[9, 9],
          positional=dict(kind="rope", base=500.0, scaling=dict(type="ntk", factor=8.0)))),
    ("rope_dynamic_ragged",
     "RoPE, dynamic factor 2 with original_max_len 8, ragged: L per sequence (12 and 9 > L0, "
     "5 < L0)",
     dict(seed=25, d_model=32, n_heads=4, d_ff=64, lengths=[12, 5, 9], pad_token_id=0,
          positional=dict(kind="rope", scaling=dict(type="dynamic", factor=2.0,
                                                    original_max_len=8)))),
    ("rope_yarn",
     "RoPE, yarn factor 8, L0 = max_len 64 (mode cached), ramp inside the ladder, "
     "attention factor 0.1 ln 8 + 1",
     dict(seed=26, d_model=64, n_heads=2, d_ff=64, lengths=[13], norm_first=True,
          positional=dict(kind="rope", mode="cached", max_len=64,
                          scaling=dict(type="yarn", factor=8.0)))),
    ("rope_llama3",
     "RoPE, llama3 factor 8, original_max_len 64: kept, smoothed and divided pairs",
     dict(seed=27, d_model=32, n_heads=2, d_ff=64, lengths=[12, 12],
          positional=dict(kind="rope", mode="on_the_fly",
                          scaling=dict(type="llama3", factor=8.0, original_max_len=64,
                                       low_freq_factor=1.0, high_freq_factor=4.0)))),
]


# ---------------------------------------------------------------------------
# RoPE: Hugging Face's inverse-frequency formulas, and a reference forward pass


def hf_rope_inv_freq(pos: dict, head_dim: int, seq_len: int):
    """inv_freq (float64 [r/2]) and attention factor, transcribed from HF
    transformers modeling_rope_utils (_compute_default_rope_parameters,
    _compute_linear_scaling_rope_parameters, _compute_dynamic_ntk_parameters,
    _compute_yarn_parameters, _compute_llama3_parameters) with float64 in place
    of float32. "ntk" (not in HF) is the NTK-aware base change of bloc97:
    base * factor ** (dim / (dim - 2)). seq_len: offset + padded batch length."""
    base = float(pos.get("base", 10000.0))
    dim = int(pos.get("rotary_dim") or head_dim)
    scaling = pos.get("scaling") or {"type": "none"}
    kind = scaling["type"]
    factor = float(scaling.get("factor", 1.0))
    max_len = int(pos.get("max_len", 4096))
    original = int(scaling.get("original_max_len") or max_len)

    def default(b):
        return 1.0 / (b ** (torch.arange(0, dim, 2, dtype=torch.int64).to(torch.float64) / dim))

    attention_factor = 1.0
    if kind == "none":
        inv_freq = default(base)
    elif kind == "linear":
        inv_freq = default(base) / factor
    elif kind == "ntk":
        inv_freq = default(base * factor ** (dim / (dim - 2)))
    elif kind == "dynamic":
        max_position_embeddings = original
        seq_len = seq_len if seq_len > max_position_embeddings else max_position_embeddings
        b = base * ((factor * seq_len / max_position_embeddings) - (factor - 1)) ** (dim / (dim - 2))
        inv_freq = default(b)
    elif kind == "llama3":
        inv_freq = default(base)
        low_freq_factor = float(scaling.get("low_freq_factor", 1.0))
        high_freq_factor = float(scaling.get("high_freq_factor", 4.0))
        old_context_len = original
        low_freq_wavelen = old_context_len / low_freq_factor
        high_freq_wavelen = old_context_len / high_freq_factor
        wavelen = 2 * math.pi / inv_freq
        inv_freq_llama = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
        smooth_factor = (old_context_len / wavelen - low_freq_factor) / (
            high_freq_factor - low_freq_factor)
        smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + \
            smooth_factor * inv_freq_llama
        is_medium_freq = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
        inv_freq = torch.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)
    elif kind == "yarn":
        attention_factor = scaling.get("attention_factor")
        if attention_factor is None:
            attention_factor = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0
        beta_fast = float(scaling.get("beta_fast", 32.0))
        beta_slow = float(scaling.get("beta_slow", 1.0))

        def find_correction_dim(num_rotations):
            return (dim * math.log(original / (num_rotations * 2 * math.pi))) / (2 * math.log(base))

        # HF clamps low below at 0 and high above at dim - 1; phasor clamps
        # both into [0, dim - 1] (the same for every sane configuration).
        low = min(max(math.floor(find_correction_dim(beta_fast)), 0), dim - 1)
        high = min(max(math.ceil(find_correction_dim(beta_slow)), 0), dim - 1)
        if low == high:
            high += 0.001
        ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float64) - low) / (high - low), 0, 1)
        pos_freqs = base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)
        inv_freq_extrapolation = 1.0 / pos_freqs
        inv_freq_interpolation = 1.0 / (factor * pos_freqs)
        extrapolation_factor = 1 - ramp
        inv_freq = (inv_freq_interpolation * (1 - extrapolation_factor)
                    + inv_freq_extrapolation * extrapolation_factor)
    else:
        raise ValueError(kind)
    return inv_freq, float(attention_factor)


def rope_rotate(x: torch.Tensor, positions: torch.Tensor, inv_freq: torch.Tensor,
                attention_factor: float, layout: str) -> torch.Tensor:
    """x: [..., seq, d_head] (float32); rotates the first 2·len(inv_freq) dims.

    layout "half": Hugging Face's apply_rotary_pos_emb (q·cos + rotate_half(q)·sin,
    cos = cat(freqs, freqs)), with cos and sin made in float64, rounded once.
    layout "interleaved": Meta's Llama reference (view_as_complex on pairs
    (2i, 2i+1) times polar(1, angle)), in complex128, rounded once.
    """
    r = 2 * inv_freq.numel()
    angle = positions.to(torch.float64)[:, None] * inv_freq[None, :]  # [seq, r/2]
    rot, rest = x[..., :r], x[..., r:]
    if layout == "half":
        emb = torch.cat((angle, angle), dim=-1)
        cos = (emb.cos() * attention_factor).to(x.dtype)
        sin = (emb.sin() * attention_factor).to(x.dtype)

        def rotate_half(t):
            t1, t2 = t[..., :r // 2], t[..., r // 2:]
            return torch.cat((-t2, t1), dim=-1)

        rot = rot * cos + rotate_half(rot) * sin
    else:
        pairs = torch.view_as_complex(rot.to(torch.float64).reshape(*rot.shape[:-1], -1, 2)
                                      .contiguous())
        freqs_cis = torch.polar(torch.full_like(angle, attention_factor), angle)
        rot = torch.view_as_real(pairs * freqs_cis).flatten(-2).to(x.dtype)
    return torch.cat((rot, rest), dim=-1)


def rope_reference_output(encoder: nn.TransformerEncoder, x: torch.Tensor,
                          padding_mask, pos: dict, capture=None,
                          identity: bool = False) -> torch.Tensor:
    """nn.TransformerEncoder's eval forward written out layer by layer, with q and
    k rotated right after the in-projection (bias included), before 1/sqrt(d_head).
    x: [batch, seq, d_model]; padding_mask: bool [batch, seq] or None. capture:
    a dict receiving layer 0's qkv before and after the rotation. identity: every
    angle 0 and factor 1 (for checking the hand-written layers against PyTorch's)."""
    batch, seq, d_model = x.shape
    n_heads = encoder.layers[0].self_attn.num_heads
    d_head = d_model // n_heads
    positions = torch.arange(seq) + int(pos.get("offset", 0))
    inv_freq, attention_factor = hf_rope_inv_freq(pos, d_head, int(pos.get("offset", 0)) + seq)
    layout = pos.get("layout", "half")
    if identity:
        inv_freq, attention_factor = torch.zeros_like(inv_freq), 1.0
    with torch.no_grad():
        for index, layer in enumerate(encoder.layers):
            attn = layer.self_attn

            def sa(h):
                qkv = F.linear(h, attn.in_proj_weight, attn.in_proj_bias)  # [b, s, 3d]
                q, k, v = qkv.split(d_model, dim=-1)
                heads = lambda t: t.reshape(batch, seq, n_heads, d_head).transpose(1, 2)
                q = rope_rotate(heads(q), positions, inv_freq, attention_factor, layout)
                k = rope_rotate(heads(k), positions, inv_freq, attention_factor, layout)
                v = heads(v)
                if capture is not None and index == 0:
                    flat = lambda t: t.transpose(1, 2).reshape(batch * seq, d_model)
                    capture["qkv"] = qkv.reshape(batch * seq, 3 * d_model).clone()
                    capture["rotated"] = torch.cat((flat(q), flat(k), flat(v)), dim=-1)
                scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)  # [b, h, s, s]
                if padding_mask is not None:
                    scores = scores.masked_fill(padding_mask[:, None, None, :], float("-inf"))
                o = torch.softmax(scores, dim=-1) @ v  # [b, h, s, d_head]
                o = o.transpose(1, 2).reshape(batch, seq, d_model)
                return F.linear(o, attn.out_proj.weight, attn.out_proj.bias)

            def ff(h):
                return layer.linear2(layer.activation(layer.linear1(h)))

            if layer.norm_first:
                x = x + sa(layer.norm1(x))
                x = x + ff(layer.norm2(x))
            else:
                x = layer.norm1(x + sa(x))
                x = layer.norm2(x + ff(x))
        if encoder.norm is not None:
            x = encoder.norm(x)
    return x


def write_inv_freq_golden() -> int:
    """rope_inv_freq/inv_freq.txt: HF-formula inverse frequencies for the cases
    of tests/layers/rope_test.cc, one a line:
    name type r base factor L0 seq_end beta_fast beta_slow attention_factor(-1:
    default) low_freq_factor high_freq_factor : inv_0 .. inv_{r/2-1} attention_factor."""
    rows = [
        ("none", "none", 64, 10000.0, 1.0, 4096, 1, None, {}),
        ("linear", "linear", 64, 10000.0, 4.0, 4096, 1, None, {}),
        ("ntk", "ntk", 64, 10000.0, 8.0, 4096, 1, None, {}),
        ("ntk_r4", "ntk", 4, 10000.0, 8.0, 4096, 1, None, {}),
        ("dynamic_within_l0", "dynamic", 64, 10000.0, 2.0, 2048, 100, None, {}),
        ("dynamic_past_l0", "dynamic", 64, 10000.0, 2.0, 2048, 5000, None, {}),
        ("yarn", "yarn", 64, 10000.0, 16.0, 4096, 1, None, {}),
        ("yarn_partial_af", "yarn", 48, 10000.0, 16.0, 4096, 1, 0.75,
         dict(beta_fast=16.0, beta_slow=2.0)),
        ("yarn_factor_below_1", "yarn", 32, 10000.0, 0.5, 64, 1, None, {}),
        ("llama3", "llama3", 128, 500000.0, 8.0, 8192, 1, None, {}),
        ("llama3_small", "llama3", 16, 10000.0, 8.0, 64, 1, None,
         dict(low_freq_factor=1.0, high_freq_factor=4.0)),
    ]
    out_dir = os.path.join(GOLDEN, "rope_inv_freq")
    os.makedirs(out_dir, exist_ok=True)
    lines = ["# made by tests/data/make_golden.py (hf_rope_inv_freq); see its docstring"]
    for name, kind, r, base, factor, l0, seq_end, af, extra in rows:
        scaling = dict(type=kind)
        if kind != "none":
            scaling["factor"] = factor
        if kind in ("dynamic", "yarn", "llama3"):
            scaling["original_max_len"] = l0
        if af is not None:
            scaling["attention_factor"] = af
        scaling.update(extra)
        pos = dict(base=base, rotary_dim=r, max_len=l0, scaling=scaling)
        inv, attention = hf_rope_inv_freq(pos, r, seq_end)
        head = (f"{name} {kind} {r} {base!r} {factor!r} {l0} {seq_end} "
                f"{scaling.get('beta_fast', 32.0)!r} {scaling.get('beta_slow', 1.0)!r} "
                f"{-1.0 if af is None else af!r} {scaling.get('low_freq_factor', 1.0)!r} "
                f"{scaling.get('high_freq_factor', 4.0)!r} :")
        lines.append(head + " " + " ".join(repr(float(v)) for v in inv.tolist())
                     + " " + repr(attention))
    with open(os.path.join(out_dir, "inv_freq.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return len(rows)


# ---------------------------------------------------------------------------
# the independent numpy reference for x
