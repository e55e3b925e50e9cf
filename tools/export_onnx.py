#!/usr/bin/env python3
"""Export a phasor model directory to ONNX, for timing ONNX Runtime on the same weights.

The graph takes ``input_ids`` int64 [batch, seq] and returns ``hidden`` float32
[batch, seq, d_model]: the embedding, the positional table (sinusoidal or
learned, as a constant of ``--max-seq`` rows sliced to seq), the layers of
PyTorch's ``nn.TransformerEncoderLayer`` in eval mode, and the final norm if the
config has one. Batch and seq are dynamic. No padding mask: the benchmark runs
full batches.

Needs torch and numpy (Debian ``python3-torch``)::

    /usr/bin/python3 tools/export_onnx.py --model /tmp/m --out /tmp/m/model.onnx

With ``--check-tokens "3 14 15"`` it also runs PyTorch on that sequence and
writes the result to ``--check-output`` (NPY), to compare with ``phasor encode
--output``. bench/ort_compare.sh uses both.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_torch import read_safetensors, sinusoidal_table  # noqa: E402


class PhasorEncoder(nn.Module):
    """phasor's encoder as one torch module: ids [batch, seq] -> [batch, seq, d_model]."""

    def __init__(self, config: dict, tensors: dict, max_seq: int):
        super().__init__()
        d_model = config["d_model"]
        self.scale = math.sqrt(d_model) if config.get("scale_embedding", False) else 1.0
        self.embedding = nn.Embedding(config["vocab_size"], d_model)
        pos = config.get("positional", {})
        kind = pos.get("kind", "sinusoidal")
        offset = pos.get("offset", 0)
        positions = torch.arange(max_seq) + offset
        if kind == "sinusoidal":
            pe = sinusoidal_table(positions, d_model, pos.get("base", 10000.0),
                                  pos.get("layout", "interleaved"),
                                  pos.get("denominator", "d_model")).to(torch.float32)
        elif kind == "learned":
            pe = torch.from_numpy(tensors["positional.weight"])[offset:offset + max_seq]
        elif kind == "none":
            pe = torch.zeros(max_seq, d_model)
        else:
            raise SystemExit(f"export_onnx: positional kind '{kind}' has no ONNX export here")
        self.register_buffer("pe", pe.contiguous())
        layer = nn.TransformerEncoderLayer(
            d_model, config["n_heads"], config["d_ff"], dropout=0.0,
            activation=config.get("activation", "relu"),
            layer_norm_eps=config.get("layer_norm_eps", 1e-5), batch_first=True,
            norm_first=config.get("norm_first", False))
        norm = nn.LayerNorm(d_model, eps=config.get("layer_norm_eps", 1e-5)) \
            if config.get("final_norm", False) else None
        self.encoder = nn.TransformerEncoder(layer, config["n_layers"], norm=norm,
                                             enable_nested_tensor=False)
        state = {"embedding.weight": tensors["embedding.weight"]}
        for name, value in tensors.items():
            if name.startswith("layers.") or name.startswith("norm."):
                state["encoder." + name] = value
        missing, unexpected = self.load_state_dict(
            {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in state.items()},
            strict=False)
        missing = [m for m in missing if m != "pe"]
        if missing or unexpected:
            raise SystemExit(f"export_onnx: missing {missing}, unexpected {unexpected}")
        self.eval()

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.embedding(ids) * self.scale + self.pe[:ids.shape[1]].unsqueeze(0)
        return self.encoder(x)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="phasor model directory")
    ap.add_argument("--out", required=True, help="ONNX file to write")
    ap.add_argument("--max-seq", type=int, default=0,
                    help="rows of the positional table in the graph (default: max_len)")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--check-tokens", metavar="IDS", help="ids of one sequence to run in torch")
    ap.add_argument("--check-output", metavar="FILE.npy", help="where to write torch's output")
    args = ap.parse_args(argv)

    with open(os.path.join(args.model, "config.json")) as f:
        config = json.load(f)
    tensors = read_safetensors(os.path.join(args.model, "model.safetensors"))
    max_seq = args.max_seq or config.get("positional", {}).get("max_len", 4096)
    model = PhasorEncoder(config, tensors, max_seq)

    ids = torch.randint(1, config["vocab_size"], (2, 7), dtype=torch.long)
    # Grad mode with requires-grad parameters keeps PyTorch off its fused fast
    # path (aten::_transformer_encoder_layer_fwd), which has no ONNX export.
    with torch.enable_grad():
        torch.onnx.export(model, (ids,), args.out, input_names=["input_ids"],
                          output_names=["hidden"], opset_version=args.opset,
                          dynamic_axes={"input_ids": {0: "batch", 1: "seq"},
                                        "hidden": {0: "batch", 1: "seq"}},
                          do_constant_folding=True)
    print(f"export_onnx: wrote {args.out}", file=sys.stderr)

    if args.check_tokens:
        seq_ids = [int(t) for t in args.check_tokens.replace(",", " ").split()]
        with torch.enable_grad():  # the exact (non-fast-path) kernels, as exported
            y = model(torch.tensor([seq_ids], dtype=torch.long)).detach().numpy()
        np.save(args.check_output or args.out + ".check.npy", y)
    return 0


if __name__ == "__main__":
    sys.exit(main())
