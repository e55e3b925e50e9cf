"""Every error raises phasor.Error, a ValueError carrying the CLI's message; no input
crashes the interpreter."""
import json
import shutil

import numpy as np
import pytest

import phasor
from conftest import GOLDEN_DIR, cli_error


def test_error_is_a_value_error():
    assert issubclass(phasor.Error, ValueError)


def test_model_errors_carry_the_cli_message(tmp_path, toy_dir):
    missing = tmp_path / "missing"
    with pytest.raises(phasor.Error) as e:
        phasor.Model(missing)
    assert str(e.value) == cli_error("encode", "--model", missing, "--tokens", "1")

    bad = tmp_path / "bad"
    shutil.copytree(toy_dir, bad)
    config = json.loads((bad / "config.json").read_text())
    config["positional"]["layout"] = "sideways"
    (bad / "config.json").write_text(json.dumps(config))
    with pytest.raises(phasor.Error) as e:
        phasor.Model(str(bad))
    assert "sideways" in str(e.value)
    assert str(e.value) == cli_error("encode", "--model", bad, "--tokens", "1")

    with pytest.raises(phasor.Error, match="pe_mode"):
        phasor.Model(toy_dir, pe_mode="sometimes")
    with pytest.raises(phasor.Error) as e:
        phasor.Model(toy_dir, precision="fp16")
    assert str(e.value) == cli_error("encode", "--model", toy_dir, "--precision", "fp16",
                                     "--tokens", "1").replace("--precision: ", "precision: ")
    with pytest.raises(phasor.Error):
        phasor.Model(3.5)


def test_id_out_of_range_carries_the_cli_message(toy_dir, tmp_path):
    model = phasor.Model(toy_dir)
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("3 14 15\n92 1000 35\n")
    # The CLI names the file's line and token (from 1); an array has no lines,
    # so the module names the sequence and position in it (from 0), as the C++ API.
    cli = cli_error("encode", "--model", toy_dir, "--tokens-file", tokens)
    assert cli.endswith("line 2, token 2: token id 1000 is outside the vocabulary [0, 1000)")
    want = "token id 1000 at sequence 1, position 1 is outside the vocabulary [0, 1000)"
    ids = [[3, 14, 15], [92, 1000, 35]]
    for dtype in (np.int32, np.int64, np.uint16):  # in place (int32) and converted
        with pytest.raises(phasor.Error) as e:
            model.encode(np.array(ids, dtype=dtype))
        assert str(e.value) == want
    with pytest.raises(phasor.Error, match="token id -1 at sequence 0, position 2"):
        model.encode(np.array([[1, 2, -1]], dtype=np.int8))


def test_ids_that_do_not_fit_int32_are_refused(toy_dir):
    model = phasor.Model(toy_dir)
    for big in (2**31, 2**32 + 3, 2**40):  # would wrap to small ids if cast
        with pytest.raises(phasor.Error, match=f"token id {big} at sequence 0, position 1"):
            model.encode(np.array([[3, big, 5]], dtype=np.int64))
    with pytest.raises(phasor.Error, match="18446744073709551615"):
        model.encode(np.array([[3, 2**64 - 1]], dtype=np.uint64))
    with pytest.raises(phasor.Error):
        model.encode([[3, 2**70]])  # a Python int beyond int64: an object array


@pytest.mark.parametrize("ids,match", [
    (np.array([[1.0, 2.0]]), "integers, got dtype float64"),
    (np.array([[1.5, 2.0]], dtype=np.float32), "integers, got dtype float32"),
    (np.array([[True, False]]), "integers, got dtype bool"),
    (np.zeros((1, 2, 3), dtype=np.int32), r"1-D \[seq\] or 2-D \[batch, seq\], got shape \(1, 2, 3\)"),
    (np.int32(5), r"a 1-D or 2-D integer array, or a list of sequences, got int32"),
    (np.array(5), r"got ndarray of shape \(\)"),
    ([[1, 2, 3], [4, [5]]], r"ids\[1\] cannot be read as an array"),
    ([[1, 2, 3], [[4, 5]]], r"ids\[1\] must be a 1-D sequence of token ids, got shape \(1, 2\)"),
    ([[1, 2], ["a"]], r"ids\[1\] must hold integers, got dtype <U1"),
    ([[3, 2**70]], "token id 1180591620717411303424 at sequence 0, position 1 is outside"),
    # Text, for a model folder without a tokenizer (tests/python/test_text.py has one).
    (["a", "b"], r"ids is text \(a list of str\), which needs the model folder's own tokenizer: "
     r".* holds no tokenizer .*; token ids go as integers"),
    (None, "or a list of sequences, got NoneType"),
    ("3 14 15", r"ids is text \(a str\), which needs the model folder's own tokenizer"),
    ({"ids": [3]}, "or a list of sequences, got dict"),
    ([], r"^ids is an empty list: nothing to encode \(give at least one sequence of token ids\)$"),
    ((), r"^ids is an empty tuple: nothing to encode \(give at least one sequence of token ids\)$"),
])
def test_bad_ids(toy_dir, ids, match):
    model = phasor.Model(toy_dir)
    with pytest.raises(phasor.Error, match=match):
        model.encode(ids)


def test_bad_lengths_and_stage(toy_dir):
    model = phasor.Model(toy_dir)
    ids = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32)
    with pytest.raises(phasor.Error, match=r"lengths\[1\] must be in \[1, 3\], got 4"):
        model.encode(ids, lengths=[3, 4])
    with pytest.raises(phasor.Error, match=r"lengths\[0\] must be in \[1, 3\], got -1"):
        model.encode(ids, lengths=[-1, 3])
    with pytest.raises(phasor.Error, match=r"lengths\[0\] must be in \[1, 3\], got 0"):
        model.encode(ids, lengths=[0, 3])
    with pytest.raises(phasor.Error, match=r"shape \(2,\)"):
        model.encode(ids, lengths=[3])
    with pytest.raises(phasor.Error, match="lengths must be integers"):
        model.encode(ids, lengths=[3.0, 2.0])
    with pytest.raises(phasor.Error, match="stage must be 'embeddings', 'final', 'pooler' or 'logits', got 'middle'"):
        model.encode(ids, stage="middle")
    # Empty input, as in the CLI: nothing to encode is an error, not an empty result.
    for empty in (np.zeros((0, 5), dtype=np.int32), np.zeros((2, 0), dtype=np.int32), [], [[]]):
        with pytest.raises(phasor.Error, match="nothing to encode"):
            model.encode(empty)


def test_bad_positional_arguments():
    cases = [
        (lambda: phasor.positional_encoding(64, -1), "length must be >= 0, got -1"),
        (lambda: phasor.positional_encoding(64, 4, start=-3), "start must be >= 0, got -3"),
        (lambda: phasor.positional_encoding(63, 4), "d_model must be even"),
        (lambda: phasor.positional_encoding(64, 4, layout="diagonal"), "layout"),
        (lambda: phasor.positional_encoding(64, 4, mode="never"), "mode"),
        (lambda: phasor.positional_encoding(64, 4, base=1.0), "base"),
        (lambda: phasor.positional_encoding(64, 2.5), "length must be an integer, got float"),
        (lambda: phasor.positional_encoding("64", 4), "d_model must be an integer, got str"),
        (lambda: phasor.positional_encoding(64, 1 << 40), "too large"),
        (lambda: phasor.positional_encoding(64, 4, start=4094, mode="cached"), "4096"),
        (lambda: phasor.rope_rows(32, -5), "length must be >= 0"),
        (lambda: phasor.rope_rows(32, 4, rotary_dim=7), "rotary_dim"),
        (lambda: phasor.rope_rows(32, 4, layout="spiral"), "layout"),
        (lambda: phasor.rope_rows(32, 4, scaling={"type": "linear"}), "factor"),
        (lambda: phasor.rope_rows(32, 4, scaling={"type": "linear", "factor": 2, "beta_fast": 3}),
         "beta_fast"),
        (lambda: phasor.rope_rows(32, 4, scaling={"type": "warp", "factor": 2}), "warp"),
        (lambda: phasor.rope_rows(32, 4, scaling={"type": "linear", "factor": -2.0}), "factor"),
        (lambda: phasor.rope_rows(32, 4, scaling="linear"), "scaling must be a dict"),
        (lambda: phasor.rope_rows(32, 4, scaling={"type": "linear", "factor": object()}),
         "scaling"),
        (lambda: phasor.RandomSequence(d_model=63), "d_model must be even"),
        (lambda: phasor.RandomSequence(vocab=0), "vocab"),
        (lambda: phasor.RandomSequence().embed(-1, 3), "start must be >= 0"),
        (lambda: phasor.RandomSequence(pe_mode="cached", max_len=10).embed(5, 10), "10"),
        (lambda: phasor.set_num_threads(-1), "must be in"),
        (lambda: phasor.set_num_threads(1.5), "must be an integer"),
    ]
    for call, match in cases:
        with pytest.raises(phasor.Error, match=match):
            call()


def test_golden_model_still_works_after_errors():
    model = phasor.Model(GOLDEN_DIR / "post_ln_relu")
    with pytest.raises(phasor.Error):
        model.encode([[1, 2, 99]])
    assert np.isfinite(model.encode([[1, 2, 3]])).all()
