"""Ragged input: lists of sequences, packed rows, lengths, pooling, the input rules shared
with the CLI, warnings, and ids that another thread rewrites."""
import json
import struct
import shutil
import threading
import tracemalloc
import warnings

import numpy as np
import pytest

import phasor
from conftest import GOLDEN_DIR, assert_same_bits, cli_error, run_cli

RAGGED = [[3, 14, 15, 92, 65], [35, 89], [79, 32, 38, 46, 26, 43, 38], [5]]


def alone(model, seq, **kw):
    return model.encode(np.array(seq, dtype=np.int32), **kw)


def test_a_list_of_different_lengths_gives_a_list_each_as_alone(toy_dir):
    model = phasor.Model(toy_dir)
    out = model.encode(RAGGED)
    assert isinstance(out, list) and len(out) == len(RAGGED)
    for seq, got in zip(RAGGED, out):
        assert got.shape == (len(seq), model.d_model)
        assert_same_bits(np.ascontiguousarray(got), alone(model, seq))
    # In another order, with other company, in batches of any budget, on one thread:
    # the same bits (batch invariance).
    rev = model.encode(RAGGED[::-1], batch_tokens=7)
    for got, want in zip(rev[::-1], out):
        assert_same_bits(np.ascontiguousarray(got), np.ascontiguousarray(want))
    phasor.set_num_threads(1)
    try:
        one = model.encode(RAGGED + [[1, 2, 3]] * 5)
    finally:
        phasor.set_num_threads(0)
    for got, want in zip(one, out):
        assert_same_bits(np.ascontiguousarray(got), np.ascontiguousarray(want))


def test_packed_rows_and_offsets(toy_dir):
    model = phasor.Model(toy_dir)
    rows, offsets = model.encode(RAGGED, packed=True)
    assert offsets.tolist() == [0, 5, 7, 14, 15]
    assert rows.shape == (15, model.d_model)
    for b, seq in enumerate(RAGGED):
        assert_same_bits(rows[offsets[b]:offsets[b + 1]], alone(model, seq))


def test_lengths_other_than_the_pad_ids_are_honoured(toy_dir):
    """Ids past a given length are padding whatever they are (here real ids, not pad
    ids): the rows are those of the sequence cut at its length, padding rows 0."""
    model = phasor.Model(toy_dir)
    ids = np.array([[3, 14, 15, 92, 65], [35, 89, 79, 32, 38], [7, 7, 7, 7, 7]], dtype=np.int64)
    lengths = [2, 4, 5]
    out = model.encode(ids, lengths=lengths)
    emb = model.encode(ids, lengths=lengths, stage="embeddings")
    for b, n in enumerate(lengths):
        assert_same_bits(out[b, :n], alone(model, ids[b, :n]))
        assert_same_bits(emb[b, :n], alone(model, ids[b, :n], stage="embeddings"))
        assert not out[b, n:].any() and not emb[b, n:].any()
    # Without lengths every id is real: the first sequence differs.
    assert not np.array_equal(model.encode(ids)[0, :2], out[0, :2])
    rows, offsets = model.encode(ids, lengths=lengths, packed=True)
    assert offsets.tolist() == [0, 2, 6, 11]
    assert_same_bits(rows[2:6], out[1, :4])


@pytest.mark.parametrize("pool", ["mean", "cls", "max"])
@pytest.mark.parametrize("normalize", [False, True])
def test_pooling_equals_numpy_on_the_full_output(toy_dir, pool, normalize):
    model = phasor.Model(toy_dir)
    full = model.encode(RAGGED)
    got = model.encode(RAGGED, pool=pool, normalize=normalize)
    assert got.shape == (len(RAGGED), model.d_model) and got.dtype == np.float32
    for b, rows in enumerate(full):
        rows = rows.astype(np.float64)
        want = {"mean": rows.mean(0), "cls": rows[0], "max": rows.max(0)}[pool]
        if normalize:
            want = want / max(np.linalg.norm(want), 1e-12)
        assert np.max(np.abs(got[b] - want)) <= 1e-6, (pool, b)
    # A padded array with lengths pools over the real tokens only.
    ids = np.zeros((len(RAGGED), 7), dtype=np.int32)
    for b, seq in enumerate(RAGGED):
        ids[b, :len(seq)] = seq
    assert_same_bits(model.encode(ids, lengths=[len(s) for s in RAGGED], pool=pool,
                                  normalize=normalize), got)


def test_mean_pooling_matches_pytorch_on_a_golden_case():
    """expected.npy is PyTorch's output; its mean over each sequence's real rows is what
    PyTorch mean pooling gives."""
    case = GOLDEN_DIR / "ragged_padding"
    model = phasor.Model(case)
    lines = [[int(t) for t in line.replace(",", " ").split()]
             for line in (case / "tokens.txt").read_text().splitlines() if line.strip()]
    expected = np.load(case / "expected.npy").astype(np.float64)
    pad = model.pad_token_id
    got = model.encode(lines, pool="mean")
    for b, line in enumerate(lines):
        n = len(line)
        while n > 0 and line[n - 1] == pad:
            n -= 1
        assert np.max(np.abs(got[b] - expected[b, :n].mean(0))) <= 1e-4


def test_the_cli_writes_what_the_module_returns(toy_dir, tmp_path):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("\n".join(" ".join(map(str, s)) for s in RAGGED) + "\n")
    model = phasor.Model(toy_dir)
    run_cli("encode", "--model", toy_dir, "--tokens-file", tokens, "--layout", "packed",
            "--output", tmp_path / "p.npy", "--batch-tokens", 9)
    rows, offsets = model.encode(RAGGED, packed=True)
    assert_same_bits(np.load(tmp_path / "p.npy"), rows)
    assert np.load(tmp_path / "p.offsets.npy").tolist() == offsets.tolist()
    run_cli("encode", "--model", toy_dir, "--tokens-file", tokens, "--pool", "max",
            "--normalize", "--output", tmp_path / "m.npy")
    assert_same_bits(np.load(tmp_path / "m.npy"), model.encode(RAGGED, pool="max", normalize=True))


def test_pad_only_and_empty_sequences_are_refused_as_the_cli_refuses_them(toy_dir, tmp_path):
    model = phasor.Model(toy_dir)  # pad_token_id 0
    tokens = tmp_path / "pads.txt"
    tokens.write_text("5 7\n0 0\n")
    assert cli_error("encode", "--model", toy_dir, "--tokens-file", tokens).endswith(
        "line 2 holds only the pad id 0 (pad_token_id): nothing to encode")
    for ids in ([[5, 7], [0, 0]], np.array([[5, 7], [0, 0]]), [[5, 7, 9], [0]]):
        with pytest.raises(phasor.Error, match="sequence 1 holds only the pad id 0 "
                                               r"\(pad_token_id\): nothing to encode"):
            model.encode(ids)
    with pytest.raises(phasor.Error, match="sequence 1 is empty: nothing to encode"):
        model.encode([[5, 7, 9], []])
    with pytest.raises(phasor.Error, match="pool must be none, mean, cls, max, last, "
                                           "mean_sqrt_len or model, got 'sum'"):
        model.encode(RAGGED, pool="sum")
    with pytest.raises(phasor.Error, match=r"token budget of a batch \(3\) is smaller than "
                                           r"the longest sequence \(7 tokens\)"):
        model.encode(RAGGED, batch_tokens=3)


def test_trailing_pad_ids_warn_as_the_cli_warns(toy_dir):
    model = phasor.Model(toy_dir)
    with pytest.warns(phasor.Warning, match="sequence 0 ends in 2 pad ids \\(pad_token_id 0\\), "
                                            "and 1 more sequence \\(3 pad ids in all\\)"):
        out = model.encode([[5, 7, 0, 0], [4, 0], [1, 2, 3]])
    assert not out[0][2:].any() and out[0][:2].any()
    assert issubclass(phasor.Warning, UserWarning)
    # A padded array without lengths: its pad ids are its padding, no warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.encode(np.array([[5, 7, 0, 0], [4, 1, 2, 3]]))
    with pytest.warns(phasor.Warning, match="sequence 0 ends in 1 pad id"):
        model.encode(np.array([[5, 7, 0, 0], [4, 1, 2, 3]]), lengths=[3, 4])


def write_safetensors(path, tensors):
    """tensors: name -> float32 array."""
    header, data, at = {}, b"", 0
    for name, a in tensors.items():
        raw = np.ascontiguousarray(a, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [at, at + len(raw)]}
        data += raw
        at += len(raw)
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + data)


def read_safetensors(path):
    raw = path.read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "F32"
        lo, hi = info["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + lo:8 + n + hi], dtype="<f4").reshape(info["shape"])
    return out


def test_load_warnings_reach_python(toy_dir, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(toy_dir, bad)
    tensors = read_safetensors(bad / "model.safetensors")
    tensors["layers.0.linear1.bias"] = tensors["layers.0.linear1.bias"].copy()
    tensors["layers.0.linear1.bias"][3] = np.nan
    tensors["layers.0.lineer2.bias"] = np.zeros(4, dtype=np.float32)
    write_safetensors(bad / "model.safetensors", tensors)
    cli = run_cli("encode", "--model", bad, "--tokens", "1 2", check=False).stderr
    cli_warnings = [line[len("phasor: warning: "):] for line in cli.splitlines()
                    if line.startswith("phasor: warning: ")]
    assert len(cli_warnings) == 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        phasor.Model(bad)
    got = [str(w.message) for w in caught if issubclass(w.category, phasor.Warning)]
    assert got == cli_warnings
    assert any("NaN" in w or "non-finite" in w or "Inf" in w for w in got)
    assert any("lineer2" in w for w in got)


def test_ids_rewritten_by_another_thread_never_crash(toy_dir):
    """The module copies the ids before it releases the GIL: a thread writing out-of-range
    ids into the caller's array meanwhile gives results or clean errors, never a crash."""
    model = phasor.Model(toy_dir)
    ids = np.full((8, 256), 3, dtype=np.int32)
    flat = ids.reshape(-1)
    stop = threading.Event()

    def rewrite():
        while not stop.is_set():
            flat[::5] = 2**31 - 1
            flat[::5] = 3

    writer = threading.Thread(target=rewrite)
    writer.start()
    outcomes = set()
    try:
        for k in range(40):
            try:
                model.encode(ids, stage="embeddings" if k % 2 else "final")
                outcomes.add("ok")
            except phasor.Error as e:
                assert "outside the vocabulary" in str(e)
                outcomes.add("error")
    finally:
        stop.set()
        writer.join()
    assert outcomes  # and the process is still here


@pytest.mark.parametrize("shape", [(10**6, 10**6), (1, 10**12), (2**40, 1), (1, 2**31)])
def test_absurd_shapes_are_refused_before_anything_is_allocated(toy_dir, shape):
    model = phasor.Model(toy_dir)
    ids = np.broadcast_to(np.int32(3), shape)
    tracemalloc.start()
    try:
        with pytest.raises(phasor.Error, match="too large for one call"):
            model.encode(ids)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_model_paths_as_bytes_and_with_nul(toy_dir):
    assert phasor.Model(str(toy_dir).encode()).d_model == phasor.Model(toy_dir).d_model
    with pytest.raises(phasor.Error, match=r"holds a NUL character") as e:
        phasor.Model(str(toy_dir) + "\x00junk")
    assert "junk" in str(e.value)  # the whole path, not cut at the NUL
    with pytest.raises(phasor.Error, match="path must be a str, bytes or os.PathLike, got float"):
        phasor.Model(3.5)
