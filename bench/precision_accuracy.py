#!/usr/bin/env python3
"""How far encoder outputs are from PyTorch's float32, per precision and engine.

For a model directory and token ids it computes the reference: the same
weights in PyTorch (``nn.TransformerEncoder`` in eval mode, float32, built as
tools/export_onnx.py builds it). Then, for each output to judge, it prints the
minimum over tokens of the cosine similarity between the output's row and the
reference's row, and the largest absolute difference, as a table and then as
JSON lines (one object per output; ``grep '^{'`` keeps them).

Outputs are files given as ``[LABEL=]FILE``: ``phasor encode --output`` NPY
files, or the raw float32 ``[batch, seq, d_model]`` that ``bench/ort_compare.mjs
--output`` writes (any name not ending in .npy). With ``--phasor BIN`` the
script also runs ``phasor encode`` itself, once per ``--precision``; a
precision that phasor rejects with a usage error is skipped with a note::

    bench/precision_accuracy.py --model /tmp/phasor-ort/d512 \\
        --tokens-file /tmp/phasor-ort/d512/tokens_1x512.txt \\
        --phasor build/bin/phasor --precision "fp32 int8" \\
        "ort fp32=/tmp/phasor-ort/d512/ort_fp32.f32" \\
        "ort int8=/tmp/phasor-ort/d512/ort_int8.f32"

With ``--golden [DIR]`` (default tests/data/golden) it runs phasor on every
golden case instead and compares with the case's expected.npy, PyTorch's
float32 output stored by tests/data/make_golden.py (padded positions left out);
that mode needs numpy only.

Token lines may be ragged when the model has a pad_token_id: phasor pads and
masks them, the reference runs each line alone, and padded positions are left
out. Needs numpy, and torch for --model (Debian python3-torch, python3-numpy).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_tokens(text: str) -> list:
    """One sequence a line, ids separated by spaces or commas (as phasor reads them)."""
    lines = [ln.replace(",", " ").split() for ln in text.splitlines()]
    return [[int(t) for t in ln] for ln in lines if ln]


def real_lengths(sequences: list, pad_token_id) -> list:
    """Tokens of each line that are not padding (trailing pad ids are padding)."""
    out = []
    for s in sequences:
        n = len(s)
        while pad_token_id is not None and n > 0 and s[n - 1] == pad_token_id:
            n -= 1
        out.append(n)
    return out


def torch_reference(model_dir: str, sequences: list) -> tuple:
    """PyTorch float32 output [batch, seq, d_model] (0 at padding) and the lengths."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import torch
    from export_onnx import PhasorEncoder
    from export_torch import read_safetensors

    with open(os.path.join(model_dir, "config.json")) as f:
        config = json.load(f)
    tensors = read_safetensors(os.path.join(model_dir, "model.safetensors"))
    lengths = real_lengths(sequences, config.get("pad_token_id"))
    seq = max(len(s) for s in sequences)
    model = PhasorEncoder(config, tensors, max(max(lengths), 1))
    out = np.zeros((len(sequences), seq, config["d_model"]), np.float32)
    # Grad mode keeps PyTorch off its fused fast path: the plain float32 layers.
    with torch.enable_grad():
        for b, (s, n) in enumerate(zip(sequences, lengths)):
            if n:
                ids = torch.tensor([s[:n]], dtype=torch.long)
                out[b, :n] = model(ids).detach().numpy()[0]
    return out, lengths


def load_output(path: str, shape: tuple) -> np.ndarray:
    """An NPY file, or raw little-endian float32 of the reference's shape."""
    if path.endswith(".npy"):
        a = np.load(path).astype(np.float32)
    else:
        a = np.fromfile(path, "<f4")
        if a.size != np.prod(shape):
            raise SystemExit(f"precision_accuracy: {path} holds {a.size} floats, "
                             f"expected {np.prod(shape)} for {list(shape)}")
    if a.size != np.prod(shape):
        raise SystemExit(f"precision_accuracy: {path} has shape {list(a.shape)}, "
                         f"expected {list(shape)}")
    return a.reshape(shape)


def compare(out: np.ndarray, ref: np.ndarray, lengths: list) -> dict:
    """Min over real tokens of cos(out row, ref row), and max |out - ref|."""
    valid = np.arange(ref.shape[1])[None, :] < np.array(lengths)[:, None]
    a = out[valid].astype(np.float64)
    r = ref[valid].astype(np.float64)
    dot = (a * r).sum(axis=1)
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(r, axis=1)
    both_zero = (np.linalg.norm(a, axis=1) == 0) & (np.linalg.norm(r, axis=1) == 0)
    cos = np.where(both_zero, 1.0, dot / np.where(norms > 0, norms, 1.0))
    cos = np.where(np.isfinite(a).all(axis=1), cos, np.nan)
    return dict(tokens=int(valid.sum()), min_cosine=float(np.min(cos)),
                max_abs=float(np.abs(a - r).max()))


_rejected = set()  # precisions this phasor answered with a usage error


def run_phasor(phasor: str, model_dir: str, tokens_file: str, precision: str,
               out_path: str) -> bool:
    """phasor encode with that precision into out_path; False on a usage error."""
    if precision in _rejected:
        return False
    cmd = [phasor, "encode", "--model", model_dir, "--tokens-file", tokens_file,
           "--output", out_path]
    if precision != "fp32":  # phasor's default; older builds have no --precision
        cmd += ["--precision", precision]
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode == 2:
        print(f"precision_accuracy: skipping phasor {precision}: {p.stderr.strip()}",
              file=sys.stderr)
        _rejected.add(precision)
        return False
    if p.returncode != 0:
        raise SystemExit(f"precision_accuracy: {' '.join(cmd)} failed: {p.stderr.strip()}")
    return True


def model_rows(args, tmp: str) -> list:
    if args.tokens_file:
        tokens_file = args.tokens_file
        with open(tokens_file) as f:
            sequences = read_tokens(f.read())
    else:
        tokens_file = os.path.join(tmp, "tokens.txt")
        with open(tokens_file, "w") as f:
            f.write(args.tokens + "\n")
        sequences = read_tokens(args.tokens)
    if not sequences:
        raise SystemExit("precision_accuracy: no token ids")
    ref, lengths = torch_reference(args.model, sequences)

    outputs = []  # (label, file to read, file to report: None for phasor's own runs)
    if args.phasor:
        for p in args.precision.split():
            path = os.path.join(tmp, f"phasor_{p}.npy")
            if run_phasor(args.phasor, args.model, tokens_file, p, path):
                outputs.append((f"phasor {p}", path, None))
    for item in args.outputs:
        label, _, path = item.rpartition("=")
        outputs.append((label or os.path.basename(path), path, path))
    if not outputs:
        raise SystemExit("precision_accuracy: nothing to compare (give files or --phasor)")
    return [dict(model=args.model, output=label, file=shown, reference="torch fp32",
                 **compare(load_output(path, ref.shape), ref, lengths))
            for label, path, shown in outputs]


def golden_rows(args, tmp: str) -> list:
    if not args.phasor:
        raise SystemExit("precision_accuracy: --golden needs --phasor")
    with open(os.path.join(args.golden, "manifest.json")) as f:
        cases = json.load(f)["cases"]
    rows = []
    for case in cases:
        d = os.path.join(args.golden, case["name"])
        ref = np.load(os.path.join(d, "expected.npy"))
        for p in args.precision.split():
            path = os.path.join(tmp, f"{case['name']}_{p}.npy")
            if run_phasor(args.phasor, d, os.path.join(d, "tokens.txt"), p, path):
                rows.append(dict(model=case["name"], output=f"phasor {p}", file=None,
                                 reference="golden expected.npy",
                                 **compare(load_output(path, ref.shape), ref,
                                           case["lengths"])))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", help="phasor model directory (the reference runs in torch)")
    src.add_argument("--golden", nargs="?", const=os.path.join(ROOT, "tests/data/golden"),
                     metavar="DIR", help="judge phasor on the golden cases instead")
    ids = ap.add_mutually_exclusive_group()
    ids.add_argument("--tokens-file", metavar="FILE", help="one sequence of ids a line")
    ids.add_argument("--tokens", metavar="IDS", help='one sequence, e.g. "3 14 15"')
    ap.add_argument("--phasor", metavar="BIN", help="run this phasor too (build/bin/phasor)")
    ap.add_argument("--precision", default="fp32", metavar='"fp32 int8"',
                    help="precisions to run phasor at (default fp32)")
    ap.add_argument("outputs", nargs="*", metavar="[LABEL=]FILE",
                    help="outputs to judge: .npy, or raw float32 [batch, seq, d_model]")
    args = ap.parse_args(argv)
    if args.model and not (args.tokens_file or args.tokens):
        ap.error("--model needs --tokens-file or --tokens")
    if args.golden and args.outputs:
        ap.error("--golden judges phasor's own runs; it takes no files")

    with tempfile.TemporaryDirectory(prefix="phasor-accuracy-") as tmp:
        rows = golden_rows(args, tmp) if args.golden else model_rows(args, tmp)

    width = max(len(r["model"]) for r in rows + [dict(model="model")])
    print(f"{'model':{width}} {'output':14} {'reference':20} {'tokens':>7} "
          f"{'min cosine':>11} {'max abs':>9}")
    for r in rows:
        print(f"{r['model']:{width}} {r['output']:14} {r['reference']:20} {r['tokens']:7d} "
              f"{r['min_cosine']:11.7f} {r['max_abs']:9.3g}")
    for r in rows:
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
