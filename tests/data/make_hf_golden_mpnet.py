#!/usr/bin/env python3
"""MPNet golden cases (tests/data/hf/mpnet, tests/data/hf/mpnet_bf16), computed in float64 with
NumPy by a transcription of transformers' models/mpnet/modeling_mpnet.py (MPNetModel,
MPNetEmbeddings, create_position_ids_from_input_ids, MPNetEncoder.compute_position_bias and
relative_position_bucket, MPNetLayer, MPNetAttention, MPNetSelfAttention, MPNetIntermediate,
MPNetOutput), as all-mpnet-base-v2 runs it:

- embeddings: LayerNorm(word_embeddings[ids] + position_embeddings[positions]), no token type
  table; positions from create_position_ids_from_input_ids with padding_idx 1 (fixed in
  MPNetEmbeddings): a token that is not the pad id 1 gets 1 + (the count of non-pad tokens up
  to and including it), so an unpadded line has 2, 3, ..., n + 1; a pad token gets 1;
- the relative position bias, computed once by the encoder and added in every layer:
  relative_position[i, j] = j - i (memory_position - context_position, key minus query, from
  arange(seq), not from the position ids), bucket = relative_position_bucket(., num_buckets=32,
  max_distance=128) (compute_position_bias's own default 32, not the config's
  relative_attention_num_buckets), bias[h, i, j] = relative_attention_bias.weight[bucket, h];
- relative_position_bucket(rp): n = -rp; ret = 16 if n < 0 else 0; n = |n|; n < 8: ret + n,
  else ret + min(15, 8 + long(log(n / 8) / log(128 / 8) · 8)) (long(): truncation);
- layer (post-LN): scores = q·kᵀ / sqrt(d_head) + bias + mask; a = o(softmax(scores)·v);
  x = attention.LayerNorm(a + x);
  x = output.LayerNorm(output.dense(gelu(intermediate.dense(x))) + x);
  the mask is (1 - attention_mask) · finfo.min on padded keys.

The torch code takes the log in float32; check_bucket_float32 shows that the float32 and float64
forms give the same bucket for every distance below 4096. mpnet: MPNetModel's own names (as
all-mpnet-base-v2 stores them: the pooler, its output in expected_pooler.npy, the integer
embeddings.position_ids buffer); mpnet_bf16:
MPNetForMaskedLM's (mpnet. before each name, lm_head.* beside, no pooler), as microsoft/mpnet-base;
mpnet_seqcls: MPNetForSequenceClassification's (mpnet. before each name, no pooler) with
MPNetClassificationHead: out_proj(tanh(dense(x[:, 0]))) (classifier.dense, classifier.out_proj;
dropout off), its logits in expected_logits.npy.
Run from the source root:  /usr/bin/python3 tests/data/make_hf_golden_mpnet.py
"""
import math

import numpy as np

from make_hf_golden import ACT, layer_norm
from rotary_parts import OUT, Tensors, random_lines, store, torch_dtype, write_case

PAD = 1  # MPNetEmbeddings.padding_idx


def relative_position_bucket(rp, num_buckets=32, max_distance=128):
    """rp: int array (key position - query position). MPNetEncoder.relative_position_bucket."""
    n = -np.asarray(rp, dtype=np.int64)
    num_buckets //= 2
    ret = (n < 0).astype(np.int64) * num_buckets
    n = np.abs(n)
    max_exact = num_buckets // 2
    with np.errstate(divide="ignore"):
        large = np.log(n.astype(np.float64) / max_exact) / math.log(max_distance / max_exact)
    large = max_exact + np.trunc(np.where(n < max_exact, 0.0, large) * (num_buckets - max_exact))
    large = np.minimum(large.astype(np.int64), num_buckets - 1)
    return ret + np.where(n < max_exact, n, large)


def position_bias(table, seq):
    """table: [buckets, heads]. compute_position_bias without position_ids: [heads, seq, seq]."""
    i = np.arange(seq)
    bucket = relative_position_bucket(i[None, :] - i[:, None])  # [seq(query), seq(key)]
    return table[bucket].transpose(2, 0, 1)


def position_ids(ids):
    """create_position_ids_from_input_ids for one row (pad id 1)."""
    mask = (ids != PAD).astype(np.int64)
    return np.cumsum(mask) * mask + PAD


def mpnet_forward(t, cfg, ids, keep=None):
    """ids: [seq]; keep: bool [seq], the attention mask (None: all). Returns [seq, hidden]."""
    d, h = cfg["hidden_size"], cfg["num_attention_heads"]
    dh, eps, n = d // h, cfg["layer_norm_eps"], len(ids)
    ln = lambda x, name: layer_norm(x, t[name + ".weight"], t[name + ".bias"], eps)  # noqa: E731
    lin = lambda x, name: x @ t[name + ".weight"].T + t[name + ".bias"]  # noqa: E731
    act = ACT[cfg["hidden_act"]]
    x = t["embeddings.word_embeddings.weight"][ids]
    x = x + t["embeddings.position_embeddings.weight"][position_ids(ids)]
    x = ln(x, "embeddings.LayerNorm")
    bias = position_bias(t["encoder.relative_attention_bias.weight"], n)  # [heads, seq, seq]
    mask = np.zeros(n) if keep is None else np.where(keep, 0.0, np.finfo(np.float64).min)
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        q, k, v = (lin(x, p + "attention.attn." + w).reshape(n, h, dh) for w in "qkv")
        s = np.einsum("ihd,jhd->hij", q, k) / math.sqrt(dh) + bias + mask[None, None, :]
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        a = np.einsum("hij,jhd->ihd", s, v).reshape(n, d)
        x = ln(lin(a, p + "attention.attn.o") + x, p + "attention.LayerNorm")
        y = lin(act(lin(x, p + "intermediate.dense")), p + "output.dense")
        x = ln(y + x, p + "output.LayerNorm")
    return x


def random_mpnet(rng, cfg, pooler):
    d, ff = cfg["hidden_size"], cfg["intermediate_size"]
    r = Tensors(rng)
    r.add("embeddings.word_embeddings.weight", cfg["vocab_size"], d, scale=0.5)
    r.add("embeddings.position_embeddings.weight", cfg["max_position_embeddings"], d, scale=0.5)
    for name in ("word_embeddings", "position_embeddings"):  # nn.Embedding(padding_idx=1)
        r.t[f"embeddings.{name}.weight"][PAD] = 0.0
    r.norm("embeddings.LayerNorm", d, True)
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        for w in "qkvo":
            r.linear(p + "attention.attn." + w, d, d, True)
        r.norm(p + "attention.LayerNorm", d, True)
        r.linear(p + "intermediate.dense", ff, d, True)
        r.linear(p + "output.dense", d, ff, True)
        r.norm(p + "output.LayerNorm", d, True)
    r.add("encoder.relative_attention_bias.weight", cfg["relative_attention_num_buckets"],
          cfg["num_attention_heads"], scale=1.0)
    if pooler:
        r.linear("pooler.dense", d, d, True)
    return r.t


def random_lm_head(rng, cfg):
    """MPNetLMHead's tensors (not read by an encoder; there to be skipped)."""
    d, vocab = cfg["hidden_size"], cfg["vocab_size"]
    r = Tensors(rng)
    r.linear("lm_head.dense", d, d, True)
    r.norm("lm_head.layer_norm", d, True)
    r.linear("lm_head.decoder", vocab, d, True)
    r.add("lm_head.bias", vocab, scale=0.1)
    return r.t


def mpnet_config(dtype, max_positions):
    """The keys of all-mpnet-base-v2's config.json (MPNetForMaskedLM's, as saved from
    microsoft/mpnet-base), tiny sizes."""
    return {"_name_or_path": "microsoft/mpnet-base", "architectures": ["MPNetForMaskedLM"],
            "attention_probs_dropout_prob": 0.1, "bos_token_id": 0, "eos_token_id": 2,
            "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 32,
            "initializer_range": 0.02, "intermediate_size": 48, "layer_norm_eps": 1e-05,
            "max_position_embeddings": max_positions, "model_type": "mpnet",
            "num_attention_heads": 4, "num_hidden_layers": 2, "pad_token_id": PAD,
            "relative_attention_num_buckets": 32, "torch_dtype": torch_dtype(dtype),
            "transformers_version": "4.8.2", "vocab_size": 60}


def make_mpnet(name, dtype, seed, lengths, max_positions, masked_lm):
    cfg = mpnet_config(dtype, max_positions)
    rng = np.random.default_rng(seed)
    prefix = "mpnet." if masked_lm else ""
    stored, exact = store(random_mpnet(rng, cfg, pooler=not masked_lm), dtype, prefix)
    if masked_lm:
        stored.update(store(random_lm_head(rng, cfg), dtype)[0])
    else:  # the integer buffer checkpoints saved before transformers 4.31 carry
        stored["embeddings.position_ids"] = np.arange(max_positions, dtype=np.int64)[None]
    lines = random_lines(rng, lengths, cfg["vocab_size"], {PAD})
    expected = np.zeros((len(lines), max(lengths), cfg["hidden_size"]), dtype=np.float32)
    for b, ids in enumerate(lines):
        expected[b, :len(ids)] = mpnet_forward(exact, cfg, ids)
    write_case(name, cfg, stored, dtype, lines, [len(ids) for ids in lines], expected)
    if not masked_lm:  # MPNetPooler: tanh(dense(x[:, 0]))
        pooler = [np.tanh(exact["pooler.dense.weight"] @ mpnet_forward(exact, cfg, ids)[0]
                          + exact["pooler.dense.bias"]) for ids in lines]
        np.save(OUT / name / "expected_pooler.npy", np.array(pooler, dtype=np.float32))
    return cfg, exact, lines


def make_mpnet_seqcls(name, seed, labels, lengths=(7, 3, 12, 1, 9)):
    """MPNetForSequenceClassification: the encoder under mpnet., classifier.dense (tanh on the
    first token's final row) and classifier.out_proj."""
    cfg = mpnet_config("F32", 40)
    cfg.update({"architectures": ["MPNetForSequenceClassification"],
                "id2label": {str(i): f"LABEL_{i}" for i in range(labels)},
                "label2id": {f"LABEL_{i}": i for i in range(labels)}})
    rng = np.random.default_rng(seed)
    stored, exact = store(random_mpnet(rng, cfg, pooler=False), "F32", "mpnet.")
    d = cfg["hidden_size"]
    head = Tensors(rng)
    head.linear("classifier.dense", d, d, True)
    head.linear("classifier.out_proj", labels, d, True)
    head_stored, head_exact = store(head.t, "F32")
    stored.update(head_stored)
    exact.update(head_exact)
    lin = lambda x, n: x @ exact[n + ".weight"].T + exact[n + ".bias"]  # noqa: E731
    lines = random_lines(rng, lengths, cfg["vocab_size"], {PAD})
    expected = np.zeros((len(lines), max(lengths), d), dtype=np.float32)
    logits = np.zeros((len(lines), labels), dtype=np.float32)
    for b, ids in enumerate(lines):
        rows = mpnet_forward(exact, cfg, ids)
        expected[b, :len(ids)] = rows
        logits[b] = lin(np.tanh(lin(rows[0], "classifier.dense")), "classifier.out_proj")
    write_case(name, cfg, stored, "F32", lines, [len(ids) for ids in lines], expected)
    np.save(OUT / name / "expected_logits.npy", logits)


def check_bucket_float32():
    """The torch form (log of float32 n / 8, divided by float32 log(16), times 8, in float32)
    truncates to the same integer as the float64 one at every distance; and the buckets in the
    closed form: n < 8 exact, then 8 + floor(2·log2(n / 8)) up to 15, by integer thresholds."""
    n = np.arange(8, 4096)
    f = np.float32
    torch_like = (np.log(n.astype(f) / f(8)) / f(math.log(16.0)) * f(8)).astype(np.int64)
    here = np.trunc(np.log(n / 8.0) / math.log(16.0) * 8).astype(np.int64)
    assert np.array_equal(torch_like, here)
    starts = [0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 23, 32, 46, 64, 91]  # first n of buckets 0..15
    closed = np.searchsorted(starts, np.arange(4096), side="right") - 1
    assert np.array_equal(relative_position_bucket(-np.arange(4096)), closed)  # key before query
    assert np.array_equal(relative_position_bucket(np.arange(1, 4096)), 16 + closed[1:])


def self_check(cfg, exact, lines):
    """bucket(0) = 0; d and -d differ by 16 past 0; the bias is a Toeplitz matrix; a line alone
    is its rows in a right-padded batch (pad id 1, attention mask 0); the bias matters."""
    assert relative_position_bucket(0) == 0
    d = np.arange(1, 300)
    assert np.array_equal(relative_position_bucket(d), relative_position_bucket(-d) + 16)
    b = position_bias(exact["encoder.relative_attention_bias.weight"], 50)
    assert np.array_equal(b[:, 1:, 1:], b[:, :-1, :-1])
    assert np.array_equal(b[:, 3, 10], exact["encoder.relative_attention_bias.weight"][16 + 7])
    longest = max(len(ids) for ids in lines)
    for ids in lines:
        padded = np.concatenate([ids, np.full(longest - len(ids), PAD)])
        keep = np.arange(longest) < len(ids)
        got = mpnet_forward(exact, cfg, padded, keep)[:len(ids)]
        assert np.allclose(got, mpnet_forward(exact, cfg, ids), atol=1e-12, rtol=0)
    flat = dict(exact)
    flat["encoder.relative_attention_bias.weight"] = np.zeros_like(
        exact["encoder.relative_attention_bias.weight"])
    ids = lines[-1]
    assert not np.allclose(mpnet_forward(flat, cfg, ids), mpnet_forward(exact, cfg, ids))


def main():
    check_bucket_float32()
    # The longest lines reach distances 139 and 99: every bucket, the clamp at 15 (n >= 128).
    self_check(*make_mpnet("mpnet", "F32", 81, (7, 3, 12, 1, 9, 140), 160, masked_lm=False))
    self_check(*make_mpnet("mpnet_bf16", "BF16", 82, (7, 3, 12, 1, 9, 100), 130, masked_lm=True))
    make_mpnet_seqcls("mpnet_seqcls", 83, labels=3)


if __name__ == "__main__":
    main()
