"""Hostile clients for `phasor serve`: garbage, broken and oversized requests, and slow
clients that trickle their headers. Used by tests/serve/test_hostile.py and by
bench/serve.sh (which times ordinary requests while SlowClients hold connections).

    python3 tests/serve/hostile.py PORT      # one hostile run against a server
"""
import concurrent.futures
import random
import socket
import sys
import threading
import time


def exchange(port, data, timeout=10, close_write=False):
    """Sends data on a new connection and returns what comes back before the server
    closes it or timeout seconds pass (b"" if nothing)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    got = b""
    try:
        try:
            s.sendall(data)
            if close_write:
                s.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the server closed first: fine
        while True:
            try:
                chunk = s.recv(65536)
            except (socket.timeout, OSError):
                break
            if not chunk:
                break
            got += chunk
            if b"\r\n\r\n" in got:
                head, _, body = got.partition(b"\r\n\r\n")
                length = [int(line.split(b":")[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:")]
                if length and len(body) >= length[0]:
                    break
    finally:
        s.close()
    return got


def post(path, body, content_length=None, extra=b""):
    n = len(body) if content_length is None else content_length
    return (b"POST " + path + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
            extra + b"Content-Length: " + str(n).encode() + b"\r\n\r\n" + body)


def status_of(reply):
    """The status code of a raw reply, or None for none."""
    if not reply.startswith(b"HTTP/1.1 "):
        return None
    return int(reply[9:12])


def cases(seed=1):
    """(name, bytes to send, statuses accepted; None: the connection closed, no reply)."""
    rng = random.Random(seed)
    out = []
    for i in range(20):
        out.append((f"random bytes {i}", bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 4000))),
                    {None, 400}))
    out.append(("random bytes after a request line",
                b"POST /embed HTTP/1.1\r\n" + bytes(rng.getrandbits(8) for _ in range(3000)), {None, 400}))
    for cut in (1, 5, 11, 17, 30):
        body = b'{"inputs": ["hello", "worlds"], "normalize": true}'
        out.append((f"JSON cut after {cut} bytes", post(b"/embed", body[:cut]), {422}))
    out.append(("nested 100000 deep", post(b"/embed", b'{"inputs": ' + b"[" * 100000), {422}))
    out.append(("nested 30 deep, closed", post(b"/embed", b'{"inputs": ' + b"[" * 30 + b"]" * 30 + b"}"),
                {422}))
    for number in (b"1e999", b"-1e999", b"99999999999999999999999999", b"4294967296",
                   b"2147483648", b"-9223372036854775809", b"1" * 5000, b"NaN", b"0x10"):
        out.append((f"number {number[:20]!r}", post(b"/v1/embeddings", b'{"input": [2, ' + number + b"]}"),
                    {422}))
    out.append(("a huge number of inputs", post(b"/embed", b'{"inputs": [' + b'"a",' * 100000 + b'"a"]}'),
                {413}))
    out.append(("a string of 1 MB", post(b"/embed", b'{"inputs": "' + b"hello " * 170000 + b'"}'),
                {200}))  # cut to the folder's max_seq_length (auto-truncate)
    out.append(("a string of 1 MB, truncation off",
                post(b"/embed", b'{"truncate": false, "inputs": "' + b"hello " * 170000 + b'"}'),
                {413}))
    out.append(("invalid UTF-8 in a string", post(b"/embed", b'{"inputs": "caf\xe9"}'), {422}))
    out.append(("a lone surrogate", post(b"/embed", b'{"inputs": "\\ud800"}'), {422}))
    out.append(("NUL in a text", post(b"/embed", b'{"inputs": "hello\\u0000worlds"}'), {200}))
    out.append(("Content-Length over the limit", post(b"/embed", b"{}", content_length=10**12), {413}))
    out.append(("Content-Length negative", post(b"/embed", b"{}", content_length=-5), {None, 400, 413}))
    out.append(("Content-Length not a number",
                b"POST /embed HTTP/1.1\r\nHost: x\r\nContent-Length: lots\r\n\r\n{}", {None, 400, 422}))
    out.append(("two Content-Lengths",
                b"POST /embed HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 90\r\n\r\n{}",
                {None, 400, 422}))
    out.append(("a header line of 100 KB", post(b"/embed", b"{}", extra=b"X-A: " + b"a" * 100000 + b"\r\n"),
                {None, 400, 431}))
    out.append(("a path of 100 KB", b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
                {None, 400, 414}))
    out.append(("chunked garbage",
                b"POST /embed HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nxx\r\n0\r\n\r\n",
                {None, 400, 422}))
    out.append(("an unknown method", b"BREW /embed HTTP/1.1\r\nHost: x\r\n\r\n", {None, 400, 404, 405}))
    out.append(("HTTP/0.9", b"GET /health\r\n\r\n", {None, 400}))
    return out


def lying_length(port, timeout=3):
    """Claims 1000 bytes of body, sends 10, then says no more (SHUT_WR): the server must not
    take the 10 as a request."""
    reply = exchange(port, post(b"/embed", b'{"inputs":', content_length=1000), timeout=timeout,
                     close_write=True)
    return status_of(reply)


class SlowClients:
    """n connections that each send a request's header bytes one every interval seconds,
    never finishing, until stop()."""

    def __init__(self, port, n=40, interval=0.5):
        self.port, self.interval = port, interval
        self.stopping = threading.Event()
        self.socks = []
        self.reconnects = 0
        self.threads = [threading.Thread(target=self._run, daemon=True) for _ in range(n)]
        for t in self.threads:
            t.start()

    def _run(self):
        header = b"POST /embed HTTP/1.1\r\nHost: slow\r\nX-Slow: " + b"z" * 100000
        while not self.stopping.is_set():
            try:
                s = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            except OSError:
                return
            self.socks.append(s)
            try:
                for b in header:
                    if self.stopping.wait(self.interval):
                        break
                    s.sendall(bytes([b]))
            except OSError:
                self.reconnects += 1  # closed by the server: come back, as an attacker would
            finally:
                s.close()

    def stop(self):
        self.stopping.set()
        for t in self.threads:
            t.join(timeout=10)


def run(port):
    """One hostile run: every case of cases() and a lying Content-Length. Returns the list
    of (name, status) that were not as expected."""
    wrong = []
    todo = cases()
    # Concurrently: a case the server reads to its end waits out the server's read timeout.
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(todo)) as pool:
        replies = list(pool.map(lambda case: status_of(exchange(port, case[1])), todo))
    for (name, _, accepted), st in zip(todo, replies):
        if st not in accepted:
            wrong.append((name, st))
    st = lying_length(port)
    if st not in (None, 400, 408, 422):
        wrong.append(("lying Content-Length", st))
    return wrong


if __name__ == "__main__":
    bad = run(int(sys.argv[1]))
    for name, st in bad:
        print(f"unexpected: {name}: {st}")
    sys.exit(1 if bad else 0)
