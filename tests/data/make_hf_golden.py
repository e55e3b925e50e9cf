#!/usr/bin/env python3
"""Golden Hugging Face checkpoints for phasor's architecture loaders (tests/data/hf/).

Each case is a directory laid out as Hugging Face's `save_pretrained` writes it:
config.json with the checkpoint's own keys (model_type, hidden_size, ...) and
model.safetensors with the checkpoint's own tensor names, random weights from a
fixed seed. Beside them: tokens.txt (one sequence a line, as `phasor encode
--tokens-file` reads it) and expected.npy, float32 [lines, longest, hidden], the
last hidden state of the model's own forward pass (rows past a line's end 0),
computed here in float64 with NumPy by a transcription of transformers'
modeling_bert.py / modeling_roberta.py (BertEmbeddings, BertSelfAttention,
BertSelfOutput, BertIntermediate, BertOutput; RoBERTa's positions from
padding_idx + 1), so that the reference is another program than phasor. Weights
stored as F16 or BF16 are rounded first and the reference uses the rounded values.

Run from the source root:  /usr/bin/python3 tests/data/make_hf_golden.py
It needs NumPy only; the outputs are the same bits on every run.
"""
import json
import math
import struct
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "hf"


def gelu(x):  # "gelu": the erf form, as torch.nn.functional.gelu
    return 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


def gelu_new(x):  # "gelu_new" / "gelu_pytorch_tanh": the tanh form
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


ACT = {"gelu": lambda x: gelu(x), "gelu_new": gelu_new, "gelu_pytorch_tanh": gelu_new,
       "relu": lambda x: np.maximum(x, 0), "silu": lambda x: x / (1 + np.exp(-x))}


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def bert_forward(t, cfg, ids, prefix, position_ids, types=None):
    """BertModel's last_hidden_state for one unpadded sequence (attention over all of it);
    types: each token's type (None: all 0, as BertModel without token_type_ids)."""
    g = lambda name: t[prefix + name].astype(np.float64)  # noqa: E731
    e = "embeddings."
    x = g(e + "word_embeddings.weight")[ids]
    types = np.zeros_like(ids) if types is None else types
    x = x + g(e + "token_type_embeddings.weight")[types]
    x = x + g(e + "position_embeddings.weight")[position_ids]
    eps = cfg["layer_norm_eps"]
    x = layer_norm(x, g(e + "LayerNorm.weight"), g(e + "LayerNorm.bias"), eps)
    h = cfg["num_attention_heads"]
    dh = cfg["hidden_size"] // h
    lin = lambda v, name: v @ g(name + ".weight").T + g(name + ".bias")  # noqa: E731
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        q = lin(x, p + "attention.self.query").reshape(len(ids), h, dh).transpose(1, 0, 2)
        k = lin(x, p + "attention.self.key").reshape(len(ids), h, dh).transpose(1, 0, 2)
        v = lin(x, p + "attention.self.value").reshape(len(ids), h, dh).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / math.sqrt(dh)
        s = np.exp(s - s.max(-1, keepdims=True))
        a = (s / s.sum(-1, keepdims=True)) @ v
        a = a.transpose(1, 0, 2).reshape(len(ids), h * dh)
        x = layer_norm(lin(a, p + "attention.output.dense") + x,
                       g(p + "attention.output.LayerNorm.weight"),
                       g(p + "attention.output.LayerNorm.bias"), eps)
        f = ACT[cfg["hidden_act"]](lin(x, p + "intermediate.dense"))
        x = layer_norm(lin(f, p + "output.dense") + x, g(p + "output.LayerNorm.weight"),
                       g(p + "output.LayerNorm.bias"), eps)
    return x


def sinusoidal_table(n_pos, dim):
    """DistilBERT's create_sinusoidal_embeddings: pos / 10000^(2(j//2)/dim), sin at even j,
    cos at odd j; float64 here, stored as float32 as the model holds it."""
    enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)]
                    for pos in range(n_pos)])
    out = np.zeros((n_pos, dim))
    out[:, 0::2] = np.sin(enc[:, 0::2])
    out[:, 1::2] = np.cos(enc[:, 1::2])
    return out.astype(np.float32).astype(np.float64)


def distilbert_forward(t, cfg, ids, prefix):
    """DistilBertModel's last_hidden_state for one unpadded sequence (modeling_distilbert.py:
    Embeddings, MultiHeadSelfAttention, FFN, TransformerBlock)."""
    g = lambda name: t[prefix + name].astype(np.float64)  # noqa: E731
    e = "embeddings."
    x = g(e + "word_embeddings.weight")[ids] + g(e + "position_embeddings.weight")[np.arange(len(ids))]
    eps = 1e-12
    x = layer_norm(x, g(e + "LayerNorm.weight"), g(e + "LayerNorm.bias"), eps)
    h = cfg["n_heads"]
    dh = cfg["dim"] // h
    lin = lambda v, name: v @ g(name + ".weight").T + g(name + ".bias")  # noqa: E731
    for i in range(cfg["n_layers"]):
        p = f"transformer.layer.{i}."
        split = lambda v: v.reshape(len(ids), h, dh).transpose(1, 0, 2)  # noqa: E731
        q = split(lin(x, p + "attention.q_lin")) / math.sqrt(dh)
        k = split(lin(x, p + "attention.k_lin"))
        v = split(lin(x, p + "attention.v_lin"))
        s = q @ k.transpose(0, 2, 1)
        s = np.exp(s - s.max(-1, keepdims=True))
        a = ((s / s.sum(-1, keepdims=True)) @ v).transpose(1, 0, 2).reshape(len(ids), h * dh)
        x = layer_norm(lin(a, p + "attention.out_lin") + x, g(p + "sa_layer_norm.weight"),
                       g(p + "sa_layer_norm.bias"), eps)
        f = lin(gelu(lin(x, p + "ffn.lin1")), p + "ffn.lin2")
        x = layer_norm(f + x, g(p + "output_layer_norm.weight"), g(p + "output_layer_norm.bias"),
                       eps)
    return x


def random_distilbert(rng, cfg, sinusoidal):
    d, ff = cfg["dim"], cfg["hidden_dim"]
    t = {}
    def add(name, *shape, scale=0.2, around=0.0):
        t[name] = around + scale * rng.standard_normal(shape)
    add("embeddings.word_embeddings.weight", cfg["vocab_size"], d, scale=0.5)
    if sinusoidal:
        t["embeddings.position_embeddings.weight"] = sinusoidal_table(cfg["max_position_embeddings"], d)
    else:
        add("embeddings.position_embeddings.weight", cfg["max_position_embeddings"], d, scale=0.5)
    add("embeddings.LayerNorm.weight", d, scale=0.1, around=1.0)
    add("embeddings.LayerNorm.bias", d, scale=0.1)
    for i in range(cfg["n_layers"]):
        p = f"transformer.layer.{i}."
        for m in ("q_lin", "k_lin", "v_lin", "out_lin"):
            add(p + "attention." + m + ".weight", d, d, scale=1 / math.sqrt(d))
            add(p + "attention." + m + ".bias", d, scale=0.1)
        add(p + "ffn.lin1.weight", ff, d, scale=1 / math.sqrt(d))
        add(p + "ffn.lin1.bias", ff, scale=0.1)
        add(p + "ffn.lin2.weight", d, ff, scale=1 / math.sqrt(ff))
        add(p + "ffn.lin2.bias", d, scale=0.1)
        for n in ("sa_layer_norm", "output_layer_norm"):
            add(p + n + ".weight", d, scale=0.1, around=1.0)
            add(p + n + ".bias", d, scale=0.1)
    return t


def make_distilbert(name, sinusoidal, prefix="", seed=8):
    cfg = {"architectures": ["DistilBertModel"], "model_type": "distilbert", "vocab_size": 60,
           "dim": 32, "n_heads": 4, "n_layers": 2, "hidden_dim": 64, "activation": "gelu",
           "dropout": 0.1, "attention_dropout": 0.1, "max_position_embeddings": 40,
           "sinusoidal_pos_embds": sinusoidal, "pad_token_id": 0, "initializer_range": 0.02,
           "qa_dropout": 0.1, "seq_classif_dropout": 0.2, "tie_weights_": True,
           "torch_dtype": "float32", "transformers_version": "4.44.2"}
    rng = np.random.default_rng(seed)
    stored = {prefix + k: v.astype(np.float32) for k, v in random_distilbert(rng, cfg, sinusoidal).items()}
    exact = {k: v.astype(np.float64) for k, v in stored.items()}
    lengths = [7, 3, 12, 1, 9]
    lines = []
    for n in lengths:
        ids = rng.integers(1, cfg["vocab_size"], size=n)
        lines.append(ids)
    seq = max(lengths)
    expected = np.zeros((len(lines), seq, cfg["dim"]), dtype=np.float32)
    for b, ids in enumerate(lines):
        expected[b, :len(ids)] = distilbert_forward(exact, cfg, ids, prefix)
    d = OUT / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    write_safetensors(d / "model.safetensors", stored, "F32")
    (d / "tokens.txt").write_text("".join(" ".join(map(str, ids)) + "\n" for ids in lines))
    np.save(d / "expected.npy", expected)


def round_to(a, dtype):
    if dtype == "F32":
        return a.astype(np.float32)
    if dtype == "F16":
        return a.astype(np.float16)
    # BF16: round to nearest even on the float32 bits.
    bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    return bits


def as_float64(a, dtype):
    if dtype == "BF16":
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a.astype(np.float64)


def write_safetensors(path, tensors, dtype):
    """tensors (name -> array, stored as they are: float32, float16 or bfloat16 bits in
    uint16, int64) in sorted order; dtype names the float ones. Written a tensor at a
    time, so that a large checkpoint is not held twice."""
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name in sorted(tensors):
        size = tensors[name].nbytes
        header[name] = {"dtype": "I64" if tensors[name].dtype == np.int64 else dtype,
                        "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":"))
    text += " " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text.encode())
        for name in sorted(tensors):
            f.write(np.ascontiguousarray(tensors[name]).tobytes())


def random_bert(rng, cfg):
    d, ff = cfg["hidden_size"], cfg["intermediate_size"]
    t = {}
    def add(name, *shape, scale=0.2, around=0.0):
        t[name] = around + scale * rng.standard_normal(shape)
    add("embeddings.word_embeddings.weight", cfg["vocab_size"], d, scale=0.5)
    add("embeddings.position_embeddings.weight", cfg["max_position_embeddings"], d, scale=0.5)
    add("embeddings.token_type_embeddings.weight", cfg["type_vocab_size"], d, scale=0.5)
    add("embeddings.LayerNorm.weight", d, scale=0.1, around=1.0)
    add("embeddings.LayerNorm.bias", d, scale=0.1)
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        for m in ("attention.self.query", "attention.self.key", "attention.self.value",
                  "attention.output.dense"):
            add(p + m + ".weight", d, d, scale=1 / math.sqrt(d))
            add(p + m + ".bias", d, scale=0.1)
        add(p + "intermediate.dense.weight", ff, d, scale=1 / math.sqrt(d))
        add(p + "intermediate.dense.bias", ff, scale=0.1)
        add(p + "output.dense.weight", d, ff, scale=1 / math.sqrt(ff))
        add(p + "output.dense.bias", d, scale=0.1)
        for n in ("attention.output.LayerNorm", "output.LayerNorm"):
            add(p + n + ".weight", d, scale=0.1, around=1.0)
            add(p + n + ".bias", d, scale=0.1)
    add("pooler.dense.weight", d, d, scale=1 / math.sqrt(d))
    add("pooler.dense.bias", d, scale=0.1)
    return t


def write_sentence_transformers(d, mode, hidden, dense=None):
    """modules.json, 1_Pooling/config.json and 2_Normalize as sentence-transformers saves them;
    with dense (its config and tensors), 2_Dense before 3_Normalize."""
    normalize = "3_Normalize" if dense else "2_Normalize"
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling",
                "type": "sentence_transformers.models.Pooling"}]
    if dense:
        modules.append({"idx": 2, "name": "2", "path": "2_Dense",
                        "type": "sentence_transformers.models.Dense"})
        (d / "2_Dense").mkdir(exist_ok=True)
        (d / "2_Dense" / "config.json").write_text(json.dumps(dense[0], indent=2) + "\n")
        write_safetensors(d / "2_Dense" / "model.safetensors", dense[1], "F32")
    modules.append({"idx": len(modules), "name": str(len(modules)), "path": normalize,
                    "type": "sentence_transformers.models.Normalize"})
    (d / "modules.json").write_text(json.dumps(modules, indent=2) + "\n")
    (d / "1_Pooling").mkdir(exist_ok=True)
    (d / normalize).mkdir(exist_ok=True)
    modes = ["cls_token", "mean_tokens", "max_tokens", "mean_sqrt_len_tokens",
             "weightedmean_tokens", "lasttoken"]
    pooling = {"word_embedding_dimension": hidden}
    pooling.update({f"pooling_mode_{m}": m == mode for m in modes})
    pooling["include_prompt"] = True
    (d / "1_Pooling" / "config.json").write_text(json.dumps(pooling, indent=4) + "\n")
    (d / "sentence_bert_config.json").write_text(
        json.dumps({"max_seq_length": 32, "do_lower_case": False}, indent=2) + "\n")


DENSE_ACT = {"torch.nn.modules.activation.Tanh": np.tanh,
             "torch.nn.modules.linear.Identity": lambda x: x}


def pool(rows, mode, dense=None):
    """sentence_transformers.models.Pooling over one sequence's rows (float64), then Dense
    (activation(linear(v)), if given), then Normalize."""
    v = {"mean_tokens": rows.mean(0), "cls_token": rows[0], "max_tokens": rows.max(0),
         "mean_sqrt_len_tokens": rows.sum(0) / math.sqrt(len(rows)), "lasttoken": rows[-1]}[mode]
    if dense:
        cfg, t = dense
        v = v @ t["linear.weight"].astype(np.float64).T
        if cfg["bias"]:
            v = v + t["linear.bias"].astype(np.float64)
        # sentence-transformers' Dense: Tanh when the config names no activation
        v = DENSE_ACT[cfg.get("activation_function", "torch.nn.modules.activation.Tanh")](v)
    return v / max(np.linalg.norm(v), 1e-12)


def random_dense(seed, in_features, out_features, activation):
    """A sentence_transformers.models.Dense module: its config.json and linear.* tensors
    (activation None: a config.json without the key, as older folders have)."""
    rng = np.random.default_rng(seed)
    cfg = {"in_features": in_features, "out_features": out_features, "bias": True}
    if activation is not None:
        cfg["activation_function"] = activation
    t = {"linear.weight": (rng.standard_normal((out_features, in_features)) /
                           math.sqrt(in_features)).astype(np.float32),
         "linear.bias": (0.1 * rng.standard_normal(out_features)).astype(np.float32)}
    return cfg, t


def write_sharded(d, tensors, dtype, shards):
    """model-0000k-of-0000n.safetensors and model.safetensors.index.json, as save_pretrained
    writes a checkpoint past its max_shard_size."""
    names = sorted(tensors)
    weight_map, total = {}, 0
    for k in range(shards):
        part = names[k::shards]
        file = f"model-{k + 1:05d}-of-{shards:05d}.safetensors"
        write_safetensors(d / file, {n: tensors[n] for n in part}, dtype)
        weight_map.update({n: file for n in part})
        total += sum(tensors[n].nbytes for n in part)
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    (d / "model.safetensors.index.json").write_text(json.dumps(index, indent=2) + "\n")


def make_case(name, model_type, dtype="F32", prefix="", seed=1, position_ids=False, st=None,
              shards=0, act="gelu", dense=None, pairs=False):
    """pairs: lines that are pairs of texts, segment 1 after a tab in tokens.txt, its tokens
    of type 1 (as a tokenizer's token_type_ids for a pair); one line of one segment."""
    cfg = {"architectures": ["RobertaModel" if model_type != "bert" else "BertModel"],
           "model_type": model_type, "vocab_size": 60, "hidden_size": 32,
           "num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 64,
           "hidden_act": act, "hidden_dropout_prob": 0.1,
           "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 40,
           "type_vocab_size": 2 if model_type == "bert" else 1, "initializer_range": 0.02,
           "layer_norm_eps": 1e-12 if model_type == "bert" else 1e-5,
           "pad_token_id": 0 if model_type == "bert" else 1,
           "position_embedding_type": "absolute", "use_cache": True,
           "torch_dtype": {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[dtype],
           "transformers_version": "4.44.2"}
    if model_type != "bert":
        cfg.update({"bos_token_id": 0, "eos_token_id": 2})
    rng = np.random.default_rng(seed)
    stored = {prefix + k: round_to(v, dtype) for k, v in random_bert(rng, cfg).items()}
    exact = {k: as_float64(v, dtype) for k, v in stored.items()}
    if position_ids:  # the integer buffer older checkpoints carry
        stored[prefix + "embeddings.position_ids"] = np.arange(
            cfg["max_position_embeddings"], dtype=np.int64)[None]
    pad = cfg["pad_token_id"]
    lengths = [7, 3, 12, 1, 9]
    lines = []
    for n in lengths:
        ids = rng.integers(0, cfg["vocab_size"], size=n)
        ids[ids == pad] = pad + 2  # a pad id at the end would be padding
        lines.append(ids)
    # Where segment 1 begins on each line (its length: one segment).
    splits = [4, 1, 5, 1, 9] if pairs else lengths
    seq = max(lengths)
    expected = np.zeros((len(lines), seq, cfg["hidden_size"]), dtype=np.float32)
    width = dense[0]["out_features"] if dense else cfg["hidden_size"]
    pooled = np.zeros((len(lines), width), dtype=np.float32)
    for b, ids in enumerate(lines):
        start = pad + 1 if model_type != "bert" else 0
        positions = start + np.arange(len(ids))
        types = (np.arange(len(ids)) >= splits[b]).astype(np.int64)
        rows = bert_forward(exact, cfg, ids, prefix, positions, types)
        expected[b, :len(ids)] = rows
        if st:
            pooled[b] = pool(rows, st, dense)
    d = OUT / name
    d.mkdir(parents=True, exist_ok=True)
    if st:
        write_sentence_transformers(d, st, cfg["hidden_size"], dense)
        np.save(d / "expected_pooled.npy", pooled)
    (d / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    if shards:
        write_sharded(d, stored, dtype, shards)
    else:
        write_safetensors(d / "model.safetensors", stored, dtype)
    (d / "tokens.txt").write_text("".join(
        " ".join(map(str, ids[:k])) + ("\t" if k < len(ids) else "") + " ".join(map(str, ids[k:]))
        + "\n" for ids, k in zip(lines, splits)))
    np.save(d / "expected.npy", expected)


def head_reference(t, kind, first_row):
    """The *ForSequenceClassification head on the first token's final row (float64): BertPooler
    (dense + tanh) then classifier; RobertaClassificationHead (dense + tanh, out_proj);
    DistilBERT's pre_classifier + ReLU then classifier. Returns (pooler or None, logits)."""
    lin = lambda v, name: v @ t[name + ".weight"].T + t[name + ".bias"]  # noqa: E731
    if kind == "bert":
        pooled = np.tanh(lin(first_row, "bert.pooler.dense"))
        return pooled, lin(pooled, "classifier")
    if kind == "roberta":
        return None, lin(np.tanh(lin(first_row, "classifier.dense")), "classifier.out_proj")
    return None, lin(np.maximum(lin(first_row, "pre_classifier"), 0), "classifier")


def random_head(rng, kind, d, labels):
    """The head tensors of a *ForSequenceClassification checkpoint, in its names."""
    first = {"bert": None, "roberta": "classifier.dense", "distilbert": "pre_classifier"}[kind]
    last = "classifier.out_proj" if kind == "roberta" else "classifier"
    t = {}
    if first:
        t[first + ".weight"] = rng.standard_normal((d, d)) / math.sqrt(d)
        t[first + ".bias"] = 0.1 * rng.standard_normal(d)
    t[last + ".weight"] = rng.standard_normal((labels, d)) / math.sqrt(d)
    t[last + ".bias"] = 0.1 * rng.standard_normal(labels)
    return {k: v.astype(np.float32) for k, v in t.items()}


def save_head_case(d, cfg, stored, lines, expected, logits, pooler):
    d.mkdir(parents=True, exist_ok=True)
    (d / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    write_safetensors(d / "model.safetensors", stored, "F32")
    (d / "tokens.txt").write_text("".join(" ".join(map(str, ids)) + "\n" for ids in lines))
    np.save(d / "expected.npy", expected)
    np.save(d / "expected_logits.npy", logits)
    if pooler is not None:
        np.save(d / "expected_pooler.npy", pooler)


def make_seqcls(name, model_type, prefix, seed, labels=3):
    """BertForSequenceClassification or RobertaForSequenceClassification (no pooler): the last
    hidden state, the logits and (BERT) the pooler output."""
    kind = "bert" if model_type == "bert" else "roberta"
    rng = np.random.default_rng(seed)
    cfg = {"architectures": ["BertForSequenceClassification" if kind == "bert"
                             else "RobertaForSequenceClassification"],
           "model_type": model_type, "vocab_size": 60, "hidden_size": 32,
           "num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 64,
           "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
           "max_position_embeddings": 40, "type_vocab_size": 2 if kind == "bert" else 1,
           "initializer_range": 0.02, "layer_norm_eps": 1e-12 if kind == "bert" else 1e-5,
           "pad_token_id": 0 if kind == "bert" else 1, "position_embedding_type": "absolute",
           "id2label": {str(i): f"LABEL_{i}" for i in range(labels)},
           "label2id": {f"LABEL_{i}": i for i in range(labels)}, "problem_type": None,
           "classifier_dropout": None, "torch_dtype": "float32", "transformers_version": "4.44.2"}
    t = random_bert(rng, cfg)
    if kind == "roberta":  # RobertaForSequenceClassification has no pooler
        del t["pooler.dense.weight"], t["pooler.dense.bias"]
    stored = {prefix + k: v.astype(np.float32) for k, v in t.items()}
    stored.update(random_head(rng, kind, cfg["hidden_size"], labels))
    exact = {k: v.astype(np.float64) for k, v in stored.items()}
    pad = cfg["pad_token_id"]
    lines = []
    for n in [7, 3, 12, 1, 9]:
        ids = rng.integers(0, cfg["vocab_size"], size=n)
        ids[ids == pad] = pad + 2
        lines.append(ids)
    expected = np.zeros((len(lines), 12, cfg["hidden_size"]), dtype=np.float32)
    logits = np.zeros((len(lines), labels), dtype=np.float32)
    pooler = np.zeros((len(lines), cfg["hidden_size"]), dtype=np.float32)
    for b, ids in enumerate(lines):
        start = pad + 1 if kind == "roberta" else 0
        rows = bert_forward(exact, cfg, ids, prefix, start + np.arange(len(ids)))
        expected[b, :len(ids)] = rows
        p, logits[b] = head_reference(exact, kind, rows[0])
        if p is not None:
            pooler[b] = p
    save_head_case(OUT / name, cfg, stored, lines, expected, logits,
                   pooler if kind == "bert" else None)


def make_distilbert_seqcls(name, seed=14, labels=2):
    """DistilBertForSequenceClassification: pre_classifier + ReLU, then classifier."""
    cfg = {"architectures": ["DistilBertForSequenceClassification"], "model_type": "distilbert",
           "vocab_size": 60, "dim": 32, "n_heads": 4, "n_layers": 2, "hidden_dim": 64,
           "activation": "gelu", "dropout": 0.1, "attention_dropout": 0.1,
           "max_position_embeddings": 40, "sinusoidal_pos_embds": False, "pad_token_id": 0,
           "initializer_range": 0.02, "qa_dropout": 0.1, "seq_classif_dropout": 0.2,
           "id2label": {str(i): f"LABEL_{i}" for i in range(labels)},
           "label2id": {f"LABEL_{i}": i for i in range(labels)},
           "torch_dtype": "float32", "transformers_version": "4.44.2"}
    rng = np.random.default_rng(seed)
    stored = {"distilbert." + k: v.astype(np.float32)
              for k, v in random_distilbert(rng, cfg, False).items()}
    stored.update(random_head(rng, "distilbert", cfg["dim"], labels))
    exact = {k: v.astype(np.float64) for k, v in stored.items()}
    lines = [rng.integers(1, cfg["vocab_size"], size=n) for n in [7, 3, 12, 1, 9]]
    expected = np.zeros((len(lines), 12, cfg["dim"]), dtype=np.float32)
    logits = np.zeros((len(lines), labels), dtype=np.float32)
    for b, ids in enumerate(lines):
        rows = distilbert_forward(exact, cfg, ids, "distilbert.")
        expected[b, :len(ids)] = rows
        logits[b] = head_reference(exact, "distilbert", rows[0])[1]
    save_head_case(OUT / name, cfg, stored, lines, expected, logits, None)


if __name__ == "__main__":
    from make_hf_golden_seq2seq import make_m2m100, make_marian  # it imports this file's parts

    make_case("bert", "bert", position_ids=True)
    make_case("bert_prefixed_f16", "bert", dtype="F16", prefix="bert.", seed=2)
    make_case("roberta_bf16", "roberta", dtype="BF16", seed=3)
    make_case("xlm_roberta", "xlm-roberta", prefix="roberta.", seed=4)
    make_case("st_mean", "bert", seed=5, st="mean_tokens")
    make_case("st_lasttoken", "roberta", seed=6, st="lasttoken")
    make_case("st_mean_sqrt_len", "bert", seed=7, st="mean_sqrt_len_tokens")
    make_case("bert_gelu_new", "bert", seed=12, act="gelu_new")
    make_case("roberta_silu", "roberta", seed=13, act="silu")
    make_case("bert_sharded", "bert", dtype="BF16", prefix="bert.", seed=10, shards=3,
              position_ids=True)  # listed in the index, as many Hub checkpoints do
    make_case("bert_pairs", "bert", prefix="bert.", seed=14, pairs=True)
    make_m2m100("m2m_100")
    make_distilbert("distilbert", sinusoidal=False)
    make_distilbert("distilbert_sinusoidal", sinusoidal=True, prefix="distilbert.", seed=9)
    make_seqcls("bert_seqcls", "bert", prefix="bert.", seed=15)
    make_seqcls("roberta_seqcls", "roberta", prefix="roberta.", seed=16)
    make_distilbert_seqcls("distilbert_seqcls")
    make_case("st_dense", "bert", seed=17, st="mean_tokens",
              dense=random_dense(18, 32, 16, "torch.nn.modules.activation.Tanh"))
    make_case("bert_gelu_pytorch_tanh", "bert", seed=19, act="gelu_pytorch_tanh")
    make_case("st_dense_default_tanh", "bert", seed=20, st="mean_tokens",
              dense=random_dense(21, 32, 16, None))
    make_marian("marian", "model.", "swish", scale_embedding=True, shared=True,
                stored_positions=False, seed=14)
    make_marian("marian_gelu", "", "gelu", scale_embedding=False, shared=False,
                stored_positions=True, seed=15)
