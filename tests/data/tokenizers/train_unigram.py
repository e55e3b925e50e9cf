#!/usr/bin/python3
"""Trains sources/xlmr-unigram.model, the SentencePiece Unigram model of the
xlmr-unigram folder, with spm_train (Debian package sentencepiece).

Run by hand, once; the model it writes is committed. The training text is
generated here (fixed seed): English-like sentences drawn from the words of
bert-base-uncased's vocabulary, and a made-up lexicon of words in Latin with
accents, Greek, Cyrillic, Arabic, Hebrew, Devanagari, Thai, kana, Hangul and
CJK ideographs, each drawn with a Zipf law so that the model learns real
sub-words. spm_train's defaults otherwise (model_type unigram, nmt_nfkc
normalisation, character_coverage 0.9995, <unk> 0, <s> 1, </s> 2).

    /usr/bin/python3 tests/data/tokenizers/train_unigram.py
"""
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

SCRIPTS = {
    # name: (syllable alphabet, syllables per word range)
    "latin": (list("aeiou") + ["é", "è", "ü", "ö", "ä", "ñ", "ç", "à", "ß", "ø", "å"], None),
    "greek": ([chr(c) for c in range(0x03B1, 0x03CA) if c != 0x03C2], (2, 5)),
    "cyrillic": ([chr(c) for c in range(0x0430, 0x0450)], (2, 5)),
    "arabic": ([chr(c) for c in range(0x0627, 0x064B)], (2, 5)),
    "hebrew": ([chr(c) for c in range(0x05D0, 0x05EB)], (2, 5)),
    "thai": ([chr(c) for c in range(0x0E01, 0x0E2F)], (2, 6)),
    "kana": ([chr(c) for c in range(0x3041, 0x3094)] + [chr(c) for c in range(0x30A1, 0x30F4)], (2, 5)),
    "hangul": ([chr(0xAC00 + i * 28 + j) for i in range(0, 399, 7) for j in (0, 4, 8)], (1, 4)),
    "cjk": ([chr(c) for c in range(0x4E00, 0x4E00 + 1500, 3)], (1, 3)),
}
DEVANAGARI_CONSONANTS = [chr(c) for c in range(0x0915, 0x0939)]
DEVANAGARI_SIGNS = ["", "\u093E", "\u093F", "\u0940", "\u0941", "\u0947", "\u094B", "\u0902"]
LATIN_CONSONANTS = list("bcdfghjklmnprstvwz") + ["ch", "sch", "qu"]


def make_lexicon(rng, script, n):
    words = set()
    while len(words) < n:
        if script == "latin":
            w = "".join(rng.choice(LATIN_CONSONANTS) + rng.choice(SCRIPTS["latin"][0])
                        for _ in range(rng.randint(1, 4)))
        elif script == "devanagari":
            w = "".join(rng.choice(DEVANAGARI_CONSONANTS) + rng.choice(DEVANAGARI_SIGNS)
                        for _ in range(rng.randint(1, 4)))
        else:
            alphabet, (lo, hi) = SCRIPTS[script]
            w = "".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))
        words.add(w)
    return sorted(words)


def zipf_sampler(rng, words):
    weights = [1.0 / (i + 1) for i in range(len(words))]
    cum = []
    total = 0.0
    for w in weights:
        total += w
        cum.append(total)
    import bisect

    def sample():
        return words[bisect.bisect_left(cum, rng.random() * total)]
    return sample


def training_text(rng):
    with open(os.path.join(HERE, "sources", "bert-base-uncased.vocab.json"), encoding="utf-8") as f:
        pieces = json.load(f)
    english = [p[1:] for p in pieces if p.startswith("\u2581") and len(p) > 2 and p[1:].isalpha()
               and p[1:].isascii()]
    samplers = {"english": zipf_sampler(rng, english)}
    for script in list(SCRIPTS) + ["devanagari"]:
        lexicon = make_lexicon(rng, script, 3000)
        rng.shuffle(lexicon)
        samplers[script] = zipf_sampler(rng, lexicon)
    joiner = {"cjk": "", "thai": "", "kana": ""}
    punct = [".", ",", "!", "?", ";", ":", " -", "…", "。", "、", "؟", "।"]
    lines = []
    names = sorted(samplers)
    for i in range(60000):
        script = names[i % len(names)] if i % 3 else "english"
        words = [samplers[script]() for _ in range(rng.randint(3, 18))]
        if script == "english" and rng.random() < 0.5:
            words[0] = words[0].capitalize()
        if rng.random() < 0.2:
            words.insert(rng.randrange(len(words)), str(rng.randint(0, 100000)))
        line = joiner.get(script, " ").join(words) + rng.choice(punct)
        lines.append(line)
    return "\n".join(lines) + "\n"


def main():
    rng = random.Random(20261205)
    text = training_text(rng)
    out_prefix = os.path.join(HERE, "sources", "xlmr-unigram")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "train.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        subprocess.run(["spm_train", "--input=" + path, "--model_prefix=" + os.path.join(tmp, "m"),
                        "--model_type=unigram", "--vocab_size=8000", "--num_threads=1",
                        "--minloglevel=1"], check=True)
        with open(os.path.join(tmp, "m.model"), "rb") as src, open(out_prefix + ".model", "wb") as dst:
            dst.write(src.read())
    print("wrote", out_prefix + ".model", file=sys.stderr)


if __name__ == "__main__":
    main()
