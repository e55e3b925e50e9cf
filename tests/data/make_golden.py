#!/usr/bin/env python3
"""Regenerates the golden cases in tests/data/golden/ from PyTorch.

Run from anywhere with a Python that has torch and numpy (Debian:
python3-torch): ``python3 tests/data/make_golden.py``. The tests never run this
script; they only read the committed files. Output is deterministic for a given torch version
(torch.manual_seed per case).

Layout: tests/data/golden/manifest.json lists the cases; each case is a
directory tests/data/golden/<case>/ holding

  config.json        the model config (README "Model directory").
  model.safetensors  F32 weights, written by tools/export_torch.py:export.
                     in_proj_weight stacks q, k, v in that order (rows [0,d),
                     [d,2d), [2d,3d)), as PyTorch does.
  tokens.txt         one sequence a line, ids separated by single spaces. Lines
                     may have different lengths (ragged); the engine pads them to
                     the longest with config.pad_token_id and masks the padding
                     out of attention (PyTorch src_key_padding_mask).
  embeddings.npy     float32 C-order [batch, seq, d_model], seq = longest line:
                     the encoder input x[b, j] = embedding[ids[b, j]]
                     * (sqrt(d_model) if scale_embedding) + PE[offset + j],
                     computed in float64 by this script's own numpy PE code, then
                     rounded once to float32. At padded positions ids = pad_token_id
                     (the row is real x there, exactly what PyTorch was fed).
  expected.npy       float32 C-order [batch, seq, d_model]: PyTorch's
                     nn.TransformerEncoder (eval mode, slow exact path,
                     enable_nested_tensor=False) run on embeddings.npy in float32.
                     Rows at padded positions (j >= length of line b) are 0.0:
                     compare only real positions.

Tolerances: embeddings to 2e-6, expected to 1e-4 (max abs).

RoPE cases (tests/data/golden/rope_*/, kind "rope"): the same files, with x =
the scaled embedding alone (RoPE adds nothing to x) and expected.npy made by
this script's own forward pass (rope_reference_output: nn.TransformerEncoderLayer
step by step from the module's weights, q and k rotated after the
in-projection). Two more files check the rotation by itself:

  qkv_layer0.npy          float32 [batch·seq, 3·d_model]: layer 0's in-projection
                          of its input (x, or norm1(x) when pre-LN), q | k | v.
  qkv_layer0_rotated.npy  the same with q and k rotated (v untouched).

tests/data/golden/rope_inv_freq/inv_freq.txt holds inverse frequencies from
Hugging Face's formulas (_compute_*_parameters of modeling_rope_utils, transcribed
below in float64), one case a line.

Run ``python3 tests/data/make_golden.py --rope-only`` to rewrite only the RoPE
cases (the manifest keeps the other entries).

manifest.json: {"cases": [{"name", "description", "batch", "seq_len",
"lengths", "d_model", "embeddings_vs_torch_f32_max_abs",
"expected_f32_vs_f64_max_abs"}, ...], ...}. The two numbers are self-checks:
the first compares embeddings.npy with an independent float32 computation of x
in torch (the PyTorch-tutorial form exp(-2i·ln(base)/d), or a plain gather for
learned tables); the second compares expected.npy with the same model run in
float64, a feel for how much float32 rounding alone moves the output.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import shutil
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from export_torch import export, reference_output  # noqa: E402

GOLDEN = os.path.join(HERE, "golden")

BASE_POSITIONAL = dict(kind="sinusoidal", base=10000.0, layout="interleaved",
                       denominator="d_model", offset=0, max_len=4096, mode="auto")

# name -> (description, options). Options not given take the defaults of make_case.
CASES = [
    ("post_ln_relu",
     "post-LN, relu, no final norm, default sinusoidal PE, batch 2 of equal length",
     dict(seed=1, d_model=32, n_heads=4, d_ff=64, lengths=[11, 11])),
    ("pre_ln_gelu_final_norm",
     "pre-LN, gelu (erf), final LayerNorm",
     dict(seed=2, d_model=64, n_heads=8, d_ff=128, activation="gelu", norm_first=True,
          final_norm=True, lengths=[13, 13])),
    ("split_half_minus_one",
     "PE layout split, denominator half_minus_one",
     dict(seed=3, d_model=32, n_heads=2, d_ff=64, lengths=[17],
          positional=dict(layout="split", denominator="half_minus_one"))),
    ("interleaved_half_minus_one",
     "PE layout interleaved, denominator half_minus_one",
     dict(seed=4, d_model=32, n_heads=4, d_ff=64, lengths=[12, 12],
          positional=dict(layout="interleaved", denominator="half_minus_one"))),
    ("split_d_model",
     "PE layout split, denominator d_model",
     dict(seed=5, d_model=32, n_heads=4, d_ff=64, lengths=[15],
          positional=dict(layout="split", denominator="d_model"))),
    ("offset_scale",
     "positions start at offset 7, embedding scaled by sqrt(d_model)",
     dict(seed=6, d_model=32, n_heads=4, d_ff=64, lengths=[10, 10], scale_embedding=True,
          positional=dict(offset=7))),
    ("ragged_padding",
     "pad_token_id 0, three ragged lines of lengths 9, 4, 6 padded and masked",
     dict(seed=7, d_model=32, n_heads=4, d_ff=64, lengths=[9, 4, 6], pad_token_id=0)),
    ("d96_h6",
     "d_model 96 (not a power of two), 6 heads of 16",
     dict(seed=8, d_model=96, n_heads=6, d_ff=64, lengths=[7])),
    ("learned",
     "learned positional table positional.weight [32, d_model]",
     dict(seed=9, d_model=32, n_heads=4, d_ff=64, lengths=[14, 14],
          positional=dict(kind="learned", max_len=32))),
    ("base_500",
     "PE base 500, mode cached, max_len 64",
     dict(seed=10, d_model=32, n_heads=4, d_ff=64, lengths=[16],
          positional=dict(base=500.0, mode="cached", max_len=64))),
    ("long_ragged_h64",
     "heads of 64, ragged lines of 261, 97, 33 and 20 tokens: odd lengths, "
     "key panels from 128 keys, and lines on both sides of the 32 keys where bf16 attention starts",
     dict(seed=11, d_model=128, n_heads=2, d_ff=256, lengths=[261, 97, 33, 20],
          pad_token_id=0)),
    ("key_tiles_h64",
     "one head of 64, ragged lines of 1030 and 513 tokens: three and two key tiles of 512 "
     "(the 513-token line's last of one key)",
     dict(seed=12, d_model=64, n_heads=1, d_ff=128, lengths=[1030, 513], pad_token_id=0)),
]


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


def numpy_pe(positions: np.ndarray, d_model: int, base: float, layout: str,
             denominator: str) -> np.ndarray:
    """The PE formula in float64: [len(positions), d_model]."""
    half = d_model // 2
    i = np.arange(half, dtype=np.float64)
    if denominator == "d_model":
        freq = base ** (-2.0 * i / d_model)
    elif denominator == "half_minus_one":
        freq = base ** (-i / (half - 1.0))
    else:
        raise ValueError(denominator)
    angle = positions.astype(np.float64)[:, None] * freq[None, :]
    pe = np.empty((len(positions), d_model), dtype=np.float64)
    if layout == "interleaved":
        pe[:, 0::2] = np.sin(angle)
        pe[:, 1::2] = np.cos(angle)
    elif layout == "split":
        pe[:, :half] = np.sin(angle)
        pe[:, half:] = np.cos(angle)
    else:
        raise ValueError(layout)
    return pe


def numpy_embeddings(emb_weight: np.ndarray, ids: np.ndarray, config: dict,
                     learned: np.ndarray | None) -> np.ndarray:
    d_model = config["d_model"]
    pos = config["positional"]
    x = emb_weight.astype(np.float64)[ids]  # [batch, seq, d_model]
    if config["scale_embedding"]:
        x = x * math.sqrt(d_model)
    positions = np.arange(ids.shape[1]) + pos["offset"]
    if pos["kind"] == "sinusoidal":
        x = x + numpy_pe(positions, d_model, pos["base"], pos["layout"],
                         pos["denominator"])[None]
    elif pos["kind"] == "learned":
        x = x + learned.astype(np.float64)[positions][None]
    return x.astype(np.float32)


def torch_f32_embeddings(embedding: nn.Embedding, ids: torch.Tensor, config: dict,
                         learned: torch.Tensor | None) -> torch.Tensor:
    """The same x the way a PyTorch user writes it, all in float32."""
    d_model = config["d_model"]
    pos = config["positional"]
    with torch.no_grad():
        x = embedding(ids)
        if config["scale_embedding"]:
            x = x * math.sqrt(d_model)
        position = torch.arange(ids.shape[1], dtype=torch.float32)[:, None] + pos["offset"]
        if pos["kind"] == "sinusoidal":
            i2 = torch.arange(0, d_model, 2, dtype=torch.float32)  # = 2i
            if pos["denominator"] == "d_model":
                div_term = torch.exp(i2 * (-math.log(pos["base"]) / d_model))
            else:
                div_term = torch.exp(i2 / 2 * (-math.log(pos["base"]) / (d_model / 2 - 1)))
            pe = torch.zeros(ids.shape[1], d_model)
            if pos["layout"] == "interleaved":
                pe[:, 0::2] = torch.sin(position * div_term)
                pe[:, 1::2] = torch.cos(position * div_term)
            else:
                pe[:, :d_model // 2] = torch.sin(position * div_term)
                pe[:, d_model // 2:] = torch.cos(position * div_term)
            x = x + pe[None]
        elif pos["kind"] == "learned":
            x = x + learned[pos["offset"]:pos["offset"] + ids.shape[1]][None]
    return x


# ---------------------------------------------------------------------------
# building a case


def randomise(encoder: nn.TransformerEncoder) -> None:
    """Makes every gamma, beta and bias matter, so a missing one fails the test."""
    with torch.no_grad():
        norms = []
        for layer in encoder.layers:
            layer.self_attn.in_proj_bias.copy_(0.1 * torch.randn_like(layer.self_attn.in_proj_bias))
            layer.self_attn.out_proj.bias.copy_(
                0.1 * torch.randn_like(layer.self_attn.out_proj.bias))
            norms += [layer.norm1, layer.norm2]
        if encoder.norm is not None:
            norms.append(encoder.norm)
        for norm in norms:
            norm.weight.copy_(1.0 + 0.1 * torch.randn_like(norm.weight))
            norm.bias.copy_(0.1 * torch.randn_like(norm.bias))


def make_case(name: str, description: str, seed: int, d_model: int, n_heads: int,
              d_ff: int, lengths, n_layers: int = 2, vocab: int = 50,
              activation: str = "relu", norm_first: bool = False, final_norm: bool = False,
              scale_embedding: bool = False, pad_token_id=None, positional=None) -> dict:
    torch.manual_seed(seed)
    pos = {} if (positional or {}).get("kind") == "rope" else dict(BASE_POSITIONAL)
    pos.update(positional or {})

    layer = nn.TransformerEncoderLayer(d_model, n_heads, d_ff, dropout=0.0,
                                       activation=activation, batch_first=True,
                                       norm_first=norm_first)
    norm = nn.LayerNorm(d_model) if final_norm else None
    encoder = nn.TransformerEncoder(layer, n_layers, norm=norm, enable_nested_tensor=False)
    randomise(encoder)  # _get_clones deep-copies, so each layer gets its own values
    encoder.eval()
    embedding = nn.Embedding(vocab, d_model)
    learned = None
    if pos["kind"] == "learned":
        learned = 0.5 * torch.randn(pos["max_len"], d_model)

    # Token ids: real tokens never equal the pad id.
    low = 1 if pad_token_id == 0 else 0
    sequences = [torch.randint(low, vocab, (n,)).tolist() for n in lengths]
    if pad_token_id is not None:
        assert all(pad_token_id not in s for s in sequences)
    seq = max(lengths)
    ids = np.full((len(sequences), seq), pad_token_id if pad_token_id is not None else 0,
                  dtype=np.int64)
    for b, s in enumerate(sequences):
        ids[b, :len(s)] = s
    padded = np.arange(seq)[None, :] >= np.array(lengths)[:, None]  # [batch, seq]
    assert pad_token_id is not None or not padded.any()

    out = os.path.join(GOLDEN, name)
    if os.path.isdir(out):
        shutil.rmtree(out)
    config = export(encoder, embedding, out, positional=pos, scale_embedding=scale_embedding,
                    pad_token_id=pad_token_id, learned_pe=learned)
    with open(os.path.join(out, "tokens.txt"), "w") as f:
        for s in sequences:
            f.write(" ".join(str(t) for t in s) + "\n")

    x = numpy_embeddings(embedding.weight.detach().numpy(), ids, config,
                         None if learned is None else learned.numpy())
    x_torch = torch_f32_embeddings(embedding, torch.from_numpy(ids), config, learned).numpy()
    emb_diff = float(np.abs(x - x_torch).max())

    mask = torch.from_numpy(padded) if pad_token_id is not None else None
    extra = {}
    if pos["kind"] == "rope":
        capture = {}
        pos_written = config["positional"]
        y = rope_reference_output(encoder, torch.from_numpy(x), mask, pos_written,
                                  capture).numpy().astype(np.float32)
        y64 = rope_reference_output(copy.deepcopy(encoder).double(),
                                    torch.from_numpy(x).double(), mask, pos_written).numpy()
        np.save(os.path.join(out, "qkv_layer0.npy"),
                np.ascontiguousarray(capture["qkv"].numpy(), dtype="<f4"))
        np.save(os.path.join(out, "qkv_layer0_rotated.npy"),
                np.ascontiguousarray(capture["rotated"].numpy(), dtype="<f4"))
        # Self-check of the hand-written layers: with every angle 0 and factor 1
        # the rotation is the identity, so they must reproduce PyTorch's own.
        identity = rope_reference_output(encoder, torch.from_numpy(x), mask, pos_written,
                                         identity=True).numpy()
        torch_own = reference_output(encoder, torch.from_numpy(x), mask).numpy()
        identity[padded] = 0.0
        torch_own[padded] = 0.0
        extra["reference_layers_vs_torch_max_abs"] = float(np.abs(identity - torch_own).max())
        if (pos_written.get("scaling") or {}).get("type") == "dynamic":
            # phasor scales each sequence by its own length, so that its output does not
            # depend on the rest of its batch: each sequence's reference is computed alone.
            y = np.zeros_like(y)
            y64 = np.zeros_like(y64)
            for b, n in enumerate(lengths):
                xb = torch.from_numpy(np.ascontiguousarray(x[b:b + 1, :n]))
                y[b, :n] = rope_reference_output(encoder, xb, None, pos_written).numpy()[0]
                y64[b, :n] = rope_reference_output(copy.deepcopy(encoder).double(), xb.double(),
                                                   None, pos_written).numpy()[0]
    else:
        y = reference_output(encoder, torch.from_numpy(x), mask).numpy().astype(np.float32)
        y64 = reference_output(encoder.double(), torch.from_numpy(x).double(), mask).numpy()
    y[padded] = 0.0
    y64[padded] = 0.0
    f64_diff = float(np.abs(y - y64).max())

    np.save(os.path.join(out, "embeddings.npy"), np.ascontiguousarray(x, dtype="<f4"))
    np.save(os.path.join(out, "expected.npy"), np.ascontiguousarray(y, dtype="<f4"))
    return dict(name=name, description=description, batch=len(sequences), seq_len=seq,
                lengths=list(lengths), d_model=d_model,
                embeddings_vs_torch_f32_max_abs=emb_diff,
                expected_f32_vs_f64_max_abs=f64_diff, **extra)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rope-only", action="store_true",
                    help="rewrite only the RoPE cases and rope_inv_freq (keep the others)")
    ap.add_argument("--case", action="append", default=[],
                    help="rewrite (or add) only this case (repeatable; keep the others)")
    args = ap.parse_args(argv)
    os.makedirs(GOLDEN, exist_ok=True)
    manifest_path = os.path.join(GOLDEN, "manifest.json")
    cases = ROPE_CASES if args.rope_only else CASES + ROPE_CASES
    if args.case:
        unknown = set(args.case) - {name for name, _, _ in CASES + ROPE_CASES}
        if unknown:
            ap.error(f"unknown case {sorted(unknown)}")
        cases = [c for c in cases if c[0] in args.case]
    made = {name: make_case(name, description, **options) for name, description, options in cases}
    entries = list(made.values())
    if (args.rope_only or args.case) and os.path.exists(manifest_path):
        with open(manifest_path) as f:
            old = {e["name"]: e for e in json.load(f)["cases"]}
        # Every case in the order of CASES + ROPE_CASES, new where rewritten.
        entries = [made.get(name, old.get(name)) for name, _, _ in CASES + ROPE_CASES]
        entries = [e for e in entries if e is not None]
    inv_freq_cases = 0 if args.case else write_inv_freq_golden()
    manifest = dict(
        generator="tests/data/make_golden.py",
        torch_version=torch.__version__,
        tolerances=dict(embeddings=2e-6, expected=1e-4),
        padding="tokens.txt lines are unpadded; expected.npy is 0.0 at padded positions",
        cases=entries)
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")

    total = 0
    for root, _, files in os.walk(GOLDEN):
        total += sum(os.path.getsize(os.path.join(root, n)) for n in files)
    print(f"{'case':28s} {'batch':>5s} {'seq':>4s} {'d':>4s}  {'x vs torch f32':>14s}  "
          f"{'y f32 vs f64':>12s}  {'rope layers vs torch':>20s}")
    for e in entries:
        check = e.get("reference_layers_vs_torch_max_abs")
        print(f"{e['name']:28s} {e['batch']:5d} {e['seq_len']:4d} {e['d_model']:4d}  "
              f"{e['embeddings_vs_torch_f32_max_abs']:14.3e}  "
              f"{e['expected_f32_vs_f64_max_abs']:12.3e}  "
              f"{'' if check is None else format(check, '20.3e')}")
    print(f"wrote {len(entries)} cases and {inv_freq_cases} inverse-frequency cases to "
          f"{GOLDEN} ({total / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
