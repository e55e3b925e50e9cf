#!/usr/bin/python3
"""Makes charsmap_rules.b64, the Precompiled charsmap of normalizers_test.cc.

Trains a tiny SentencePiece model (Debian's spm_train, package sentencepiece)
with the normalization rules of charsmap_rules.tsv instead of the default
nmt_nfkc ones, takes the precompiled_charsmap out of the .model protobuf
(ModelProto.normalizer_spec = field 3, NormalizerSpec.precompiled_charsmap =
field 2) with the standard library only, and writes it as base64, as
tokenizer.json holds it. With --show, also prints how SentencePiece itself
(python3-sentencepiece) normalizes the test's inputs, the reference the test
cites. Run from anywhere: python3 make_charsmap.py [--show]
"""
import base64
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def read_varint(data, i):
    value, shift = 0, 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, i


def fields(data):
    """(field number, wire type, value) of each field of a protobuf message."""
    i = 0
    while i < len(data):
        key, i = read_varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = read_varint(data, i)
        elif wire == 1:
            value, i = data[i:i + 8], i + 8
        elif wire == 2:
            n, i = read_varint(data, i)
            value, i = data[i:i + n], i + n
        elif wire == 5:
            value, i = data[i:i + 4], i + 4
        else:
            raise ValueError("unexpected wire type %d" % wire)
        yield number, wire, value


def charsmap(model_bytes):
    for number, wire, value in fields(model_bytes):
        if number == 3 and wire == 2:
            for n2, w2, v2 in fields(value):
                if n2 == 2 and w2 == 2:
                    return v2
    raise ValueError("no precompiled_charsmap in the model")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        corpus = os.path.join(tmp, "corpus.txt")
        words = ["apple", "banana", "cherry", "dog", "egg", "fish", "grape"]
        with open(corpus, "w") as f:
            for k in range(200):
                f.write(" ".join(words[(k * 3 + j) % len(words)] for j in range(6)) + "\n")
        prefix = os.path.join(tmp, "rules")
        subprocess.run(["spm_train", "--input=" + corpus, "--model_prefix=" + prefix,
                        "--vocab_size=30", "--model_type=char",
                        "--normalization_rule_tsv=" + os.path.join(HERE, "charsmap_rules.tsv"),
                        "--add_dummy_prefix=false", "--remove_extra_whitespaces=false"],
                       check=True, capture_output=True)
        with open(prefix + ".model", "rb") as f:
            raw = charsmap(f.read())
        with open(os.path.join(HERE, "charsmap_rules.b64"), "w") as f:
            f.write(base64.b64encode(raw).decode("ascii") + "\n")
        if "--show" in sys.argv:
            import sentencepiece
            sp = sentencepiece.SentencePieceProcessor(model_file=prefix + ".model")
            for text in ["A", "AB", "e\u0301", "\uff21", "\u2160", "a\rb", "ffi", "x\u3000y",
                         "\uff21\u0301", "e\u0301\u0301", "a\r\nb", "\u00e9A",
                         "e\u0301\u0301\u0301", "plain text"]:
                pieces = sp.encode(text, out_type=str)
                print(ascii(text), "->", ascii("".join(pieces).replace("\u2581", " ")))


if __name__ == "__main__":
    main()
