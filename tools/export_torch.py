#!/usr/bin/env python3
"""Export a PyTorch nn.TransformerEncoder (+ token embedding) as a phasor model.

A phasor model is a directory holding ``config.json`` and ``model.safetensors``
(see README, "Model directory"). This module writes one from live PyTorch
modules; it needs torch and numpy, nothing else (the safetensors file is written
by hand with struct + json).

Run it with a Python that has torch and numpy (Debian: python3-torch).

As a library::

    import sys; sys.path.insert(0, "path/to/phasor/tools")
    from export_torch import export
    export(encoder, embedding, "my_model")                       # sinusoidal PE
    export(encoder, embedding, "my_model",
           positional=dict(kind="learned", max_len=512), learned_pe=table)

As a command (a freshly initialised encoder, for trying phasor against PyTorch)::

    python3 tools/export_torch.py --out /tmp/m --d-model 64 --n-heads 4 \\
        --check-tokens "3 14 15" --check-output /tmp/m/expected.npy
    build/bin/phasor encode --model /tmp/m --tokens "3 14 15" --output /tmp/out.npy
    # then compare /tmp/out.npy with /tmp/m/expected.npy (max abs diff ~1e-6)

What phasor computes from the exported files, for the ids t of one sequence at
positions j = 0..seq-1 (and what ``reference_output`` computes in PyTorch)::

    x[j] = embedding.weight[t[j]] * (sqrt(d_model) if scale_embedding else 1)
           + PE[offset + j]
    PE   = the sinusoidal formula in README           (kind "sinusoidal")
         | positional.weight[offset + j]                    (kind "learned")
         | 0                                 (kind "none"; kind "rope", which rotates
                                              q and k inside attention instead)
    y    = encoder(x, src_key_padding_mask = (ids == pad_token_id))   # eval mode

The q, k, v projections are stacked in that order in ``in_proj_weight`` /
``in_proj_bias`` (rows [0, d), [d, 2d), [2d, 3d)), exactly as PyTorch stores them.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import struct
import sys
from typing import Dict, Optional, Sequence

try:
    import numpy as np
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    _MISSING = None
except ImportError as _e:  # --help still works; anything else says what to install
    _MISSING = _e.name or str(_e)

DEFAULT_POSITIONAL = dict(kind="sinusoidal", base=10000.0, layout="interleaved",
                          denominator="d_model", offset=0, max_len=4096, mode="auto")

_KINDS = ("sinusoidal", "learned", "none", "rope")
_LAYOUTS = ("interleaved", "split")
_DENOMINATORS = ("d_model", "half_minus_one")
_MODES = ("cached", "on_the_fly", "auto")

# kind "rope" (README "Rotary position embedding"): its keys and defaults; q and k
# are rotated inside attention, nothing is added to x. rotary_dim None: the head dim.
DEFAULT_ROPE = dict(kind="rope", base=10000.0, layout="half", rotary_dim=None, offset=0,
                    max_len=4096, mode="auto", scaling=None)
_ROPE_LAYOUTS = ("half", "interleaved")
# The keys of "scaling" each type reads, besides "type".
ROPE_SCALING_KEYS = {
    "none": (),
    "linear": ("factor",),
    "ntk": ("factor",),
    "dynamic": ("factor", "original_max_len"),
    "yarn": ("factor", "original_max_len", "beta_fast", "beta_slow", "attention_factor"),
    "llama3": ("factor", "original_max_len", "low_freq_factor", "high_freq_factor"),
}


class ExportError(ValueError):
    """The modules or options cannot be expressed as a phasor model."""


# ---------------------------------------------------------------------------
# safetensors


def write_safetensors(path: str, tensors: Dict[str, torch.Tensor],
                      metadata: Optional[Dict[str, str]] = None) -> None:
    """Writes tensors (name -> tensor, in dict order) as F32 safetensors.

    Layout: u64 little-endian header length N, N bytes of JSON header (padded
    with spaces so that N is a multiple of 8), then the raw little-endian float32
    data of each tensor, C-order, back to back; data_offsets are relative to the
    start of the data section.
    """
    header: Dict[str, object] = {}
    if metadata:
        header["__metadata__"] = dict(metadata)
    blobs = []
    offset = 0
    for name, tensor in tensors.items():
        array = np.ascontiguousarray(
            tensor.detach().cpu().to(torch.float32).numpy(), dtype="<f4")
        blob = array.tobytes(order="C")
        header[name] = {"dtype": "F32", "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    header_bytes = json.dumps(header, separators=(",", ":")).encode("utf-8")
    header_bytes += b" " * (-len(header_bytes) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(header_bytes)))
        f.write(header_bytes)
        for blob in blobs:
            f.write(blob)
    os.replace(tmp, path)


def read_safetensors(path: str) -> Dict[str, np.ndarray]:
    """Reads an F32/F16 safetensors file into numpy arrays (for checks)."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n].decode("utf-8"))
    body = data[8 + n:]
    dtypes = {"F32": "<f4", "F16": "<f2"}
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        array = np.frombuffer(body[begin:end], dtype=dtypes[info["dtype"]])
        out[name] = array.reshape(info["shape"]).astype(np.float32)
    return out


# ---------------------------------------------------------------------------
# reading the modules


def _activation_name(layer: nn.TransformerEncoderLayer, index: int) -> str:
    act = layer.activation
    if act is F.relu or isinstance(act, nn.ReLU):
        return "relu"
    if act is F.gelu:
        return "gelu"
    if isinstance(act, nn.GELU):
        if getattr(act, "approximate", "none") != "none":
            raise ExportError(
                f"layers.{index}: GELU(approximate={act.approximate!r}) is not supported; "
                "phasor implements the exact erf form (approximate='none') only")
        return "gelu"
    raise ExportError(
        f"layers.{index}: activation {act!r} is not supported; phasor implements "
        "'relu' and 'gelu' (erf form) only")


def _layer_norm_eps(norm: nn.LayerNorm, name: str, d_model: int) -> float:
    if tuple(norm.normalized_shape) != (d_model,):
        raise ExportError(f"{name}: normalized_shape {tuple(norm.normalized_shape)} "
                          f"is not ({d_model},)")
    return float(norm.eps)


def _norm_tensors(norm: nn.LayerNorm, d_model: int):
    # A LayerNorm without elementwise affine is the same as gamma = 1, beta = 0.
    weight = norm.weight if norm.weight is not None else torch.ones(d_model)
    bias = norm.bias if norm.bias is not None else torch.zeros(d_model)
    return weight, bias


def _bias_or_zeros(bias: Optional[torch.Tensor], n: int) -> torch.Tensor:
    return bias if bias is not None else torch.zeros(n)


def describe(encoder: nn.TransformerEncoder) -> dict:
    """The architecture keys of config.json, read from the encoder's modules.

    Raises ExportError for anything phasor cannot run: layers that differ from
    each other, an activation other than relu / exact gelu, separate q/k/v
    projection weights, mismatched LayerNorm eps.
    """
    if not isinstance(encoder, nn.TransformerEncoder):
        raise ExportError(f"expected nn.TransformerEncoder, got {type(encoder).__name__}")
    layers = list(encoder.layers)
    if not layers:
        raise ExportError("the encoder has no layers")
    info = None
    for i, layer in enumerate(layers):
        if not isinstance(layer, nn.TransformerEncoderLayer):
            raise ExportError(f"layers.{i} is {type(layer).__name__}, "
                              "not nn.TransformerEncoderLayer")
        attn = layer.self_attn
        if not attn._qkv_same_embed_dim or attn.in_proj_weight is None:
            raise ExportError(f"layers.{i}.self_attn has separate q/k/v weights "
                              "(kdim/vdim differ from embed_dim); not supported")
        if attn.bias_k is not None or attn.bias_v is not None or attn.add_zero_attn:
            raise ExportError(f"layers.{i}.self_attn uses add_bias_kv / add_zero_attn; "
                              "not supported")
        d_model = int(attn.embed_dim)
        eps1 = _layer_norm_eps(layer.norm1, f"layers.{i}.norm1", d_model)
        eps2 = _layer_norm_eps(layer.norm2, f"layers.{i}.norm2", d_model)
        if eps1 != eps2:
            raise ExportError(f"layers.{i}: norm1.eps {eps1} != norm2.eps {eps2}; "
                              "phasor has one layer_norm_eps")
        this = dict(d_model=d_model, n_heads=int(attn.num_heads),
                    d_ff=int(layer.linear1.out_features),
                    activation=_activation_name(layer, i),
                    norm_first=bool(layer.norm_first), layer_norm_eps=eps1)
        if info is None:
            info = this
        elif this != info:
            diff = {k: (info[k], this[k]) for k in info if info[k] != this[k]}
            raise ExportError(f"layers.{i} differs from layers.0 in {diff}; "
                              "phasor needs identical layers")
    final_norm = encoder.norm is not None
    if final_norm:
        if not isinstance(encoder.norm, nn.LayerNorm):
            raise ExportError(f"final norm is {type(encoder.norm).__name__}, not nn.LayerNorm")
        eps = _layer_norm_eps(encoder.norm, "norm", info["d_model"])
        if eps != info["layer_norm_eps"]:
            raise ExportError(f"final norm eps {eps} != layer eps {info['layer_norm_eps']}; "
                              "phasor has one layer_norm_eps")
    info["n_layers"] = len(layers)
    info["final_norm"] = final_norm
    return info


def _check_rope(positional: dict, d_model: int, n_heads: int) -> dict:
    unknown = set(positional) - set(DEFAULT_ROPE)
    if unknown:
        raise ExportError(f"positional: unknown keys {sorted(unknown)} for kind 'rope'; "
                          f"known: {sorted(DEFAULT_ROPE)}")
    pos = dict(DEFAULT_ROPE)
    pos.update(positional)
    d_head = d_model // n_heads
    if pos["layout"] not in _ROPE_LAYOUTS:
        raise ExportError(f"positional.layout {pos['layout']!r} is not one of {_ROPE_LAYOUTS}")
    if pos["mode"] not in _MODES:
        raise ExportError(f"positional.mode {pos['mode']!r} is not one of {_MODES}")
    pos["base"] = float(pos["base"])
    if not (pos["base"] > 1.0 and math.isfinite(pos["base"])):
        raise ExportError(f"positional.base must be a finite number > 1, got {pos['base']}")
    r = d_head if pos["rotary_dim"] is None else int(pos["rotary_dim"])
    if r % 2 or r < 2 or r > d_head:
        raise ExportError(f"positional.rotary_dim {r} must be even, >= 2 and <= the head dim "
                          f"{d_head}")
    for key in ("offset", "max_len"):
        pos[key] = int(pos[key])
    if pos["offset"] < 0 or pos["max_len"] < 1:
        raise ExportError("positional.offset must be >= 0 and max_len >= 1")
    scaling = pos["scaling"]
    if scaling is not None:
        scaling = dict(scaling)
        kind = scaling.get("type")
        if kind not in ROPE_SCALING_KEYS:
            raise ExportError(f"positional.scaling.type {kind!r} is not one of "
                              f"{tuple(ROPE_SCALING_KEYS)}")
        extra = set(scaling) - {"type"} - set(ROPE_SCALING_KEYS[kind])
        if extra:
            raise ExportError(f"positional.scaling: {sorted(extra)} not used by type {kind!r}")
        if kind != "none" and not float(scaling.get("factor", 0)) > 0:
            raise ExportError("positional.scaling.factor must be > 0")
        if kind in ("ntk", "dynamic") and r < 4:
            raise ExportError(f"positional.rotary_dim {r} must be >= 4 with scaling {kind!r}")
        if kind == "none":
            scaling = None
    out = dict(kind="rope", base=pos["base"], layout=pos["layout"])
    if pos["rotary_dim"] is not None:
        out["rotary_dim"] = r
    out.update(offset=pos["offset"], max_len=pos["max_len"], mode=pos["mode"])
    if scaling is not None:
        out["scaling"] = scaling
    return out


def _check_positional(positional: dict, d_model: int,
                      learned_pe: Optional[torch.Tensor], n_heads: int = 1) -> dict:
    if positional.get("kind") == "rope":
        if learned_pe is not None:
            raise ExportError("learned_pe given but positional.kind is 'rope'")
        return _check_rope(positional, d_model, n_heads)
    unknown = set(positional) - set(DEFAULT_POSITIONAL)
    if unknown:
        raise ExportError(f"positional: unknown keys {sorted(unknown)}; "
                          f"known: {sorted(DEFAULT_POSITIONAL)}")
    pos = dict(DEFAULT_POSITIONAL)
    pos.update(positional)
    if pos["kind"] not in _KINDS:
        raise ExportError(f"positional.kind {pos['kind']!r} is not one of {_KINDS}")
    if pos["layout"] not in _LAYOUTS:
        raise ExportError(f"positional.layout {pos['layout']!r} is not one of {_LAYOUTS}")
    if pos["denominator"] not in _DENOMINATORS:
        raise ExportError(f"positional.denominator {pos['denominator']!r} "
                          f"is not one of {_DENOMINATORS}")
    if pos["mode"] not in _MODES:
        raise ExportError(f"positional.mode {pos['mode']!r} is not one of {_MODES}")
    pos["base"] = float(pos["base"])
    if not (pos["base"] > 1.0 and math.isfinite(pos["base"])):
        raise ExportError(f"positional.base must be a finite number > 1, got {pos['base']}")
    pos["offset"] = int(pos["offset"])
    if pos["offset"] < 0:
        raise ExportError(f"positional.offset must be >= 0, got {pos['offset']}")
    if pos["kind"] == "sinusoidal":
        if d_model % 2:
            raise ExportError(f"sinusoidal PE needs an even d_model, got {d_model}")
        if pos["denominator"] == "half_minus_one" and d_model < 4:
            raise ExportError("denominator 'half_minus_one' needs d_model >= 4")
    if pos["kind"] == "learned":
        if learned_pe is None:
            raise ExportError("positional.kind 'learned' needs learned_pe "
                              "(a [max_len, d_model] tensor)")
        if learned_pe.dim() != 2 or learned_pe.shape[1] != d_model:
            raise ExportError(f"learned_pe: got {list(learned_pe.shape)}, "
                              f"expected [max_len, {d_model}]")
        rows = int(learned_pe.shape[0])
        if "max_len" in positional and int(positional["max_len"]) != rows:
            raise ExportError(f"positional.max_len {positional['max_len']} != "
                              f"learned_pe rows {rows}")
        pos["max_len"] = rows
    elif learned_pe is not None:
        raise ExportError(f"learned_pe given but positional.kind is {pos['kind']!r}")
    pos["max_len"] = int(pos["max_len"])
    if pos["max_len"] < 1:
        raise ExportError(f"positional.max_len must be >= 1, got {pos['max_len']}")
    return pos


def export(encoder: nn.TransformerEncoder, embedding: nn.Embedding, out_dir: str, *,
           positional: dict = DEFAULT_POSITIONAL, scale_embedding: bool = False,
           pad_token_id: Optional[int] = None,
           learned_pe: Optional[torch.Tensor] = None) -> dict:
    """Writes out_dir/config.json and out_dir/model.safetensors; returns the config.

    positional: the "positional" object of config.json; missing keys take the
    defaults of DEFAULT_POSITIONAL (DEFAULT_ROPE for kind "rope": keys base,
    layout "half" | "interleaved", rotary_dim, offset, max_len, mode, scaling). kind "learned" needs learned_pe
    ([max_len, d_model]; max_len is taken from its rows), written as
    positional.weight. pad_token_id: the id that pads ragged batches (masked out
    of attention). Raises ExportError for anything phasor cannot represent.
    """
    arch = describe(encoder)
    d_model = arch["d_model"]
    if not isinstance(embedding, nn.Embedding):
        raise ExportError(f"expected nn.Embedding, got {type(embedding).__name__}")
    if embedding.embedding_dim != d_model:
        raise ExportError(f"embedding dim {embedding.embedding_dim} != encoder d_model {d_model}")
    if embedding.max_norm is not None:
        raise ExportError("embedding.max_norm renormalises rows on lookup; phasor does not")
    vocab_size = int(embedding.num_embeddings)
    if pad_token_id is not None:
        pad_token_id = int(pad_token_id)
        if not 0 <= pad_token_id < vocab_size:
            raise ExportError(f"pad_token_id {pad_token_id} is outside the vocabulary "
                              f"[0, {vocab_size})")
    pos = _check_positional(positional, d_model, learned_pe, arch["n_heads"])

    config = dict(vocab_size=vocab_size, d_model=d_model, n_heads=arch["n_heads"],
                  n_layers=arch["n_layers"], d_ff=arch["d_ff"],
                  activation=arch["activation"], norm_first=arch["norm_first"],
                  final_norm=arch["final_norm"], layer_norm_eps=arch["layer_norm_eps"],
                  scale_embedding=bool(scale_embedding), pad_token_id=pad_token_id,
                  positional=pos)

    tensors: Dict[str, torch.Tensor] = {"embedding.weight": embedding.weight}
    for i, layer in enumerate(encoder.layers):
        p = f"layers.{i}."
        attn = layer.self_attn
        tensors[p + "self_attn.in_proj_weight"] = attn.in_proj_weight
        tensors[p + "self_attn.in_proj_bias"] = _bias_or_zeros(attn.in_proj_bias, 3 * d_model)
        tensors[p + "self_attn.out_proj.weight"] = attn.out_proj.weight
        tensors[p + "self_attn.out_proj.bias"] = _bias_or_zeros(attn.out_proj.bias, d_model)
        tensors[p + "linear1.weight"] = layer.linear1.weight
        tensors[p + "linear1.bias"] = _bias_or_zeros(layer.linear1.bias, arch["d_ff"])
        tensors[p + "linear2.weight"] = layer.linear2.weight
        tensors[p + "linear2.bias"] = _bias_or_zeros(layer.linear2.bias, d_model)
        for n in ("norm1", "norm2"):
            w, b = _norm_tensors(getattr(layer, n), d_model)
            tensors[p + n + ".weight"] = w
            tensors[p + n + ".bias"] = b
    if arch["final_norm"]:
        w, b = _norm_tensors(encoder.norm, d_model)
        tensors["norm.weight"] = w
        tensors["norm.bias"] = b
    if pos["kind"] == "learned":
        tensors["positional.weight"] = learned_pe

    for name, t in tensors.items():
        if not torch.isfinite(t.detach()).all():
            raise ExportError(f"tensor {name} holds NaN or Inf")

    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    write_safetensors(os.path.join(out_dir, "model.safetensors"), tensors,
                      metadata={"format": "pt", "producer": "phasor tools/export_torch.py"})
    return config


# ---------------------------------------------------------------------------
# PyTorch reference computation


def sinusoidal_table(positions: torch.Tensor, d_model: int, base: float = 10000.0,
                     layout: str = "interleaved", denominator: str = "d_model") -> torch.Tensor:
    """PE rows for the given integer positions, float64 [len(positions), d_model]."""
    i = torch.arange(d_model // 2, dtype=torch.float64)
    if denominator == "d_model":
        exponent = 2.0 * i / d_model
    else:
        exponent = i / (d_model / 2 - 1)
    freq = torch.pow(torch.tensor(base, dtype=torch.float64), -exponent)
    angle = positions.to(torch.float64)[:, None] * freq[None, :]
    pe = torch.empty(len(positions), d_model, dtype=torch.float64)
    if layout == "interleaved":
        pe[:, 0::2] = torch.sin(angle)
        pe[:, 1::2] = torch.cos(angle)
    else:
        pe[:, :d_model // 2] = torch.sin(angle)
        pe[:, d_model // 2:] = torch.cos(angle)
    return pe


def encoder_input(embedding: nn.Embedding, ids: torch.Tensor, config: dict,
                  learned_pe: Optional[torch.Tensor] = None) -> torch.Tensor:
    """x for ids [batch, seq] (padded), float32 [batch, seq, d_model].

    Computed in float64 and rounded once, as phasor does.
    """
    d_model = config["d_model"]
    pos = config["positional"]
    with torch.no_grad():
        x = embedding.weight.detach().to(torch.float64)[ids]
        if config["scale_embedding"]:
            x = x * math.sqrt(d_model)
        positions = torch.arange(ids.shape[1]) + pos["offset"]
        if pos["kind"] == "sinusoidal":
            x = x + sinusoidal_table(positions, d_model, pos["base"], pos["layout"],
                                     pos["denominator"])[None]
        elif pos["kind"] == "learned":
            if positions[-1] >= learned_pe.shape[0]:
                raise ExportError(f"position {int(positions[-1])} is beyond the learned "
                                  f"table ({learned_pe.shape[0]} rows)")
            x = x + learned_pe.detach().to(torch.float64)[positions][None]
    return x.to(torch.float32)


def reference_output(encoder: nn.TransformerEncoder, x: torch.Tensor,
                     padding_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
    """PyTorch's encoder output for x [batch, seq, d_model] (batch first).

    Runs a copy of the encoder in eval mode on the slow, exact path (no nested
    tensors, no fused fast path), whatever its batch_first. padding_mask: bool
    [batch, seq], True at padded positions. Returns [batch, seq, d_model]; rows
    at padded positions are whatever PyTorch computes there (not meaningful).
    """
    enc = copy.deepcopy(encoder).eval()
    enc.enable_nested_tensor = False
    for p in enc.parameters():
        p.requires_grad_(True)  # grad enabled + requires_grad disables the fast path
    batch_first = enc.layers[0].self_attn.batch_first
    src = x if batch_first else x.transpose(0, 1)
    with torch.enable_grad():
        y = enc(src.to(next(enc.parameters()).dtype), src_key_padding_mask=padding_mask)
    y = y.detach()
    return y if batch_first else y.transpose(0, 1)


def pad_batch(sequences: Sequence[Sequence[int]], pad_token_id: Optional[int]):
    """ids [batch, max_len] padded with pad_token_id, and the bool padding mask."""
    seq = max(len(s) for s in sequences)
    if pad_token_id is None and any(len(s) != seq for s in sequences):
        raise ExportError("ragged sequences need a pad_token_id")
    fill = pad_token_id if pad_token_id is not None else 0
    ids = torch.full((len(sequences), seq), fill, dtype=torch.long)
    mask = torch.zeros((len(sequences), seq), dtype=torch.bool)
    for b, s in enumerate(sequences):
        ids[b, :len(s)] = torch.tensor(list(s), dtype=torch.long)
        mask[b, len(s):] = True
    return ids, (mask if pad_token_id is not None else None)


# ---------------------------------------------------------------------------
# command line demo


def _parse_tokens(text: str):
    try:
        ids = [int(t) for t in text.replace(",", " ").split()]
    except ValueError:
        raise ExportError(f"--check-tokens: not a list of integer ids: {text!r}") from None
    if not ids:
        raise ExportError("--check-tokens: no token ids")
    return [ids]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description="Export a freshly initialised nn.TransformerEncoder as a phasor "
                    "model directory (and optionally PyTorch's output for some tokens).")
    ap.add_argument("--out", "--output", dest="out", required=True,
                    help="model directory to write (one holding a model needs --force)")
    ap.add_argument("--force", action="store_true",
                    help="overwrite the model the directory already holds")
    ap.add_argument("--d-model", type=int, default=64)
    ap.add_argument("--n-heads", type=int, default=4)
    ap.add_argument("--n-layers", type=int, default=2)
    ap.add_argument("--d-ff", type=int, default=128)
    ap.add_argument("--vocab", type=int, default=100)
    ap.add_argument("--activation", choices=["relu", "gelu"], default="relu")
    ap.add_argument("--norm-first", action="store_true", help="pre-LN layers")
    ap.add_argument("--final-norm", action="store_true", help="add a final LayerNorm")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--check-tokens", metavar="IDS",
                    help='one sequence of token ids, e.g. "3 14 15"')
    ap.add_argument("--check-output", metavar="FILE.npy",
                    help="where to write PyTorch's output for --check-tokens "
                         "(default: OUT/expected.npy)")
    args = ap.parse_args(argv)
    # Checked before any work, as phasor make-toy does: the names of what is written.
    if args.check_output is not None and not args.check_output.endswith(".npy"):
        print(f"export_torch: error: --check-output must end in .npy, got '{args.check_output}'",
              file=sys.stderr)
        return 2
    for name in ("config.json", "model.safetensors"):
        if not args.force and os.path.exists(os.path.join(args.out, name)):
            print(f"export_torch: error: --out {args.out} already holds a model ({name}); pass "
                  "--force to overwrite it", file=sys.stderr)
            return 2
    if _MISSING:
        print(f"export_torch: error: this command needs torch and numpy; '{_MISSING}' is not "
              "installed (Debian: apt install python3-torch python3-numpy)", file=sys.stderr)
        return 2

    try:
        if args.d_model <= 0 or args.n_heads <= 0 or args.d_model % args.n_heads:
            raise ExportError(f"--n-heads {args.n_heads} must divide --d-model {args.d_model}")
        sequences = _parse_tokens(args.check_tokens) if args.check_tokens else None
        for s in sequences or []:
            bad = [t for t in s if not 0 <= t < args.vocab]
            if bad:
                raise ExportError(f"--check-tokens: ids {bad} outside [0, {args.vocab})")
        torch.manual_seed(args.seed)
        layer = nn.TransformerEncoderLayer(args.d_model, args.n_heads, args.d_ff, dropout=0.0,
                                           activation=args.activation, batch_first=True,
                                           norm_first=args.norm_first)
        norm = nn.LayerNorm(args.d_model) if args.final_norm else None
        encoder = nn.TransformerEncoder(layer, args.n_layers, norm=norm,
                                        enable_nested_tensor=False).eval()
        embedding = nn.Embedding(args.vocab, args.d_model)
        config = export(encoder, embedding, args.out)
        print(f"wrote {args.out}/config.json and model.safetensors "
              f"(d_model {config['d_model']}, {config['n_heads']} heads, "
              f"{config['n_layers']} layers, d_ff {config['d_ff']}, {config['activation']}, "
              f"{'pre' if config['norm_first'] else 'post'}-LN, vocab {config['vocab_size']})")
        if sequences:
            ids, mask = pad_batch(sequences, None)
            x = encoder_input(embedding, ids, config)
            y = reference_output(encoder, x, mask).numpy().astype(np.float32)
            out = args.check_output or os.path.join(args.out, "expected.npy")
            np.save(out, y)
            print(f"wrote PyTorch's output {list(y.shape)} to {out}; compare with\n"
                  f"  build/bin/phasor encode --model {args.out} "
                  f"--tokens \"{args.check_tokens}\" --output out.npy")
    except ExportError as e:
        print(f"export_torch: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
