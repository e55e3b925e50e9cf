#!/usr/bin/env python3
"""Writes the benchmarks' text: lines generated from the word pools of
tests/data/tokenizers/make_corpus.py (a dozen scripts, numbers, punctuation,
emoji; fixed seed), the hard-case pools left out (and Greek, whose capital sigma
the JavaScript port lowercases with the final-sigma rule), until --mb megabytes.

    /usr/bin/python3 bench/tokenize_text.py --mb 5 --out text.txt
"""
import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "data" / "tokenizers"))
import make_corpus as mc  # noqa: E402

p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("--mb", type=float, required=True)
p.add_argument("--out", required=True)
args = p.parse_args()
for pool in ("odd", "special", "el"):
    mc.POOL_WEIGHTS.pop(pool)
rng = random.Random(7)
limit = args.mb * 1e6
size, lines = 0, []
while size < limit:
    line = mc.generated_line(rng, allow_tab=False).strip(" ")
    lines.append(line)
    size += len(line.encode("utf-8")) + 1
with open(args.out, "w", encoding="utf-8", newline="") as f:
    f.write("".join(line + "\n" for line in lines))
