#!/usr/bin/env python3
"""How far the rotary angles of the models' own libraries are from the exact ones.

The Hugging Face modeling files compute inv_freq = 1 / base^(2i/d) in float32 and
the angle position · inv_freq in float32 (torch.outer of two float32 tensors);
phasor computes position × frequency in higher precision and rounds the angle's
cos and sin once. This prints, for each model's rotary base and head width, the
largest |float32 angle - exact angle| (radians) over positions 0 .. N - 1 for
N = 512, 8,192 and 32,768, and the same for cos and sin, which is what reaches
q and k. float32 arithmetic is NumPy's (IEEE single, round to nearest), as
torch's on a CPU; the reference angle is position · base^(-2i/d) in float64,
whose own error (below 1e-11 rad at 32,768) is far below what is shown.

Run:  /usr/bin/python3 bench/rope_angles.py
"""
import numpy as np

MODELS = [  # name, rotary base, rotated dimensions of a head
    ("nomic-embed-text v1.5", 1000.0, 64),
    ("GTE v1.5 base", 500000.0, 64),
    ("GTE v1.5 large", 160000.0, 64),
    ("ModernBERT global", 160000.0, 64),
    ("ModernBERT local", 10000.0, 64),
    ("Qwen3-Embedding", 1000000.0, 128),
    ("EmbeddingGemma global", 1000000.0, 256),
    ("EmbeddingGemma local", 10000.0, 256),
]


def worst(base, dim, n):
    exponents = np.arange(0, dim, 2, dtype=np.float32) / np.float32(dim)
    inv32 = (np.float32(1.0) / (np.float32(base) ** exponents)).astype(np.float32)
    inv64 = base ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)
    pos = np.arange(n, dtype=np.float32)
    angle32 = np.outer(pos, inv32).astype(np.float32).astype(np.float64)
    exact = np.outer(pos.astype(np.float64), inv64)
    d = np.abs(angle32 - exact).max()
    trig = max(np.abs(np.cos(angle32) - np.cos(exact)).max(),
               np.abs(np.sin(angle32) - np.sin(exact)).max())
    return d, trig


def main():
    print("| model | base | dims | angle error at 512 | 8,192 | 32,768 | cos/sin error at 512 | 8,192 | 32,768 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, base, dim in MODELS:
        rows = [worst(base, dim, n) for n in (512, 8192, 32768)]
        print(f"| {name} | {base:g} | {dim} | " + " | ".join(f"{a:.2g}" for a, _ in rows) + " | "
              + " | ".join(f"{t:.2g}" for _, t in rows) + " |")


if __name__ == "__main__":
    main()
