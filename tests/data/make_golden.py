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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from export_torch import export, reference_output  # noqa: E402
from make_golden_rope import (ROPE_CASES, rope_reference_output,  # noqa: E402
                              write_inv_freq_golden)

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
