"""`phasor serve` over real HTTP: every route, every error code, answers bit for bit those of
`phasor encode`, metrics that count, SIGTERM with a request in flight, a client that leaves."""
import base64
import json
import shutil
import socket
import threading
import time

import numpy as np
import pytest

from conftest import TIMEOUT, run_cli

# Texts the hand-made tokenizer knows (and one word it does not: [UNK]).
TEXTS = ["Hello, worlds!", "unable Café", "zzz", "hello hello worlds, unable!",
         "Café! Café! hello, world", "worlds", "un able caf e", "hello"]
# [CLS] 2, [SEP] 3; hello 5, "," 10, world 6, ##s 7, "!" 11 (tests/python/test_text.py).
HELLO_WORLDS_IDS = [2, 5, 10, 6, 7, 11, 3]


def floats(rows):
    return np.array(rows, dtype=np.float64).astype(np.float32)


def encode_texts(model, texts, tmp_path, *args, pool="model"):
    """`phasor encode --text-file` of texts, pooled as the folder says (mean, Normalize)."""
    f = tmp_path / f"texts-{len(texts)}.txt"
    f.write_text("".join(t + "\n" for t in texts))
    out = tmp_path / "want.npy"
    run_cli("encode", "--model", model, "--text-file", f, "--pool", pool, "--output", out, *args)
    return np.load(out)


def test_health_info_and_tokenize(model_dir, start_server):
    s = start_server(model_dir)
    status, _, body = s.request("GET", "/health")
    assert status == 200 and json.loads(body) == {"status": "ok"}
    status, _, body = s.request("GET", "/info")
    info = json.loads(body)
    assert status == 200
    assert info["dimensions"] == 32 and info["model_pooling"] == "mean"
    assert info["max_input_length"] == 32  # sentence_bert_config.json's max_seq_length
    assert info["normalize"] is True and info["rerank"] is False
    assert info["tokenizer"].startswith("tokenizer.json")
    status, toks = s.post("/tokenize", {"inputs": ["Hello, worlds!", "zzz"]})
    assert status == 200 and [[t["id"] for t in row] for row in toks] == [HELLO_WORLDS_IDS, [2, 1, 3]]
    # TEI's tokens: byte spans of the text; the template's special tokens have none.
    cls, sep = ({"id": 2, "text": "[CLS]", "special": True, "start": None, "stop": None},
                {"id": 3, "text": "[SEP]", "special": True, "start": None, "stop": None})
    tok = lambda i, text, start, stop: {"id": i, "text": text, "special": False,
                                         "start": start, "stop": stop}
    assert toks[1] == [cls, tok(1, "zzz", 0, 3), sep]
    # "é" is two bytes: "café" ends at byte 8 (character 7); worlds -> world (4..9) ##s (9..10).
    status, toks = s.post("/tokenize", {"inputs": "ünable café worlds", "add_special_tokens": False})
    assert status == 200 and toks == [[tok(8, "ün", 0, 3), tok(9, "able", 3, 7),
                                       tok(13, "caf", 8, 11), tok(14, "é", 11, 13),
                                       tok(6, "world", 14, 19), tok(7, "s", 19, 20)]]


def test_embed_is_encode_bit_for_bit(model_dir, start_server, tmp_path):
    want = encode_texts(model_dir, TEXTS, tmp_path)
    s = start_server(model_dir)
    status, rows = s.post("/embed", {"inputs": TEXTS})
    assert status == 200
    got = floats(rows)
    assert got.tobytes() == want.tobytes()
    # One text: still a list of rows; the same bits as in the batch above.
    status, rows = s.post("/embed", {"inputs": TEXTS[3]})
    assert status == 200 and floats(rows).tobytes() == want[3:4].tobytes()
    # normalize false: the pooled rows as `encode --pool mean` gives them.
    status, rows = s.post("/embed", {"inputs": TEXTS, "normalize": False})
    want_mean = encode_texts(model_dir, TEXTS, tmp_path, pool="mean")
    assert status == 200 and floats(rows).tobytes() == want_mean.tobytes()


def test_openai_embeddings_from_text_and_ids(model_dir, start_server, tmp_path):
    want = encode_texts(model_dir, TEXTS[:3], tmp_path)
    s = start_server(model_dir)
    status, body = s.post("/v1/embeddings", {"input": TEXTS[:3], "model": "m"})
    assert status == 200
    assert body["object"] == "list" and body["model"] == "m"
    assert [d["index"] for d in body["data"]] == [0, 1, 2]
    assert all(d["object"] == "embedding" for d in body["data"])
    assert floats([d["embedding"] for d in body["data"]]).tobytes() == want.tobytes()
    assert body["usage"] == {"prompt_tokens": 7 + 6 + 3, "total_tokens": 7 + 6 + 3}
    # Token ids, one sequence and many; base64: the float32 bytes, little-endian.
    status, one = s.post("/v1/embeddings", {"input": HELLO_WORLDS_IDS, "encoding_format": "base64"})
    assert status == 200
    raw = np.frombuffer(base64.b64decode(one["data"][0]["embedding"]), dtype="<f4")
    assert raw.tobytes() == want[0].tobytes()
    status, many = s.post("/v1/embeddings", {"input": [HELLO_WORLDS_IDS, [2, 1, 3]],
                                             "dimensions": 32})  # the rows' own width: fine
    assert status == 200
    assert floats([d["embedding"] for d in many["data"]]).tobytes() == want[[0, 2]].tobytes()


def test_batches_shared_by_many_clients_change_no_bit(model_dir, start_server, tmp_path):
    """Many clients at once, batches of at most 40 tokens (so that one client's 8 texts are
    split across batches and share them with others'): every answer is `encode`'s."""
    want = encode_texts(model_dir, TEXTS, tmp_path)
    s = start_server(model_dir, "--max-batch-tokens", 40)
    failures = []

    def client(k):
        conn = s.connect()
        for r in range(6):
            order = [(k + r + i) % len(TEXTS) for i in range(1 + (k + r) % len(TEXTS))]
            status, rows = s.post("/embed", {"inputs": [TEXTS[i] for i in order]}, conn=conn)
            if status != 200 or floats(rows).tobytes() != want[order].tobytes():
                failures.append((k, r, status))
        conn.close()

    threads = [threading.Thread(target=client, args=(k,)) for k in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    m = s.metrics()
    assert m["phasor_requests_total{route=\"/embed\",code=\"200\"}"] == 72
    # Batches held sequences of several requests, and none more than 40 tokens.
    assert m["phasor_batch_size_count"] < 72 * 4.5
    assert m["phasor_batch_tokens_bucket{le=\"64\"}"] == m["phasor_batch_tokens_count"]
    assert m["phasor_queue_size"] == 0 and m["phasor_requests_in_flight"] == 0


def test_truncation_follows_the_folder_rule(model_dir, start_server, tmp_path):
    """A sentence-transformers folder cuts every text at its max_seq_length by default, on
    every route (OpenAI's clients cannot send "truncate"), as `encode --truncate` cuts it; a
    request may say no, and --no-auto-truncate makes refusing the default."""
    long_text = " ".join(["hello worlds"] * 20)  # 62 ids with [CLS], [SEP]
    want = encode_texts(model_dir, [long_text], tmp_path, "--truncate")
    s = start_server(model_dir)
    status, rows = s.post("/embed", {"inputs": long_text})
    assert status == 200 and floats(rows).tobytes() == want.tobytes()
    status, body = s.post("/v1/embeddings", {"input": long_text})
    assert status == 200 and floats([body["data"][0]["embedding"]]).tobytes() == want.tobytes()
    assert body["usage"]["prompt_tokens"] == 32
    status, toks = s.post("/tokenize", {"inputs": long_text})
    assert status == 200 and len(toks[0]) == 32 and toks[0][-1]["id"] == 3  # [SEP] kept
    status, err = s.post("/embed", {"inputs": [TEXTS[0], long_text], "truncate": False})
    assert status == 413 and err["error_type"] == "Validation"
    assert ("inputs[1] has 62 tokens, more than the 32 of max_seq_length 32 of "
            f"{model_dir}/sentence_bert_config.json") in err["error"]
    strict = start_server(model_dir, "--no-auto-truncate")
    status, err = strict.post("/v1/embeddings", {"input": [long_text]})
    assert status == 413 and "input[0] has 62 tokens" in err["error"]["message"]
    status, rows = strict.post("/embed", {"inputs": long_text, "truncate": True})
    assert status == 200 and floats(rows).tobytes() == want.tobytes()
    status, _ = strict.post("/embed", {"inputs": [[2] + [5] * 40 + [3]], "truncate": True})
    assert status == 200  # ids are cut too: 42 ids, the first 32 encoded


def test_prompts_are_read_once_at_load(model_dir, start_server, tmp_path):
    folder = tmp_path / "prompted"
    shutil.copytree(model_dir, folder)
    cst = folder / "config_sentence_transformers.json"
    cst.write_text(json.dumps({"prompts": {"query": "hello "}}))
    s = start_server(folder)
    cst.unlink()  # a request that names a prompt reads no file
    status, got = s.post("/embed", {"inputs": ["worlds"], "prompt_name": "query"})
    assert status == 200, got
    status, want = s.post("/embed", {"inputs": ["hello worlds"]})
    assert status == 200 and got == want
    err = error_of(s, "/embed", {"inputs": ["a"], "prompt_name": "doc"}, 422)
    assert err["error"].endswith('config_sentence_transformers.json: prompts: no prompt "doc" '
                                 '(it has query)'), err


def error_of(s, path, body, status):
    """The error of a request refused with status, in TEI's shape, or OpenAI's on /v1/*
    (returned as TEI's keys: error, error_type, param)."""
    got, err = s.post(path, body)
    assert got == status, err
    if path.startswith("/v1/"):
        assert set(err) == {"error"} and set(err["error"]) == {"message", "type", "param", "code"}
        e = err["error"]
        assert e["type"] == ("server_error" if status >= 500 else "invalid_request_error")
        return {"error": e["message"], "error_type": e["code"], "param": e["param"]}
    assert set(err) == {"error", "error_type"}
    return err


def test_errors_name_the_field(model_dir, start_server):
    s = start_server(model_dir, "--max-client-batch-size", 4, "--payload-limit", 4096)
    # 422: not JSON, a wrong type, an id outside the vocabulary, a mix of forms.
    err = error_of(s, "/embed", b'{"inputs": ["a",', 422)
    assert err["error_type"] == "Validation" and "not valid JSON" in err["error"]
    err = error_of(s, "/embed", {"inputs": 3}, 422)
    assert "'inputs' must be" in err["error"]
    err = error_of(s, "/embed", {"inputs": ["a"], "normalize": "yes"}, 422)
    assert "'normalize' must be true or false" in err["error"]
    err = error_of(s, "/v1/embeddings", {"input": [[2, 5], [2, 60, 3]]}, 422)
    assert "input[1][1]: token id 60 is outside the vocabulary [0, 60)" in err["error"]
    err = error_of(s, "/v1/embeddings", {"input": [2, -1]}, 422)
    assert "input[1]: token id -1" in err["error"]
    err = error_of(s, "/v1/embeddings", {"input": [[2, 5], "a"]}, 422)
    assert "input[1]: expected an array of token ids" in err["error"]
    err = error_of(s, "/v1/embeddings", {"input": [2, 5.5]}, 422)
    assert "input[1]: expected a token id (an integer), found 5.5" in err["error"]
    err = error_of(s, "/v1/embeddings", {"input": [[]]}, 422)
    assert "input[0] is empty: nothing to encode" in err["error"]
    err = error_of(s, "/v1/embeddings", {"input": ["a"], "encoding_format": "hex"}, 422)
    assert "encoding_format" in err["error"]
    err = error_of(s, "/v1/embeddings", {"input": ["a"], "dimensions": 33}, 422)
    assert "'dimensions' must be an integer from 1 to 32" in err["error"]
    assert err["param"] == "dimensions" and err["error_type"] == "validation"
    err = error_of(s, "/v1/embeddings", {"input": [2, -1]}, 422)
    assert err["param"] == "input"
    err = error_of(s, "/embed", {"input": ["a"]}, 422)
    assert "'inputs' is missing" in err["error"]
    err = error_of(s, "/embed", {"inputs": ["a"], "prompt_name": "query"}, 422)
    assert "prompt_name" in err["error"]
    status, _, body = s.request("POST", "/embed", b'{"inputs": ["a"], "inputs": ["b"]}')
    assert status == 422 and b"appears twice" in body
    # 400: nothing to encode.
    err = error_of(s, "/embed", {"inputs": []}, 400)
    assert err["error_type"] == "Empty"
    # 413: more inputs than --max-client-batch-size; a body over --payload-limit.
    err = error_of(s, "/embed", {"inputs": ["a"] * 5}, 413)
    assert "holds 5 inputs, more than the 4" in err["error"]
    err = error_of(s, "/embed", {"inputs": ["hello " * 1000]}, 413)
    assert "--payload-limit 4096" in err["error"]
    # 424: /rerank on a model without a classification head.
    err = error_of(s, "/rerank", {"query": "a", "texts": ["b"]}, 424)
    assert "no classification head" in err["error"]
    # 404: an unknown route; 405: a known one by the wrong method, with the one it takes.
    err = error_of(s, "/v2/embeddings", {"input": "a"}, 404)
    assert err["error_type"] == "NotFound" and "POST /v1/embeddings" in err["error"]
    status, headers, body = s.request("GET", "/embed")
    assert status == 405 and headers["Allow"] == "POST"
    assert "GET /embed: this route takes POST" in json.loads(body)["error"]
    status, headers, body = s.request("POST", "/health", {})
    assert status == 405 and headers["Allow"] == "GET"
    m = s.metrics()
    assert m["phasor_requests_total{route=\"/embed\",code=\"422\"}"] == 6
    assert m["phasor_requests_total{route=\"/embed\",code=\"405\"}"] == 1
    assert m["phasor_requests_total{route=\"other\",code=\"404\"}"] == 1
    assert m["phasor_tokens_total"] == 0  # nothing refused was encoded


def test_text_needs_a_tokenizer(tmp_path, start_server):
    toy = tmp_path / "toy"
    run_cli("make-toy", "--out", toy, "--vocab", 20, "--d-model", 16, "--n-heads", 2,
            "--n-layers", 1, "--d-ff", 32)
    s = start_server(toy)
    err = error_of(s, "/embed", {"inputs": "hello"}, 422)
    assert err["error_type"] == "Tokenizer" and "send token ids" in err["error"]
    status, rows = s.post("/embed", {"inputs": [[3, 14, 15]], "normalize": False})
    assert status == 200
    out = tmp_path / "toy.npy"
    run_cli("encode", "--model", toy, "--tokens", "3 14 15", "--pool", "mean", "--output", out)
    assert floats(rows).tobytes() == np.load(out).tobytes()


def test_rerank_scores_are_the_head_on_each_pair(cross_encoder_dir, start_server, tmp_path):
    query, texts = "hello worlds", ["unable café", "hello, worlds!", "zzz", "worlds hello"]
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("".join(f"{query}\t{t}\n" for t in texts))
    tokens = tmp_path / "pairs.tokens"
    run_cli("tokenize", "--model", cross_encoder_dir, "--text-file", pairs, "--pairs",
            "--output", tokens)
    out = tmp_path / "logits.npy"
    run_cli("encode", "--model", cross_encoder_dir, "--tokens-file", tokens, "--stage", "logits",
            "--output", out)
    logits = np.load(out)[:, 0]
    s = start_server(cross_encoder_dir)
    status, raw = s.post("/rerank", {"query": query, "texts": texts, "raw_scores": True,
                                     "return_text": True})
    assert status == 200
    assert [r["index"] for r in raw] == list(np.argsort(-logits, kind="stable"))
    for r in raw:
        assert np.float32(r["score"]) == logits[r["index"]] and r["text"] == texts[r["index"]]
    status, scored = s.post("/rerank", {"query": query, "texts": texts})
    assert status == 200 and [r["index"] for r in scored] == [r["index"] for r in raw]
    for r in scored:
        want = 1 / (1 + np.exp(-np.float64(logits[r["index"]])))
        assert abs(r["score"] - want) < 1e-6 and "text" not in r


def test_over_the_concurrency_limit_is_429_at_once(model_dir, start_server):
    s = start_server(model_dir, "--max-concurrent-requests", 1,
                     env={"PHASOR_TEST_BATCH_DELAY_MS": "1500"})
    held = threading.Thread(target=s.post, args=("/embed", {"inputs": "hello"}))
    held.start()
    deadline = time.monotonic() + TIMEOUT
    while s.metrics()["phasor_requests_in_flight"] < 1:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    start = time.monotonic()
    status, headers, body = s.request("POST", "/embed", json.dumps({"inputs": "hello"}))
    assert time.monotonic() - start < 1.0  # at once, not after the held one
    assert status == 429 and headers["Retry-After"] == "1"
    assert json.loads(body)["error_type"] == "Overloaded"
    held.join()


def test_sigterm_answers_the_request_in_flight_and_exits_0(model_dir, start_server, tmp_path):
    want = encode_texts(model_dir, TEXTS[:1], tmp_path)
    s = start_server(model_dir, env={"PHASOR_TEST_BATCH_DELAY_MS": "1000"})
    answer = {}
    conn = s.connect()
    conn.request("POST", "/embed", body=json.dumps({"inputs": TEXTS[0]}))
    deadline = time.monotonic() + TIMEOUT
    while "phasor_requests_in_flight 1" not in s.request("GET", "/metrics")[2].decode():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    s.proc.send_signal(15)
    r = conn.getresponse()
    answer["status"], answer["rows"] = r.status, json.loads(r.read())
    assert answer["status"] == 200 and floats(answer["rows"]).tobytes() == want.tobytes()
    assert s.proc.wait(timeout=TIMEOUT) == 0
    assert "SIGTERM" in s.log_text()
    with pytest.raises(OSError):  # no longer listening
        socket.create_connection(("127.0.0.1", s.port), timeout=5).close()


def test_a_client_that_leaves_has_its_work_dropped(model_dir, start_server):
    s = start_server(model_dir, env={"PHASOR_TEST_BATCH_DELAY_MS": "1000"})
    sock = socket.create_connection(("127.0.0.1", s.port), timeout=TIMEOUT)
    body = json.dumps({"inputs": TEXTS}).encode()
    sock.sendall(b"POST /embed HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    deadline = time.monotonic() + TIMEOUT
    while s.metrics()["phasor_requests_in_flight"] < 1:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    sock.close()  # before its batch is formed
    while s.metrics()["phasor_requests_in_flight"] > 0:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    m = s.metrics()
    assert m["phasor_tokens_total"] == 0 and m["phasor_batch_size_count"] == 0
    assert m["phasor_requests_total{route=\"/embed\",code=\"499\"}"] == 1
    # The server goes on.
    status, rows = s.post("/embed", {"inputs": TEXTS[0]})
    assert status == 200


def test_log_line_per_request_unless_quiet(model_dir, start_server):
    s = start_server(model_dir)
    s.post("/embed", {"inputs": "hello"})
    s.request("GET", "/health")
    q = start_server(model_dir, "--quiet")
    q.post("/embed", {"inputs": "hello"})
    q.request("GET", "/health")
    # Each line is written once its answer has gone: wait for the last one.
    deadline = time.monotonic() + TIMEOUT
    while "GET /health 200" not in s.log_text():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert "POST /embed 200 127.0.0.1:" in s.log_text()
    assert q.stop() == 0
    assert "POST /embed" not in q.log_text() and "GET /health" not in q.log_text()


@pytest.mark.parametrize("args, message", [
    (["--max-batch-tokens", "16"], "--max-batch-tokens 16 is less than the longest input (32"),
    (["--max-input-tokens", "99"], "--max-input-tokens 99 is more than the model holds"),
    (["--pool", "none"], "--pool none"),
    (["--port", "70000"], "--port"),
    (["--rope-angles", "float32"],
     "--rope-angles: unknown rotary angles 'float32', expected 'exact' or 'library'"),
])
def test_bad_options_are_one_line(model_dir, args, message):
    import subprocess
    from conftest import CLI
    proc = subprocess.run([str(CLI), "serve", "--model", str(model_dir), *args],
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 2
    assert proc.stderr.startswith("phasor: error: ") and message in proc.stderr


def test_an_address_it_cannot_listen_on_is_one_line(model_dir):
    import subprocess
    from conftest import CLI
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    port = busy.getsockname()[1]
    for args, message in [(["--port", str(port)], f"cannot listen on 127.0.0.1:{port}: Address already in use"),
                          (["--host", "999.1.1.1", "--port", "0"],
                           "cannot listen on 999.1.1.1:0: not an address of this machine")]:
        proc = subprocess.run([str(CLI), "serve", "--model", str(model_dir), *args],
                              capture_output=True, text=True, timeout=TIMEOUT)
        assert proc.returncode == 1
        assert proc.stderr == f"phasor: error: {message}\n"
    busy.close()


def test_rope_angles_reach_the_model(start_server, tmp_path):
    """--rope-angles library: the server's rows are those of `encode --rope-angles library`,
    which differ from exact angles' on a long line (ModernBERT, global and local layers)."""
    from conftest import HF
    model = HF / "modernbert"
    ids = [4 + (j * 7) % 56 for j in range(3000)]
    f = tmp_path / "long.txt"
    f.write_text(" ".join(map(str, ids)) + "\n")
    want = {}
    for angles in ("exact", "library"):
        out = tmp_path / f"{angles}.npy"
        run_cli("encode", "--model", model, "--tokens-file", f, "--pool", "mean",
                "--rope-angles", angles, "--output", out)
        want[angles] = np.load(out)[0]
    s = start_server(model, "--rope-angles", "library")
    status, body = s.post("/v1/embeddings", {"input": ids})
    assert status == 200, body
    got = floats(body["data"][0]["embedding"])
    assert np.array_equal(got, want["library"])
    assert not np.array_equal(want["library"], want["exact"])  # mean of 3,000 rows: ~1e-7 apart
