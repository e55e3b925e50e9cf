"""Hugging Face checkpoints from Python: the same rows as the CLI and the float64 reference,
pool="model" for a sentence-transformers folder (its 2_Dense too), and the heads of
classification checkpoints (stage="logits", "pooler")."""
import json
import shutil
import struct

import numpy as np
import pytest

import phasor
from conftest import SOURCE_DIR, read_tokens, run_cli

HF = SOURCE_DIR / "tests" / "data" / "hf"


@pytest.mark.parametrize("case", ["bert", "roberta_bf16", "marian", "marian_gelu"])
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
    with pytest.raises(phasor.Error, match=r"pool='model' needs a sentence-transformers folder "
                                           r"\(one with modules.json\), .*bert has none"):
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


def pairs_file(path):
    """The lines of a tokens file of pairs: ids and token types (1 after the tab)."""
    lines = []
    for line in path.read_text().splitlines():
        first, _, second = line.partition("\t")
        a, b = [int(x) for x in first.split()], [int(x) for x in second.split()]
        lines.append((np.array(a + b), np.array([0] * len(a) + [1] * len(b))))
    return lines


def test_token_type_ids_give_the_reference_of_pairs(tmp_path):
    case = HF / "bert_pairs"
    model = phasor.Model(case)
    assert model.token_types == 2
    lines = pairs_file(case / "tokens.txt")
    assert any(t.any() for _, t in lines)
    want = np.load(case / "expected.npy")
    got = model.encode([ids for ids, _ in lines], token_type_ids=[t for _, t in lines])
    for b, rows in enumerate(got):
        assert np.max(np.abs(rows - want[b, :len(rows)])) <= 1e-4
    out = tmp_path / "cli.npy"
    run_cli("encode", "--model", case, "--tokens-file", case / "tokens.txt", "--layout", "packed",
            "--output", out)
    assert np.concatenate(got).tobytes() == np.load(out).tobytes()
    # A padded array: types of ids' shape; packed=True keeps them with their ids.
    ids, types = lines[0]
    one = model.encode(ids, token_type_ids=types)
    assert one.tobytes() == got[0].tobytes()
    batch = model.encode(np.stack([ids, ids]), token_type_ids=np.stack([types, types]))
    assert batch[1].tobytes() == got[0].tobytes()
    rows, _ = model.encode(np.stack([ids, ids]), [3, len(ids)], packed=True,
                           token_type_ids=np.stack([types, types]))
    assert rows[3:].tobytes() == got[0].tobytes()
    assert model.encode(ids).tobytes() == model.encode(ids, token_type_ids=0 * types).tobytes()


def test_bad_token_type_ids_are_named():
    model = phasor.Model(HF / "bert_pairs")
    with pytest.raises(phasor.Error, match=r"token_type_ids must have the shape of ids, \(3,\)"):
        model.encode([5, 6, 7], token_type_ids=[0, 1])
    with pytest.raises(phasor.Error, match="token type 2 at sequence 0, position 1 is outside "
                                           r"the model's token types \[0, 2\)"):
        model.encode([5, 6, 7], token_type_ids=[0, 2, 1])
    with pytest.raises(phasor.Error, match=r"token_type_ids\[1\] must have shape \(1,\)"):
        model.encode([[5, 6], [7]], token_type_ids=[[0, 1], [0, 1]])
    with pytest.raises(phasor.Error, match="token_type_ids must be integers"):
        model.encode([5, 6], token_type_ids=np.array([0.0, 1.0]))
    with pytest.raises(phasor.Error, match="token type 1 at sequence 0, position 0 is outside "
                                           r"the model's token types \[0, 1\)"):
        phasor.Model(HF / "roberta_bf16").encode([5, 6], token_type_ids=[1, 0])


@pytest.mark.parametrize("case,stage,expected", [
    ("bert_seqcls", "logits", "expected_logits.npy"),
    ("bert_seqcls", "pooler", "expected_pooler.npy"),
    ("roberta_seqcls", "logits", "expected_logits.npy"),
    ("distilbert_seqcls", "logits", "expected_logits.npy"),
    ("mpnet_seqcls", "logits", "expected_logits.npy"),
    ("modernbert_seqcls", "logits", "expected_logits.npy"),
])
def test_head_stages_match_the_reference_and_the_cli(tmp_path, case, stage, expected):
    folder = HF / case
    model = phasor.Model(folder)
    ids, lengths = read_tokens(folder / "tokens.txt", model.pad_token_id)
    want = np.load(folder / expected)
    got = model.encode(ids, lengths, stage=stage)
    assert got.shape == want.shape
    assert np.max(np.abs(got - want)) <= 1e-4
    sequences = [ids[b, :n] for b, n in enumerate(lengths)]
    assert model.encode(sequences, stage=stage).tobytes() == got.tobytes()
    assert model.encode(sequences[0], stage=stage).tobytes() == got[0].tobytes()
    out = tmp_path / "h.npy"
    run_cli("encode", "--model", folder, "--tokens-file", folder / "tokens.txt", "--stage", stage,
            "--output", out)
    assert np.load(out).tobytes() == got.tobytes()


def test_head_stages_refuse_what_the_model_lacks_or_pooling():
    with pytest.raises(phasor.Error, match="stage 'logits' needs a classification head.*"
                                           "no tensor 'classifier.weight'"):
        phasor.Model(HF / "bert").encode([3, 4, 5], stage="logits")
    with pytest.raises(phasor.Error, match="no tensor 'pooler.dense.weight'"):
        phasor.Model(HF / "roberta_seqcls").encode([3, 4, 5], stage="pooler")
    with pytest.raises(phasor.Error, match="stage='logits' and pool='mean' do not go together"):
        phasor.Model(HF / "bert_seqcls").encode([3, 4, 5], stage="logits", pool="mean")


def test_pool_model_applies_2_dense_before_normalize(tmp_path):
    folder = HF / "st_dense"
    model = phasor.Model(folder)
    ids, lengths = read_tokens(folder / "tokens.txt", model.pad_token_id)
    sequences = [ids[b, :n] for b, n in enumerate(lengths)]
    got = model.encode(sequences, pool="model")
    want = np.load(folder / "expected_pooled.npy")
    assert got.shape == want.shape == (len(sequences), 16)
    assert np.max(np.abs(got - want)) <= 1e-4
    out = tmp_path / "v.npy"
    run_cli("encode", "--model", folder, "--tokens-file", folder / "tokens.txt", "--pool", "model",
            "--output", out)
    assert got.tobytes() == np.load(out).tobytes()
    # The explicit pooling stays explicit: no Dense.
    assert model.encode(sequences, pool="mean", normalize=True).shape == (len(sequences), 32)


def test_a_stored_marian_sinusoid_that_differs_warns_and_is_not_used(tmp_path):
    """marian_gelu stores the encoder's sinusoid: one value moved by 0.5 is named in one
    phasor.Warning at load, and the rows are still the reference's (phasor's own table)."""
    case = HF / "marian_gelu"
    for name in ("config.json", "tokens.txt"):
        shutil.copy(case / name, tmp_path / name)
    raw = bytearray((case / "model.safetensors").read_bytes())
    size = struct.unpack("<Q", raw[:8])[0]
    begin = json.loads(raw[8:8 + size])["encoder.embed_positions.weight"]["data_offsets"][0]
    at = 8 + size + begin + 4 * (7 * 32 + 20)  # position 7, column 20
    struct.pack_into("<f", raw, at, struct.unpack_from("<f", raw, at)[0] + 0.5)
    (tmp_path / "model.safetensors").write_bytes(bytes(raw))
    with pytest.warns(phasor.Warning, match=r"tensor 'encoder.embed_positions.weight' differs "
                      r"from the sinusoid phasor computes by up to 0.5 \(position 7\)"):
        model = phasor.Model(tmp_path)
    ids, lengths = read_tokens(tmp_path / "tokens.txt", model.pad_token_id)
    got = model.encode(ids, lengths)
    want = np.load(case / "expected.npy")
    for b, n in enumerate(lengths):
        assert np.max(np.abs(got[b, :n] - want[b, :n])) <= 1e-4
