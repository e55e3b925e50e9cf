"""Encoding through Python against the CLI (bit for bit) and PyTorch (golden files)."""
import json

import numpy as np
import pytest

import phasor
from conftest import GOLDEN_DIR, assert_same_bits, read_tokens, run_cli

CASES = [c["name"] for c in json.loads((GOLDEN_DIR / "manifest.json").read_text())["cases"]]
OUTPUT_TOL = 1e-4      # the contract's parity bound against PyTorch
EMBEDDING_TOL = 1e-5   # PE within 2e-6 plus the float rounding of scaled rows


def test_every_case_is_found():
    assert len(CASES) >= 10
    for name in CASES:
        assert (GOLDEN_DIR / name / "expected.npy").is_file(), name


def max_abs_on_real_tokens(got, want, lengths):
    assert got.shape == want.shape
    err = 0.0
    for b, n in enumerate(lengths):
        err = max(err, float(np.max(np.abs(got[b, :n].astype(np.float64) - want[b, :n]))))
    return err


@pytest.mark.parametrize("name", CASES)
def test_golden_case(name, tmp_path):
    case = GOLDEN_DIR / name
    model = phasor.Model(case)
    ids, lengths = read_tokens(case / "tokens.txt", model.pad_token_id)
    out = model.encode(ids, lengths)
    emb = model.encode(ids, lengths, stage="embeddings")
    assert out.shape == (len(lengths), ids.shape[1], model.d_model)

    # The CLI on the same file: the same bits.
    for stage, got in (("final", out), ("embeddings", emb)):
        path = tmp_path / f"{stage}.npy"
        run_cli("encode", "--model", case, "--tokens-file", case / "tokens.txt",
                "--stage", stage, "--output", path)
        assert_same_bits(got, np.load(path))

    # PyTorch's outputs; padded positions are 0 as in PyTorch's.
    expected = np.load(case / "expected.npy")
    embeddings = np.load(case / "embeddings.npy")
    assert np.isfinite(expected).all() and np.isfinite(embeddings).all()
    assert max_abs_on_real_tokens(out, expected, lengths) <= OUTPUT_TOL
    assert max_abs_on_real_tokens(emb, embeddings, lengths) <= EMBEDDING_TOL
    for b, n in enumerate(lengths):
        assert not out[b, n:].any()


def test_ragged_without_lengths_masks_trailing_pad_ids():
    case = GOLDEN_DIR / "ragged_padding"
    model = phasor.Model(case)
    assert model.pad_token_id is not None
    ids, lengths = read_tokens(case / "tokens.txt", model.pad_token_id)
    assert len(set(lengths.tolist())) > 1
    assert_same_bits(model.encode(ids), model.encode(ids, lengths))


def test_one_sequence_and_lists(toy_dir):
    model = phasor.Model(toy_dir)
    batch = np.array([[3, 14, 15, 92], [65, 35, 89, 79]], dtype=np.int32)
    out = model.encode(batch)
    assert out.shape == (2, 4, model.d_model) and out.dtype == np.float32
    one = model.encode(batch[1])  # 1-D: [seq, d_model]
    assert one.shape == (4, model.d_model)
    assert_same_bits(one, model.encode(batch[1:])[0])
    assert_same_bits(model.encode(batch.tolist()), out)
    for dtype in (np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.int64, np.uint64):
        assert_same_bits(model.encode(batch.astype(dtype)), out)
    assert_same_bits(model.encode(np.asfortranarray(batch)), out)  # converted to C order
    assert_same_bits(model.encode(batch.astype(">i4")), out)       # big-endian, converted
    # The values the CLI prints for the same tokens (its summary, 5 decimals).
    text = run_cli("encode", "--model", toy_dir, "--tokens", "3 14 15 92").stdout
    line = next(l for l in text.splitlines() if l.startswith("seq 0, token 0:"))
    shown = [float(v) for v in line.split(":")[1].split()[:4]]
    assert np.allclose(out[0, 0, :4], shown, atol=6e-6, rtol=0)


def test_model_properties(toy_dir):
    model = phasor.Model(toy_dir)
    config = model.config
    assert isinstance(config, dict)
    assert (model.vocab_size, model.d_model, model.n_layers) == (1000, 256, 4)
    assert (config["vocab_size"], config["d_model"], config["n_layers"]) == (1000, 256, 4)
    assert model.pad_token_id == config["pad_token_id"]
    assert config["positional"]["kind"] == "sinusoidal"
    assert phasor.Model(toy_dir, pe_mode="cached").config["positional"]["mode"] == "cached"
    assert phasor.__version__ == run_cli("--version").stdout.split()[1]


def test_torch_tensor_through_numpy(toy_dir):
    torch = pytest.importorskip("torch")
    model = phasor.Model(toy_dir)
    t = torch.tensor([[3, 14, 15], [92, 65, 35]])  # int64
    assert_same_bits(model.encode(t.numpy()), model.encode(np.array(t.tolist())))


@pytest.mark.parametrize("precision", ["bf16", "int8"])
def test_reduced_precision_is_the_clis(precision, tmp_path):
    case = GOLDEN_DIR / "post_ln_relu"
    model = phasor.Model(case, precision=precision)
    assert model.precision == precision
    assert f"precision='{precision}'" in repr(model)
    assert model.weight_bytes < phasor.Model(case).weight_bytes
    ids, lengths = read_tokens(case / "tokens.txt", model.pad_token_id)
    out = model.encode(ids, lengths)
    path = tmp_path / "out.npy"
    run_cli("encode", "--model", case, "--tokens-file", case / "tokens.txt",
            "--precision", precision, "--output", path)
    assert_same_bits(out, np.load(path))
    # Close to PyTorch's float32, not equal to it.
    err = max_abs_on_real_tokens(out, np.load(case / "expected.npy"), lengths)
    assert OUTPUT_TOL < err < 0.15
