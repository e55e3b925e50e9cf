"""GTE v1.5 / gte-multilingual ("new") golden cases (tests/data/hf/new_gte*), computed in
float64 with NumPy by a transcription of Alibaba-NLP/new-impl's modeling.py (NewModel,
NewEmbeddings, RotaryEmbedding, NTKScalingRotaryEmbedding, NewAttention, NewGatedMLP, NewLayer):

- embeddings: LayerNorm(word_embeddings[ids] + token_type_embeddings[types]) (the token type
  table only when type_vocab_size > 0; types 0 without token_type_ids),
  position_embedding_type "rope": no position table;
- layer (post-LN): x = attn_ln(x + o_proj(attn(x))); x = mlp_ln(x + mlp(x)),
  mlp(x) = down_proj(act(gate) · up) with up, gate = split(up_gate_proj(x)) (up: the first
  intermediate_size rows, gate: the last; up_gate_proj without bias, down_proj with one),
  act = hidden_act (gelu, erf form);
- attention: qkv_proj (with bias; rows q, k, v, each by head), rotate_half rotary over the
  head (hidden_size / num_attention_heads) with rope_theta; scores q·k / sqrt(head_dim), every
  key (bidirectional); o_proj with bias.
- rope_scaling {"type": "ntk", "factor": f} (mixed_b absent): the cache is rebuilt at
  max_position_embeddings · f > max_position_embeddings, so always, with base rope_theta · f
  and inv_freq divided by f^(2 / head_dim): inv_freq_i = (theta · f)^(-2i/d) · f^(-2/d), for
  every sequence length.
"""
import numpy as np

from make_hf_golden import ACT, layer_norm
from rotary_parts import (Tensors, attention, default_inv_freq, random_lines, rope_half, store,
                          torch_dtype, write_case)


def new_inv_freq(cfg):
    """RotaryEmbedding, or NTKScalingRotaryEmbedding._set_cos_sin_cache as its __init__ calls it."""
    dim = cfg["hidden_size"] // cfg["num_attention_heads"]
    scaling = cfg.get("rope_scaling")
    if scaling is None:
        return default_inv_freq(dim, cfg["rope_theta"])
    assert scaling["type"] == "ntk" and scaling.get("mixed_b") is None
    f = float(scaling["factor"])
    if not cfg["max_position_embeddings"] * f > cfg["max_position_embeddings"]:
        return default_inv_freq(dim, cfg["rope_theta"])
    return default_inv_freq(dim, cfg["rope_theta"] * f) / f ** (2 / dim)


def new_forward(t, cfg, ids, types):
    d, h = cfg["hidden_size"], cfg["num_attention_heads"]
    dh, ff, eps, n = d // h, cfg["intermediate_size"], cfg["layer_norm_eps"], len(ids)
    ln = lambda x, name: layer_norm(x, t[name + ".weight"], t[name + ".bias"], eps)  # noqa: E731
    lin = lambda x, name, b=True: x @ t[name + ".weight"].T + (t[name + ".bias"] if b else 0)  # noqa: E731
    act = ACT[cfg["hidden_act"]]
    inv, positions = new_inv_freq(cfg), np.arange(n)
    x = t["embeddings.word_embeddings.weight"][ids]
    if cfg["type_vocab_size"] > 0:
        x = x + t["embeddings.token_type_embeddings.weight"][types]
    x = ln(x, "embeddings.LayerNorm")
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        qkv = lin(x, p + "attention.qkv_proj").reshape(n, 3, h, dh)
        q, k = (rope_half(qkv[:, j], positions, inv) for j in (0, 1))
        a = attention(q, k, qkv[:, 2], np.ones((n, n), bool), dh ** -0.5)
        x = ln(x + lin(a, p + "attention.o_proj"), p + "attn_ln")
        ug = lin(x, p + "mlp.up_gate_proj", False)
        x = ln(x + lin(act(ug[:, ff:]) * ug[:, :ff], p + "mlp.down_proj"), p + "mlp_ln")
    return x


def random_new(rng, cfg):
    d, ff = cfg["hidden_size"], cfg["intermediate_size"]
    r = Tensors(rng)
    r.add("embeddings.word_embeddings.weight", cfg["vocab_size"], d, scale=0.5)
    if cfg["type_vocab_size"] > 0:
        r.add("embeddings.token_type_embeddings.weight", cfg["type_vocab_size"], d, scale=0.5)
    r.norm("embeddings.LayerNorm", d, True)
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        r.linear(p + "attention.qkv_proj", 3 * d, d, True)
        r.linear(p + "attention.o_proj", d, d, True)
        r.norm(p + "attn_ln", d, True)
        r.linear(p + "mlp.up_gate_proj", 2 * ff, d, False)
        r.linear(p + "mlp.down_proj", d, ff, True)
        r.norm(p + "mlp_ln", d, True)
    return r.t


def new_config(dtype, type_vocab, theta, scaling):
    """NewConfig's keys as gte-large-en-v1.5's config.json has them (type_vocab_size 2, NTK
    factor 2, theta 160000), or with type_vocab_size 0 as gte-base-en-v1.5's (which has no
    classifier_dropout nor logn_attention_* keys); tiny sizes."""
    impl = "Alibaba-NLP/new-impl--"
    cfg = {"architectures": ["NewModel"], "attention_probs_dropout_prob": 0.0,
           "auto_map": {"AutoConfig": impl + "configuration.NewConfig",
                        "AutoModel": impl + "modeling.NewModel",
                        "AutoModelForMaskedLM": impl + "modeling.NewForMaskedLM"},
           "classifier_dropout": None, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
           "hidden_size": 32, "initializer_range": 0.02, "intermediate_size": 48,
           "layer_norm_eps": 1e-12, "layer_norm_type": "layer_norm",
           "logn_attention_clip1": False, "logn_attention_scale": False,
           "max_position_embeddings": 8192, "model_type": "new", "num_attention_heads": 4,
           "num_hidden_layers": 2, "pack_qkv": True, "pad_token_id": 0,
           "position_embedding_type": "rope", "rope_scaling": scaling, "rope_theta": theta,
           "torch_dtype": torch_dtype(dtype), "transformers_version": "4.43.3",
           "type_vocab_size": type_vocab, "unpad_inputs": False,
           "use_memory_efficient_attention": False, "vocab_size": 60}
    if type_vocab == 0:
        for key in ("classifier_dropout", "logn_attention_clip1", "logn_attention_scale"):
            del cfg[key]
        cfg["transformers_version"] = "4.39.1"
    return cfg


def make_new(name, dtype="F32", seed=71, type_vocab=2, theta=160000,
             scaling=None, lengths=(7, 3, 12, 1, 9, 40)):
    """With a token type table, the third line a pair (segment 1 from its 6th token, type 1)."""
    cfg = new_config(dtype, type_vocab, theta, scaling)
    rng = np.random.default_rng(seed)
    stored, exact = store(random_new(rng, cfg), dtype)
    lines = random_lines(rng, lengths, cfg["vocab_size"], {cfg["pad_token_id"]})
    splits = [5 if b == 2 and type_vocab > 1 else len(ids) for b, ids in enumerate(lines)]
    expected = np.zeros((len(lines), max(lengths), cfg["hidden_size"]), dtype=np.float32)
    for b, ids in enumerate(lines):
        types = (np.arange(len(ids)) >= splits[b]).astype(np.int64)
        expected[b, :len(ids)] = new_forward(exact, cfg, ids, types)
    write_case(name, cfg, stored, dtype, lines, splits, expected)
    return cfg, exact, lines


def self_check(cfg, exact, lines):
    """The NTK frequencies in closed form theta^(-2i/d) · f^(-(2i+2)/d); factor 1 is no scaling;
    the scaling changes the rows of a long line."""
    dim = cfg["hidden_size"] // cfg["num_attention_heads"]
    i = np.arange(dim // 2)
    scaled = dict(cfg, rope_scaling={"type": "ntk", "factor": 2.0})
    closed = cfg["rope_theta"] ** (-2 * i / dim) * 2.0 ** (-(2 * i + 2) / dim)
    assert np.allclose(new_inv_freq(scaled), closed, rtol=1e-14)
    one = dict(cfg, rope_scaling={"type": "ntk", "factor": 1.0})
    assert np.array_equal(new_inv_freq(one), default_inv_freq(dim, cfg["rope_theta"]))
    ids = max(lines, key=len)
    zeros = np.zeros(len(ids), np.int64)
    assert not np.allclose(new_forward(exact, scaled, ids, zeros),
                           new_forward(exact, dict(cfg, rope_scaling=None), ids, zeros))


def main():
    self_check(*make_new("new_gte", scaling={"factor": 2.0, "type": "ntk"}))
    self_check(*make_new("new_gte_bf16", dtype="BF16", seed=72, type_vocab=0, theta=500000))


if __name__ == "__main__":
    main()
