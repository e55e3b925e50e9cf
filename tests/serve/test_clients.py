"""The clients users have, against `phasor serve` over real HTTP: one client's bad input fails
only its own request; curl's default body, OpenAI-sized batches, OpenAI's error shape and
`dimensions`; HTTP's methods and empty bodies; /predict and /info on a classifier; what the
metrics count; a body that arrives after SIGTERM."""
import json
import re
import shutil
import socket
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import HAND_TOKENIZER, HF, TIMEOUT, run_cli
from test_serve import TEXTS, encode_texts, floats

# Requests that the input rules refuse, each with its status and the words that name it.
BAD = [
    ({"inputs": [[0, 0, 0]]}, 422, "inputs[0] holds only the pad id 0"),
    ({"inputs": [[2, 5], [2, 99, 3]]}, 422, "inputs[1][1]: token id 99 is outside the vocabulary"),
    ({"inputs": [[2, 5], []]}, 422, "inputs[1] is empty"),
    ({"inputs": [[2] + [5] * 38 + [3]], "truncate": False}, 413, "inputs[0] has 40 tokens"),
    ({"inputs": ["hello", "hello " * 40], "truncate": False}, 413, "inputs[1] has 42 tokens"),
    ({"inputs": []}, 400, "is empty"),
]


def read_answer(sock):
    """(status line, body) of one HTTP answer read off a raw socket ("", b"" if it closes)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            return data.decode(errors="replace"), b""
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = int(re.search(rb"Content-Length: (\d+)", head).group(1))
    while len(body) < length:
        chunk = sock.recv(4096)
        assert chunk, "the answer ended early"
        body += chunk
    return head.decode().split("\r\n")[0], body


def ids_file(tmp_path, rows):
    f = tmp_path / f"ids-{len(rows)}.txt"
    f.write_text("".join(" ".join(map(str, r)) + "\n" for r in rows))
    return f


def encode_ids(model, rows, tmp_path):
    """`phasor encode --tokens-file`, pooled as the folder says: the bits each row must get."""
    out = tmp_path / "ids.npy"
    run_cli("encode", "--model", model, "--tokens-file", ids_file(tmp_path, rows), "--pool",
            "model", "--output", out)
    return np.load(out)


@pytest.mark.parametrize("bad, status, words", BAD, ids=[b[2][:24] for b in BAD])
def test_one_bad_input_fails_only_its_own_request(model_dir, start_server, tmp_path, bad,
                                                  status, words):
    """30 good requests and one bad at once, all held until they share one batch: every good
    one gets `encode`'s bits, the bad one its own error naming the input and position."""
    good = [[2, 5 + k % 7, 10, 6 + k % 3, 3] for k in range(30)]
    want = encode_ids(model_dir, good, tmp_path)
    s = start_server(model_dir, env={"PHASOR_TEST_BATCH_DELAY_MS": "400"})
    answers = {}
    start = threading.Barrier(31)

    def client(k):
        start.wait()
        body = bad if k == 30 else {"inputs": [good[k]]}
        answers[k] = s.post("/embed", body)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(31)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(30):
        got, rows = answers[k]
        assert got == 200, (k, rows)
        assert floats(rows).tobytes() == want[k:k + 1].tobytes()
    got, err = answers[30]
    assert got == status and words in err["error"], err
    m = s.metrics()
    assert m["phasor_tokens_total"] == 30 * 5  # the good ones' tokens, each once
    assert m["phasor_batch_size_count"] <= 5  # they did share batches


def test_trailing_pad_ids_are_padding_as_in_encode(model_dir, start_server, tmp_path):
    want = encode_ids(model_dir, [[2, 5, 10, 6, 3]], tmp_path)
    s = start_server(model_dir)
    status, rows = s.post("/embed", {"inputs": [[2, 5, 10, 6, 3, 0, 0]]})
    assert status == 200 and floats(rows).tobytes() == want.tobytes()
    assert s.metrics()["phasor_tokens_total"] == 5


def test_a_json_body_is_read_whatever_its_content_type(model_dir, start_server, tmp_path):
    """curl -d sends application/x-www-form-urlencoded: a body of any size is JSON all the
    same (never a false 413); multipart is no JSON body: 415 naming the header."""
    texts = [f"hello worlds {k} unable" for k in range(400)]  # about 13 KB
    body = json.dumps({"inputs": texts}).encode()
    assert len(body) > 8192
    want = encode_texts(model_dir, texts, tmp_path)
    s = start_server(model_dir)
    for ctype in ["application/x-www-form-urlencoded", "text/plain", None,
                  "application/json; charset=utf-8"]:
        headers = {"Content-Type": ctype} if ctype else {}
        status, _, data = s.request("POST", "/embed", body, headers=headers)
        assert status == 200, (ctype, data[:200])
        assert floats(json.loads(data)).tobytes() == want.tobytes()
    status, _, data = s.request("POST", "/embed", body,
                                headers={"Content-Type": "multipart/form-data; boundary=x"})
    assert status == 415 and b"Content-Type multipart/form-data" in data


def test_a_post_without_a_body_is_answered_at_once(model_dir, start_server):
    s = start_server(model_dir)
    sock = socket.create_connection(("127.0.0.1", s.port), timeout=TIMEOUT)
    begin = time.monotonic()
    sock.sendall(b"POST /embed HTTP/1.1\r\nHost: x\r\n\r\n")
    status, body = read_answer(sock)
    assert time.monotonic() - begin < 1.0
    assert status.startswith("HTTP/1.1 422") and b"not valid JSON" in body
    sock.close()


def test_openai_sized_batches_and_dimensions(model_dir, start_server, tmp_path):
    """OpenAI takes 2,048 inputs a request (LangChain sends up to 1,000): so does phasor by
    default. dimensions keeps each row's first N values, renormalised (the folder normalizes)."""
    texts = [TEXTS[k % len(TEXTS)] for k in range(1000)]
    s = start_server(model_dir)
    status, body = s.post("/v1/embeddings", {"input": texts, "model": "m"})
    assert status == 200 and len(body["data"]) == 1000
    status, err = s.post("/v1/embeddings", {"input": ["a"] * 2049})
    assert status == 413 and err["error"]["param"] == "input"
    assert "holds 2049 inputs, more than the 2048" in err["error"]["message"]
    # dimensions, against numpy on the full pooled rows (mean pooling, before Normalize).
    full = encode_texts(model_dir, TEXTS, tmp_path, pool="mean").astype(np.float64)
    for route, key, extra in [("/v1/embeddings", "input", {}), ("/embed", "inputs", {})]:
        status, body = s.post(route, {key: TEXTS, "dimensions": 8, **extra})
        assert status == 200
        rows = np.array([d["embedding"] for d in body["data"]] if route.startswith("/v1")
                        else body)
        cut = full[:, :8] / np.linalg.norm(full[:, :8], axis=1, keepdims=True)
        assert rows.shape == (len(TEXTS), 8) and np.abs(rows - cut).max() < 1e-6
    status, rows = s.post("/embed", {"inputs": TEXTS, "dimensions": 8, "normalize": False})
    assert status == 200 and np.abs(np.array(rows) - full[:, :8]).max() < 1e-6


def test_openai_errors_have_openais_shape(model_dir, start_server):
    s = start_server(model_dir)
    status, err = s.post("/v1/embeddings", {"input": [[2, 99]]})
    assert status == 422
    assert err == {"error": {"message": "input[0][1]: token id 99 is outside the vocabulary "
                                        "[0, 60)",
                             "type": "invalid_request_error", "param": "input",
                             "code": "validation"}}
    status, _, body = s.request("GET", "/v1/embeddings")
    assert status == 405 and json.loads(body)["error"]["type"] == "invalid_request_error"
    status, err = s.post("/v1/nothing", {})
    assert status == 404 and err["error"]["code"] == "not_found"
    # TEI's routes keep TEI's shape.
    status, err = s.post("/embed", {"inputs": [[2, 99]]})
    assert status == 422 and set(err) == {"error", "error_type"}


@pytest.fixture(scope="module")
def classifier_dir(tmp_path_factory):
    """tests/data/hf/bert_seqcls (a BertForSequenceClassification of several labels) with the
    hand-made tokenizer and named labels."""
    d = tmp_path_factory.mktemp("serve") / "classifier"
    shutil.copytree(HF / "bert_seqcls", d)
    shutil.copy(HAND_TOKENIZER, d / "tokenizer.json")
    cfg = json.loads((d / "config.json").read_text())
    n = len(cfg.get("id2label", {})) or cfg.get("num_labels", 2)
    names = ["negative", "neutral", "positive", "other"][:n]
    cfg["id2label"] = {str(i): names[i] for i in range(n)}
    cfg["label2id"] = {names[i]: i for i in range(n)}
    (d / "config.json").write_text(json.dumps(cfg))
    return d


def logits_of(model, lines, tmp_path, pairs=False):
    f = tmp_path / "lines.txt"
    f.write_text("".join(line + "\n" for line in lines))
    out = tmp_path / "logits.npy"
    run_cli("encode", "--model", model, "--text-file", f, *(["--pairs"] if pairs else []),
            "--stage", "logits", "--output", out)
    return np.load(out).astype(np.float64)


def test_a_classifier_answers_predict_and_says_what_it_is(classifier_dir, start_server,
                                                          tmp_path):
    labels = json.loads((classifier_dir / "config.json").read_text())["id2label"]
    logits = logits_of(classifier_dir, TEXTS[:3], tmp_path)
    pair_logits = logits_of(classifier_dir, ["hello\tworlds", "zzz\tunable"], tmp_path, True)
    s = start_server(classifier_dir)
    status, one = s.post("/predict", {"inputs": TEXTS[0]})
    assert status == 200

    def check(preds, row, raw=False):
        want = row if raw else np.exp(row - row.max()) / np.exp(row - row.max()).sum()
        assert [p["label"] for p in preds] == [labels[str(i)] for i in np.argsort(-want,
                                                                                  kind="stable")]
        for p in preds:
            i = [k for k, v in labels.items() if v == p["label"]][0]
            assert abs(p["score"] - want[int(i)]) < 1e-6

    check(one, logits[0])
    status, batch = s.post("/predict", {"inputs": [[t] for t in TEXTS[:3]], "raw_scores": True})
    assert status == 200 and len(batch) == 3
    for preds, row in zip(batch, logits):
        check(preds, row, raw=True)
    status, pairs = s.post("/predict", {"inputs": [["hello", "worlds"], ["zzz", "unable"]]})
    assert status == 200
    for preds, row in zip(pairs, pair_logits):
        check(preds, row)
    status, err = s.post("/predict", {"inputs": [["a", "b"], ["c"]]})
    assert status == 422 and "inputs[1]: a single text among pairs" in err["error"]
    status, err = s.post("/embed", {"inputs": "hello"})
    assert status == 424 and "is a classifier" in err["error"] and "/predict" in err["error"]
    status, _, body = s.request("GET", "/info")
    info = json.loads(body)
    assert status == 200
    assert info["model_type"] == {"classifier": {"id2label": labels,
                                                 "label2id": {v: int(k)
                                                              for k, v in labels.items()}}}
    assert info["max_input_length"] == 40 and info["auto_truncate"] is False


def test_info_has_teis_fields(model_dir, start_server):
    s = start_server(model_dir)
    status, _, body = s.request("GET", "/info")
    info = json.loads(body)
    assert info["model_type"] == {"embedding": {"pooling": "mean"}}
    assert info["max_input_length"] == 32 and info["auto_truncate"] is True
    assert info["max_client_batch_size"] == 2048 and info["max_batch_tokens"] == 16384


def test_a_body_that_ends_after_sigterm_gets_503(model_dir, start_server):
    s = start_server(model_dir)
    body = json.dumps({"inputs": ["hello"]}).encode()
    sock = socket.create_connection(("127.0.0.1", s.port), timeout=TIMEOUT)
    sock.sendall(b"POST /embed HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body)
                 + body[:5])
    time.sleep(0.2)
    s.proc.send_signal(15)
    time.sleep(0.3)
    sock.sendall(body[5:])
    status, answer = read_answer(sock)
    assert status.startswith("HTTP/1.1 503"), status
    assert b"shutting down" in answer
    sock.close()
    assert s.proc.wait(timeout=TIMEOUT) == 0


def test_real_clients_requests_replayed(model_dir, start_server, tmp_path):
    """The requests the OpenAI Node SDK and LangChain's OpenAIEmbeddings sent (recorded by
    tests/serve/clients/record.sh, which also checked that each client read its answers):
    each answered as then, every row `encode`'s bits (or its first N values, renormalised)."""
    import base64
    recorded = json.loads((Path(__file__).parent / "data" / "client_requests.json").read_text())
    clients = {e["client"].split(" ")[0] for e in recorded["exchanges"]}
    assert clients == {"openai", "@langchain/openai"}
    s = start_server(model_dir)
    for e in recorded["exchanges"]:
        headers = {k: v for k, v in e["headers"].items() if v is not None}
        status, _, data = s.request(e["method"], e["path"], e["body"].encode(), headers=headers)
        assert status == e["status"], (e["client"], data[:300])
        answer = json.loads(data)
        if status != 200:
            assert answer == e["answer"]
            continue
        body = json.loads(e["body"])
        texts = [body["input"]] if isinstance(body["input"], str) else body["input"]
        want = encode_texts(model_dir, texts, tmp_path)
        if "dimensions" in body:
            cut = want.astype(np.float64)[:, :body["dimensions"]]
            want = (cut / np.linalg.norm(cut, axis=1, keepdims=True)).astype(np.float32)
        if body.get("encoding_format") == "base64":
            rows = np.stack([np.frombuffer(base64.b64decode(d["embedding"]), dtype="<f4")
                             for d in answer["data"]])
        else:
            rows = floats([d["embedding"] for d in answer["data"]])
        assert [d["index"] for d in answer["data"]] == list(range(len(texts)))
        if "dimensions" in body:
            assert np.abs(rows - want).max() < 1e-6
        else:
            assert rows.tobytes() == want.tobytes(), e["client"]
