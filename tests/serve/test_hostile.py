"""A hostile run against `phasor serve`: garbage, truncated and deeply nested JSON, huge
numbers, a lying Content-Length, oversized lines, and 40 slow clients trickling headers while
ordinary requests go on. The server must answer each with a 4xx (or close it), keep
answering ordinary requests with the same bits, and stop cleanly."""
import json
import socket
import threading
import time

import numpy as np

import hostile
from conftest import TIMEOUT

TEXTS = ["Hello, worlds!", "unable Café", "zzz", "hello hello worlds, unable!"]


def rows_of(s):
    status, rows = s.post("/embed", {"inputs": TEXTS})
    assert status == 200
    return np.array(rows, dtype=np.float64).astype(np.float32)


def test_hostile_run_beside_ordinary_requests(model_dir, start_server):
    s = start_server(model_dir, "--quiet")
    want = rows_of(s)
    slow = hostile.SlowClients(s.port, n=40, interval=0.3)
    wrong, latencies, answers = [], [], []
    attack = threading.Thread(target=lambda: wrong.extend(hostile.run(s.port)))
    attack.start()
    conn = s.connect()
    while attack.is_alive():
        start = time.monotonic()
        status, rows = s.post("/embed", {"inputs": TEXTS}, conn=conn)
        latencies.append(time.monotonic() - start)
        answers.append((status, np.array(rows, dtype=np.float64).astype(np.float32).tobytes()))
        time.sleep(0.05)
    attack.join()
    assert wrong == []
    assert len(answers) >= 10
    assert all(a == (200, want.tobytes()) for a in answers)
    # Slow clients hold connection threads, never the encoder: the ordinary requests went on.
    # (The time is measured by bench/serve.sh; this bound is only far from a hang.)
    assert max(latencies) < 5, latencies
    # SIGTERM while the slow clients still hold their connections: the server closes them
    # and exits 0 at once.
    start = time.monotonic()
    assert s.stop() == 0
    assert time.monotonic() - start < 5
    slow.stop()
    m_log = s.log_text()
    assert "error" not in m_log.lower(), m_log


def test_a_client_trickling_its_headers_is_closed_after_the_request_timeout(model_dir, start_server):
    """Ten seconds to send a whole request: a header byte every 0.3 s is closed after it."""
    s = start_server(model_dir, "--quiet")
    sock = socket.create_connection(("127.0.0.1", s.port), timeout=TIMEOUT)
    start = time.monotonic()
    closed_after = None
    try:
        sock.sendall(b"POST /embed HTTP/1.1\r\nHost: slow\r\nX-Slow: ")
        while time.monotonic() - start < 30:
            time.sleep(0.3)
            sock.sendall(b"z")
    except OSError:
        closed_after = time.monotonic() - start
    finally:
        sock.close()
    assert closed_after is not None and 9 < closed_after < 20, closed_after
    status, _, body = s.request("GET", "/health")
    assert status == 200 and json.loads(body) == {"status": "ok"}
