"""Positions, sizes and names as the CLI takes them: no 64-bit wrap, the argument the
caller passed named, and tools/export_torch.py's outputs checked before any work."""
import os
import subprocess
import sys

import pytest

import phasor
from conftest import SOURCE_DIR, cli_error


def test_positions_past_2_40_are_refused_naming_start():
    with pytest.raises(phasor.Error) as e:
        phasor.positional_encoding(8, 2, start=2**63 - 1)
    assert str(e.value) == ("start 9223372036854775807 + length 2 is past the largest position "
                            "(2^40)")
    assert "--start 1099511627775 + --length 2 is past the largest position (2^40)" == \
        cli_error("pe", "--d-model", 8, "--length", 2, "--start", 2**40 - 1)
    with pytest.raises(phasor.Error, match=r"start 1099511627775 \+ length 2 is past"):
        phasor.rope_rows(8, 2, start=2**40 - 1)
    assert phasor.positional_encoding(8, 1, start=2**40 - 1).shape == (1, 8)


def test_random_sequence_refuses_a_range_that_wraps():
    seq = phasor.RandomSequence(16, 50)
    for start in (2**63 - 1, 2**40):
        with pytest.raises(phasor.Error, match=f"start {start} \\+ length 2 is past the largest"):
            seq.token_ids(start, 2)
        with pytest.raises(phasor.Error, match="past the largest position"):
            seq.embed(start, 2)
    assert seq.token_ids(2**40 - 2, 2).shape == (2,)


def test_table_size_names_d_model():
    with pytest.raises(phasor.Error) as e:
        phasor.positional_encoding(2**40, 1)
    assert "d_model 1099511627776" in str(e.value) and "too large" in str(e.value)
    with pytest.raises(phasor.Error, match="d_model 1099511627776"):
        phasor.positional_encoding(2**40, 0)


def test_rope_rows_blames_head_dim_when_rotary_dim_is_not_given():
    with pytest.raises(phasor.Error) as e:
        phasor.rope_rows(7, 4)
    assert str(e.value).startswith("head_dim must be even"), str(e.value)
    with pytest.raises(phasor.Error, match="rotary_dim"):
        phasor.rope_rows(8, 4, rotary_dim=3)


def test_rope_scaling_that_is_not_finite_is_named_not_parsed():
    for bad in (float("nan"), float("inf")):
        with pytest.raises(phasor.Error) as e:
            phasor.rope_rows(8, 4, scaling={"type": "linear", "factor": bad})
        assert str(e.value) == f"scaling: 'factor' must be a finite number, got {bad!r}"
        assert "parse" not in str(e.value)


EXPORT = [sys.executable, str(SOURCE_DIR / "tools" / "export_torch.py")]


def test_export_torch_refuses_a_check_output_that_is_not_npy(tmp_path):
    proc = subprocess.run([*EXPORT, "--out", str(tmp_path / "m"), "--check-tokens", "3 14 15",
                           "--check-output", str(tmp_path / "x.csv")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc
    assert proc.stderr == (f"export_torch: error: --check-output must end in .npy, got "
                           f"'{tmp_path / 'x.csv'}'\n")
    assert not os.path.exists(tmp_path / "m") and not os.path.exists(tmp_path / "x.csv.npy")


def test_export_torch_needs_force_to_overwrite_a_model(tmp_path, toy_dir):
    import shutil
    model = tmp_path / "m"
    shutil.copytree(toy_dir, model)
    before = (model / "model.safetensors").read_bytes()
    for flag in ("--out", "--output"):
        proc = subprocess.run([*EXPORT, flag, str(model)], capture_output=True, text=True,
                              timeout=60)
        assert proc.returncode == 2, proc
        assert proc.stderr == (f"export_torch: error: --out {model} already holds a model "
                               "(config.json); pass --force to overwrite it\n")
    assert (model / "model.safetensors").read_bytes() == before
