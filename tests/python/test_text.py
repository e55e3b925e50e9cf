"""Text in from Python and the Dask tool: phasor.Tokenizer, Model.tokenize and
Model.encode on texts, against ids worked out by hand from Hugging Face's rules
(tests/data/tokenizers/hand) and against the CLI's `encode --text-file`."""
import shutil
import subprocess
import sys

import numpy as np
import pytest

import phasor
from conftest import SOURCE_DIR, assert_same_bits, run_cli

HAND = SOURCE_DIR / "tests" / "data" / "tokenizers" / "hand" / "tokenizer.json"
LINES = ["Hello, worlds!", "", "unable Café", "zzz"]
# [CLS] 2, [SEP] 3; hello 5, "," 10, world 6, ##s 7, "!" 11; un 8 ##able 9 caf 13 ##e 14; [UNK] 1
WANT = [[2, 5, 10, 6, 7, 11, 3], [2, 3], [2, 8, 9, 13, 14, 3], [2, 1, 3]]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    """A small toy model with the hand-made tokenizer beside its weights."""
    path = tmp_path_factory.mktemp("text") / "model"
    run_cli("make-toy", "--out", path, "--vocab", 20, "--d-model", 16, "--n-heads", 2,
            "--n-layers", 1, "--d-ff", 32)
    shutil.copy(HAND, path / "tokenizer.json")
    return path


def test_tokenizer_gives_the_ids_worked_out_by_hand(tmp_path):
    shutil.copy(HAND, tmp_path / "tokenizer.json")  # a folder of tokenizer files only
    tok = phasor.Tokenizer(tmp_path)
    got = tok.tokenize(LINES)
    assert got["input_ids"] == WANT
    assert got["token_type_ids"] == [[0] * len(ids) for ids in WANT]
    assert tok.tokenize("Hello")["input_ids"] == [2, 5, 3]
    assert tok.tokenize(["hello"], add_special_tokens=False)["input_ids"] == [[5]]
    assert tok.tokenize(["Hello, worlds!"], max_length=4)["input_ids"] == [[2, 5, 10, 3]]
    assert tok.tokenize(["hello"], prefix="the ")["input_ids"] == [[2, 12, 5, 3]]
    pair = tok.tokenize([("hello", "world")])
    assert pair["input_ids"] == [[2, 5, 3, 6, 3]]
    assert pair["token_type_ids"] == [[0, 0, 0, 1, 1]]
    assert tok.token_to_id("##able") == 9 and tok.token_to_id("nope") is None
    assert tok.vocab_size == 15 and tok.model_max_length is None


def test_offset_mapping_counts_code_points(tmp_path):
    """transformers' offset_mapping: str indices (code points), (0, 0) for [CLS]/[SEP];
    "ü" and "é" are one character each (two bytes), "😀" one (two UTF-16 units)."""
    shutil.copy(HAND, tmp_path / "tokenizer.json")
    tok = phasor.Tokenizer(tmp_path)
    got = tok.tokenize("ünable café 😀", return_offsets_mapping=True)
    assert got["input_ids"] == [2, 8, 9, 13, 14, 1, 3]
    assert got["offset_mapping"] == [(0, 0), (0, 2), (2, 6), (7, 10), (10, 11), (12, 13), (0, 0)]
    pair = tok.tokenize([("hello", "é world")], return_offsets_mapping=True)
    assert pair["offset_mapping"] == [[(0, 0), (0, 5), (0, 0), (0, 1), (2, 7), (0, 0)]]
    assert "offset_mapping" not in tok.tokenize("hello")
    with pytest.raises(phasor.Error, match="return_offsets_mapping must be True or False"):
        tok.tokenize("hello", return_offsets_mapping=1)


def test_model_tokenize_is_the_cli_tokenize(model_dir, tmp_path):
    text = tmp_path / "lines.txt"
    text.write_text("\n".join(LINES) + "\n")
    cli = run_cli("tokenize", "--model", model_dir, "--text-file", text).stdout
    assert cli == "".join(" ".join(map(str, ids)) + "\n" for ids in WANT)
    assert phasor.Model(model_dir).tokenize(LINES)["input_ids"] == WANT


@pytest.mark.parametrize("pool", [None, "mean"])
def test_encode_texts_equals_the_cli_text_file(model_dir, tmp_path, pool):
    text = tmp_path / "lines.txt"
    text.write_text("\n".join(LINES) + "\n")
    want = tmp_path / "want.npy"
    run_cli("encode", "--model", model_dir, "--text-file", text, "--pool", pool or "none",
            "--output", want)
    model = phasor.Model(model_dir)
    got = model.encode(LINES, pool=pool)
    want = np.load(want)
    if pool:
        assert_same_bits(got, want)
    else:  # a list of [len_i, d_model], the CLI's padded rows
        for b, rows in enumerate(got):
            assert rows.shape == (len(WANT[b]), 16)
            assert_same_bits(np.ascontiguousarray(rows), want[b, :len(WANT[b])])
    # The same texts as ids give the same bits.
    ids = model.encode([np.array(w, dtype=np.int32) for w in WANT], pool=pool)
    for a, b in zip(got if not pool else [got], ids if not pool else [ids]):
        assert_same_bits(np.ascontiguousarray(a), np.ascontiguousarray(b))
    one = model.encode("Hello, worlds!", pool=pool)
    assert one.shape == ((16,) if pool else (7, 16))


def test_text_errors_name_the_item(model_dir, tmp_path):
    model = phasor.Model(model_dir)
    with pytest.raises(phasor.Error, match=r"texts\[1\] must be a str like texts\[0\], got int"):
        model.encode(["hello", 3])
    with pytest.raises(phasor.Error, match=r"texts\[1\] must be a \(str, str\) pair"):
        model.tokenize([("a", "b"), "c"])
    with pytest.raises(phasor.Error, match=r"texts\[0\] is not valid text: .*lone surrogate"):
        model.tokenize(["\ud800"])
    with pytest.raises(phasor.Error, match="token_type_ids goes with ids"):
        model.encode(["hello"], token_type_ids=[[0]])
    with pytest.raises(phasor.Error, match="prompt and prefix go with texts"):
        model.encode([[5, 6]], prefix="x")
    bare = tmp_path / "bare"
    run_cli("make-toy", "--out", bare, "--vocab", 20, "--d-model", 16, "--n-heads", 2)
    with pytest.raises(phasor.Error, match="holds no tokenizer"):
        phasor.Model(bare).encode(["hello"])
    with pytest.raises(phasor.Error, match="holds no tokenizer"):
        phasor.Tokenizer(bare)


def test_dask_encode_text_file_is_the_cli(model_dir, tmp_path):
    pytest.importorskip("distributed")
    text = tmp_path / "lines.txt"
    text.write_text("Hello, worlds!\n\nunable Café\nzzz\nhello world\n" * 3)
    want = tmp_path / "want.npy"
    run_cli("encode", "--model", model_dir, "--text-file", text, "--pool", "mean", "--output", want)
    merged = tmp_path / "merged.npy"
    proc = subprocess.run(
        [sys.executable, str(SOURCE_DIR / "tools" / "dask_encode.py"), "--model", str(model_dir),
         "--text-file", str(text), "--out-dir", str(tmp_path / "o"), "--shard-lines", "4",
         "--pool", "mean", "--merge", str(merged), "--workers", "2", "--in-process",
         "--threads", "1", "--timeout", "60"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert_same_bits(np.load(merged), np.load(want))
    # Invalid UTF-8: the CLI's message, naming the line and byte.
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"hello\nhel\xfflo\n")
    proc = subprocess.run(
        [sys.executable, str(SOURCE_DIR / "tools" / "dask_encode.py"), "--model", str(model_dir),
         "--text-file", str(bad), "--out-dir", str(tmp_path / "o2"), "--workers", "1",
         "--in-process"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert f"{bad}: line 2, byte offset 3: invalid UTF-8 (byte 0xff)" in proc.stderr
