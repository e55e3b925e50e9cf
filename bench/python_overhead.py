#!/usr/bin/env python3
"""What Python costs: the toy model on a batch of 8 x 128 tokens through
phasor.Model.encode against `phasor encode --repeat`'s median, and two Python
threads sharing one model (one compute thread each) against the same two
encodes one after the other.

    PYTHONPATH=build/python python3 bench/python_overhead.py [--repeat 50] [--json]

Targets: Python within 5% of the CLI's median; two threads
under 0.75x the sequential time on 2 cores, with identical results. A
benchmark, not a test: run it on a quiet machine.
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

import phasor

DEFAULT_CLI = Path(__file__).resolve().parent.parent / "build" / "bin" / "phasor"


def median_seconds(fn, repeat):
    fn()  # warm-up: the workspace, the caches
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def two_threads(model, batches):
    """Both batches encoded at once, one Python thread each; returns the outputs."""
    outs = [None, None]

    def work(k):
        outs[k] = model.encode(batches[k])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outs


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq", type=int, default=128)
    p.add_argument("--repeat", type=int, default=50)
    p.add_argument("--threads", type=int, default=0, help="compute threads (0: all cores)")
    p.add_argument("--phasor", default=str(DEFAULT_CLI))
    p.add_argument("--json", action="store_true")
    a = p.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        toy = Path(tmp) / "toy"
        subprocess.run([a.phasor, "make-toy", "--out", str(toy)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        model = phasor.Model(toy)
        rng = np.random.default_rng(0)
        ids = rng.integers(0, model.vocab_size, size=(a.batch, a.seq), dtype=np.int32)
        tokens = Path(tmp) / "tokens.txt"
        tokens.write_text("\n".join(" ".join(map(str, row)) for row in ids) + "\n")

        # The CLI's median over --repeat runs of the encoder alone, and Python's, on the
        # same ids and thread count, alternated three times; the best of each.
        cli, py = [], []
        phasor.set_num_threads(a.threads)
        for _ in range(3):
            out = subprocess.run([a.phasor, "encode", "--model", str(toy), "--tokens-file",
                                  str(tokens), "--threads", str(a.threads), "--repeat",
                                  str(a.repeat), "--json"], check=True, capture_output=True,
                                 text=True).stdout
            cli.append(json.loads(out)["seconds"])
            py.append(median_seconds(lambda: model.encode(ids), a.repeat))
        cli_s, py_s = min(cli), min(py)

        # Two Python threads on one model, one compute thread per call.
        phasor.set_num_threads(1)
        batches = [ids, rng.integers(0, model.vocab_size, size=ids.shape, dtype=np.int32)]
        want = [model.encode(b) for b in batches]
        seq_s = median_seconds(lambda: [model.encode(b) for b in batches], a.repeat)
        par_s = median_seconds(lambda: two_threads(model, batches), a.repeat)
        same = all(np.array_equal(o, w) for o, w in zip(two_threads(model, batches), want))

    result = {"batch": a.batch, "seq": a.seq, "repeat": a.repeat, "threads": a.threads,
              "cli_seconds": cli_s, "python_seconds": py_s, "python_over_cli": py_s / cli_s,
              "sequential_two_seconds": seq_s, "two_threads_seconds": par_s,
              "two_threads_over_sequential": par_s / seq_s, "two_threads_identical": same}
    if a.json:
        print(json.dumps(result))
    else:
        print(f"toy model, {a.batch} x {a.seq} tokens, median of {a.repeat}, best of 3 rounds")
        print(f"  phasor encode      {cli_s * 1e3:8.3f} ms")
        print(f"  phasor.Model.encode{py_s * 1e3:8.3f} ms  ({py_s / cli_s:.3f}x)")
        print(f"  set_num_threads(1): two encodes one after the other {seq_s * 1e3:8.3f} ms, "
              f"in two Python threads {par_s * 1e3:8.3f} ms ({par_s / seq_s:.3f}x), "
              f"results {'identical' if same else 'DIFFERENT'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
