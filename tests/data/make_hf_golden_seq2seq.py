"""Golden Hugging Face checkpoints of the encoder-decoder translation models, their encoders
alone (tests/data/hf/m2m_100, marian, marian_gelu): M2M100 and Marian, computed in float64
with NumPy by a transcription of transformers' modeling_m2m_100.py and modeling_marian.py
(their sinusoidal tables, pre- and post-LN encoder layers). Part of make_hf_golden.py, which
runs them; the shared parts (activations, layer norm, rounding, safetensors) come from it.
"""
import json
import math

import numpy as np

from make_hf_golden import ACT, OUT, layer_norm, write_safetensors


def m2m100_table(n_pos, dim, padding_idx):
    """M2M100SinusoidalPositionalEmbedding.get_embedding, in float32 as torch computes it."""
    half = dim // 2
    step = np.float32(math.log(10000) / (half - 1))
    freq = np.exp(np.arange(half, dtype=np.float32) * -step).astype(np.float32)
    arg = (np.arange(n_pos, dtype=np.float32)[:, None] * freq[None, :]).astype(np.float32)
    table = np.concatenate([np.sin(arg), np.cos(arg)], axis=1).astype(np.float32)
    table[padding_idx] = 0
    return table.astype(np.float64)


def m2m100_forward(t, cfg, ids, prefix):
    """M2M100Encoder's last_hidden_state for one unpadded sequence (modeling_m2m_100.py)."""
    g = lambda name: t[prefix + name].astype(np.float64)  # noqa: E731
    d, pad = cfg["d_model"], cfg["pad_token_id"]
    scale = math.sqrt(d) if cfg["scale_embedding"] else 1.0
    x = g("shared.weight")[ids] * scale
    table = m2m100_table(cfg["max_position_embeddings"] + 2, d, pad)
    x = x + table[pad + 1 + np.arange(len(ids))]
    h = cfg["encoder_attention_heads"]
    dh = d // h
    lin = lambda v, name: v @ g(name + ".weight").T + g(name + ".bias")  # noqa: E731
    ln = lambda v, name: layer_norm(v, g(name + ".weight"), g(name + ".bias"), 1e-5)  # noqa: E731
    split = lambda v: v.reshape(len(ids), h, dh).transpose(1, 0, 2)  # noqa: E731
    for i in range(cfg["encoder_layers"]):
        p = f"encoder.layers.{i}."
        y = ln(x, p + "self_attn_layer_norm")
        q = split(lin(y, p + "self_attn.q_proj")) * dh ** -0.5
        k, v = split(lin(y, p + "self_attn.k_proj")), split(lin(y, p + "self_attn.v_proj"))
        s = q @ k.transpose(0, 2, 1)
        s = np.exp(s - s.max(-1, keepdims=True))
        a = ((s / s.sum(-1, keepdims=True)) @ v).transpose(1, 0, 2).reshape(len(ids), d)
        x = x + lin(a, p + "self_attn.out_proj")
        y = ln(x, p + "final_layer_norm")
        x = x + lin(np.maximum(lin(y, p + "fc1"), 0), p + "fc2")
    return ln(x, "encoder.layer_norm")


def make_m2m100(name, prefix="model.", seed=11):
    cfg = {"architectures": ["M2M100ForConditionalGeneration"], "model_type": "m2m_100",
           "vocab_size": 60, "d_model": 32, "encoder_layers": 2, "decoder_layers": 1,
           "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 64,
           "decoder_ffn_dim": 64, "activation_function": "relu", "dropout": 0.1,
           "attention_dropout": 0.1, "activation_dropout": 0.0, "encoder_layerdrop": 0.05,
           "decoder_layerdrop": 0.05, "max_position_embeddings": 40, "init_std": 0.02,
           "scale_embedding": True, "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2,
           "decoder_start_token_id": 2, "is_encoder_decoder": True, "torch_dtype": "float32",
           "transformers_version": "4.44.2"}
    rng = np.random.default_rng(seed)
    d, ff = cfg["d_model"], cfg["encoder_ffn_dim"]
    t = {}
    def add(name, *shape, scale=0.2, around=0.0):
        t[name] = (around + scale * rng.standard_normal(shape)).astype(np.float32)
    add("shared.weight", cfg["vocab_size"], d, scale=1 / math.sqrt(d))
    random_marian_layers(add, cfg, "encoder")  # M2M100's layers have Marian's names
    add("encoder.layer_norm.weight", d, scale=0.1, around=1.0)
    add("encoder.layer_norm.bias", d, scale=0.1)
    add("decoder.layers.0.fc1.weight", ff, d)  # a decoder part, which phasor does not read
    stored = {prefix + k: v for k, v in t.items()}
    if prefix:
        stored["lm_head.weight"] = t["shared.weight"]
    exact = {k[len(prefix):]: v.astype(np.float64) for k, v in stored.items() if k.startswith(prefix)}
    lengths = [7, 3, 12, 1, 9]
    lines = [rng.integers(3, cfg["vocab_size"], size=n) for n in lengths]
    expected = np.zeros((len(lines), max(lengths), d), dtype=np.float32)
    for b, ids in enumerate(lines):
        expected[b, :len(ids)] = m2m100_forward(exact, cfg, ids, "")
    out = OUT / name
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    write_safetensors(out / "model.safetensors", stored, "F32")
    (out / "tokens.txt").write_text("".join(" ".join(map(str, ids)) + "\n" for ids in lines))
    np.save(out / "expected.npy", expected)



def marian_table(n_pos, dim):
    """MarianSinusoidalPositionalEmbedding._init_weight: float64 NumPy, sin of the even columns
    of position_enc in the first half, cos of the odd ones in the second, stored as float32."""
    enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)]
                    for pos in range(n_pos)])
    out = np.empty((n_pos, dim), dtype=np.float32)
    out[:, :dim // 2] = np.sin(enc[:, 0::2])
    out[:, dim // 2:] = np.cos(enc[:, 1::2])
    return out


def marian_forward(t, cfg, ids, embed):
    """MarianEncoder's last_hidden_state for one unpadded sequence (modeling_marian.py:
    MarianEncoder, MarianEncoderLayer, MarianAttention; positions from 0, post-LN)."""
    g = lambda name: t[name].astype(np.float64)  # noqa: E731
    d = cfg["d_model"]
    scale = math.sqrt(d) if cfg["scale_embedding"] else 1.0
    table = marian_table(cfg["max_position_embeddings"], d).astype(np.float64)
    x = g(embed)[ids] * scale + table[np.arange(len(ids))]
    h = cfg["encoder_attention_heads"]
    dh = d // h
    act = ACT["silu" if cfg["activation_function"] == "swish" else cfg["activation_function"]]
    lin = lambda v, name: v @ g(name + ".weight").T + g(name + ".bias")  # noqa: E731
    ln = lambda v, name: layer_norm(v, g(name + ".weight"), g(name + ".bias"), 1e-5)  # noqa: E731
    split = lambda v: v.reshape(len(ids), h, dh).transpose(1, 0, 2)  # noqa: E731
    for i in range(cfg["encoder_layers"]):
        p = f"encoder.layers.{i}."
        q = split(lin(x, p + "self_attn.q_proj")) * dh ** -0.5
        k, v = split(lin(x, p + "self_attn.k_proj")), split(lin(x, p + "self_attn.v_proj"))
        s = q @ k.transpose(0, 2, 1)
        s = np.exp(s - s.max(-1, keepdims=True))
        a = ((s / s.sum(-1, keepdims=True)) @ v).transpose(1, 0, 2).reshape(len(ids), d)
        x = ln(x + lin(a, p + "self_attn.out_proj"), p + "self_attn_layer_norm")
        x = ln(x + lin(act(lin(x, p + "fc1")), p + "fc2"), p + "final_layer_norm")
    return x


def random_marian_layers(add, cfg, side):
    d, ff = cfg["d_model"], cfg["encoder_ffn_dim"]
    for i in range(cfg[side + "_layers"]):
        p = f"{side}.layers.{i}."
        for m in ("q_proj", "k_proj", "v_proj", "out_proj"):
            add(p + "self_attn." + m + ".weight", d, d, scale=1 / math.sqrt(d))
            add(p + "self_attn." + m + ".bias", d, scale=0.1)
        add(p + "fc1.weight", ff, d, scale=1 / math.sqrt(d))
        add(p + "fc1.bias", ff, scale=0.1)
        add(p + "fc2.weight", d, ff, scale=1 / math.sqrt(ff))
        add(p + "fc2.bias", d, scale=0.1)
        for n in ("self_attn_layer_norm", "final_layer_norm"):
            add(p + n + ".weight", d, scale=0.1, around=1.0)
            add(p + n + ".bias", d, scale=0.1)


def make_marian(name, prefix, act, scale_embedding, shared, stored_positions, seed):
    """A Marian checkpoint: MarianMTModel (prefix "model.", the LM head and final_logits_bias
    beside it) or MarianModel; the token table shared with the decoder (model.shared.weight)
    or the encoder's own; the encoder's sinusoid stored as the model saves it, or not."""
    cfg = {"architectures": ["MarianMTModel" if prefix else "MarianModel"], "model_type": "marian",
           "vocab_size": 60, "decoder_vocab_size": 60, "d_model": 32, "encoder_layers": 2,
           "decoder_layers": 1, "encoder_attention_heads": 4, "decoder_attention_heads": 4,
           "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "activation_function": act,
           "dropout": 0.1, "attention_dropout": 0.0, "activation_dropout": 0.0,
           "encoder_layerdrop": 0.0, "decoder_layerdrop": 0.0, "max_position_embeddings": 40,
           "init_std": 0.02, "scale_embedding": scale_embedding, "normalize_before": False,
           "normalize_embedding": False, "add_final_layer_norm": False,
           "static_position_embeddings": True, "share_encoder_decoder_embeddings": shared,
           "pad_token_id": 59, "eos_token_id": 0, "decoder_start_token_id": 59,
           "forced_eos_token_id": 0, "is_encoder_decoder": True, "torch_dtype": "float32",
           "transformers_version": "4.44.2"}
    rng = np.random.default_rng(seed)
    d, v = cfg["d_model"], cfg["vocab_size"]
    t = {}
    def add(name, *shape, scale=0.2, around=0.0):
        t[name] = (around + scale * rng.standard_normal(shape)).astype(np.float32)
    embed = "shared.weight" if shared else "encoder.embed_tokens.weight"
    add(embed, v, d, scale=1 / math.sqrt(d) if scale_embedding else 0.5)
    if not shared:
        add("decoder.embed_tokens.weight", v, d)
    random_marian_layers(add, cfg, "encoder")
    random_marian_layers(add, cfg, "decoder")  # which phasor does not read
    t["decoder.embed_positions.weight"] = marian_table(cfg["max_position_embeddings"], d)
    if stored_positions:
        t["encoder.embed_positions.weight"] = marian_table(cfg["max_position_embeddings"], d)
    stored = {prefix + k: val for k, val in t.items()}
    if prefix:
        stored["lm_head.weight"] = t[embed]
        stored["final_logits_bias"] = np.zeros((1, v), dtype=np.float32)
    lengths = [7, 3, 12, 1, 9]
    # Lines as Marian's tokenizer ends them: with </s> (id 0); no pad id inside.
    lines = [np.append(rng.integers(1, v - 1, size=n - 1), 0) for n in lengths]
    expected = np.zeros((len(lines), max(lengths), d), dtype=np.float32)
    for b, ids in enumerate(lines):
        expected[b, :len(ids)] = marian_forward(t, cfg, ids, embed)
    out = OUT / name
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    write_safetensors(out / "model.safetensors", stored, "F32")
    (out / "tokens.txt").write_text("".join(" ".join(map(str, ids)) + "\n" for ids in lines))
    np.save(out / "expected.npy", expected)
