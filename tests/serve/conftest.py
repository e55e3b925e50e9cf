"""Fixtures of the server tests: `phasor serve` started on a free loopback port, spoken to
over real HTTP (http.client), and small Hugging Face folders with a tokenizer.

ctest runs them as `python3 -m pytest -q tests/serve` with PHASOR_CLI (the phasor binary
of the same build) and PHASOR_SOURCE_DIR set; run by hand from the source root they fall
back to build/.
"""
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

SOURCE_DIR = Path(os.environ.get("PHASOR_SOURCE_DIR", Path(__file__).resolve().parents[2]))
CLI = Path(os.environ.get("PHASOR_CLI", SOURCE_DIR / "build" / "bin" / "phasor"))
HF = SOURCE_DIR / "tests" / "data" / "hf"
HAND_TOKENIZER = SOURCE_DIR / "tests" / "data" / "tokenizers" / "hand" / "tokenizer.json"
sys.path.insert(0, str(SOURCE_DIR / "tests" / "data"))
from make_hf_golden import write_safetensors  # noqa: E402

# Seconds a server may take to start, answer or stop: far above a release build's
# (well under one), for the sanitizer build and a busy machine.
TIMEOUT = 60


def run_cli(*args):
    proc = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert proc.returncode == 0, f"phasor {' '.join(map(str, args))}: {proc.stderr}"
    return proc


class Server:
    """`phasor serve` in a process of its own; its stderr goes to a file."""

    def __init__(self, model, *args, env=None, tmp):
        self.log_path = tmp / f"serve-{time.monotonic_ns()}.log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [str(CLI), "serve", "--model", str(model), "--port", "0", "--threads", "2", *map(str, args)],
            stdout=subprocess.DEVNULL, stderr=self.log, env={**os.environ, **(env or {})})
        deadline = time.monotonic() + TIMEOUT
        self.port = None
        while self.port is None:
            assert self.proc.poll() is None, f"the server exited: {self.log_text()}"
            assert time.monotonic() < deadline, f"the server did not listen: {self.log_text()}"
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", self.log_text())
            if m:
                self.port = int(m.group(1))
            else:
                time.sleep(0.02)

    def log_text(self):
        return self.log_path.read_text()

    def connect(self, timeout=TIMEOUT):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None, conn=None):
        """(status, headers, body bytes) of one request; body: bytes, str or a JSON value."""
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
        own = conn is None
        conn = conn or self.connect()
        try:
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            return r.status, dict(r.getheaders()), r.read()
        finally:
            if own:
                conn.close()

    def post(self, path, body, **kw):
        status, headers, data = self.request("POST", path, body, **kw)
        return status, json.loads(data)

    def metrics(self):
        status, _, data = self.request("GET", "/metrics")
        assert status == 200
        values = {}
        for line in data.decode().splitlines():
            if line and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                values[name] = float(value)
        return values

    def stop(self):
        """SIGTERM; returns the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=TIMEOUT)
        finally:
            self.log.close()


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory):
    """A sentence-transformers BERT folder (mean pooling, Normalize; 40 positions, 60 ids)
    with the hand-made WordPiece tokenizer (tests/data/tokenizers/hand), whose ids fit."""
    d = tmp_path_factory.mktemp("serve") / "st_mean"
    shutil.copytree(HF / "st_mean", d)
    shutil.copy(HAND_TOKENIZER, d / "tokenizer.json")
    return d


def read_safetensors(path):
    data = Path(path).read_bytes()
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        begin, end = t["data_offsets"]
        assert t["dtype"] == "F32"
        out[name] = np.frombuffer(data[8 + n + begin:8 + n + end], dtype="<f4").reshape(t["shape"])
    return out


@pytest.fixture(scope="session")
def cross_encoder_dir(tmp_path_factory):
    """A BertForSequenceClassification folder of one label (a cross-encoder, as rerankers
    are) from tests/data/hf/bert_seqcls's weights, its head cut to the first label, with the
    hand-made tokenizer."""
    d = tmp_path_factory.mktemp("serve") / "cross_encoder"
    d.mkdir()
    cfg = json.loads((HF / "bert_seqcls" / "config.json").read_text())
    cfg["id2label"] = {"0": "LABEL_0"}
    cfg["label2id"] = {"LABEL_0": 0}
    (d / "config.json").write_text(json.dumps(cfg, indent=2))
    t = read_safetensors(HF / "bert_seqcls" / "model.safetensors")
    t["classifier.weight"] = t["classifier.weight"][:1].copy()
    t["classifier.bias"] = t["classifier.bias"][:1].copy()
    write_safetensors(d / "model.safetensors", t, "F32")
    shutil.copy(HAND_TOKENIZER, d / "tokenizer.json")
    return d


@pytest.fixture
def start_server(tmp_path):
    """start_server(model, *args, env=None) -> Server; each is stopped (and must exit 0)
    at the end of the test."""
    servers = []

    def start(model, *args, env=None):
        s = Server(model, *args, env=env, tmp=tmp_path)
        servers.append(s)
        return s

    yield start
    for s in servers:
        code = s.stop()
        assert code == 0, f"the server exited {code}: {s.log_text()}"
