#!/usr/bin/env python3
"""Real tokens per second on a corpus-like ragged batch, side by side in one run.

    PYTHONPATH=build/python python3 bench/ragged.py [--model DIR] [--rounds 5]

Lines drawn log-normal (median 24 tokens, one line of 384), 64 of them, encoded three
ways, rounds alternating: the ragged list in one call (packed rows), each line alone (one
call each), and a dense batch of equal lines with the same number of real tokens. Prints
the medians and the two ratios. Without --model: a d512/8h/6L/ff2048 model of random
weights (vocab 32000), written by `phasor make-toy` into a temporary directory.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import phasor


def corpus_lengths(rng, lines=64, median=24, longest=384):
    n = np.clip(np.round(rng.lognormal(np.log(median), 0.8, lines - 1)), 1, longest).astype(int)
    return [longest] + n.tolist()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--padded", action="store_true",
                   help="give the ragged batch as a padded array with lengths")
    p.add_argument("--cli", default=str(Path(__file__).resolve().parents[1] / "build/bin/phasor"))
    args = p.parse_args()
    tmp = None
    if args.model is None:
        tmp = tempfile.TemporaryDirectory()
        args.model = os.path.join(tmp.name, "d512")
        subprocess.run([args.cli, "make-toy", "--out", args.model, "--vocab", "32000",
                        "--d-model", "512", "--n-heads", "8", "--n-layers", "6", "--d-ff", "2048"],
                       check=True, capture_output=True)
    model = phasor.Model(args.model)
    rng = np.random.default_rng(7)
    lengths = corpus_lengths(rng)
    lines = [rng.integers(1, model.vocab_size, n).astype(np.int32) for n in lengths]
    total = sum(lengths)
    dense_len = int(round(np.median(lengths)))
    dense = rng.integers(1, model.vocab_size, (total // dense_len, dense_len)).astype(np.int32)

    padded = np.zeros((len(lines), max(lengths)), dtype=np.int32)
    for b, line in enumerate(lines):
        padded[b, :len(line)] = line

    def ragged():
        if args.padded:  # a padded array with lengths, as a user of a padding engine has it
            model.encode(padded, lengths=lengths)
        else:
            model.encode(lines)
        return total

    def one_per_call():
        for line in lines:
            model.encode(line)
        return total

    def dense_batch():
        model.encode(dense)
        return dense.size

    ways = {"ragged batch, one call": ragged, "one line per call": one_per_call,
            "dense batch": dense_batch}
    rates = {k: [] for k in ways}
    for fn in ways.values():
        fn()  # warm up
    for _ in range(args.rounds):
        for name, fn in ways.items():
            t0 = time.perf_counter()
            tokens = fn()
            rates[name].append(tokens / (time.perf_counter() - t0))
    print(f"model {args.model}: d_model {model.d_model}, {model.n_layers} layers; "
          f"{len(lines)} lines, {total} real tokens (median {int(np.median(lengths))}, longest "
          f"{max(lengths)}); dense {dense.shape[0]} x {dense.shape[1]}; threads "
          f"{phasor.get_num_threads()}; {args.rounds} rounds")
    med = {k: statistics.median(v) for k, v in rates.items()}
    for name, r in med.items():
        print(f"  {name:24s} {r:10.0f} real tokens/s (median)")
    print(f"  ragged / one per call    {med['ragged batch, one call'] / med['one line per call']:.2f}x")
    print(f"  ragged / dense           {med['ragged batch, one call'] / med['dense batch']:.2f}x")


if __name__ == "__main__":
    sys.exit(main())
