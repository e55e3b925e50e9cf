"""Qwen3 golden cases (tests/data/hf/qwen3*), computed in float64 with NumPy by a transcription
of transformers' models/qwen3/modeling_qwen3.py (Qwen3Model as Qwen3-Embedding runs it:
Qwen3DecoderLayer, Qwen3Attention, Qwen3MLP, Qwen3RMSNorm, Qwen3RotaryEmbedding):

- x = embed_tokens[ids] (no scaling);
- layer: x += o_proj(attn(input_layernorm(x))); x += mlp(post_attention_layernorm(x)),
  mlp(x) = down_proj(act(gate_proj(x)) · up_proj(x)), act = hidden_act (silu);
- attention (q_proj, k_proj, v_proj and o_proj with a bias iff attention_bias):
  q = q_norm(q_proj(x) by head), k = k_norm(k_proj(x) by head) (RMSNorm over
  head_dim, before the rotary), v = v_proj(x); rotate_half rotary with rope_theta over the
  whole head_dim (head_dim from the config, not hidden_size / heads); query head h reads
  key/value head h // (num_attention_heads / num_key_value_heads); scores q·k · head_dim^-0.5;
  causal: query i sees key j iff j <= i;
- norm (final RMSNorm).
Qwen3RMSNorm: x in float32, x · rsqrt(mean(x²) + rms_norm_eps), cast back to the input dtype,
then times weight (weight · x.to(dtype): in bf16 the normalised value is rounded before the
product); float64 here.

Llama, Mistral and Qwen2 (make_rotary_golden_llama.py) are this layer without q_norm and k_norm,
with their own biases, head_dim default, rotary scaling and window: decoder_parts says which.
"""
import json
import math

import numpy as np

from make_hf_golden import ACT, OUT, pool, write_sentence_transformers
from rotary_parts import (Tensors, attention, default_inv_freq, random_lines, rms_norm, rope_half,
                          store, torch_dtype, write_case)


def decoder_parts(cfg):
    """What the Llama family's decoders differ in, read from config.json as each modeling file
    reads it: qwen3 (q_norm, k_norm; q/k/v/o biases iff attention_bias), qwen2 (modeling_qwen2.py:
    q/k/v biases always, none on o), llama (modeling_llama.py: q/k/v/o biases iff
    attention_bias, gate/up/down iff mlp_bias), mistral (modeling_mistral.py: no biases, every
    layer windowed by sliding_window, MistralConfig's default 4096 when absent). head_dim: the
    key, else hidden_size / num_attention_heads."""
    mt, bias = cfg["model_type"], cfg.get("attention_bias", False)
    return {"qk_norm": mt == "qwen3",
            "qkv_bias": mt == "qwen2" or (mt != "mistral" and bias),
            "o_bias": mt in ("qwen3", "llama") and bias,
            "mlp_bias": mt == "llama" and cfg.get("mlp_bias", False),
            "head_dim": cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"],
            "window": cfg.get("sliding_window", 4096) if mt == "mistral" else None}


def decoder_mask(n, window):
    """masking_utils' causal_mask_function, and with a window sliding_window_overlay: query i
    sees key j iff j <= i and j > i - window."""
    i = np.arange(n)
    allowed = i[None, :] <= i[:, None]
    if window is not None:
        allowed &= i[None, :] > i[:, None] - window
    return allowed


def rope_inv_freq(cfg, dh):
    """modeling_rope_utils: the default ladder over head_dim with rope_theta, then the scaling of
    rope_scaling (or transformers 5's rope_parameters): linear (inv / factor) or llama3
    (_compute_llama3_parameters: wavelengths below original / high_freq_factor kept, above
    original / low_freq_factor divided by factor, between them the smooth mix)."""
    inv = default_inv_freq(dh, rope_theta(cfg))
    sc = cfg.get("rope_parameters") or cfg.get("rope_scaling") or {}
    kind = sc.get("rope_type", sc.get("type", "default"))
    if kind == "linear":
        return inv / sc["factor"]
    if kind == "llama3":
        factor, old = sc["factor"], sc["original_max_position_embeddings"]
        low, high = sc["low_freq_factor"], sc["high_freq_factor"]
        wavelen = 2 * math.pi / inv
        scaled = np.where(wavelen > old / low, inv / factor, inv)
        smooth = (old / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = ~(wavelen < old / high) & ~(wavelen > old / low)
        return np.where(medium, smoothed, scaled)
    assert kind == "default", kind
    return inv


def qwen3_forward(t, cfg, ids, positions=None, window=-1):
    """window: -1 the config's, else the one given (None: none)."""
    parts = decoder_parts(cfg)
    h, kv, dh = cfg["num_attention_heads"], cfg["num_key_value_heads"], parts["head_dim"]
    eps, n = cfg["rms_norm_eps"], len(ids)
    positions = np.arange(n) if positions is None else positions
    inv = rope_inv_freq(cfg, dh)
    norm = lambda x, name: rms_norm(x, t[name + ".weight"], eps)  # noqa: E731
    qkv_b, o_b, mlp_b = parts["qkv_bias"], parts["o_bias"], parts["mlp_bias"]
    lin = lambda x, name, b=False: x @ t[name + ".weight"].T + (t[name + ".bias"] if b else 0)  # noqa: E731
    qk_norm = (lambda x, name: norm(x, name)) if parts["qk_norm"] else (lambda x, name: x)  # noqa: E731
    act = ACT[cfg["hidden_act"]]
    allowed = decoder_mask(n, parts["window"] if window == -1 else window)
    x = t["embed_tokens.weight"][ids]
    for i in range(cfg["num_hidden_layers"]):
        p = f"layers.{i}."
        y = norm(x, p + "input_layernorm")
        q = qk_norm(lin(y, p + "self_attn.q_proj", qkv_b).reshape(n, h, dh), p + "self_attn.q_norm")
        k = qk_norm(lin(y, p + "self_attn.k_proj", qkv_b).reshape(n, kv, dh), p + "self_attn.k_norm")
        v = lin(y, p + "self_attn.v_proj", qkv_b).reshape(n, kv, dh)
        q, k = rope_half(q, positions, inv), rope_half(k, positions, inv)
        x = x + lin(attention(q, k, v, allowed, dh ** -0.5), p + "self_attn.o_proj", o_b)
        y = norm(x, p + "post_attention_layernorm")
        y = act(lin(y, p + "mlp.gate_proj", mlp_b)) * lin(y, p + "mlp.up_proj", mlp_b)
        x = x + lin(y, p + "mlp.down_proj", mlp_b)
    return norm(x, "norm")


def random_qwen3(rng, cfg):
    parts = decoder_parts(cfg)
    d, ff = cfg["hidden_size"], cfg["intermediate_size"]
    h, kv, dh = cfg["num_attention_heads"], cfg["num_key_value_heads"], parts["head_dim"]
    qkv_b, o_b, mlp_b = parts["qkv_bias"], parts["o_bias"], parts["mlp_bias"]
    r = Tensors(rng)
    r.add("embed_tokens.weight", cfg["vocab_size"], d, scale=0.5)
    for i in range(cfg["num_hidden_layers"]):
        p = f"layers.{i}."
        r.norm(p + "input_layernorm", d)
        r.linear(p + "self_attn.q_proj", h * dh, d, qkv_b)
        r.linear(p + "self_attn.k_proj", kv * dh, d, qkv_b)
        r.linear(p + "self_attn.v_proj", kv * dh, d, qkv_b)
        r.linear(p + "self_attn.o_proj", d, h * dh, o_b)
        if parts["qk_norm"]:
            r.norm(p + "self_attn.q_norm", dh)
            r.norm(p + "self_attn.k_norm", dh)
        r.norm(p + "post_attention_layernorm", d)
        r.linear(p + "mlp.gate_proj", ff, d, mlp_b)
        r.linear(p + "mlp.up_proj", ff, d, mlp_b)
        r.linear(p + "mlp.down_proj", d, ff, mlp_b)
    r.norm("norm", d)
    return r.t


def qwen3_config(dtype, causal_lm, v5):
    """Qwen3-Embedding-0.6B's config.json keys (Qwen3-0.6B's: the same), tiny sizes; head_dim 16
    != 32 / 4. v5: as transformers 5 writes it (dtype, layer_types, rope_parameters in place of
    torch_dtype, rope_theta and rope_scaling)."""
    cfg = {"architectures": ["Qwen3ForCausalLM" if causal_lm else "Qwen3Model"],
           "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 58,
           "eos_token_id": 58, "head_dim": 16, "hidden_act": "silu", "hidden_size": 32,
           "initializer_range": 0.02, "intermediate_size": 48,
           "max_position_embeddings": 32768, "max_window_layers": 3, "model_type": "qwen3",
           "num_attention_heads": 4, "num_hidden_layers": 3, "num_key_value_heads": 2,
           "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000,
           "sliding_window": None, "tie_word_embeddings": True,
           "torch_dtype": torch_dtype(dtype), "transformers_version": "4.51.3",
           "use_cache": True, "use_sliding_window": False, "vocab_size": 60}
    if v5:
        theta = cfg.pop("rope_theta")
        del cfg["rope_scaling"], cfg["torch_dtype"]
        cfg.update({"dtype": torch_dtype(dtype), "pad_token_id": None,
                    "layer_types": ["full_attention"] * cfg["num_hidden_layers"],
                    "rope_parameters": {"rope_theta": theta, "rope_type": "default"},
                    "transformers_version": "5.0.0"})
        cfg = dict(sorted(cfg.items()))
    return cfg


def rope_theta(cfg):
    if "rope_parameters" in cfg:
        return cfg["rope_parameters"]["rope_theta"]
    return cfg.get("rope_theta", 10000.0)


def make_decoder(name, cfg, dtype, seed, causal_lm, lengths):
    """tests/data/hf/<name> for a decoder of the Llama family (decoder_parts): random weights
    from seed, lines of the given lengths, the reference rows. causal_lm: a *ForCausalLM
    checkpoint (model. prefix, lm_head tied so not stored), else the *Model's (no prefix)."""
    rng = np.random.default_rng(seed)
    stored, exact = store(random_qwen3(rng, cfg), dtype, "model." if causal_lm else "")
    lines = random_lines(rng, lengths, cfg["vocab_size"], set())
    expected = np.zeros((len(lines), max(lengths), cfg["hidden_size"]), dtype=np.float32)
    for b, ids in enumerate(lines):
        expected[b, :len(ids)] = qwen3_forward(exact, cfg, ids)
    write_case(name, cfg, stored, dtype, lines, [len(ids) for ids in lines], expected)
    return exact, lines


def make_qwen3(name, dtype="F32", seed=51, causal_lm=False, v5=False, st=False,
               lengths=(7, 3, 12, 1, 9, 40)):
    """causal_lm: Qwen3ForCausalLM's checkpoint, else Qwen3Model's (make_decoder). st: Qwen3-Embedding's sentence-transformers modules (last
    token pooling, Normalize, max_seq_length 32768) and expected_pooled.npy."""
    cfg = qwen3_config(dtype, causal_lm, v5)
    exact, lines = make_decoder(name, cfg, dtype, seed, causal_lm, lengths)
    if st:
        d = OUT / name
        write_sentence_transformers(d, "lasttoken", cfg["hidden_size"])
        (d / "sentence_bert_config.json").write_text(
            json.dumps({"max_seq_length": 32768, "do_lower_case": False}, indent=2) + "\n")
        pooled = [pool(qwen3_forward(exact, cfg, ids), "lasttoken") for ids in lines]
        np.save(d / "expected_pooled.npy", np.array(pooled, dtype=np.float32))
    return cfg, exact, lines


def self_check(cfg, exact, lines):
    """Causal: a line's first k rows are those of its first k tokens alone. Rotary: shifting
    every position (left padding) leaves the rows as they are (scaled or not, the angles of a
    pair depend on its distance alone)."""
    ids = max(lines, key=len)
    full = qwen3_forward(exact, cfg, ids)
    for k in (1, 5):
        assert np.allclose(full[:k], qwen3_forward(exact, cfg, ids[:k]), atol=1e-13)
    shifted = qwen3_forward(exact, cfg, ids, positions=np.arange(len(ids)) + 7)
    assert np.allclose(full, shifted, atol=1e-11)
    assert not np.allclose(full[1], qwen3_forward(exact, cfg, ids[1:2])[0])


def main():
    self_check(*make_qwen3("qwen3", st=True))
    self_check(*make_qwen3("qwen3_bf16", dtype="BF16", seed=52, causal_lm=True, v5=True))


if __name__ == "__main__":
    main()
