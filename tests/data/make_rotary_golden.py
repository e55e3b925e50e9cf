#!/usr/bin/env python3
"""Golden checkpoints of the rotary architectures (tests/data/hf/), as make_hf_golden.py
makes those of the BERT generation: config.json with the checkpoint's own keys,
model.safetensors with its own tensor names and random weights from a fixed seed,
tokens.txt and expected.npy (float32 [lines, longest, hidden], the last hidden state,
rows past a line's end 0), computed here in float64 with NumPy by a transcription of
each model's modeling file, so that the reference is another program than phasor.

- nomic_bert: Nomic's modeling_hf_nomic_bert.py (NomicBertModel): word + token type
  embeddings and emb_ln; per layer Wqkv, rotary on the first rotary_emb_fraction of
  each head (apply_rotary_emb: halves, or pairs with rotary_emb_interleaved),
  softmax(q·kᵀ/√d_head)·v, out_proj, norm1(x + attn); the gated MLP
  fc2(fc11(x) · act(fc12(x))) (NomciBertGatedMLP), norm2(x + mlp).

The other rotary architectures, one file each, with the parts they share in rotary_parts.py:
- modernbert, modernbert_bf16: make_rotary_golden_modernbert.py (transformers'
  modeling_modernbert.py, ModernBertModel);
- qwen3, qwen3_bf16: make_rotary_golden_qwen3.py (modeling_qwen3.py, Qwen3Model);
- qwen2, llama, mistral (and their _bf16): make_rotary_golden_llama.py (modeling_qwen2.py,
  modeling_llama.py, modeling_mistral.py: the qwen3 transcription with their flags);
- new_gte, new_gte_bf16: make_rotary_golden_new.py (Alibaba-NLP/new-impl modeling.py, NewModel);
- gemma3_text, gemma3_text_bf16: make_rotary_golden_gemma3.py (modeling_gemma3.py,
  Gemma3TextModel with use_bidirectional_attention).
Each checks its transcription against itself where a property must hold (a window wider than
the line is global attention, a causal line's first rows are its prefix's, ...).

Angles are exact (float64 position × float64 inverse frequency), as phasor's are.
Run from the source root:  /usr/bin/python3 tests/data/make_rotary_golden.py  (all of them)
"""
import importlib
import json
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_hf_golden import ACT, OUT, as_float64, layer_norm, round_to, write_safetensors  # noqa: E402
import rotary_parts  # noqa: E402


def rotate(x, positions, rotary_dim, base, interleaved):
    """x: [seq, heads, d_head]; the first rotary_dim of each head rotated by position."""
    inv = 1.0 / base ** (np.arange(0, rotary_dim, 2, dtype=np.float64) / rotary_dim)
    angles = positions[:, None].astype(np.float64) * inv[None, :]  # [seq, rotary_dim / 2]
    cos, sin = np.cos(angles)[:, None, :], np.sin(angles)[:, None, :]
    out = x.copy()
    if interleaved:
        a, b = x[..., 0:rotary_dim:2], x[..., 1:rotary_dim:2]
        out[..., 0:rotary_dim:2] = a * cos - b * sin
        out[..., 1:rotary_dim:2] = b * cos + a * sin
    else:
        half = rotary_dim // 2
        a, b = x[..., :half], x[..., half:rotary_dim]
        out[..., :half] = a * cos - b * sin
        out[..., half:rotary_dim] = b * cos + a * sin
    return out


def attention(q, k, v):
    """q, k, v: [seq, heads, d_head]; bidirectional softmax attention, heads joined."""
    scores = np.einsum("ihd,jhd->hij", q, k) / math.sqrt(q.shape[-1])
    scores -= scores.max(-1, keepdims=True)
    p = np.exp(scores)
    p /= p.sum(-1, keepdims=True)
    return np.einsum("hij,jhd->ihd", p, v).reshape(q.shape[0], -1)


def nomic_forward(t, cfg, ids, types):
    g = lambda name: t[name]  # noqa: E731
    lin = lambda x, name, bias: x @ g(name + ".weight").T + (g(name + ".bias") if bias else 0)  # noqa: E731
    eps = cfg["layer_norm_epsilon"]
    x = g("embeddings.word_embeddings.weight")[ids] + g("embeddings.token_type_embeddings.weight")[types]
    x = layer_norm(x, g("emb_ln.weight"), g("emb_ln.bias"), eps)
    h = cfg["n_head"]
    dh = cfg["n_embd"] // h
    ro = int(dh * cfg["rotary_emb_fraction"])
    positions = np.arange(len(ids))
    act = {"swiglu": ACT["silu"], "geglu": ACT["gelu"]}[cfg["activation_function"]]
    qkv_bias, b1, b2 = cfg["qkv_proj_bias"], cfg["mlp_fc1_bias"], cfg["mlp_fc2_bias"]
    for i in range(cfg["n_layer"]):
        p = f"encoder.layers.{i}."
        qkv = lin(x, p + "attn.Wqkv", qkv_bias).reshape(len(ids), 3, h, dh)
        q, k = (rotate(qkv[:, j], positions, ro, cfg["rotary_emb_base"],
                       cfg["rotary_emb_interleaved"]) for j in (0, 1))
        a = lin(attention(q, k, qkv[:, 2]), p + "attn.out_proj", qkv_bias)
        x = layer_norm(a + x, g(p + "norm1.weight"), g(p + "norm1.bias"), eps)
        y = lin(x, p + "mlp.fc11", b1) * act(lin(x, p + "mlp.fc12", b1))
        y = lin(y, p + "mlp.fc2", b2)
        x = layer_norm(y + x, g(p + "norm2.weight"), g(p + "norm2.bias"), eps)
    return x


def random_nomic(rng, cfg, vocab_rows):
    d, ff = cfg["n_embd"], cfg["n_inner"]
    t = {}
    def add(name, *shape, scale=0.2, around=0.0):
        t[name] = around + scale * rng.standard_normal(shape)
    add("embeddings.word_embeddings.weight", vocab_rows, d, scale=0.5)
    add("embeddings.token_type_embeddings.weight", cfg["type_vocab_size"], d, scale=0.5)
    add("emb_ln.weight", d, scale=0.1, around=1.0)
    add("emb_ln.bias", d, scale=0.1)
    for i in range(cfg["n_layer"]):
        p = f"encoder.layers.{i}."
        products = [("attn.Wqkv", 3 * d, d, cfg["qkv_proj_bias"]),
                    ("attn.out_proj", d, d, cfg["qkv_proj_bias"]),
                    ("mlp.fc11", ff, d, cfg["mlp_fc1_bias"]), ("mlp.fc12", ff, d, cfg["mlp_fc1_bias"]),
                    ("mlp.fc2", d, ff, cfg["mlp_fc2_bias"])]
        for name, out, inp, bias in products:
            add(p + name + ".weight", out, inp, scale=1 / math.sqrt(inp))
            if bias:
                add(p + name + ".bias", out, scale=0.1)
        for n in ("norm1", "norm2"):
            add(p + n + ".weight", d, scale=0.1, around=1.0)
            add(p + n + ".bias", d, scale=0.1)
    return t


def make_nomic(name, dtype="F32", seed=31, act="swiglu", biases=False, fraction=1.0,
               interleaved=False, vocab=60, multiple=1, lengths=(7, 3, 12, 1, 9, 40)):
    """Lines of the given lengths; the third a pair (segment 1 from its 6th token, type 1)."""
    cfg = {"architectures": ["NomicBertModel"], "model_type": "nomic_bert",
           "activation_function": act, "attn_pdrop": 0.0, "bos_token_id": None, "causal": False,
           "embd_pdrop": 0.0, "eos_token_id": None, "fused_bias_fc": True,
           "initializer_range": 0.02, "layer_norm_epsilon": 1e-12, "max_trained_positions": 2048,
           "mlp_fc1_bias": biases, "mlp_fc2_bias": biases, "n_embd": 32, "n_head": 4,
           "n_inner": 48, "n_layer": 2, "n_positions": 8192, "pad_vocab_size_multiple": multiple,
           "parallel_block": False, "prenorm": False, "qkv_proj_bias": biases,
           "resid_pdrop": 0.0, "rotary_emb_base": 1000, "rotary_emb_fraction": fraction,
           "rotary_emb_interleaved": interleaved, "rotary_emb_scale_base": None,
           "rotary_scaling_factor": None, "type_vocab_size": 2, "use_cache": True,
           "use_rms_norm": False, "vocab_size": vocab,
           "torch_dtype": {"F32": "float32", "BF16": "bfloat16"}[dtype],
           "transformers_version": "4.44.2"}
    rng = np.random.default_rng(seed)
    rows = (vocab + multiple - 1) // multiple * multiple
    stored = {k: round_to(v, dtype) for k, v in random_nomic(rng, cfg, rows).items()}
    exact = {k: as_float64(v, dtype) for k, v in stored.items()}
    lines = [rng.integers(0, vocab, size=n) for n in lengths]
    splits = [5 if b == 2 else n for b, n in enumerate(lengths)]
    expected = np.zeros((len(lines), max(lengths), cfg["n_embd"]), dtype=np.float32)
    for b, ids in enumerate(lines):
        types = (np.arange(len(ids)) >= splits[b]).astype(np.int64)
        expected[b, :len(ids)] = nomic_forward(exact, cfg, ids, types)
    d = OUT / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    write_safetensors(d / "model.safetensors", stored, dtype)
    (d / "tokens.txt").write_text("".join(
        " ".join(map(str, ids[:k])) + ("\t" if k < len(ids) else "") + " ".join(map(str, ids[k:]))
        + "\n" for ids, k in zip(lines, splits)))
    np.save(d / "expected.npy", expected)


def check_rope_half():
    """rotary_parts.rope_half against the complex form (x_i + i·x_(i+d/2)) · e^(i·p·f_i) and
    against rotate above (halves, the whole head)."""
    rng = np.random.default_rng(5)
    x, positions = rng.standard_normal((9, 3, 16)), np.arange(9) + 3
    inv = rotary_parts.default_inv_freq(16, 1000.0)
    z = (x[..., :8] + 1j * x[..., 8:]) * np.exp(1j * positions[:, None, None] * inv)
    got = rotary_parts.rope_half(x, positions, inv)
    assert np.allclose(got, np.concatenate([z.real, z.imag], axis=-1), atol=1e-14)
    assert np.allclose(got, rotate(x, positions, 16, 1000.0, False), atol=1e-14)


if __name__ == "__main__":
    check_rope_half()
    make_nomic("nomic_bert")
    make_nomic("nomic_bert_geglu_bf16", dtype="BF16", seed=32, act="geglu", biases=True,
               fraction=0.5, interleaved=True, vocab=60, multiple=64)
    for arch in ("modernbert", "qwen3", "new", "gemma3", "llama"):
        importlib.import_module("make_rotary_golden_" + arch).main()
