"""PE and RoPE rows, and phasor embed's sequence, against the CLI (bit for bit) and
against formulas in float64 NumPy (independent of the C++ code)."""
import numpy as np
import pytest

import phasor
from conftest import assert_same_bits, run_cli

PE_TOL = 2e-6  # the contract: every value within 2e-6 of the exact formula below 2^24


def cli_rows(tmp_path, *args):
    path = tmp_path / "rows.npy"
    run_cli("pe", *args, "--output", path)
    return np.load(path)


@pytest.mark.parametrize("d_model,length,start,layout,denominator,mode", [
    (64, 100, 0, "interleaved", "d_model", "on_the_fly"),
    (64, 37, 1000003, "split", "half_minus_one", "on_the_fly"),
    (32, 50, 10, "interleaved", "half_minus_one", "cached"),
    (128, 40, 4090, "split", "d_model", "auto"),  # across the end of the auto table
])
def test_positional_encoding_is_phasor_pe(tmp_path, d_model, length, start, layout, denominator,
                                          mode):
    got = phasor.positional_encoding(d_model, length, start=start, layout=layout,
                                     denominator=denominator, mode=mode,
                                     max_len=max(4096, start + length) if mode == "cached"
                                     else 4096)
    want = cli_rows(tmp_path, "--d-model", d_model, "--length", length, "--start", start,
                    "--layout", layout, "--denominator", denominator, "--mode", mode)
    assert_same_bits(got, want)


def pe_formula(d_model, positions, base=10000.0, layout="interleaved", denominator="d_model"):
    i = np.arange(d_model // 2, dtype=np.float64)
    denom = d_model / 2 if denominator == "d_model" else d_model / 2 - 1
    freq = base ** (-i / denom)
    angle = np.asarray(positions, dtype=np.float64)[:, None] * freq
    out = np.empty((len(positions), d_model))
    if layout == "interleaved":
        out[:, 0::2], out[:, 1::2] = np.sin(angle), np.cos(angle)
    else:
        out[:, :d_model // 2], out[:, d_model // 2:] = np.sin(angle), np.cos(angle)
    return out


@pytest.mark.parametrize("layout,denominator", [("interleaved", "d_model"),
                                                ("split", "half_minus_one")])
def test_positional_encoding_formula(layout, denominator):
    for start in (0, 12345, (1 << 24) - 64):
        got = phasor.positional_encoding(96, 64, start=start, layout=layout,
                                         denominator=denominator, base=500.0)
        want = pe_formula(96, np.arange(start, start + 64), 500.0, layout, denominator)
        assert np.isfinite(got).all()
        assert np.max(np.abs(got - want)) <= PE_TOL


@pytest.mark.parametrize("args,kwargs", [
    ([], {}),
    (["--layout", "interleaved", "--rotary-dim", "16"], {"layout": "interleaved", "rotary_dim": 16}),
    (["--base", "500"], {"base": 500.0}),
    (["--scaling", "linear", "--factor", "4"], {"scaling": {"type": "linear", "factor": 4.0}}),
    (["--scaling", "ntk", "--factor", "2"], {"scaling": {"type": "ntk", "factor": 2}}),
    (["--scaling", "dynamic", "--factor", "2", "--original-max-len", "64"],
     {"scaling": {"type": "dynamic", "factor": 2, "original_max_len": 64}}),
    (["--scaling", "yarn", "--factor", "8", "--beta-fast", "16"],
     {"scaling": {"type": "yarn", "factor": 8, "beta_fast": 16}}),
    (["--scaling", "llama3", "--factor", "8", "--original-max-len", "512"],
     {"scaling": {"type": "llama3", "factor": 8, "original_max_len": 512}}),
])
def test_rope_rows_is_phasor_pe_kind_rope(tmp_path, args, kwargs):
    for start in (0, 70000):
        got = phasor.rope_rows(32, 100, start=start, **kwargs)
        want = cli_rows(tmp_path, "--kind", "rope", "--d-model", 32, "--length", 100,
                        "--start", start, *args)
        assert_same_bits(got, want)


def test_rope_rows_formula():
    # Layout half: cos of every pair in dims 0..r/2-1, sin in r/2..r-1.
    got = phasor.rope_rows(16, 50, start=1000)
    inv = 10000.0 ** (-np.arange(8) * 2 / 16)
    angle = np.arange(1000, 1050, dtype=np.float64)[:, None] * inv
    want = np.concatenate([np.cos(angle), np.sin(angle)], axis=1)
    assert got.shape == (50, 16)
    assert np.isfinite(got).all() and np.max(np.abs(got - want)) <= PE_TOL
    # Linear scaling divides every inverse frequency by the factor.
    got = phasor.rope_rows(16, 50, start=1000, scaling={"type": "linear", "factor": 4.0})
    want = np.concatenate([np.cos(angle / 4), np.sin(angle / 4)], axis=1)
    assert np.max(np.abs(got - want)) <= PE_TOL


def splitmix_ids(j, vocab):
    """tools' RandomTokenId in NumPy: splitmix64(j) mod vocab."""
    with np.errstate(over="ignore"):
        z = np.asarray(j, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    return (z % np.uint64(vocab)).astype(np.int64)


@pytest.mark.parametrize("mode", ["on_the_fly", "cached", "auto"])
def test_random_sequence_is_phasor_embed(tmp_path, mode):
    n, d, vocab = 3000, 64, 500
    path = tmp_path / "embed.npy"
    run_cli("embed", "--seq-len", n, "--d-model", d, "--vocab", vocab, "--pe-mode", mode,
            "--max-len", 1000, "--chunk", 700, "--output", path)
    want = np.load(path)
    seq = phasor.RandomSequence(d_model=d, vocab=vocab, pe_mode=mode,
                                max_len=n if mode == "cached" else 1000)
    # Pieces that do not line up with the CLI's chunks, made in reverse order.
    cuts = [0, 1, 17, 999, 1000, 1601, 2999, n]
    pieces = [seq.embed(a, b - a) for a, b in reversed(list(zip(cuts, cuts[1:])))]
    assert_same_bits(np.concatenate(pieces[::-1]), want)
    assert_same_bits(seq.embed(0, n), want)


def test_random_sequence_formula():
    d, vocab = 32, 100
    seq = phasor.RandomSequence(d_model=d, vocab=vocab)
    start, n = 5000, 200
    ids = seq.token_ids(start, n)
    assert ids.dtype == np.int32
    assert (ids == splitmix_ids(np.arange(start, start + n), vocab)).all()
    k = np.arange(vocab * d)
    table = ((splitmix_ids(k, 2001) - 1000).astype(np.float32) * np.float32(1e-4)).reshape(vocab, d)
    want = table[ids].astype(np.float64) + pe_formula(d, np.arange(start, start + n))
    got = seq.embed(start, n)
    assert np.isfinite(got).all() and np.max(np.abs(got - want)) <= 1e-5
