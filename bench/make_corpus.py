#!/usr/bin/env python3
"""Writes a corpus-like tokens file and a dense one of the same tokens, for
`phasor encode --tokens-file` (bench/corpus.sh).

    python3 bench/make_corpus.py --lines 100000 --vocab 32000 OUT_RAGGED OUT_DENSE

Ragged: lines drawn log-normal (median 24 tokens, at most 384, the first line 384),
ids in [1, vocab). Dense: the same number of tokens in lines of the median length.
Fixed seed: the same files every time.
"""
import argparse

import numpy as np


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lines", type=int, default=2000)
    p.add_argument("--vocab", type=int, default=32000)
    p.add_argument("ragged")
    p.add_argument("dense")
    a = p.parse_args()
    rng = np.random.default_rng(11)
    n = np.clip(np.round(rng.lognormal(np.log(24), 0.8, a.lines)), 1, 384).astype(int)
    n[0] = 384
    ids = rng.integers(1, a.vocab, int(n.sum()))
    with open(a.ragged, "w") as f:
        at = 0
        for k in n:
            f.write(" ".join(map(str, ids[at:at + k])) + "\n")
            at += k
    width = 24
    with open(a.dense, "w") as f:
        for at in range(0, len(ids) - width + 1, width):
            f.write(" ".join(map(str, ids[at:at + width])) + "\n")
    print(f"{a.ragged}: {a.lines} lines, {int(n.sum())} tokens; {a.dense}: "
          f"{len(ids) // width} lines of {width}")


if __name__ == "__main__":
    main()
