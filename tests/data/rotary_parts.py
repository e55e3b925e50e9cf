"""The parts the float64 references of the rotary golden cases share (make_rotary_golden*.py):
rotate_half rotary embedding, RMS norms, masked grouped-query attention, random tensors and
the writing of a case folder. NumPy only; no part of phasor.
"""
import json
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_hf_golden import OUT, as_float64, round_to, write_safetensors  # noqa: E402


def default_inv_freq(dim, base):
    """1 / base^(2i/dim) for i < dim/2, as transformers' compute_default_rope_parameters."""
    return 1.0 / float(base) ** (np.arange(0, dim, 2, dtype=np.float64) / dim)


def rope_half(x, positions, inv_freq):
    """x: [seq, heads, d]. transformers' apply_rotary_pos_emb: x·cos + rotate_half(x)·sin with
    cos = cos(cat(freqs, freqs)), freqs = position × inv_freq, rotate_half(x) = cat(-x2, x1)."""
    freqs = positions[:, None].astype(np.float64) * inv_freq[None, :]  # [seq, d / 2]
    emb = np.concatenate([freqs, freqs], axis=-1)[:, None, :]  # [seq, 1, d]
    half = x.shape[-1] // 2
    rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * np.cos(emb) + rotated * np.sin(emb)


def rms_norm(x, w, eps):
    """Qwen3RMSNorm / LlamaRMSNorm: w · x / sqrt(mean(x²) + eps)."""
    return w * (x / np.sqrt((x * x).mean(-1, keepdims=True) + eps))


def gemma_rms_norm(x, w, eps):
    """Gemma3RMSNorm: x / sqrt(mean(x²) + eps) · (1 + w)."""
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * (1.0 + w)


def attention(q, k, v, allowed, scale):
    """q: [seq, heads, d]; k, v: [seq, kv_heads, d]; allowed: bool [seq(query), seq(key)].
    Query head h reads key/value head h // (heads / kv_heads) (repeat_kv). Returns [seq, heads·d]."""
    group = q.shape[1] // k.shape[1]
    k = np.repeat(k, group, axis=1)
    v = np.repeat(v, group, axis=1)
    s = np.einsum("ihd,jhd->hij", q, k) * scale
    s = np.where(allowed[None], s, -np.inf)
    s = np.exp(s - s.max(-1, keepdims=True))
    p = s / s.sum(-1, keepdims=True)
    return np.einsum("hij,jhd->ihd", p, v).reshape(q.shape[0], -1)


def window_mask(n, radius):
    """Bidirectional sliding window: key j is seen from query i iff |i - j| <= radius."""
    i = np.arange(n)
    return np.abs(i[:, None] - i[None, :]) <= radius


class Tensors:
    """Random tensors from one generator, in the order they are added."""

    def __init__(self, rng):
        self.rng, self.t = rng, {}

    def add(self, name, *shape, scale=0.2, around=0.0):
        self.t[name] = around + scale * self.rng.standard_normal(shape)

    def linear(self, name, out, inp, bias=False):
        self.add(name + ".weight", out, inp, scale=1 / math.sqrt(inp))
        if bias:
            self.add(name + ".bias", out, scale=0.1)

    def norm(self, name, d, bias=False, around=1.0):
        self.add(name + ".weight", d, scale=0.1, around=around)
        if bias:
            self.add(name + ".bias", d, scale=0.1)


def random_lines(rng, lengths, vocab, avoid):
    """Token ids in [0, vocab) without the ids in avoid (a pad id at a line's end is padding)."""
    keep = np.array([i for i in range(vocab) if i not in avoid])
    return [keep[rng.integers(0, len(keep), size=n)] for n in lengths]


def write_case(name, cfg, stored, dtype, lines, splits, expected):
    """tests/data/hf/<name>: config.json, model.safetensors, tokens.txt (a tab before a line's
    segment 1), expected.npy."""
    d = OUT / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    write_safetensors(d / "model.safetensors", stored, dtype)
    (d / "tokens.txt").write_text("".join(
        " ".join(map(str, ids[:k])) + ("\t" if k < len(ids) else "") + " ".join(map(str, ids[k:]))
        + "\n" for ids, k in zip(lines, splits)))
    np.save(d / "expected.npy", expected)


def store(tensors, dtype, prefix=""):
    """(stored: prefixed names, rounded to dtype; exact: unprefixed names, float64 of stored)."""
    stored = {prefix + k: round_to(v, dtype) for k, v in tensors.items()}
    exact = {k: as_float64(stored[prefix + k], dtype) for k in tensors}
    return stored, exact


def torch_dtype(dtype):
    return {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[dtype]
