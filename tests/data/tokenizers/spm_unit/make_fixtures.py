#!/usr/bin/env python3
"""Makes the fixtures of tests/tokenizers/{wordpiece,bpe,unigram,sentencepiece_file}_test.cc.

Every expected id here comes from a program other than phasor:
  * Unigram: SentencePiece itself (Debian's spm_train trains the models on a
    corpus this script writes; the Python module `sentencepiece` encodes).
    tokenizers' Unigram.encode_optimized is SentencePiece's EncodeOptimized, and
    its tokenizer.json vocabulary is the .model's pieces and scores in id order
    (as transformers' SpmConverter writes it), so the ids are the same.
  * WordPiece and BPE: the JavaScript port of tokenizers (@huggingface/tokenizers,
    run with node from TOKJS), on cases where it follows the Rust crate (see the
    notes in the tests for where it does not).
  * SentencePiece files: SentencePiece's ids, mapped as transformers'
    XLMRobertaTokenizer (id + 1, unknown -> 3) and MarianTokenizer (piece through
    vocab.json, missing -> <unk>) map them.
Rerun: /usr/bin/python3 make_fixtures.py [TOKJS]   (default TOKJS=/tmp/tokjs)
Writes *.model, *.json and cases.json beside itself; deterministic.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

import sentencepiece as spm
from sentencepiece import sentencepiece_model_pb2 as spm_pb2

HERE = os.path.dirname(os.path.abspath(__file__))
TOKJS = sys.argv[1] if len(sys.argv) > 1 else "/tmp/tokjs"

WORDS = ("the of and to in is was for on that with as by at from his her an be "
         "this which or had are not but it were they have one all their been has "
         "new more who also its after first two time would other into only year "
         "some could when can most than about many these state city over made "
         "under world between such during through while both where three later "
         "school national being same against part before since because however "
         "café naïve über façade résumé 日本 語 東京").split()


def corpus(path):
    rng = random.Random(7)
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(3000):
            f.write(" ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14))) + "\n")


def spm_train(tmp, prefix, *flags):
    subprocess.run(["spm_train", "--input=" + os.path.join(tmp, "corpus.txt"),
                    "--model_prefix=" + os.path.join(HERE, prefix), "--vocab_size=300", "--hard_vocab_limit=false",
                    "--model_type=unigram", "--character_coverage=1.0", "--num_threads=1",
                    "--minloglevel=2", *flags], check=True, capture_output=True)
    return spm.SentencePieceProcessor(model_file=os.path.join(HERE, prefix + ".model"))


def hf_unigram(sp, byte_fallback):
    """The tokenizer.json "model" value of a SentencePiece unigram model."""
    return {"type": "Unigram", "unk_id": sp.unk_id(), "byte_fallback": byte_fallback,
            "vocab": [[sp.id_to_piece(i), sp.get_score(i)] for i in range(sp.get_piece_size())]}


def ties_model(template):
    """A hand-made unigram model whose pieces' scores tie on several paths."""
    proto = spm_pb2.ModelProto()
    with open(template, "rb") as f:
        proto.ParseFromString(f.read())
    del proto.pieces[:]
    P = spm_pb2.ModelProto.SentencePiece
    for piece, score, kind in [("<unk>", 0, P.UNKNOWN), ("<s>", 0, P.CONTROL), ("</s>", 0, P.CONTROL),
                               ("a", -1, P.NORMAL), ("b", -1, P.NORMAL), ("c", -1, P.NORMAL),
                               ("d", -2, P.NORMAL), ("ab", -2, P.NORMAL), ("bc", -2, P.NORMAL),
                               ("abc", -3, P.NORMAL), ("cd", -3, P.NORMAL), ("bcd", -4, P.NORMAL),
                               ("e", -0.5, P.NORMAL), ("f", -0.25, P.NORMAL), ("ef", -0.75, P.NORMAL),
                               ("xy", -1, P.NORMAL)]:
        p = proto.pieces.add()
        p.piece, p.score, p.type = piece, score, kind
    path = os.path.join(HERE, "ties.model")
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())
    return spm.SentencePieceProcessor(model_file=path)


def js_ids(cases):
    """Ids of the JS port for [(model, text)], each model alone in a tokenizer.json."""
    script = """
import { Tokenizer } from "@huggingface/tokenizers";
import { readFileSync } from "fs";
const cases = JSON.parse(readFileSync(0, "utf-8"));
const out = cases.map(([model, text]) => {
  const json = {version: "1.0", truncation: null, padding: null, added_tokens: [], normalizer: null,
                pre_tokenizer: null, post_processor: null, decoder: null, model};
  return new Tokenizer(json, {}).encode(text, {add_special_tokens: false}).ids;
});
process.stdout.write(JSON.stringify(out));
"""
    with tempfile.NamedTemporaryFile("w", suffix=".mjs", dir=TOKJS, delete=False) as f:
        f.write(script)
        name = f.name
    try:
        r = subprocess.run(["node", name], cwd=TOKJS, input=json.dumps(cases), text=True,
                           capture_output=True, check=True)
    finally:
        os.unlink(name)
    return json.loads(r.stdout)


# GPT-2's byte-to-unicode map (printable Latin-1 bytes stand for themselves).
def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def byte_level(text):
    table = bytes_to_unicode()
    return "".join(table[b] for b in text.encode("utf-8"))


def learn_byte_level_bpe(path, n_merges):
    """A small byte-level BPE (plain counting BPE, ties broken by the pair's text)."""
    table = bytes_to_unicode()
    counts = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            for i, w in enumerate(line.split()):
                w = byte_level((" " if i else "") + w)
                counts[w] = counts.get(w, 0) + 1
    words = {w: list(w) for w in counts}
    vocab = {table[b]: None for b in range(256)}
    merges = []
    for _ in range(n_merges):
        pairs = {}
        for w, syms in words.items():
            for a, b in zip(syms, syms[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + counts[w]
        if not pairs:
            break
        best = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))[0]
        merges.append(best)
        vocab[best[0] + best[1]] = None
        for w, syms in words.items():
            out, i = [], 0
            while i < len(syms):
                if i + 1 < len(syms) and (syms[i], syms[i + 1]) == best:
                    out.append(syms[i] + syms[i + 1])
                    i += 2
                else:
                    out.append(syms[i])
                    i += 1
            words[w] = out
    ordered = sorted(vocab)  # ids not in merge order, to catch id/rank mix-ups
    rng = random.Random(3)
    rng.shuffle(ordered)
    return {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
            "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
            "vocab": {t: i for i, t in enumerate(ordered)},
            "merges": [a + " " + b for a, b in merges]}


def main():
    cases = {}
    with tempfile.TemporaryDirectory() as tmp:
        corpus(os.path.join(tmp, "corpus.txt"))
        plain = ["--normalization_rule_name=identity", "--add_dummy_prefix=false",
                 "--remove_extra_whitespaces=false"]
        sp = spm_train(tmp, "unigram_plain", *plain)
        sp_bytes = spm_train(tmp, "unigram_bytes", *plain, "--byte_fallback=true")
        sp_xlmr = spm_train(tmp, "unigram_nfkc")  # SentencePiece's defaults, as XLM-R's
        bpe_model = learn_byte_level_bpe(os.path.join(tmp, "corpus.txt"), 250)
    ties = ties_model(os.path.join(HERE, "unigram_plain.model"))

    # --- Unigram: SentencePiece's ids for its text; the model sees it with
    # spaces as U+2581, as SentencePiece's own normalizer writes them.
    texts = ["the", "national school", "between three cities", "café über naïve",
             "東京 日本語", "the☃city", "☃☃ab", "the ☃ ☃☃", "Ωmega", "x", "🙂🙂🙂the",
             "a" * 40, "schoolschoolschool"]
    unigram = []
    for name, model, byte_fallback in [("unigram_plain", sp, False),
                                       ("unigram_bytes", sp_bytes, True)]:
        with open(os.path.join(HERE, name + ".json"), "w", encoding="utf-8") as f:
            json.dump(hf_unigram(model, byte_fallback), f, ensure_ascii=False)
        for t in texts:
            unigram.append({"model": name + ".json", "text": t.replace(" ", "\u2581"),
                            "ids": model.encode(t)})
    with open(os.path.join(HERE, "ties.json"), "w", encoding="utf-8") as f:
        json.dump(hf_unigram(ties, False), f, ensure_ascii=False)
    for t in ["ab", "abc", "abcd", "bcd", "ef", "eff", "abcdabc", "a☃b", "☃☃", "xy", "x", "yx",
              "xyz", "dcba"]:
        unigram.append({"model": "ties.json", "text": t, "ids": ties.encode(t)})
    cases["unigram"] = unigram

    # --- WordPiece and BPE: the JS port.
    wp = {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
          "max_input_chars_per_word": 100,
          "vocab": {t: i for i, t in enumerate(
              ["[PAD]", "[UNK]", "un", "##aff", "##able", "aff", "able", "a", "##a", "##b", "b",
               "c", "##c", "é", "##é", "日", "##本", "abc", "##d", "ab", "##cde", "##e", "x"])}}
    wp_short = dict(wp, max_input_chars_per_word=5)
    wp_prefix = dict(wp, continuing_subword_prefix="++", vocab={
        "<unk>": 5, "play": 0, "++ing": 1, "++s": 2, "##ing": 3, "p": 4})
    wp_prefix["unk_token"] = "<unk>"
    wp_cases = [(wp, t) for t in ["unaffable", "able", "aff", "abc", "ab☃", "☃", "日本", "éé",
                                  "abcde", "abcd", "aaaaaaaaaaaa", "xab", "a"]]
    wp_cases += [(wp_short, t) for t in ["aaaaa", "aaaaaa", "ééééé", "éééééé", "abcabc"]]
    wp_cases += [(wp_prefix, t) for t in ["playing", "plays", "play##ing", "pp"]]

    ab = {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
          "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
          "vocab": {"<unk>": 0, "a": 1, "b": 2, "c": 3, "aa": 4, "aaa": 5, "ab": 6, "bc": 7,
                    "abc": 8, "ca": 9, "aaaa": 10, "cab": 11},
          "merges": ["a a", "b c", "a b", "aa a", "a bc", "c a", "aa aa", "c ab"]}
    ab_fused = dict(ab, fuse_unk=True)
    ab_pairs = dict(ab, merges=[m.split(" ") for m in ab["merges"]])
    eow = {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
           "end_of_word_suffix": "</w>", "fuse_unk": False, "byte_fallback": False,
           "vocab": {"<unk>": 0, "l": 1, "o": 2, "w": 3, "w</w>": 4, "o</w>": 5, "lo": 6,
                     "low</w>": 7, "ow</w>": 8},
           "merges": ["l o", "o w</w>", "lo w</w>"]}
    fallback = {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                "continuing_subword_prefix": None, "end_of_word_suffix": None, "fuse_unk": False,
                "byte_fallback": True,
                "vocab": {"<unk>": 0, "a": 1, "b": 2, "ab": 3, "<0xE2>": 4, "<0x98>": 5,
                          "<0x83>": 6, "<0x41>": 7},
                "merges": ["a b"]}
    ignore = {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
              "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
              "ignore_merges": True,
              "vocab": {".:.:": 0, "Ġbelirtilen": 1, ".": 2, ":": 3, "bel": 4, "irtilen": 5,
                        "Ġ": 6, ".:": 7, "belirtilen": 8, ".:.": 9, "be": 10, "l": 11, "ir": 12,
                        "ti": 13, "en": 14, "irtil": 15, "irti": 16, "i": 17, "r": 18, "t": 19,
                        "b": 20, "e": 21, "n": 22},
              "merges": [". :", "b e", "be l", "i r", "t i", "ir ti", "e n", "irti l"]}
    no_ignore = dict(ignore, ignore_merges=False)
    bpe_cases = [(ab, t) for t in ["aaa", "aaaa", "aaaaa", "abc", "cabc", "abcabc", "cab", "ccab",
                                   "a", "a☃b", "a☃☃b", "☃", "aa☃aa"]]
    bpe_cases += [(ab_fused, t) for t in ["a☃☃b", "☃☃☃", "a☃b☃☃c"]]
    bpe_cases += [(ab_pairs, t) for t in ["aaaa", "cabc"]]
    bpe_cases += [(eow, t) for t in ["low", "lo", "ow", "wo", "l"]]
    bpe_cases += [(fallback, t) for t in ["ab☃", "A", "ab", "é"]]
    bpe_cases += [(ignore, t) for t in [".:.:", "Ġbelirtilen", "belirtilen", "irtilen"]]
    bpe_cases += [(no_ignore, t) for t in [".:.:", "belirtilen"]]
    with open(os.path.join(HERE, "byte_level_bpe.json"), "w", encoding="utf-8") as f:
        json.dump(bpe_model, f, ensure_ascii=False)
    sentence = ("the national school was founded in the city of new state during the war, "
                "and its three schools were built between 1900 and 1910 – café über alles! 日本")
    for i, w in enumerate(sentence.split(" ")):
        bpe_cases.append((bpe_model, byte_level((" " if i else "") + w)))
    for t in ["thethethethe", "  the", "schoolschool", "\u00e9\u00e9\u00e9", "the" * 90]:
        bpe_cases.append((bpe_model, byte_level(t)))

    def named(model):
        if model is bpe_model:
            return "byte_level_bpe.json"
        return model

    wp_ids = js_ids(wp_cases)
    bpe_ids = js_ids([(m, t) for m, t in bpe_cases])
    cases["wordpiece"] = [{"model": m, "text": t, "ids": ids} for (m, t), ids in zip(wp_cases, wp_ids)]
    cases["bpe"] = [{"model": named(m), "text": t, "ids": ids} for (m, t), ids in zip(bpe_cases, bpe_ids)]

    # --- SentencePiece files, as transformers maps their pieces to ids.
    spm_texts = ["Hello world", "the national school", "  café   über  ", "東京☃日本", "ＡＢＣ ½",
                 "Ωmega 🙂"]
    xlmr = [{"text": t, "ids": [3 if i == sp_xlmr.unk_id() else i + 1 for i in sp_xlmr.encode(t)]}
            for t in spm_texts]
    # Marian's vocab.json: every piece but a few, at ids in another order.
    pieces = [sp_xlmr.id_to_piece(i) for i in range(sp_xlmr.get_piece_size())]
    dropped = {p for p in pieces if p in ("▁the", "s", "▁school")}
    kept = [p for p in pieces if p not in dropped]
    marian_vocab = {p: len(kept) - 1 - i for i, p in enumerate(kept)}
    with open(os.path.join(HERE, "marian_vocab.json"), "w", encoding="utf-8") as f:
        json.dump(marian_vocab, f, ensure_ascii=False)
    marian_unk = marian_vocab["<unk>"]
    marian = [{"text": t, "ids": [marian_vocab.get(p, marian_unk)
                                  for p in sp_xlmr.encode(t, out_type=str)]} for t in spm_texts]
    cases["sentencepiece_file"] = {"xlmr": xlmr, "marian": marian, "marian_unk_id": marian_unk,
                                   "dropped": sorted(dropped)}
    with open(os.path.join(HERE, "cases.json"), "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False, indent=1)
    for name in ("unigram_plain", "unigram_bytes", "unigram_nfkc"):
        os.remove(os.path.join(HERE, name + ".vocab"))


if __name__ == "__main__":
    main()
