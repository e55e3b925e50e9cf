"""ModernBERT golden cases (tests/data/hf/modernbert*), computed in float64 with NumPy by a
transcription of transformers' models/modernbert/modeling_modernbert.py (ModernBertModel,
ModernBertEmbeddings, ModernBertEncoderLayer, ModernBertAttention, ModernBertMLP,
ModernBertRotaryEmbedding, _update_attention_mask; the same semantics as the later
modular_modernbert.py with create_bidirectional_sliding_window_mask and
config.sliding_window = local_attention // 2):

- embeddings: norm(tok_embeddings[ids]) (LayerNorm, eps norm_eps, bias iff norm_bias);
- layer i: h += Wo(attn(attn_norm(h))), attn_norm the identity on layer 0 (no tensor);
  h += mlp(mlp_norm(h)), mlp(x) = Wo(act(input) · gate) with input, gate = Wi(x).chunk(2)
  (input: the first intermediate_size rows of Wi, gate: the last), act = hidden_activation;
- attention: Wqkv (rows q, k, v, each by head), rotate_half rotary over the whole head with
  theta global_rope_theta on global layers (i % global_attn_every_n_layers == 0) and
  local_rope_theta on the others (transformers 5's config: layer_types[i] == "full_attention"
  and rope_parameters[layer type]["rope_theta"]); scores q·k / sqrt(head_dim); a local layer's query i sees
  key j iff |i - j| <= local_attention // 2;
- final_norm.

ModernBertForSequenceClassification (modernbert_seqcls*: model. before the encoder's names): the
final norm's rows pooled as classifier_pooling says ("cls": the first row; "mean": the sum of the
rows under the attention mask over its count, i.e. the mean over the line's own tokens), then
head = ModernBertPredictionHead: norm(act(dense(x))) with dense nn.Linear(d, d,
bias=classifier_bias), act = ACT2FN[classifier_activation], norm nn.LayerNorm(d, eps=norm_eps,
bias=norm_bias); then classifier = nn.Linear(d, num_labels), with its bias whatever
classifier_bias says. The logits go to expected_logits.npy.
"""
import numpy as np

from make_hf_golden import ACT, layer_norm
from rotary_parts import (OUT, Tensors, attention, default_inv_freq, random_lines, rope_half,
                          store, torch_dtype, window_mask, write_case)


def is_global(cfg, i):
    """layer_types[i] where the config has it (transformers 5), else i % every == 0."""
    if "layer_types" in cfg:
        return cfg["layer_types"][i] == "full_attention"
    return i % cfg["global_attn_every_n_layers"] == 0


def theta(cfg, glob):
    if "rope_parameters" in cfg:
        return cfg["rope_parameters"]["full_attention" if glob else "sliding_attention"]["rope_theta"]
    return cfg["global_rope_theta"] if glob else cfg["local_rope_theta"]


def modernbert_forward(t, cfg, ids):
    d, h = cfg["hidden_size"], cfg["num_attention_heads"]
    dh, ff, eps, n = d // h, cfg["intermediate_size"], cfg["norm_eps"], len(ids)
    zero = np.zeros(d)
    ln = lambda x, name: layer_norm(  # noqa: E731
        x, t[name + ".weight"], t[name + ".bias"] if cfg["norm_bias"] else zero, eps)
    lin = lambda x, name, bias: x @ t[name + ".weight"].T + (t[name + ".bias"] if bias else 0)  # noqa: E731
    act = ACT[cfg["hidden_activation"]]
    positions = np.arange(n)
    x = ln(t["embeddings.tok_embeddings.weight"][ids], "embeddings.norm")
    for i in range(cfg["num_hidden_layers"]):
        p = f"layers.{i}."
        glob = is_global(cfg, i)
        inv = default_inv_freq(dh, theta(cfg, glob))
        y = x if i == 0 else ln(x, p + "attn_norm")
        qkv = lin(y, p + "attn.Wqkv", cfg["attention_bias"]).reshape(n, 3, h, dh)
        q, k = (rope_half(qkv[:, j], positions, inv) for j in (0, 1))
        allowed = np.ones((n, n), bool) if glob else window_mask(n, cfg["local_attention"] // 2)
        a = attention(q, k, qkv[:, 2], allowed, dh ** -0.5)
        x = x + lin(a, p + "attn.Wo", cfg["attention_bias"])
        wi = lin(ln(x, p + "mlp_norm"), p + "mlp.Wi", cfg["mlp_bias"])
        x = x + lin(act(wi[:, :ff]) * wi[:, ff:], p + "mlp.Wo", cfg["mlp_bias"])
    return ln(x, "final_norm")


def random_modernbert(rng, cfg):
    d, ff, nb = cfg["hidden_size"], cfg["intermediate_size"], cfg["norm_bias"]
    r = Tensors(rng)
    r.add("embeddings.tok_embeddings.weight", cfg["vocab_size"], d, scale=0.5)
    r.norm("embeddings.norm", d, nb)
    for i in range(cfg["num_hidden_layers"]):
        p = f"layers.{i}."
        if i > 0:
            r.norm(p + "attn_norm", d, nb)
        r.linear(p + "attn.Wqkv", 3 * d, d, cfg["attention_bias"])
        r.linear(p + "attn.Wo", d, d, cfg["attention_bias"])
        r.norm(p + "mlp_norm", d, nb)
        r.linear(p + "mlp.Wi", 2 * ff, d, cfg["mlp_bias"])
        r.linear(p + "mlp.Wo", d, ff, cfg["mlp_bias"])
    r.norm("final_norm", d, nb)
    return r.t


def modernbert_config(dtype, every, local, masked_lm, v5):
    """ModernBERT-base's config.json keys, tiny sizes (special ids inside the 60 rows). v5: as
    transformers 5 writes it (dtype, layer_types, rope_parameters by layer type in place of
    torch_dtype, global_rope_theta and local_rope_theta)."""
    cfg = {"architectures": ["ModernBertForMaskedLM" if masked_lm else "ModernBertModel"],
            "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 1,
            "classifier_activation": "gelu", "classifier_bias": False,
            "classifier_dropout": 0.0, "classifier_pooling": "mean", "cls_token_id": 1,
            "decoder_bias": True, "deterministic_flash_attn": False, "embedding_dropout": 0.0,
            "eos_token_id": 2, "global_attn_every_n_layers": every,
            "global_rope_theta": 160000.0, "gradient_checkpointing": False,
            "hidden_activation": "gelu", "hidden_size": 32, "initializer_cutoff_factor": 2.0,
            "initializer_range": 0.02, "intermediate_size": 48, "layer_norm_eps": 1e-05,
            "local_attention": local, "local_rope_theta": 10000.0,
            "max_position_embeddings": 8192, "mlp_bias": False, "mlp_dropout": 0.0,
            "model_type": "modernbert", "norm_bias": False, "norm_eps": 1e-05,
            "num_attention_heads": 4, "num_hidden_layers": 3, "pad_token_id": 3,
            "position_embedding_type": "absolute", "sep_token_id": 2,
            "sparse_pred_ignore_index": -100, "sparse_prediction": False,
            "torch_dtype": torch_dtype(dtype), "transformers_version": "4.48.0",
            "vocab_size": 60}
    if v5:
        glob, loc = cfg.pop("global_rope_theta"), cfg.pop("local_rope_theta")
        del cfg["torch_dtype"]
        cfg.update({"dtype": torch_dtype(dtype), "transformers_version": "5.0.0",
                    "layer_types": ["sliding_attention" if i % every else "full_attention"
                                    for i in range(cfg["num_hidden_layers"])],
                    "rope_parameters": {
                        "full_attention": {"rope_theta": glob, "rope_type": "default"},
                        "sliding_attention": {"rope_theta": loc, "rope_type": "default"}}})
        cfg = dict(sorted(cfg.items()))
    return cfg


def make_modernbert(name, dtype="F32", seed=41, every=2, local=8, masked_lm=False, v5=False,
                    lengths=(7, 3, 12, 1, 9, 40)):
    """masked_lm: ModernBertForMaskedLM's checkpoint (model. prefix, head.* and decoder.bias
    beside it, decoder.weight tied), else ModernBertModel's (no prefix), as embedding models
    built on ModernBERT save it."""
    cfg = modernbert_config(dtype, every, local, masked_lm, v5)
    rng = np.random.default_rng(seed)
    tensors = random_modernbert(rng, cfg)
    stored, exact = store(tensors, dtype, "model." if masked_lm else "")
    if masked_lm:
        d = cfg["hidden_size"]
        head = Tensors(rng)
        head.linear("head.dense", d, d)
        head.norm("head.norm", d)
        head.add("decoder.bias", cfg["vocab_size"], scale=0.1)
        stored.update(store(head.t, dtype)[0])
    lines = random_lines(rng, lengths, cfg["vocab_size"], {cfg["pad_token_id"]})
    expected = np.zeros((len(lines), max(lengths), cfg["hidden_size"]), dtype=np.float32)
    for b, ids in enumerate(lines):
        expected[b, :len(ids)] = modernbert_forward(exact, cfg, ids)
    write_case(name, cfg, stored, dtype, lines, [len(ids) for ids in lines], expected)
    return cfg, exact, lines


def self_check(cfg, exact, lines):
    """A local window as wide as the line is global attention; one token longer, it is not."""
    wide, radius = dict(cfg, local_attention=1000), cfg["local_attention"] // 2
    long = max(lines, key=len)
    for n, same in ((radius + 1, True), (radius + 2, False), (len(long), False)):
        ids = long[:n]
        got = np.allclose(modernbert_forward(exact, cfg, ids), modernbert_forward(exact, wide, ids),
                          atol=1e-13)
        assert got == same, (n, same)


def classifier_reference(t, cfg, rows, keep=None):
    """rows: [seq, d] final rows of one line (keep: bool [seq], its attention mask; None: all).
    The logits of ModernBertForSequenceClassification's head, [num_labels]."""
    keep = np.ones(len(rows), bool) if keep is None else keep
    if cfg["classifier_pooling"] == "cls":
        x = rows[0]
    else:  # (last_hidden_state * attention_mask).sum(1) / attention_mask.sum(1)
        x = (rows * keep[:, None]).sum(0) / keep.sum()
    h = x @ t["head.dense.weight"].T + (t["head.dense.bias"] if cfg["classifier_bias"] else 0)
    h = layer_norm(ACT[cfg["classifier_activation"]](h), t["head.norm.weight"],
                   t["head.norm.bias"] if cfg["norm_bias"] else 0, cfg["norm_eps"])
    return h @ t["classifier.weight"].T + t["classifier.bias"]


def make_modernbert_seqcls(name, seed, pooling, classifier_bias, norm_bias, activation, labels,
                           lengths=(7, 3, 12, 1, 9, 20)):
    """ModernBertForSequenceClassification's checkpoint: the encoder under model., head.dense,
    head.norm and classifier beside it; expected.npy the final rows, expected_logits.npy the
    logits."""
    cfg = modernbert_config("F32", 2, 8, False, False)
    cfg.update({"architectures": ["ModernBertForSequenceClassification"],
                "classifier_pooling": pooling, "classifier_bias": classifier_bias,
                "norm_bias": norm_bias, "classifier_activation": activation,
                "id2label": {str(i): f"LABEL_{i}" for i in range(labels)},
                "label2id": {f"LABEL_{i}": i for i in range(labels)}})
    rng = np.random.default_rng(seed)
    stored, exact = store(random_modernbert(rng, cfg), "F32", "model.")
    d = cfg["hidden_size"]
    head = Tensors(rng)
    head.linear("head.dense", d, d, classifier_bias)
    head.norm("head.norm", d, norm_bias)
    head.linear("classifier", labels, d, True)
    head_stored, head_exact = store(head.t, "F32")
    stored.update(head_stored)
    exact.update(head_exact)
    lines = random_lines(rng, lengths, cfg["vocab_size"], {cfg["pad_token_id"]})
    expected = np.zeros((len(lines), max(lengths), d), dtype=np.float32)
    logits = np.zeros((len(lines), labels), dtype=np.float32)
    for b, ids in enumerate(lines):
        rows = modernbert_forward(exact, cfg, ids)
        expected[b, :len(ids)] = rows
        logits[b] = classifier_reference(exact, cfg, rows)
    write_case(name, cfg, stored, "F32", lines, [len(ids) for ids in lines], expected)
    np.save(OUT / name / "expected_logits.npy", logits)
    # The mask form over a padded line's rows is the mean over its own: padding left out.
    ids = lines[0]
    rows = np.concatenate([modernbert_forward(exact, cfg, ids), np.full((5, d), 7.0)])
    keep = np.arange(len(rows)) < len(ids)
    assert np.allclose(classifier_reference(exact, cfg, rows, keep), logits[0], atol=1e-6)


def main():
    make_modernbert_seqcls("modernbert_seqcls", 43, "mean", classifier_bias=False,
                           norm_bias=False, activation="gelu", labels=3)
    make_modernbert_seqcls("modernbert_seqcls_cls", 44, "cls", classifier_bias=True,
                           norm_bias=True, activation="gelu_new", labels=1)
    self_check(*make_modernbert("modernbert"))
    self_check(*make_modernbert("modernbert_bf16", dtype="BF16", seed=42, every=3, local=6,
                                masked_lm=True, v5=True))


if __name__ == "__main__":
    main()
