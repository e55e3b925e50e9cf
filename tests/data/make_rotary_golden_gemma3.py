"""Gemma 3 text golden cases (tests/data/hf/gemma3_text*), computed in float64 with NumPy by a
transcription of transformers' models/gemma3/modeling_gemma3.py (Gemma3TextModel as
EmbeddingGemma runs it, use_bidirectional_attention true: Gemma3TextScaledWordEmbedding,
Gemma3DecoderLayer, Gemma3Attention, Gemma3MLP, Gemma3RMSNorm, Gemma3RotaryEmbedding,
_bidirectional_window_overlay; Gemma3TextConfig.__init__, which makes sliding_window
W // 2 + 1 when bidirectional, as transformers PR 40700 fixed it):

- x = embed_tokens[ids] · sqrt(hidden_size) (embed_scale cast to the weights' dtype: in a
  bf16 run sqrt(hidden_size) rounded to bf16, e.g. sqrt(768) -> 27.75; float64 here, as the
  float32 run of the bf16 weights);
- layer: x += post_attention_layernorm(o_proj(attn(input_layernorm(x))));
  x += post_feedforward_layernorm(mlp(pre_feedforward_layernorm(x))),
  mlp(x) = down_proj(act(gate_proj(x)) · up_proj(x)), act = hidden_activation
  (gelu_pytorch_tanh);
- attention: q = q_norm(q_proj(x) by head), k = k_norm(k_proj(x) by head) (Gemma3RMSNorm
  over head_dim, before the rotary), v = v_proj(x); rotate_half rotary over head_dim with
  rope_local_base_freq on "sliding_attention" layers and rope_theta on "full_attention"
  ones (layer_types); query head h reads key/value head h // (heads / kv_heads); scores
  q·k · query_pre_attn_scalar^-0.5; full layers: every key; sliding layers: query i sees
  key j iff |i - j| <= sliding_window // 2 (W the config.json value);
- norm (final Gemma3RMSNorm).
Gemma3RMSNorm: in float32, x · rsqrt(mean(x²) + rms_norm_eps) · (1 + weight), then cast.
"""
import json
import math

import numpy as np

from make_hf_golden import ACT, OUT, write_safetensors
from rotary_parts import (Tensors, attention, default_inv_freq, gemma_rms_norm, random_lines,
                          rope_half, store, torch_dtype, window_mask, write_case)


def gemma3_forward(t, cfg, ids):
    h, kv, dh = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    eps, n = cfg["rms_norm_eps"], len(ids)
    positions = np.arange(n)
    norm = lambda x, name: gemma_rms_norm(x, t[name + ".weight"], eps)  # noqa: E731
    lin = lambda x, name: x @ t[name + ".weight"].T  # noqa: E731
    act = ACT[cfg["hidden_activation"]]
    scale = cfg["query_pre_attn_scalar"] ** -0.5
    x = t["embed_tokens.weight"][ids] * math.sqrt(cfg["hidden_size"])
    for i, kind in enumerate(cfg["layer_types"]):
        p = f"layers.{i}."
        sliding = kind == "sliding_attention"
        inv = default_inv_freq(dh, cfg["rope_local_base_freq"] if sliding else cfg["rope_theta"])
        y = norm(x, p + "input_layernorm")
        q = norm(lin(y, p + "self_attn.q_proj").reshape(n, h, dh), p + "self_attn.q_norm")
        k = norm(lin(y, p + "self_attn.k_proj").reshape(n, kv, dh), p + "self_attn.k_norm")
        v = lin(y, p + "self_attn.v_proj").reshape(n, kv, dh)
        q, k = rope_half(q, positions, inv), rope_half(k, positions, inv)
        allowed = window_mask(n, cfg["sliding_window"] // 2) if sliding else np.ones((n, n), bool)
        a = lin(attention(q, k, v, allowed, scale), p + "self_attn.o_proj")
        x = x + norm(a, p + "post_attention_layernorm")
        y = norm(x, p + "pre_feedforward_layernorm")
        y = lin(act(lin(y, p + "mlp.gate_proj")) * lin(y, p + "mlp.up_proj"), p + "mlp.down_proj")
        x = x + norm(y, p + "post_feedforward_layernorm")
    return norm(x, "norm")


def random_gemma3(rng, cfg):
    d, ff = cfg["hidden_size"], cfg["intermediate_size"]
    h, kv, dh = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    r = Tensors(rng)
    r.add("embed_tokens.weight", cfg["vocab_size"], d, scale=0.2)
    for i in range(cfg["num_hidden_layers"]):
        p = f"layers.{i}."
        r.norm(p + "input_layernorm", d, around=0.0)
        r.linear(p + "self_attn.q_proj", h * dh, d)
        r.linear(p + "self_attn.k_proj", kv * dh, d)
        r.linear(p + "self_attn.v_proj", kv * dh, d)
        r.linear(p + "self_attn.o_proj", d, h * dh)
        r.norm(p + "self_attn.q_norm", dh, around=0.0)
        r.norm(p + "self_attn.k_norm", dh, around=0.0)
        r.norm(p + "post_attention_layernorm", d, around=0.0)
        r.norm(p + "pre_feedforward_layernorm", d, around=0.0)
        r.linear(p + "mlp.gate_proj", ff, d)
        r.linear(p + "mlp.up_proj", ff, d)
        r.linear(p + "mlp.down_proj", d, ff)
        r.norm(p + "post_feedforward_layernorm", d, around=0.0)
    r.norm("norm", d, around=0.0)
    return r.t


def gemma3_config(dtype, layer_types, pattern, window, heads, kv_heads):
    """EmbeddingGemma-300m's config.json keys, tiny sizes; head_dim 16 and
    query_pre_attn_scalar 24, so that neither hidden / heads nor head_dim is the scale."""
    return {"_sliding_window_pattern": pattern, "architectures": ["Gemma3TextModel"],
            "attention_bias": False, "attention_dropout": 0.0, "attn_logit_softcapping": None,
            "bos_token_id": 2, "dtype": torch_dtype(dtype), "eos_token_id": 1,
            "final_logit_softcapping": None, "head_dim": 16,
            "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 32,
            "initializer_range": 0.02, "intermediate_size": 48, "layer_types": layer_types,
            "max_position_embeddings": 2048, "model_type": "gemma3_text",
            "num_attention_heads": heads, "num_hidden_layers": len(layer_types),
            "num_key_value_heads": kv_heads, "pad_token_id": 0, "query_pre_attn_scalar": 24,
            "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000.0, "rope_scaling": None,
            "rope_theta": 1000000.0, "sliding_window": window,
            "transformers_version": "4.57.0.dev0", "use_bidirectional_attention": True,
            "use_cache": True, "vocab_size": 60}


def layer_types(n, pattern):
    """Gemma3TextConfig's default: sliding unless (i + 1) % pattern == 0."""
    return ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(n)]


def make_gemma3(name, dtype="F32", seed=61, layers=4, pattern=3, window=6, heads=3, kv_heads=1,
                lengths=(7, 3, 12, 1, 9, 40)):
    cfg = gemma3_config(dtype, layer_types(layers, pattern), pattern, window, heads, kv_heads)
    rng = np.random.default_rng(seed)
    stored, exact = store(random_gemma3(rng, cfg), dtype)
    lines = random_lines(rng, lengths, cfg["vocab_size"], {cfg["pad_token_id"]})
    expected = np.zeros((len(lines), max(lengths), cfg["hidden_size"]), dtype=np.float32)
    for b, ids in enumerate(lines):
        expected[b, :len(ids)] = gemma3_forward(exact, cfg, ids)
    write_case(name, cfg, stored, dtype, lines, [len(ids) for ids in lines], expected)
    return cfg, exact, lines


def self_check(cfg, exact, lines):
    """A window as wide as the line is full attention; one token longer, it is not.
    Bidirectional: a line's first row depends on the tokens after it."""
    wide, radius = dict(cfg, sliding_window=1000), cfg["sliding_window"] // 2
    long = max(lines, key=len)
    for n, same in ((radius + 1, True), (radius + 2, False), (len(long), False)):
        ids = long[:n]
        got = np.allclose(gemma3_forward(exact, cfg, ids), gemma3_forward(exact, wide, ids),
                          atol=1e-13)
        assert got == same, (n, same)
    assert not np.allclose(gemma3_forward(exact, cfg, long)[0], gemma3_forward(exact, cfg, long[:1])[0])


# EmbeddingGemma's sentence-transformers modules after the model: mean pooling, two Dense
# modules without bias or activation (768 -> 3072 -> 768 there; 32 -> 64 -> 32 here), then
# Normalize; and its config_sentence_transformers.json prompts.
EMBEDDING_GEMMA_PROMPTS = {
    "query": "task: search result | query: ", "document": "title: none | text: ",
    "BitextMining": "task: search result | query: ", "Clustering": "task: clustering | query: ",
    "Classification": "task: classification | query: ",
    "InstructionRetrieval": "task: code retrieval | query: ",
    "MultilabelClassification": "task: classification | query: ",
    "PairClassification": "task: sentence similarity | query: ",
    "Reranking": "task: search result | query: ", "Retrieval": "task: search result | query: ",
    "Retrieval-query": "task: search result | query: ", "Retrieval-document": "title: none | text: ",
    "STS": "task: sentence similarity | query: ", "Summarization": "task: summarization | query: "}


def write_embedding_gemma_modules(d, hidden, denses):
    """modules.json, 1_Pooling (mean), 2_Dense, 3_Dense, 4_Normalize and
    config_sentence_transformers.json, as EmbeddingGemma-300m's folder holds them."""
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling",
                "type": "sentence_transformers.models.Pooling"}]
    for k, weight in enumerate(denses):
        path = f"{k + 2}_Dense"
        modules.append({"idx": k + 2, "name": str(k + 2), "path": path,
                        "type": "sentence_transformers.models.Dense"})
        (d / path).mkdir(exist_ok=True)
        cfg = {"in_features": weight.shape[1], "out_features": weight.shape[0], "bias": False,
               "activation_function": "torch.nn.modules.linear.Identity"}
        (d / path / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
        write_safetensors(d / path / "model.safetensors", {"linear.weight": weight}, "F32")
    last = len(modules)
    modules.append({"idx": last, "name": str(last), "path": f"{last}_Normalize",
                    "type": "sentence_transformers.models.Normalize"})
    (d / f"{last}_Normalize").mkdir(exist_ok=True)
    (d / "modules.json").write_text(json.dumps(modules, indent=2) + "\n")
    (d / "1_Pooling").mkdir(exist_ok=True)
    modes = ["cls_token", "mean_tokens", "max_tokens", "mean_sqrt_len_tokens",
             "weightedmean_tokens", "lasttoken"]
    pooling = {"word_embedding_dimension": hidden}
    pooling.update({f"pooling_mode_{m}": m == "mean_tokens" for m in modes})
    pooling["include_prompt"] = True
    (d / "1_Pooling" / "config.json").write_text(json.dumps(pooling, indent=4) + "\n")
    (d / "sentence_bert_config.json").write_text(
        json.dumps({"max_seq_length": 2048, "do_lower_case": False}, indent=2) + "\n")
    st = {"model_type": "SentenceTransformer", "prompts": EMBEDDING_GEMMA_PROMPTS,
          "default_prompt_name": None, "similarity_fn_name": "cosine",
          "__version__": {"sentence_transformers": "5.1.0", "transformers": "4.57.0.dev0",
                          "pytorch": "2.8.0"}}
    (d / "config_sentence_transformers.json").write_text(json.dumps(st, indent=2) + "\n")


def make_st_gemma3(name="st_gemma3", seed=63):
    """The gemma3_text model with EmbeddingGemma's modules; expected_pooled.npy: per line the
    mean of its rows, then each Dense product (float64), then division by the norm."""
    cfg, exact, lines = make_gemma3(name, seed=seed)
    rng = np.random.default_rng(seed + 1)
    d = cfg["hidden_size"]
    denses = [(rng.standard_normal((2 * d, d)) / math.sqrt(d)).astype(np.float32),
              (rng.standard_normal((d, 2 * d)) / math.sqrt(2 * d)).astype(np.float32)]
    write_embedding_gemma_modules(OUT / name, d, denses)
    pooled = np.zeros((len(lines), d), dtype=np.float32)
    for b, ids in enumerate(lines):
        v = gemma3_forward(exact, cfg, ids).mean(0)
        for weight in denses:
            v = v @ weight.astype(np.float64).T
        pooled[b] = v / max(np.linalg.norm(v), 1e-12)
    np.save(OUT / name / "expected_pooled.npy", pooled)


def main():
    self_check(*make_gemma3("gemma3_text"))
    make_st_gemma3()
    self_check(*make_gemma3("gemma3_text_bf16", dtype="BF16", seed=62, layers=3, pattern=2,
                            window=10, heads=4, kv_heads=2))


if __name__ == "__main__":
    main()
