#!/usr/bin/python3
"""The second reference for the xlmr-unigram folder: the ids of each corpus
line from SentencePiece itself (Debian python3-sentencepiece), mapped as
transformers' slow XLMRobertaTokenizer maps them: the text split first on its
special tokens (<mask> taking the whitespace on its left), each other part
encoded by sentencepiece, spm id i -> i + 1 with spm's <unk> (0) -> 3, and
<s> A </s> or <s> A </s></s> B </s> around them.

    /usr/bin/python3 spm_reference.py MODEL CORPUS {single|pairs} {special|no_special} OUT

Writes OUT in the tokens-file format of make_golden.mjs (README.md).
"""
import sys

import sentencepiece

BOS, PAD, EOS, UNK = 0, 1, 2, 3


def main():
    model, corpus, kind, special, out = sys.argv[1:6]
    sp = sentencepiece.SentencePieceProcessor(model_file=model)
    mask = sp.get_piece_size() + 1
    specials = {"<s>": BOS, "<pad>": PAD, "</s>": EOS, "<unk>": UNK, "<mask>": mask}
    add_special = special == "special"

    def split_specials(text):
        # Leftmost-longest matches of the special tokens, as transformers' Trie.
        parts, start, i = [], 0, 0
        while i < len(text):
            match = None
            for tok in specials:
                if text.startswith(tok, i) and (match is None or len(tok) > len(match)):
                    match = tok
            if match:
                parts.append(text[start:i])
                parts.append(match)
                i += len(match)
                start = i
            else:
                i += 1
        parts.append(text[start:])
        return parts

    def encode_text(text):
        parts = split_specials(text)
        for k in range(1, len(parts), 2):  # odd indices are special tokens
            if parts[k] == "<mask>":
                parts[k - 1] = parts[k - 1].rstrip()
        ids = []
        for k, part in enumerate(parts):
            if k % 2:
                ids.append(specials[part])
            elif part:
                ids += [UNK if i == 0 else i + 1 for i in sp.encode(part)]
        return ids

    with open(corpus, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")[:-1]
    rows = []
    for line in lines:
        if kind == "single":
            ids = encode_text(line)
            if add_special:
                ids = [BOS] + ids + [EOS]
            rows.append(" ".join(map(str, ids)))
        else:
            a, b = line.split("\t", 1)
            ia, ib = encode_text(a), encode_text(b)
            if add_special:
                ia, ib = [BOS] + ia + [EOS, EOS], ib + [EOS]
            rows.append(" ".join(map(str, ia)) + "\t" + " ".join(map(str, ib)))
    with open(out, "w", encoding="utf-8", newline="") as f:
        f.write("".join(r + "\n" for r in rows))


if __name__ == "__main__":
    main()
