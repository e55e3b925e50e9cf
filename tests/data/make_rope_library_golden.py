#!/usr/bin/env python3
"""Golden cos/sin of RoPE's library angles (phasor's --rope-angles library).

Follows the Hugging Face modeling code in float32, step by step, with NumPy's
float32 arithmetic (IEEE single, round to nearest, as torch's on a CPU; + - * /
are exact IEEE operations, the power is correctly rounded, see ladder()):
inv_freq = 1.0 / (base ** (arange(0, r, 2).float() / r)), each scaling's
function (_compute_linear_scaling_rope_parameters, _compute_llama3_parameters,
_compute_yarn_parameters; GTE v1.5's NTKScalingRotaryEmbedding; the NTK-aware
base) in float32 with its Python scalars rounded to float32 where they meet a
float32 tensor, then each angle fl32(fl32(p) * inv_freq), and cos and sin of
that float32 angle (evaluated in float64, rounded once to float32), times the
attention factor in float32 (yarn).

Writes tests/data/rope_library/NAME.npy: float32 [positions, r], cos of every
pair then sin (phasor's Rope::FillCosSin rows), and NAME_inv.npy: float32
[r / 2], the inverse frequencies. The cases and positions are listed in
tests/layers/library_angles_test.cc too.

Run:  /usr/bin/python3 tests/data/make_rope_library_golden.py
"""
import math
import os

import numpy as np

F = np.float32
POSITIONS = [0, 1, 2, 3, 7, 100, 511, 512, 1000, 4095, 8191, 8192, 12345, 16383, 20000,
             32766, 32767, 32768]

# name, base, r, scaling type, scaling parameters
CASES = [
    ("base_10000", 10000.0, 64, "none", {}),
    ("base_160000", 160000.0, 64, "none", {}),
    ("base_1e6", 1e6, 128, "none", {}),
    ("linear", 10000.0, 64, "linear", {"factor": 4.0}),
    ("ntk", 10000.0, 64, "ntk", {"factor": 2.0}),
    ("gte", 160000.0, 64, "gte", {"factor": 2.0}),
    ("llama3", 500000.0, 64, "llama3",
     {"factor": 8.0, "l0": 8192, "low_freq_factor": 1.0, "high_freq_factor": 4.0}),
    ("yarn", 10000.0, 64, "yarn", {"factor": 4.0, "l0": 4096, "beta_fast": 32.0, "beta_slow": 1.0}),
]


def ladder(base, r):
    """pos_freqs = base ** (arange(0, r, 2).float() / r) in float32.

    The power is the correctly rounded float32 (float64 pow rounded once), as
    glibc's powf gives on every entry here; NumPy's own float32 power (SVML on
    AVX-512 CPUs) is off by one ulp in some entries, so it is not used."""
    exponent = np.arange(0, r, 2, dtype=np.int64).astype(F) / F(r)
    return (np.float64(F(base)) ** exponent.astype(np.float64)).astype(F)


def inv_freq(base, r, kind, p):
    if kind == "ntk":
        base = base * p["factor"] ** (r / (r - 2))  # Python double
    if kind == "gte":
        base = base * p["factor"]
    if kind == "yarn":
        return yarn(base, r, p)
    inv = (F(1.0) / ladder(base, r)).astype(F)
    if kind == "linear":
        inv = (inv / F(p["factor"])).astype(F)
    if kind == "gte":
        inv = (inv / F(p["factor"] ** (2 / r))).astype(F)
    if kind == "llama3":
        inv = llama3(inv, p)
    return inv


def llama3(inv, p):
    factor, l0 = p["factor"], p["l0"]
    lff, hff = p["low_freq_factor"], p["high_freq_factor"]
    low_wavelen, high_wavelen = F(l0 / lff), F(l0 / hff)
    wavelen = (F(2 * math.pi) / inv).astype(F)
    llama = np.where(wavelen > low_wavelen, (inv / F(factor)).astype(F), inv).astype(F)
    smooth = ((F(l0) / wavelen - F(lff)) / F(hff - lff)).astype(F)
    smoothed = ((F(1) - smooth) * llama / F(factor) + smooth * llama).astype(F)
    medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
    return np.where(medium, smoothed, llama).astype(F)


def yarn(base, r, p):
    factor, l0 = p["factor"], p["l0"]

    def corr(rotations):
        return (r * math.log(l0 / (rotations * 2 * math.pi))) / (2 * math.log(base))

    low = max(math.floor(corr(p["beta_fast"])), 0)
    high = min(math.ceil(corr(p["beta_slow"])), r - 1)
    if low == high:
        high += 0.001
    pos_freqs = ladder(base, r)
    extrapolation = (F(1.0) / pos_freqs).astype(F)
    interpolation = (F(1.0) / (F(factor) * pos_freqs)).astype(F)
    ramp = np.clip((np.arange(r // 2, dtype=F) - F(low)) / F(high - low), F(0), F(1)).astype(F)
    extrapolation_factor = (F(1) - ramp).astype(F)
    return (interpolation * (F(1) - extrapolation_factor) +
            extrapolation * extrapolation_factor).astype(F)


def attention_factor(kind, p):
    if kind != "yarn" or p["factor"] <= 1:
        return 1.0
    return 0.1 * math.log(p["factor"]) + 1.0


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rope_library")
    os.makedirs(out, exist_ok=True)
    pos = np.array(POSITIONS, dtype=np.int64).astype(F)
    for name, base, r, kind, p in CASES:
        inv = inv_freq(base, r, kind, p)
        angle = np.outer(pos, inv).astype(F)  # [positions, r / 2]: fl32(fl32(p) * inv)
        af = F(attention_factor(kind, p))
        cos = np.cos(angle.astype(np.float64)).astype(F)
        sin = np.sin(angle.astype(np.float64)).astype(F)
        if af != F(1):
            cos, sin = (cos * af).astype(F), (sin * af).astype(F)
        np.save(os.path.join(out, name + ".npy"), np.concatenate([cos, sin], axis=1))
        np.save(os.path.join(out, name + "_inv.npy"), inv)
    print("wrote", len(CASES), "cases to", out)


if __name__ == "__main__":
    main()
