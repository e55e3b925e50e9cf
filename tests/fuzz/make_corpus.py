#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets: corpus/<target>/ (small valid
files and near misses). Rerun after a format change: python3 tests/fuzz/make_corpus.py"""
import json
import math
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def safetensors(tensors, metadata=None, pad=True, dtype_of=None):
    """tensors: list of (name, dtype, shape, values); returns the file's bytes."""
    header, data = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape, values in tensors:
        if dtype == "F32":
            raw = struct.pack("<%df" % len(values), *values)
        elif dtype == "F16":
            raw = struct.pack("<%de" % len(values), *values)
        else:  # BF16: the top half of the float32
            raw = b"".join(struct.pack("<f", v)[2:] for v in values)
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    if pad:
        text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data


def raw_safetensors(header, data):
    """A file with this header (a dict, written as it stands) and data bytes."""
    text = json.dumps(header, separators=(",", ":")).encode()
    return struct.pack("<Q", len(text)) + text + data


def config(**kw):
    c = {"vocab_size": 8, "d_model": 4, "n_heads": 2, "n_layers": 1, "d_ff": 8}
    c.update(kw)
    return json.dumps(c, indent=1).encode()


def model_tensors(rng, c, dtype="F32"):
    v, d, f, L = c["vocab_size"], c["d_model"], c["d_ff"], c["n_layers"]

    def t(name, *shape):
        n = 1
        for s in shape:
            n *= s
        return (name, dtype, list(shape), [round(rng.uniform(-1, 1), 3) for _ in range(n)])

    out = [t("embedding.weight", v, d)]
    for i in range(L):
        p = "layers.%d." % i
        out += [t(p + "self_attn.in_proj_weight", 3 * d, d), t(p + "self_attn.in_proj_bias", 3 * d),
                t(p + "self_attn.out_proj.weight", d, d), t(p + "self_attn.out_proj.bias", d),
                t(p + "linear1.weight", f, d), t(p + "linear1.bias", f),
                t(p + "linear2.weight", d, f), t(p + "linear2.bias", d),
                t(p + "norm1.weight", d), t(p + "norm1.bias", d),
                t(p + "norm2.weight", d), t(p + "norm2.bias", d)]
    if c.get("final_norm"):
        out += [t("norm.weight", d), t("norm.bias", d)]
    pos = c.get("positional", {})
    if pos.get("kind") == "learned":
        out.append(t("positional.weight", pos.get("max_len", 4096), d))
    return out


def model_input(mode, seq, cfg, st):
    return bytes([mode, seq, len(cfg) & 0xff, len(cfg) >> 8]) + cfg + st


def write(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    rng = random.Random(7)
    # safetensors
    one = [("w", "F32", [2], [1.0, -2.5])]
    write("safetensors", "valid_f32", safetensors(one))
    write("safetensors", "valid_f16_bf16", safetensors(
        [("a", "F16", [2, 2], [1.0, 0.5, -2.0, 65504.0]), ("b", "BF16", [3], [1.0, -0.0, 3.0])],
        metadata={"format": "pt"}))
    write("safetensors", "valid_scalar_and_empty", safetensors(
        [("s", "F32", [], [3.0]), ("e", "F32", [0, 5], [])]))
    write("safetensors", "valid_unpadded", safetensors(one, pad=False))
    good = safetensors(one)
    write("safetensors", "near_truncated_data", good[:-3])
    write("safetensors", "near_truncated_header", good[:20])
    write("safetensors", "near_header_len_huge", struct.pack("<Q", 1 << 63) + good[8:])
    write("safetensors", "near_overlap", raw_safetensors(
        {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
         "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 12))
    write("safetensors", "near_bad_dtype", good.replace(b"F32", b"I64"))
    write("safetensors", "near_shape_overflow", raw_safetensors(
        {"w": {"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 8]}},
        b"\0" * 8))
    # config
    write("config", "minimal", config())
    write("config", "full", json.dumps({
        "vocab_size": 32000, "d_model": 512, "n_heads": 8, "n_layers": 6, "d_ff": 2048,
        "activation": "gelu", "norm_first": True, "final_norm": True, "layer_norm_eps": 1e-6,
        "scale_embedding": True, "pad_token_id": 0,
        "positional": {"kind": "sinusoidal", "base": 10000.0, "layout": "split",
                       "denominator": "half_minus_one", "offset": 2, "max_len": 512,
                       "mode": "cached"}}).encode())
    write("config", "learned", config(positional={"kind": "learned", "max_len": 16}))
    write("config", "near_huge_d_model", config(d_model=1 << 30, n_heads=1))
    write("config", "near_duplicate_key", b'{"vocab_size": 8, "vocab_size": 9, "d_model": 4}')
    write("config", "near_misspelt", config(n_head=2))
    write("config", "near_huge_table", config(d_model=65536, positional={"max_len": 1 << 26}))
    # tokens: byte 0 >= 0x80 gives pad id (byte & 0x7f)
    write("tokens", "one_line", b"\x00" + b"3 14 15 92")
    write("tokens", "ragged_padded", b"\x80" + b"1 2 3 4\n5\n\n6,7\r\n")
    write("tokens", "near_ragged_unpadded", b"\x00" + b"1 2\n3")
    write("tokens", "near_out_of_range", b"\x00" + b"1 99999999999 -2147483649")
    write("tokens", "near_junk", b"\x81" + b"1 +2 0x3 4.5 \x0b6")
    # text: byte 0 picks the folder (& 3) and pairs (4), no special tokens (8),
    # invalid UTF-8 replaced (16), truncation to 8 (32); the rest is the file
    write("text", "bert_lines", b"\x00" + "Hello, wörld!\n  \nCafé 東京 😀\r\n[MASK] x".encode())
    write("text", "bpe_pairs", b"\x06" + "it's 12 o'clock\t<mask> now\n\tsecond\n".encode())
    write("text", "unigram_nfkc", b"\x13" + "ｶﾞ ﬁ Ａ\u0301 \x00\u200d\n".encode() + b"bad \xff\xfe")
    write("text", "cased_truncated", b"\x21" + ("İstanbul Müller " * 20).encode())
    write("text", "near_no_tab", b"\x04" + b"one\ttwo\tthree\n")
    # model: valid models in several shapes, then near misses
    cases = [
        (0, 3, {}, "F32"),
        (1, 7, {"activation": "gelu", "norm_first": True, "final_norm": True, "pad_token_id": 0,
                "positional": {"layout": "split", "max_len": 8, "mode": "cached"}}, "F16"),
        (2, 9, {"scale_embedding": True, "positional": {"denominator": "half_minus_one",
                                                        "offset": 5, "max_len": 8}}, "BF16"),
        (3, 12, {"n_layers": 2, "positional": {"kind": "learned", "max_len": 16}}, "F32"),
        (0, 2, {"positional": {"kind": "none"}}, "F32"),
    ]
    for i, (mode, seq, extra, dtype) in enumerate(cases):
        cfg = config(**extra)
        c = json.loads(cfg)
        tensors = model_tensors(rng, c, dtype)
        # Token ids come from the input's last 16 bytes, and a byte >= 0xf0
        # gives an id past the vocabulary: end on values of small bytes (0.5)
        # so that every valid model also runs.
        left = 16
        for j in range(len(tensors) - 1, -1, -1):
            name, dt, shape, values = tensors[j]
            k = min(len(values), left // (4 if dt == "F32" else 2))
            tensors[j] = (name, dt, shape, values[:len(values) - k] + [0.5] * k)
            left -= k * (4 if dt == "F32" else 2)
            if left <= 0:
                break
        st = safetensors(tensors)
        write("model", "valid_%d" % i, model_input(mode, seq, cfg, st))
    cfg = config()
    c = json.loads(cfg)
    tensors = model_tensors(rng, c)
    write("model", "near_missing_tensor", model_input(0, 3, cfg, safetensors(tensors[:-1])))
    bad = list(tensors)
    bad[1] = (bad[1][0], "F32", [2, 6], bad[1][3][:12])
    write("model", "near_misshapen", model_input(0, 3, cfg, safetensors(bad)))
    nan = list(tensors)  # in the in-projection, which every token goes through
    nan[1] = (nan[1][0], "F32", nan[1][2], [float("nan")] + nan[1][3][1:])
    write("model", "nan_weight", model_input(0, 3, cfg, safetensors(nan)))
    write("model", "near_huge_config",
          model_input(0, 3, config(d_model=32768, n_heads=1, positional={"max_len": 65536}),
                      safetensors([])))
    # Hugging Face checkpoints (models/architectures/): a tiny BertModel in its own names
    # with an I64 position_ids buffer, and near misses of its config.
    hf = {"model_type": "bert", "vocab_size": 8, "hidden_size": 4, "num_attention_heads": 2,
          "num_hidden_layers": 1, "intermediate_size": 8, "max_position_embeddings": 16,
          "type_vocab_size": 2, "hidden_act": "gelu", "pad_token_id": 0}
    def hf_tensors():
        def t(name, *shape):
            n = 1
            for k in shape:
                n *= k
            return (name, "F32", list(shape), [rng.uniform(-0.5, 0.5) for _ in range(n)])
        e, p = "embeddings.", "encoder.layer.0."
        out = [t(e + "word_embeddings.weight", 8, 4), t(e + "position_embeddings.weight", 16, 4),
               t(e + "token_type_embeddings.weight", 2, 4), t(e + "LayerNorm.weight", 4),
               t(e + "LayerNorm.bias", 4)]
        for m in ("attention.self.query", "attention.self.key", "attention.self.value",
                  "attention.output.dense"):
            out += [t(p + m + ".weight", 4, 4), t(p + m + ".bias", 4)]
        out += [t(p + "intermediate.dense.weight", 8, 4), t(p + "intermediate.dense.bias", 8),
                t(p + "output.dense.weight", 4, 8), t(p + "output.dense.bias", 4)]
        for m in ("attention.output.LayerNorm", "output.LayerNorm"):
            out += [t(p + m + ".weight", 4), t(p + m + ".bias", 4)]
        return out
    hf_st = safetensors(hf_tensors())
    ids = raw_safetensors({"embeddings.position_ids": {"dtype": "I64", "shape": [1, 16],
                                                        "data_offsets": [0, 128]}},
                          struct.pack("<16q", *range(16)))
    write("model", "hf_bert",
          model_input(0, 3, json.dumps(hf).encode(), hf_st) + bytes(range(1, 17)))
    write("model", "near_hf_relative_key", model_input(
        0, 3, json.dumps(dict(hf, position_embedding_type="relative_key")).encode(), hf_st))
    write("model", "near_hf_unknown_type", model_input(
        0, 3, json.dumps(dict(hf, model_type="gpt2")).encode(), hf_st))
    write("safetensors", "valid_position_ids", ids)
    # A tiny MarianMTModel encoder ("model." names, the shared token table, the stored
    # sinusoid, a decoder tensor phasor skips) and a near miss of its config.
    mt = {"model_type": "marian", "vocab_size": 8, "d_model": 4, "encoder_layers": 1,
          "encoder_attention_heads": 2, "encoder_ffn_dim": 8, "max_position_embeddings": 16,
          "activation_function": "swish", "scale_embedding": True, "pad_token_id": 7,
          "normalize_before": False, "static_position_embeddings": True}
    def marian_tensors():
        def t(name, *shape):
            n = 1
            for k in shape:
                n *= k
            return (name, "F32", list(shape), [rng.uniform(-0.5, 0.5) for _ in range(n)])
        p = "model.encoder.layers.0."
        out = [t("model.shared.weight", 8, 4), t("model.decoder.layers.0.fc1.weight", 8, 4)]
        for m in ("q_proj", "k_proj", "v_proj", "out_proj"):
            out += [t(p + "self_attn." + m + ".weight", 4, 4), t(p + "self_attn." + m + ".bias", 4)]
        out += [t(p + "fc1.weight", 8, 4), t(p + "fc1.bias", 8), t(p + "fc2.weight", 4, 8),
                t(p + "fc2.bias", 4)]
        for m in ("self_attn_layer_norm", "final_layer_norm"):
            out += [t(p + m + ".weight", 4), t(p + m + ".bias", 4)]
        table = []
        for pos in range(16):  # split sin | cos, frequencies 10000^(-2i/4)
            table += [math.sin(pos / 10000 ** (2 * i / 4)) for i in range(2)]
            table += [math.cos(pos / 10000 ** (2 * i / 4)) for i in range(2)]
        out.append(("model.encoder.embed_positions.weight", "F32", [16, 4], table))
        return out
    mt_st = safetensors(marian_tensors())
    write("model", "hf_marian",
          model_input(0, 3, json.dumps(mt).encode(), mt_st) + bytes(range(1, 17)))
    write("model", "near_hf_marian_normalize_before", model_input(
        0, 3, json.dumps(dict(mt, normalize_before=True)).encode(), mt_st))


if __name__ == "__main__":
    main()
