"""Fixtures of the Python tests: the CLI, the source tree, a toy model.

ctest runs them as `python3 -m pytest -q tests/python` with PYTHONPATH=build/python,
PHASOR_CLI (the phasor binary of the same build) and PHASOR_SOURCE_DIR set; run by
hand from the source root they fall back to build/.
"""
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

SOURCE_DIR = Path(os.environ.get("PHASOR_SOURCE_DIR", Path(__file__).resolve().parents[2]))
CLI = Path(os.environ.get("PHASOR_CLI", SOURCE_DIR / "build" / "bin" / "phasor"))
GOLDEN_DIR = SOURCE_DIR / "tests" / "data" / "golden"
# Subprocesses (the README example, the Dask tools) run elsewhere: absolute paths.
os.environ["PYTHONPATH"] = os.pathsep.join(
    str(Path(p).resolve()) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)


def run_cli(*args, check=True):
    """Runs the phasor CLI; returns the CompletedProcess (text)."""
    proc = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, timeout=120)
    if check and proc.returncode != 0:
        raise AssertionError(f"phasor {' '.join(map(str, args))} exited {proc.returncode}:\n"
                             f"{proc.stderr}")
    return proc


def cli_error(*args):
    """The message of `phasor ARGS` that fails: its stderr line after 'phasor: error: '."""
    proc = run_cli(*args, check=False)
    assert proc.returncode in (1, 2), proc
    lines = proc.stderr.strip().splitlines()
    assert lines and lines[-1].startswith("phasor: error: "), proc.stderr
    return lines[-1][len("phasor: error: "):]


def read_tokens(path, pad_id):
    """tokens.txt as phasor reads it: one sequence a line, ids separated by spaces or
    commas, blank lines skipped, short lines padded with pad_id. Returns (ids, lengths)."""
    lines = []
    for line in Path(path).read_text().splitlines():
        toks = [t for t in re.split(r"[ \t,\r]+", line) if t]
        if toks:
            lines.append([int(t) for t in toks])
    seq = max(map(len, lines))
    pad = 0 if pad_id is None else pad_id
    ids = np.full((len(lines), seq), pad, dtype=np.int64)
    for b, line in enumerate(lines):
        ids[b, :len(line)] = line
    return ids, np.array([len(line) for line in lines], dtype=np.int64)


def assert_same_bits(got, want):
    """Equal shapes, dtypes float32 and bytes, and every value finite."""
    assert got.dtype == np.float32 and want.dtype == np.float32
    assert got.shape == want.shape
    assert np.isfinite(got).all() and np.isfinite(want).all()
    assert got.tobytes() == want.tobytes(), \
        f"max abs difference {np.max(np.abs(got.astype(np.float64) - want))}"


@pytest.fixture(scope="session")
def toy_dir(tmp_path_factory):
    """The toy model as a directory (phasor make-toy)."""
    path = tmp_path_factory.mktemp("toy") / "toy"
    run_cli("make-toy", "--out", path)
    return path
