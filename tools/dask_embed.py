#!/usr/bin/env python3
"""Embed one long sequence across a Dask cluster, split into position ranges.

    PYTHONPATH=build/python python3 tools/dask_embed.py --seq-len N [--d-model 512] \\
        [--vocab 32000] [--pe-mode on_the_fly|cached|auto] [--max-len 4096] \\
        [--ranges K] [--out-dir OUT] [--check] [--workers 2 | --scheduler ADDRESS]

The sequence is the one `phasor embed --seq-len N` embeds (the same random
tokens, token table and PE; phasor.RandomSequence). Each worker builds it once,
then embeds whole ranges of positions: a range starts at its own position, and
since PE depends on the position alone, the rows are the same bits as one pass
over the sequence. Each range's rows go to OUT/range_NNNNN.npy (with --out-dir;
the ranges and index.json of an earlier run there are removed first) and
their SHA-256 back to the client; sizes are read as the CLI reads them
(--seq-len 100K: K = 1024, M = 1024^2); --check runs `phasor embed ... --output`
once on this machine and compares every range with its rows, bit for bit.
"""
import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dask_cluster  # noqa: E402  (beside this file)

DEFAULT_CLI = Path(__file__).resolve().parent.parent / "build" / "bin" / "phasor"


def make_sequence(d_model, vocab, pe_mode, max_len):
    import phasor
    return phasor.RandomSequence(d_model=d_model, vocab=vocab, pe_mode=pe_mode, max_len=max_len)


def embed_range(start, length, out_path):
    """On a worker: rows start .. start+length-1 of the worker's sequence; their SHA-256,
    and with out_path a .npy of them."""
    import phasor
    try:
        rows = dask_cluster.state().embed(start, length)
    except phasor.Error as e:  # returned, not raised: no failure dump in the worker's log
        return {"error": str(e)}
    if out_path:
        with dask_cluster.output_file(out_path) as temp, open(temp, "wb") as f:
            np.save(f, rows)
    return {"start": start, "length": length, "sha256": hashlib.sha256(rows.tobytes()).hexdigest(),
            "file": Path(out_path).name if out_path else None,
            "worker": dask_cluster.get_worker().address}


def check_against_cli(args, max_len, results):
    """Runs phasor embed --output once and compares each range's digest with its rows.
    Returns the number of ranges that differ."""
    with tempfile.TemporaryDirectory() as tmp:
        ref = Path(tmp) / "embed.npy"
        cmd = [str(args.phasor), "embed", "--seq-len", str(args.seq_len), "--d-model",
               str(args.d_model), "--vocab", str(args.vocab), "--pe-mode", args.pe_mode,
               "--max-len", str(max_len), "--output", str(ref), "--json"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, timeout=args.timeout)
        rows = np.load(ref, mmap_mode="r")
        differ = 0
        for r in results:
            piece = np.ascontiguousarray(rows[r["start"]:r["start"] + r["length"]])
            if hashlib.sha256(piece.tobytes()).hexdigest() != r["sha256"]:
                differ += 1
                print(f"dask_embed: range {r['start']}..{r['start'] + r['length'] - 1} differs "
                      "from phasor embed", file=sys.stderr)
        print(f"dask_embed: check: {' '.join(cmd[1:])}: {len(results) - differ} of "
              f"{len(results)} ranges bit for bit equal")
        return differ


def main(argv=None):
    p = dask_cluster.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    size = dask_cluster.parse_size
    p.add_argument("--seq-len", type=size, required=True,
                   help="tokens in the sequence, e.g. 100000 or 100K (K = 1024, M = 1024^2)")
    p.add_argument("--d-model", type=size, default=512)
    p.add_argument("--vocab", type=size, default=32000)
    p.add_argument("--pe-mode", choices=["on_the_fly", "cached", "auto"], default="on_the_fly")
    p.add_argument("--max-len", type=size, default=4096,
                   help="rows of the PE table in mode auto (cached: --seq-len), as phasor embed")
    p.add_argument("--ranges", type=int, default=0,
                   help="position ranges (default: 4 per worker)")
    p.add_argument("--out-dir", help="write each range's rows and index.json here")
    p.add_argument("--check", action="store_true",
                   help="compare every range with a single-process phasor embed --output")
    p.add_argument("--phasor", default=str(DEFAULT_CLI),
                   help=f"the phasor CLI for --check (default {DEFAULT_CLI})")
    dask_cluster.add_cluster_arguments(p)
    args = p.parse_args(argv)
    if args.seq_len < 1:
        p.error("--seq-len must be >= 1")
    if args.check and args.seq_len * args.d_model > 2**28:
        p.error("--check compares with phasor embed --output, which holds at most 2^28 values: "
                f"--seq-len x --d-model is {args.seq_len * args.d_model}")
    max_len = args.seq_len if args.pe_mode == "cached" else args.max_len
    out_dir = Path(args.out_dir).resolve() if args.out_dir else None
    if out_dir and dask_cluster.prepare_out_dir(out_dir, args.out_dir, "range_*.npy"):
        return 1

    def work(client, workers):
        k = args.ranges or 4 * workers
        cuts = [args.seq_len * i // k for i in range(k + 1)]
        futures = [client.submit(embed_range, a, b - a,
                                 str(out_dir / f"range_{i:05d}.npy") if out_dir else None,
                                 pure=False)
                   for i, (a, b) in enumerate(zip(cuts, cuts[1:])) if b > a]
        return dask_cluster.gather(client, futures, args.timeout)

    ran = dask_cluster.run_on_cluster(args, make_sequence,
                                      (args.d_model, args.vocab, args.pe_mode, max_len), work)
    if isinstance(ran, int):
        return ran
    results, workers, threads, seconds = ran
    used = sorted({r["worker"] for r in results})
    print(f"dask_embed: {args.seq_len} tokens x d_model {args.d_model} ({args.pe_mode}) in "
          f"{len(results)} ranges on {len(used)} of {workers} workers ({threads} threads each), "
          f"{seconds:.2f} s")
    if out_dir:
        index = {"seq_len": args.seq_len, "d_model": args.d_model, "vocab": args.vocab,
                 "pe_mode": args.pe_mode, "max_len": max_len, "dtype": "float32",
                 "ranges": [{"file": r["file"], "start": r["start"], "length": r["length"],
                             "sha256": r["sha256"]} for r in results]}
        with dask_cluster.output_file(out_dir / "index.json") as temp:
            Path(temp).write_text(json.dumps(index, indent=1) + "\n")
    if args.check:
        try:
            if check_against_cli(args, max_len, results):
                return 1
        except (OSError, subprocess.SubprocessError) as e:
            return dask_cluster.fail(f"the check could not run: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(dask_cluster.run_main(main))
