"""Hugging Face checkpoints from Python: the same rows as the CLI and the float64 reference,
and pool="model" for a sentence-transformers folder."""
import numpy as np
import pytest

import phasor
from conftest import SOURCE_DIR, read_tokens, run_cli

HF = SOURCE_DIR / "tests" / "data" / "hf"


@pytest.mark.parametrize("case", ["bert", "roberta_bf16"])
def test_last_hidden_state_matches_the_reference(case):
    model = phasor.Model(HF / case)
    ids, lengths = read_tokens(HF / case / "tokens.txt", model.pad_token_id)
    got = model.encode(ids, lengths)
    want = np.load(HF / case / "expected.npy")
    for b, n in enumerate(lengths):
        assert np.max(np.abs(got[b, :n] - want[b, :n])) <= 1e-4


def test_pool_model_is_the_cli_and_the_folder_declares_it(tmp_path):
    folder = HF / "st_mean"
    model = phasor.Model(folder)
    ids, lengths = read_tokens(folder / "tokens.txt", model.pad_token_id)
    sequences = [ids[b, :n] for b, n in enumerate(lengths)]
    got = model.encode(sequences, pool="model")
    out = tmp_path / "v.npy"
    run_cli("encode", "--model", folder, "--tokens-file", folder / "tokens.txt", "--pool", "model",
            "--output", out)
    assert got.tobytes() == np.load(out).tobytes()
    assert got.tobytes() == model.encode(sequences, pool="mean", normalize=True).tobytes()
    assert np.max(np.abs(got - np.load(folder / "expected_pooled.npy"))) <= 1e-4
    with pytest.raises(phasor.Error, match="has no modules.json"):
        phasor.Model(HF / "bert").encode(sequences, pool="model")


def test_truncate_keeps_the_first_positions():
    model = phasor.Model(HF / "bert")
    assert model.max_sequence_length == 40
    long = np.arange(45) % 50 + 3
    with pytest.raises(phasor.Error, match="sequence 0 has 45 tokens, more than the 40 positions"):
        model.encode(long)
    with pytest.warns(phasor.Warning, match="sequence 0 cut to the 40 positions"):
        got = model.encode(long, truncate=True)
    assert got.shape == (45, 32)
    assert got[:40].tobytes() == model.encode(long[:40]).tobytes()
    assert not got[40:].any()
