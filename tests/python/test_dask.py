"""tools/dask_encode.py and tools/dask_embed.py on a LocalCluster of 2 workers: the
same bits as one phasor encode / phasor embed."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import CLI, GOLDEN_DIR, SOURCE_DIR, assert_same_bits, cli_error, run_cli

pytest.importorskip("distributed")
TOOLS = SOURCE_DIR / "tools"


def run_tool(script, *args, timeout=90):
    """Runs a Dask tool in a fresh interpreter (the module on PYTHONPATH), never longer
    than timeout seconds."""
    proc = subprocess.run([sys.executable, str(TOOLS / script), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, env=os.environ.copy())
    assert proc.returncode == 0, f"{script} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def ragged_tokens(path, lines, vocab, pad_id, seed):
    rng = np.random.default_rng(seed)
    with open(path, "w") as f:
        for _ in range(lines):
            n = int(rng.integers(1, 24))
            ids = rng.integers(0, vocab, size=n)
            ids[ids == pad_id] = (pad_id + 1) % vocab  # a pad id at the end would shorten the line
            f.write(" ".join(map(str, ids)) + "\n")


@pytest.mark.parametrize("stage", ["final", "embeddings"])
def test_dask_encode_in_process_workers(tmp_path, stage):
    model = GOLDEN_DIR / "ragged_padding"  # pad_token_id 0: ragged lines
    tokens = tmp_path / "tokens.txt"
    ragged_tokens(tokens, 45, 50, 0, seed=1)
    want = tmp_path / "want.npy"
    run_cli("encode", "--model", model, "--tokens-file", tokens, "--stage", stage, "--output", want)
    out = tmp_path / "shards"
    merged = tmp_path / "merged.npy"
    text = run_tool("dask_encode.py", "--model", model, "--tokens-file", tokens, "--out-dir", out,
                    "--shard-lines", 7, "--stage", stage, "--merge", merged, "--workers", 2,
                    "--in-process", "--threads", 1, "--timeout", 60)
    assert "45 lines" in text and "7 shards" in text, text
    want = np.load(want)
    assert_same_bits(np.load(merged), want)
    index = json.loads((out / "index.json").read_text())
    assert (index["lines"], index["seq_len"], index["d_model"]) == want.shape
    assert [s["first_row"] for s in index["shards"]] == list(range(0, 45, 7))
    assert [s["first_line"] for s in index["shards"]] == list(range(1, 46, 7))  # file lines
    for s in index["shards"]:  # each shard file alone, too
        assert_same_bits(np.load(out / s["file"]), want[s["first_row"]:s["first_row"] + s["lines"]])


def test_dask_encode_process_workers(tmp_path, toy_dir):
    tokens = tmp_path / "tokens.txt"
    rng = np.random.default_rng(2)
    tokens.write_text("\n".join(" ".join(map(str, rng.integers(0, 1000, size=16)))
                                for _ in range(12)) + "\n")
    want = tmp_path / "want.npy"
    run_cli("encode", "--model", toy_dir, "--tokens-file", tokens, "--output", want)
    merged = tmp_path / "merged.npy"
    text = run_tool("dask_encode.py", "--model", toy_dir, "--tokens-file", tokens, "--out-dir",
                    tmp_path / "shards", "--shard-lines", 3, "--merge", merged, "--workers", 2,
                    "--threads", 1, "--timeout", 60)
    assert "on 2 of 2 workers" in text or "on 1 of 2 workers" in text, text
    assert_same_bits(np.load(merged), np.load(want))


def run_tool_failing(script, *args, timeout=90):
    """Runs a Dask tool that must fail; returns (exit code, stderr)."""
    proc = subprocess.run([sys.executable, str(TOOLS / script), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, env=os.environ.copy())
    return proc.returncode, proc.stderr


def test_dask_encode_reports_errors_as_the_cli(tmp_path, toy_dir):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("1 2 3\n\n4 5 6\n\n7 8 5000\n")
    cli = cli_error("encode", "--model", toy_dir, "--tokens-file", tokens)
    assert cli == f"{tokens}: line 5, token 3: token id 5000 is outside the vocabulary [0, 1000)"
    code, err = run_tool_failing("dask_encode.py", "--model", toy_dir, "--tokens-file", tokens,
                                 "--out-dir", tmp_path / "o", "--workers", 1, "--in-process",
                                 "--timeout", 60)
    assert code == 1
    assert err == f"phasor: error: {cli}\n"  # one line, no scheduler dump before it


def test_dask_encode_index_counts_file_lines_and_clears_the_out_dir(tmp_path, toy_dir):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("1 2 3\n\n4 5 6\n7 8 9\n\n\n10 11 12\n")  # lines 1, 3, 4, 7
    out = tmp_path / "o"
    out.mkdir()
    for k in range(5):  # an earlier run's shards, more of them
        np.save(out / f"shard_{k:05d}.npy", np.zeros(1, np.float32))
    (out / "notes.txt").write_text("kept")
    run_tool("dask_encode.py", "--model", toy_dir, "--tokens-file", tokens, "--out-dir", out,
             "--shard-lines", 2, "--workers", 1, "--in-process", "--threads", 1, "--timeout", 60)
    index = json.loads((out / "index.json").read_text())
    assert [(s["first_row"], s["first_line"], s["lines"]) for s in index["shards"]] == \
        [(0, 1, 2), (2, 4, 2)]
    assert sorted(p.name for p in out.glob("shard_*.npy")) == ["shard_00000.npy",
                                                              "shard_00001.npy"]
    assert (out / "notes.txt").read_text() == "kept"


def test_dask_encode_merge_must_be_npy(tmp_path, toy_dir):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("1 2 3\n")
    for merge, message in [(tmp_path / "all.csv", f"--merge must end in .npy, got '{tmp_path / 'all.csv'}'"),
                           (tmp_path / "no" / "all.npy", "No such file or directory")]:
        code, err = run_tool_failing("dask_encode.py", "--model", toy_dir, "--tokens-file", tokens,
                                     "--out-dir", tmp_path / "o", "--merge", merge, "--workers", 1,
                                     "--in-process", "--timeout", 60)
        assert code in (1, 2) and err.startswith("phasor: error: ") and message in err, err
        assert err.count("\n") == 1, err
        assert not (tmp_path / "all.csv").exists()


def test_dask_embed_takes_sizes_as_the_cli(tmp_path):
    text = run_tool("dask_embed.py", "--seq-len", "5K", "--d-model", 16, "--vocab", "1K",
                    "--ranges", 3, "--workers", 1, "--in-process", "--threads", 1, "--timeout", 60)
    assert "5120 tokens x d_model 16" in text, text
    code, err = run_tool_failing("dask_embed.py", "--seq-len", "5Q", "--workers", 1,
                                 "--in-process")
    assert code == 2
    assert err == "phasor: error: argument --seq-len: '5Q' is not a size (e.g. 4096, 16K, 1M)\n"


def test_dask_embed_clears_the_out_dir(tmp_path):
    out = tmp_path / "ranges"
    out.mkdir()
    for k in range(6):
        np.save(out / f"range_{k:05d}.npy", np.zeros(1, np.float32))
    run_tool("dask_embed.py", "--seq-len", 300, "--d-model", 8, "--vocab", 50, "--ranges", 2,
             "--out-dir", out, "--workers", 1, "--in-process", "--threads", 1, "--timeout", 60)
    assert sorted(p.name for p in out.glob("range_*.npy")) == ["range_00000.npy",
                                                              "range_00001.npy"]


@pytest.mark.parametrize("mode", ["on_the_fly", "cached", "auto"])
def test_dask_embed_equals_phasor_embed(tmp_path, mode):
    out = tmp_path / "ranges"
    text = run_tool("dask_embed.py", "--seq-len", 5000, "--d-model", 64, "--vocab", 700,
                    "--pe-mode", mode, "--max-len", 2000, "--ranges", 7, "--out-dir", out,
                    "--check", "--phasor", CLI, "--workers", 2, "--in-process", "--threads", 1,
                    "--timeout", 60)
    assert "7 of 7 ranges bit for bit equal" in text, text
    ref = tmp_path / "ref.npy"
    run_cli("embed", "--seq-len", 5000, "--d-model", 64, "--vocab", 700, "--pe-mode", mode,
            "--max-len", 2000, "--output", ref)
    ref = np.load(ref)
    index = json.loads((out / "index.json").read_text())
    rows = np.concatenate([np.load(out / r["file"]) for r in index["ranges"]])
    assert_same_bits(rows, ref)


def test_dask_encode_holds_to_the_cli_input_rules(tmp_path):
    """A line of pad ids only is refused with the CLI's message; trailing pad ids warn with
    the CLI's warning, and the merged array is still the CLI's, bit for bit."""
    model = GOLDEN_DIR / "ragged_padding"  # pad_token_id 0
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("5 7 9\n\n0 0\n3 4\n")
    code, err = run_tool_failing("dask_encode.py", "--model", model, "--tokens-file", tokens,
                                 "--out-dir", tmp_path / "o", "--workers", 1, "--in-process")
    assert code == 1
    assert err.strip().splitlines()[-1] == "phasor: error: " + cli_error(
        "encode", "--model", model, "--tokens-file", tokens)
    tokens.write_text("5 7 9 0 0\n\n3 4\n8 0\n")
    want = tmp_path / "want.npy"
    cli = run_cli("encode", "--model", model, "--tokens-file", tokens, "--output", want)
    cli_warning = [l for l in cli.stderr.splitlines() if l.startswith("phasor: warning:")]
    merged = tmp_path / "merged.npy"
    proc = subprocess.run([sys.executable, str(TOOLS / "dask_encode.py"), *map(str, [
                           "--model", model, "--tokens-file", tokens, "--out-dir", tmp_path / "o",
                           "--merge", merged, "--shard-lines", 2, "--workers", 1, "--in-process"])],
                          capture_output=True, text=True, timeout=90, env=os.environ.copy())
    assert proc.returncode == 0, proc.stderr
    assert [l for l in proc.stderr.splitlines() if l.startswith("phasor: warning:")] == cli_warning
    assert len(cli_warning) == 1
    assert_same_bits(np.load(merged), np.load(want))


def test_dask_encode_pooled_equals_the_cli(tmp_path):
    model = GOLDEN_DIR / "ragged_padding"
    tokens = tmp_path / "tokens.txt"
    ragged_tokens(tokens, 20, 50, 0, seed=3)
    want = tmp_path / "want.npy"
    run_cli("encode", "--model", model, "--tokens-file", tokens, "--pool", "mean", "--normalize",
            "--output", want)
    merged = tmp_path / "merged.npy"
    run_tool("dask_encode.py", "--model", model, "--tokens-file", tokens, "--out-dir",
             tmp_path / "o", "--shard-lines", 6, "--pool", "mean", "--normalize", "--merge", merged,
             "--workers", 2, "--in-process", "--threads", 1, "--timeout", 60)
    assert np.load(want).shape == (20, 32)
    assert_same_bits(np.load(merged), np.load(want))


def test_dask_encode_logits_equal_the_cli(tmp_path):
    model = SOURCE_DIR / "tests" / "data" / "hf" / "bert_seqcls"
    want = tmp_path / "want.npy"
    run_cli("encode", "--model", model, "--tokens-file", model / "tokens.txt", "--stage", "logits",
            "--output", want)
    merged = tmp_path / "merged.npy"
    run_tool("dask_encode.py", "--model", model, "--tokens-file", model / "tokens.txt", "--out-dir",
             tmp_path / "o", "--shard-lines", 2, "--stage", "logits", "--merge", merged,
             "--workers", 2, "--in-process", "--threads", 1, "--timeout", 60)
    assert np.load(want).shape == (5, 3)
    assert_same_bits(np.load(merged), np.load(want))
    proc = subprocess.run([sys.executable, str(TOOLS / "dask_encode.py"), "--model", model,
                           "--tokens-file", model / "tokens.txt", "--out-dir", tmp_path / "p",
                           "--stage", "logits", "--pool", "mean"],
                          capture_output=True, text=True, timeout=90, env=os.environ.copy())
    assert proc.returncode == 2 and "--stage logits and --pool mean" in proc.stderr, proc.stderr


def test_dask_encode_truncate_is_the_cli(tmp_path):
    """A line past the model's positions (a Marian checkpoint: max_position_embeddings 40,
    whatever the PE mode) is an error naming the file's line and the limit, as phasor encode
    gives it; with --truncate the shards hold what phasor encode --truncate writes."""
    model = SOURCE_DIR / "tests" / "data" / "hf" / "marian"
    tokens = tmp_path / "tokens.txt"
    rng = np.random.default_rng(3)
    lines = [rng.integers(1, 59, size=n) for n in (5, 45, 12, 41, 3)]
    tokens.write_text("\n".join(" ".join(map(str, ids)) for ids in lines[:2]) + "\n\n" +
                      "\n".join(" ".join(map(str, ids)) for ids in lines[2:]) + "\n")
    cli = cli_error("encode", "--model", model, "--tokens-file", tokens)
    assert cli.startswith(f"{tokens}: line 2 has 45 tokens, more than the 40 positions of "), cli
    code, err = run_tool_failing("dask_encode.py", "--model", model, "--tokens-file", tokens,
                                 "--out-dir", tmp_path / "o", "--workers", 1, "--in-process",
                                 "--timeout", 60)
    assert code == 1
    assert err == f"phasor: error: {cli}\n"
    want = tmp_path / "want.npy"
    run_cli("encode", "--model", model, "--tokens-file", tokens, "--truncate", "--output", want)
    merged = tmp_path / "merged.npy"
    run_tool("dask_encode.py", "--model", model, "--tokens-file", tokens, "--out-dir",
             tmp_path / "o", "--shard-lines", 2, "--truncate", "--merge", merged, "--workers", 2,
             "--in-process", "--threads", 1, "--timeout", 60)
    want = np.load(want)
    assert want.shape == (5, 45, 32) and not want[1, 40:].any() and want[1, :40].any()
    assert_same_bits(np.load(merged), want)


def test_dask_encode_pairs_are_the_cli(tmp_path):
    """A tokens file of pairs (a tab before segment 1) for a model with token types: the
    shards merged are the bits phasor encode writes; a second tab is the CLI's error."""
    model = SOURCE_DIR / "tests" / "data" / "hf" / "bert_pairs"
    tokens = model / "tokens.txt"
    assert "\t" in tokens.read_text()
    want = tmp_path / "want.npy"
    run_cli("encode", "--model", model, "--tokens-file", tokens, "--output", want)
    merged = tmp_path / "merged.npy"
    run_tool("dask_encode.py", "--model", model, "--tokens-file", tokens, "--out-dir",
             tmp_path / "o", "--shard-lines", 2, "--merge", merged, "--workers", 2,
             "--in-process", "--threads", 1, "--timeout", 60)
    assert_same_bits(np.load(merged), np.load(want))
    # Without the types the rows differ: the tab is read, not skipped.
    spaces = tmp_path / "spaces.txt"
    spaces.write_text(tokens.read_text().replace("\t", " "))
    run_cli("encode", "--model", model, "--tokens-file", spaces, "--output", tmp_path / "s.npy")
    assert np.load(tmp_path / "s.npy").tobytes() != np.load(want).tobytes()
    three = tmp_path / "three.txt"
    three.write_text("5 6\t7\n8\t9\t10\n")
    cli = cli_error("encode", "--model", model, "--tokens-file", three)
    code, err = run_tool_failing("dask_encode.py", "--model", model, "--tokens-file", three,
                                 "--out-dir", tmp_path / "p", "--workers", 1, "--in-process",
                                 "--timeout", 60)
    assert code == 1 and err == f"phasor: error: {cli}\n", err


def text_folder(tmp_path, name, st, max_seq_length=None, model_max_length=None):
    """tests/data/hf/st_mean (BERT, 40 positions, token types; mean pooling and Normalize)
    with the hand tokenizer; st: keep modules.json (a sentence-transformers folder)."""
    import shutil
    src = SOURCE_DIR / "tests" / "data" / "hf" / "st_mean"
    folder = tmp_path / name
    folder.mkdir()
    for f in ("config.json", "model.safetensors") + (("modules.json",) if st else ()):
        shutil.copy(src / f, folder / f)
    shutil.copytree(src / "1_Pooling", folder / "1_Pooling")
    shutil.copy(SOURCE_DIR / "tests" / "data" / "tokenizers" / "hand" / "tokenizer.json", folder)
    if max_seq_length:
        (folder / "sentence_bert_config.json").write_text(f'{{"max_seq_length": {max_seq_length}}}')
    if model_max_length:
        (folder / "tokenizer_config.json").write_text(f'{{"model_max_length": {model_max_length}}}')
    return folder


def test_dask_encode_text_pairs_are_the_cli(tmp_path):
    """--text-file --pairs on a sentence-transformers folder: cut at its max_seq_length and
    pooled as its modules say by default, as phasor encode does, bit for bit; and every row
    with --pool none."""
    model = text_folder(tmp_path, "st", True, max_seq_length=6)
    text = tmp_path / "pairs.txt"
    text.write_text("hello\tworld\nHello, worlds!\tthe hello world the\n\tthe\n"
                    "the the the\thello hello hello hello\nworld\t\n")
    for pool in ([], ["--pool", "none"]):
        want = tmp_path / "want.npy"
        run_cli("encode", "--model", model, "--text-file", text, "--pairs", *pool,
                "--output", want)
        merged = tmp_path / "merged.npy"
        run_tool("dask_encode.py", "--model", model, "--text-file", text, "--pairs", *pool,
                 "--out-dir", tmp_path / "o", "--shard-lines", 2, "--merge", merged,
                 "--workers", 2, "--in-process", "--threads", 1, "--timeout", 60)
        want = np.load(want)
        assert want.shape == ((5, 32) if not pool else (5, 6, 32)), want.shape
        assert_same_bits(np.load(merged), want)
    # Swapping the texts of a pair changes the rows: the tab is read.
    swapped = tmp_path / "swapped.txt"
    swapped.write_text("world\thello\n")
    run_cli("encode", "--model", model, "--text-file", swapped, "--pairs", "--output",
            tmp_path / "s.npy")
    assert np.load(tmp_path / "s.npy")[0].tobytes() != want[0].tobytes()


def test_dask_encode_text_truncate_is_the_cli(tmp_path):
    """A plain folder (no modules.json, model_max_length 5): a longer text line is an error
    in both unless --truncate, which cuts both alike; a sentence-transformers folder cuts by
    default and refuses with --no-truncate."""
    model = text_folder(tmp_path, "plain", False, model_max_length=5)
    text = tmp_path / "lines.txt"
    text.write_text("hello\nHello, worlds!\nthe world\nhello hello hello hello hello\n")
    cli = cli_error("encode", "--model", model, "--text-file", text)
    assert cli.startswith(f"{text}: line 2 has 7 tokens, more than the 5 of model_max_length 5"), cli
    code, err = run_tool_failing("dask_encode.py", "--model", model, "--text-file", text,
                                 "--out-dir", tmp_path / "o", "--workers", 1, "--in-process",
                                 "--timeout", 60)
    assert code == 1 and err.startswith(f"phasor: error: {text}: line 2 has 7 tokens"), err
    want = tmp_path / "want.npy"
    run_cli("encode", "--model", model, "--text-file", text, "--truncate", "--output", want)
    merged = tmp_path / "merged.npy"
    run_tool("dask_encode.py", "--model", model, "--text-file", text, "--truncate",
             "--out-dir", tmp_path / "o", "--shard-lines", 3, "--merge", merged, "--workers", 2,
             "--in-process", "--threads", 1, "--timeout", 60)
    want = np.load(want)
    assert want.shape == (4, 5, 32), want.shape
    assert_same_bits(np.load(merged), want)
    st = text_folder(tmp_path, "st", True, max_seq_length=5)
    want_st = tmp_path / "want_st.npy"
    run_cli("encode", "--model", st, "--text-file", text, "--output", want_st)
    run_tool("dask_encode.py", "--model", st, "--text-file", text, "--out-dir", tmp_path / "p",
             "--merge", merged, "--workers", 1, "--in-process", "--timeout", 60)
    assert np.load(want_st).shape == (4, 32)  # cut at 5 and pooled as modules.json says
    assert_same_bits(np.load(merged), np.load(want_st))
    code, err = run_tool_failing("dask_encode.py", "--model", st, "--text-file", text,
                                 "--no-truncate", "--out-dir", tmp_path / "q", "--workers", 1,
                                 "--in-process", "--timeout", 60)
    assert code == 1 and f"{text}: line 2 has 7 tokens" in err, err
