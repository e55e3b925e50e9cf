#!/usr/bin/env python3
"""Writes model.safetensors beside a folder's pytorch_model.bin, for phasor.

    /usr/bin/python3 tools/convert_bin_to_safetensors.py MODEL_DIR

phasor reads safetensors only: a .bin file is a Python pickle, which can run
code when loaded. This script loads it with torch.load(weights_only=True) (the
tensors alone, no code; Debian's python3-torch), keeps every floating-point
tensor in its own dtype (F32, F16 or BF16) under its own name, and writes
MODEL_DIR/model.safetensors complete or not at all (a temporary file renamed).
Shared storage (tied weights) is written once per name.
"""
import json
import os
import struct
import sys

import torch

DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16"}


def main(argv):
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    folder = argv[1]
    source = os.path.join(folder, "pytorch_model.bin")
    state = torch.load(source, map_location="cpu", weights_only=True)
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(state):
        t = state[name]
        if t.dtype not in DTYPES:
            continue  # integer buffers such as position_ids
        raw = t.contiguous().view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":"))
    text += " " * ((8 - len(text) % 8) % 8)
    target = os.path.join(folder, "model.safetensors")
    temp = os.path.join(folder, f".model.safetensors.{os.getpid()}.partial")
    try:
        with open(temp, "wb") as f:
            f.write(struct.pack("<Q", len(text)) + text.encode())
            for raw in blobs:
                f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, target)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)
    print(f"wrote {target}: {len(blobs)} tensors")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
