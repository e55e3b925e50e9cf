"""Model.encode, similarity, predict and rank as sentence-transformers has them, on small
folders written here (tests/data/hf's weights with the hand-made tokenizer): each result
against a computation of its own (NumPy pooling of stage="final" rows, the CLI's outputs, the
tokenizer's ids cut by hand), never against phasor's own answer to the same call."""
import json
import shutil

import numpy as np
import pytest

import phasor
from conftest import SOURCE_DIR, run_cli

HF = SOURCE_DIR / "tests" / "data" / "hf"
HAND = SOURCE_DIR / "tests" / "data" / "tokenizers" / "hand" / "tokenizer.json"
SENTENCES = ["hello world", "unable, hello!", "worlds", "the cafe"]
LONG = "hello " * 20  # [CLS] + 20 + [SEP]: 22 tokens


def copy_folder(src, dst, max_seq_length=None, normalize=True):
    """src with the hand-made tokenizer; max_seq_length into sentence_bert_config.json;
    normalize=False drops the Normalize module from modules.json."""
    shutil.copytree(src, dst)
    shutil.copy(HAND, dst / "tokenizer.json")
    if max_seq_length is not None:
        (dst / "sentence_bert_config.json").write_text(
            json.dumps({"max_seq_length": max_seq_length, "do_lower_case": False}))
    if not normalize:
        modules = json.loads((dst / "modules.json").read_text())
        modules = [m for m in modules if not m["type"].endswith("Normalize")]
        (dst / "modules.json").write_text(json.dumps(modules))
    return dst


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """st: mean + Normalize, max_seq_length 8 (positions 40); st_raw: mean only;
    st_dense: mean, Dense 32 -> 16, Normalize; plain: a Hugging Face folder without
    modules.json."""
    root = tmp_path_factory.mktemp("st")
    return {
        "st": copy_folder(HF / "st_mean", root / "st", max_seq_length=8),
        "st_raw": copy_folder(HF / "st_mean", root / "st_raw", normalize=False),
        "st_dense": copy_folder(HF / "st_dense", root / "st_dense"),
        "plain": copy_folder(HF / "bert", root / "plain"),
    }


def cli_ids(folder, texts, tmp_path, *args):
    """The ids of `phasor tokenize` for texts (one a line); a sentence-transformers folder
    cuts them at its max_seq_length unless args say otherwise."""
    lines = tmp_path / "tok.txt"
    lines.write_text("\n".join(texts) + "\n")
    out = run_cli("tokenize", "--model", folder, "--text-file", lines, *args).stdout
    return [[int(t) for t in line.split()] for line in out.splitlines()]


def mean_rows(model, ids, normalize):
    """Mean of the stage='final' rows of ids in NumPy (float64), L2-normalised if asked."""
    rows = model.encode(np.array(ids)).astype(np.float64)
    v = rows.mean(axis=0)
    return v / np.linalg.norm(v) if normalize else v


def test_texts_are_pooled_as_the_folder_says_by_default(folders, tmp_path):
    model = phasor.Model(folders["st"])
    ids = cli_ids(folders["st"], SENTENCES, tmp_path)
    want = np.stack([mean_rows(model, i, True) for i in ids])
    got = model.encode(SENTENCES)
    assert got.dtype == np.float32 and got.shape == (4, 32)
    assert np.max(np.abs(got - want)) <= 1e-6
    one = model.encode(SENTENCES[1])
    assert one.shape == (32,) and one.tobytes() == got[1].tobytes()
    # The CLI's --pool model on the same lines.
    lines, out = tmp_path / "lines.txt", tmp_path / "cli.npy"
    lines.write_text("\n".join(SENTENCES) + "\n")
    run_cli("encode", "--model", folders["st"], "--text-file", lines, "--pool", "model",
            "--output", out)
    assert got.tobytes() == np.load(out).tobytes()
    # Ids keep today's default: every token's row.
    assert model.encode(np.array(ids[0])).shape == (len(ids[0]), 32)


def test_dense_folder_dimension_and_cli(folders, tmp_path):
    model = phasor.Model(folders["st_dense"])
    assert model.get_sentence_embedding_dimension() == 16
    assert phasor.Model(folders["st"]).get_sentence_embedding_dimension() == 32
    assert phasor.Model(folders["plain"]).get_sentence_embedding_dimension() == 32
    lines, out = tmp_path / "lines.txt", tmp_path / "cli.npy"
    lines.write_text("\n".join(SENTENCES) + "\n")
    run_cli("encode", "--model", folders["st_dense"], "--text-file", lines, "--pool", "model",
            "--output", out)
    got = model.encode(SENTENCES)
    assert got.shape == (4, 16) and got.tobytes() == np.load(out).tobytes()


def test_texts_are_cut_at_max_seq_length(folders, tmp_path):
    model = phasor.Model(folders["st"])
    assert model.max_seq_length == 8 and model.max_sequence_length == 40
    full = cli_ids(folders["st"], [LONG], tmp_path, "--max-length", "1000")[0]  # uncut
    assert len(full) == 22
    cut = full[:7] + full[-1:]  # the first 6 words between [CLS] and [SEP], as HF truncates
    want = mean_rows(model, cut, True)
    for got in (model.encode(LONG), model.encode(["worlds", LONG])[1],
                model.encode(LONG, truncate=True), model.encode([LONG], batch_size=1)[0]):
        assert np.max(np.abs(got - want)) <= 1e-6
    tokens = model.encode([LONG], output_value="token_embeddings")[0]
    assert tokens.shape == (8, 32)
    assert np.max(np.abs(tokens - model.encode(np.array(cut)))) <= 1e-6


def test_tokenize_cuts_as_encode_does(folders, tmp_path):
    full = cli_ids(folders["st"], [LONG], tmp_path, "--max-length", "1000")[0]  # uncut
    model = phasor.Model(folders["st"])
    assert model.tokenize(LONG)["input_ids"] == full[:7] + full[-1:]
    assert cli_ids(folders["st"], [LONG], tmp_path) == [full[:7] + full[-1:]]  # the CLI's cut
    assert model.tokenize([LONG], truncate=False)["input_ids"] == [full]
    assert model.tokenize(LONG, max_length=4)["input_ids"] == full[:3] + full[-1:]
    plain = phasor.Model(folders["plain"])
    assert plain.tokenize(LONG)["input_ids"] == full
    assert len(plain.tokenize("hello " * 43, truncate=True)["input_ids"]) == 40


def test_truncate_false_names_the_text_its_tokens_and_the_limit(folders):
    model = phasor.Model(folders["st"])
    with pytest.raises(phasor.Error, match=r"^texts\[1\] has 22 tokens, more than the 8 of "
                       r"max_seq_length 8 of .*st/sentence_bert_config.json; truncate=True"):
        model.encode(["worlds", LONG], truncate=False)
    with pytest.raises(phasor.Error, match="^the text has 22 tokens, more than the 8"):
        model.encode(LONG, truncate=False)
    # A folder without modules.json: text is not cut by default (the model's 40 positions).
    plain = phasor.Model(folders["plain"])
    assert plain.max_seq_length == 40
    assert plain.encode(LONG).shape == (22, 32)
    with pytest.raises(phasor.Error, match="has 45 tokens, more than the 40"):
        plain.encode("hello " * 43)
    assert plain.encode("hello " * 43, truncate=True).shape == (40, 32)


def test_normalize_embeddings_and_the_numpy_forms(folders):
    raw = phasor.Model(folders["st_raw"])
    ids = raw.tokenize(SENTENCES)["input_ids"]
    plain = raw.encode(SENTENCES)
    assert np.max(np.abs(plain - np.stack([mean_rows(raw, i, False) for i in ids]))) <= 1e-6
    unit = raw.encode(SENTENCES, normalize_embeddings=True)
    want = plain / np.linalg.norm(plain.astype(np.float64), axis=1, keepdims=True)
    assert np.max(np.abs(unit - want)) <= 1e-6
    # pool= given keeps its meaning; on a folder without modules.json too.
    bert = phasor.Model(folders["plain"])
    got = bert.encode(SENTENCES, pool="mean", normalize_embeddings=True)
    assert np.max(np.abs(got - np.stack([mean_rows(bert, i, True) for i in ids]))) <= 1e-6
    as_list = raw.encode(SENTENCES, convert_to_numpy=False)
    assert isinstance(as_list, list) and len(as_list) == 4
    assert all(r.shape == (32,) and r.tobytes() == plain[i].tobytes()
               for i, r in enumerate(as_list))
    same = raw.encode(SENTENCES, batch_size=1, show_progress_bar=False, device="cpu")
    assert same.tobytes() == plain.tobytes()
    with pytest.raises(phasor.Error, match=r"normalize=True \(normalize_embeddings=True\) "
                                           "needs a pool"):
        bert.encode(SENTENCES, normalize_embeddings=True)
    with pytest.raises(phasor.Error, match="convert_to_tensor=True is not supported"):
        raw.encode(SENTENCES, convert_to_tensor=True)


def test_show_progress_bar_encodes_batch_size_at_a_time(folders, capfd):
    model = phasor.Model(folders["st"])
    want = model.encode(SENTENCES)
    assert "Batches" not in capfd.readouterr().err
    got = model.encode(SENTENCES, batch_size=3, show_progress_bar=True)
    assert got.tobytes() == want.tobytes()
    assert capfd.readouterr().err == "\rBatches: 1/2\rBatches: 2/2\n"
    rows = model.encode(SENTENCES, batch_size=1, show_progress_bar=True,
                        output_value="token_embeddings")
    assert [r.tobytes() for r in rows] == \
        [r.tobytes() for r in model.encode(SENTENCES, output_value="token_embeddings")]
    # A text of a later batch is named by its index in the whole list.
    with pytest.raises(phasor.Error, match=r"^texts\[5\] has 22 tokens, more than the 8"):
        model.encode(SENTENCES + ["hello", LONG], batch_size=2, show_progress_bar=True,
                     truncate=False)
    with pytest.raises(phasor.Error, match=r"^texts\[5\] must be a str like texts\[0\], got int"):
        model.encode(SENTENCES + ["hello", 5], batch_size=2, show_progress_bar=True)


def test_similarity_is_cosine_of_every_pair():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((3, 5)), rng.standard_normal((4, 5)).astype(np.float32)
    b[2] = 0
    want = (a @ b.T) / np.maximum(np.linalg.norm(a, axis=1)[:, None] *
                                  np.linalg.norm(b.astype(np.float64), axis=1)[None, :], 1e-12)
    model = phasor.Model(HF / "bert")
    got = model.similarity(a, b)
    assert got.dtype == np.float32 and got.shape == (3, 4)
    assert np.max(np.abs(got - want)) <= 1e-6 and not got[:, 2].any()
    assert model.similarity(a[0], b).shape == (1, 4)
    assert model.similarity(list(a), b[1]).shape == (3, 1)
    with pytest.raises(phasor.Error, match="a has rows of 5 values and b of 4"):
        model.similarity(a, b[:, :4])
    with pytest.raises(phasor.Error, match="similarity: b must be embeddings"):
        model.similarity(a, "text")


def test_max_seq_length_set_on_the_model_cuts_there(folders, tmp_path):
    model = phasor.Model(folders["st"])
    full = cli_ids(folders["st"], [LONG], tmp_path, "--max-length", "1000")[0]  # uncut
    model.max_seq_length = 5
    assert model.max_seq_length == 5
    want = mean_rows(model, full[:4] + full[-1:], True)
    assert np.max(np.abs(model.encode(LONG) - want)) <= 1e-6
    with pytest.raises(phasor.Error, match="^the text has 22 tokens, more than the 5 of "
                                           "max_seq_length 5 set on the model; truncate=True"):
        model.encode(LONG, truncate=False)
    model.max_seq_length = None
    assert model.max_seq_length == 8
    with pytest.raises(phasor.Error, match=r"^max_seq_length must be in \[1, 40\] .*got 41$"):
        model.max_seq_length = 41
    with pytest.raises(phasor.Error, match="^max_seq_length must be an int or None, got str$"):
        model.max_seq_length = "8"
    assert phasor.Model(folders["st"]).max_seq_length == 8  # another model: its own


@pytest.mark.parametrize("name", ["dot", "euclidean", "manhattan"])
def test_similarity_follows_the_folders_similarity_fn_name(tmp_path, name):
    folder = copy_folder(HF / "st_mean", tmp_path / "st")
    (folder / "config_sentence_transformers.json").write_text(
        json.dumps({"similarity_fn_name": name}))
    model = phasor.Model(folder)
    assert model.similarity_fn_name == name
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((3, 6)), rng.standard_normal((2, 6))
    diff = a[:, None, :] - b[None, :, :]
    want = {"dot": a @ b.T, "euclidean": -np.sqrt((diff ** 2).sum(-1)),
            "manhattan": -np.abs(diff).sum(-1)}[name]
    assert np.max(np.abs(model.similarity(a, b) - want)) <= 1e-5
    (folder / "config_sentence_transformers.json").write_text('{"similarity_fn_name": "l3"}')
    assert model.similarity_fn_name == name  # the folder was read once, at load
    with pytest.raises(phasor.Error, match="config_sentence_transformers.json: key "
                                           "'similarity_fn_name': expected 'cosine'"):
        phasor.Model(folder).similarity(a, b)


@pytest.mark.parametrize("kwargs,match", [
    ({"batch_size": "8"}, "^encode: batch_size must be an int, got str$"),
    ({"batch_size": 0}, r"^encode: batch_size must be in \[1, "),
    ({"normalize_embeddings": "yes"}, "^encode: normalize_embeddings must be True or False, "
     "got str$"),
    ({"convert_to_numpy": 1}, "^encode: convert_to_numpy must be True or False, got int$"),
    ({"show_progress_bar": "no"}, "^encode: show_progress_bar must be True, False or None, "
     "got str$"),
    ({"truncate": 1.0}, "^encode: truncate must be True, False or None, got float$"),
    ({"output_value": None}, "^encode: output_value must be 'sentence_embedding' or "),
    ({"device": "cuda"}, "^encode: device must be 'cpu' or None"),
    ({"precision": "int8"}, "^encode: precision must be 'float32'"),
    ({"pool": 3}, "pool must be a str"),
])
def test_wrong_types_are_one_short_line(folders, kwargs, match):
    model = phasor.Model(folders["st"])
    sentences = [f"hello world {i}" for i in range(2000)]
    with pytest.raises(phasor.Error, match=match) as e:
        model.encode(sentences, **kwargs)
    assert len(str(e.value)) < 300 and "hello world" not in str(e.value)


def test_unknown_keywords_name_only_the_keyword(folders):
    model = phasor.Model(folders["st"])
    sentences = [f"hello world {i}" for i in range(2000)]
    calls = [
        (lambda: model.encode(sentences, batchsize=8),
         "encode() got an unexpected keyword argument 'batchsize'"),
        (lambda: model.encode(sentences, None, "final", None, False, False, 0, None, None, None,
                              None, 32, False, True, False, None, "sentence_embedding", None,
                              None, "float32", "extra"),
         "encode() takes at most 20 arguments (21 given)"),
        (lambda: model.encode(sentences, ids=sentences),
         "encode() got multiple values for argument 'ids'"),
        (lambda: model.encode(), "encode() missing required argument 'ids'"),
        (lambda: model.predict([(s, s) for s in sentences], activation_fn="sigmoid"),
         "predict() got an unexpected keyword argument 'activation_fn'"),
        (lambda: model.rank("q", sentences, topk=3),
         "rank() got an unexpected keyword argument 'topk'"),
        (lambda: model.tokenize(sentences, max_len=3),
         "tokenize() got an unexpected keyword argument 'max_len'"),
        (lambda: phasor.Tokenizer(folders["st"]).tokenize(sentences, padding=True),
         "tokenize() got an unexpected keyword argument 'padding'"),
    ]
    for call, message in calls:
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == message
    assert model.encode(sentences=sentences[:2]).shape == (2, 32)


def write_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for name, a in tensors.items():
        a = np.ascontiguousarray(a, dtype=np.float32)
        header[name] = {"dtype": "F32", "shape": list(a.shape),
                        "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
        blobs.append(a.tobytes())
    text = json.dumps(header).encode()
    path.write_bytes(len(text).to_bytes(8, "little") + text + b"".join(blobs))


def read_safetensors(path):
    raw = path.read_bytes()
    size = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + size])
    out = {}
    for name, h in header.items():
        if name == "__metadata__":
            continue
        begin, end = h["data_offsets"]
        assert h["dtype"] == "F32"
        out[name] = np.frombuffer(raw[8 + size + begin:8 + size + end], np.float32)
        out[name] = out[name].reshape(h["shape"])
    return out


@pytest.fixture(scope="module")
def cross_encoders(tmp_path_factory):
    """bert_seqcls with the hand-made tokenizer (3 labels), and its head cut to the first
    label (a cross-encoder, as rerankers are)."""
    root = tmp_path_factory.mktemp("cross")
    three = copy_folder(HF / "bert_seqcls", root / "three")
    one = root / "one"
    one.mkdir()
    cfg = json.loads((three / "config.json").read_text())
    cfg["id2label"], cfg["label2id"] = {"0": "LABEL_0"}, {"LABEL_0": 0}
    (one / "config.json").write_text(json.dumps(cfg))
    t = read_safetensors(three / "model.safetensors")
    t["classifier.weight"], t["classifier.bias"] = t["classifier.weight"][:1], \
        t["classifier.bias"][:1]
    write_safetensors(one / "model.safetensors", t)
    shutil.copy(HAND, one / "tokenizer.json")
    return {"one": one, "three": three}


QUERY = "hello"
DOCS = ["world", "unable cafe", "hello worlds", "the"]


def cli_logits(folder, tmp_path):
    lines, out = tmp_path / "pairs.txt", tmp_path / "logits.npy"
    lines.write_text("".join(f"{QUERY}\t{d}\n" for d in DOCS))
    run_cli("encode", "--model", folder, "--text-file", lines, "--pairs", "--stage", "logits",
            "--output", out)
    return np.load(out)


def test_predict_is_the_cli_logits(cross_encoders, tmp_path):
    pairs = [(QUERY, d) for d in DOCS]
    want = cli_logits(cross_encoders["one"], tmp_path)
    assert want.shape == (4, 1)
    model = phasor.Model(cross_encoders["one"])
    got = model.predict(pairs)
    assert got.shape == (4,) and got.tobytes() == want[:, 0].tobytes()
    sig = model.predict(pairs, activation="sigmoid", batch_size=2)
    assert np.max(np.abs(sig - 1 / (1 + np.exp(-want[:, 0].astype(np.float64))))) <= 1e-6
    assert model.predict(pairs[2]) == got[2]
    assert model.predict(pairs, convert_to_numpy=False) == list(got)
    three = phasor.Model(cross_encoders["three"])
    want3 = cli_logits(cross_encoders["three"], tmp_path)
    assert three.predict(pairs).tobytes() == want3.tobytes()
    soft = np.exp(want3 - want3.max(axis=1, keepdims=True))
    soft /= soft.sum(axis=1, keepdims=True)
    assert np.max(np.abs(three.predict(pairs, activation="softmax") - soft)) <= 1e-6
    with pytest.raises(phasor.Error, match=r"predict: sentences\[1\] must be a \(str, str\) pair"):
        model.predict([pairs[0], "world"])
    with pytest.raises(phasor.Error, match="activation must be None, 'sigmoid' or 'softmax'"):
        model.predict(pairs, activation="tanh")


def test_rank_sorts_the_sigmoid_scores(cross_encoders, tmp_path):
    logits = cli_logits(cross_encoders["one"], tmp_path)[:, 0].astype(np.float64)
    scores = 1 / (1 + np.exp(-logits))
    order = sorted(range(len(DOCS)), key=lambda i: -scores[i])
    model = phasor.Model(cross_encoders["one"])
    ranked = model.rank(QUERY, DOCS)
    assert [r["corpus_id"] for r in ranked] == order
    assert all(abs(r["score"] - scores[r["corpus_id"]]) <= 1e-6 for r in ranked)
    top = model.rank(QUERY, DOCS, top_k=2, return_documents=True)
    assert [(r["corpus_id"], r["text"]) for r in top] == [(i, DOCS[i]) for i in order[:2]]
    with pytest.raises(phasor.Error, match=r"rank needs one score a pair \(num_labels 1\); "
                                           "the classification head has 3 labels"):
        phasor.Model(cross_encoders["three"]).rank(QUERY, DOCS)
    with pytest.raises(phasor.Error, match="rank: top_k must be an int, got str"):
        model.rank(QUERY, DOCS, top_k="2")
