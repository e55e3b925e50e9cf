#!/usr/bin/env python3
"""Writes a Hugging Face BertModel folder of a real model's shape with random weights, and
optionally phasor's own format of the same weights, for the loading and speed benchmarks
(bench/hf_load.sh, bench/hf_speed.sh).

    /usr/bin/python3 bench/make_hf_checkpoint.py --shape bert-base --dtype F16 OUT_DIR \\
        [--seed 1] [--sentence-transformers] [--own OWN_DIR]

OUT_DIR gets config.json in Hugging Face's keys and model.safetensors in BertModel's tensor
names, stored as F32, F16 or BF16 (with embeddings.position_ids, as older checkpoints carry
it). --sentence-transformers adds modules.json, 1_Pooling (mean) and 2_Normalize as
sentence-transformers saves them. --own writes phasor's own format (config.json in phasor's
keys, F32 tensors in its names, q, k and v stacked) of the very values OUT_DIR stores, so that
both folders give the same hidden states. Shapes:

    bert-base  hidden 768, 12 heads, 12 layers, intermediate 3072, vocab 30522, 512 positions
    minilm     hidden 384, 12 heads, 6 layers, intermediate 1536, vocab 30522, 512 positions
               (all-MiniLM-L6-v2)

The weights come from the seed (tests/data/make_hf_golden.py's random_bert and its
safetensors writer): the same files on every run. NumPy only.
"""
import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "data"))
from make_hf_golden import (as_float64, random_bert, round_to,  # noqa: E402
                            write_safetensors, write_sentence_transformers)

SHAPES = {
    "bert-base": dict(hidden_size=768, num_attention_heads=12, num_hidden_layers=12,
                      intermediate_size=3072),
    "minilm": dict(hidden_size=384, num_attention_heads=12, num_hidden_layers=6,
                   intermediate_size=1536),
}
TORCH_DTYPE = {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}


def hf_config(shape, dtype):
    cfg = {"architectures": ["BertModel"], "model_type": "bert", "vocab_size": 30522,
           "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
           "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 512,
           "type_vocab_size": 2, "initializer_range": 0.02, "layer_norm_eps": 1e-12,
           "pad_token_id": 0, "position_embedding_type": "absolute", "use_cache": True,
           "torch_dtype": TORCH_DTYPE[dtype], "transformers_version": "4.44.2"}
    cfg.update(SHAPES[shape])
    return cfg


def own_config(cfg):
    """phasor's config.json for the model cfg describes (models/config.cc's keys)."""
    return {"vocab_size": cfg["vocab_size"], "d_model": cfg["hidden_size"],
            "n_heads": cfg["num_attention_heads"], "n_layers": cfg["num_hidden_layers"],
            "d_ff": cfg["intermediate_size"], "activation": cfg["hidden_act"],
            "norm_first": False, "final_norm": False, "layer_norm_eps": cfg["layer_norm_eps"],
            "scale_embedding": False, "token_types": cfg["type_vocab_size"],
            "embedding_norm": True, "pad_token_id": cfg["pad_token_id"],
            "positional": {"kind": "learned", "max_len": cfg["max_position_embeddings"]}}


def own_tensors(stored, dtype, layers):
    """stored (BertModel's names) in phasor's names, as float32 of the stored values."""
    f = lambda name: as_float64(stored[name], dtype).astype(np.float32)  # noqa: E731
    e = "embeddings."
    out = {"embedding.weight": f(e + "word_embeddings.weight"),
           "positional.weight": f(e + "position_embeddings.weight"),
           "token_type.weight": f(e + "token_type_embeddings.weight"),
           "embedding_norm.weight": f(e + "LayerNorm.weight"),
           "embedding_norm.bias": f(e + "LayerNorm.bias")}
    for i in range(layers):
        p, q = f"encoder.layer.{i}.", f"layers.{i}."
        qkv = [p + "attention.self." + m for m in ("query", "key", "value")]
        out[q + "self_attn.in_proj_weight"] = np.concatenate([f(n + ".weight") for n in qkv])
        out[q + "self_attn.in_proj_bias"] = np.concatenate([f(n + ".bias") for n in qkv])
        for theirs, ours in (("attention.output.dense", "self_attn.out_proj"),
                             ("attention.output.LayerNorm", "norm1"),
                             ("intermediate.dense", "linear1"), ("output.dense", "linear2"),
                             ("output.LayerNorm", "norm2")):
            out[q + ours + ".weight"] = f(p + theirs + ".weight")
            out[q + ours + ".bias"] = f(p + theirs + ".bias")
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shape", choices=sorted(SHAPES), default="bert-base")
    p.add_argument("--dtype", choices=sorted(TORCH_DTYPE), default="F16")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--sentence-transformers", action="store_true")
    p.add_argument("--own", help="also write phasor's own format of the same weights here")
    p.add_argument("out")
    a = p.parse_args()
    cfg = hf_config(a.shape, a.dtype)
    rng = np.random.default_rng(a.seed)
    stored = {}
    for name, value in random_bert(rng, cfg).items():
        stored[name] = round_to(value, a.dtype)
    stored["embeddings.position_ids"] = np.arange(cfg["max_position_embeddings"],
                                                  dtype=np.int64)[None]
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    write_safetensors(out / "model.safetensors", stored, a.dtype)
    (out / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    if a.sentence_transformers:
        write_sentence_transformers(out, "mean_tokens", cfg["hidden_size"])
        (out / "sentence_bert_config.json").write_text(
            json.dumps({"max_seq_length": 512, "do_lower_case": False}, indent=2) + "\n")
    params = sum(v.size for k, v in stored.items() if v.dtype != np.int64)
    print(f"{out}: {a.shape} {a.dtype}, {params} parameters ({params * 4} bytes in float32)")
    if a.own:
        own = Path(a.own)
        own.mkdir(parents=True, exist_ok=True)
        tensors = own_tensors(stored, a.dtype, cfg["num_hidden_layers"])
        write_safetensors(own / "model.safetensors", tensors, "F32")
        (own / "config.json").write_text(json.dumps(own_config(cfg), indent=2) + "\n")
        print(f"{own}: phasor's own format of the same weights, F32")


if __name__ == "__main__":
    main()
