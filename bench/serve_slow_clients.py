#!/usr/bin/env python3
"""Slow clients for bench/serve.sh: opens --connections connections to the
server and sends each a request's header one byte every --interval seconds,
never ending it (after the request line and Host, one header whose value goes
on), until SIGTERM or SIGINT; a connection the server closes is replaced by a
new one at once, so that N are always held. Prints "ready N" once every
connection is open, and on exit one line:

    phasor-slow: opened=N closed_by_server=K seconds=S

(closed_by_server: connections the server closed or reset meanwhile). Standard
library only.

    /usr/bin/python3 bench/serve_slow_clients.py --port PORT [--host 127.0.0.1]
        [--connections 40] [--interval 0.5]
"""
import argparse
import selectors
import signal
import socket
import sys
import time

p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("--host", default="127.0.0.1")
p.add_argument("--port", type=int, required=True)
p.add_argument("--connections", type=int, default=40)
p.add_argument("--interval", type=float, default=0.5)
args = p.parse_args()

stop = False


def on_signal(_signum, _frame):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_signal)
signal.signal(signal.SIGINT, on_signal)

head = ("POST /embed HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\nX-Slow: "
        % (args.host, args.port)).encode("ascii")


def header_byte(k):
    """Byte k of the endless request: its head, then 'a' for ever."""
    return head[k:k + 1] if k < len(head) else b"a"


def connect():
    s = socket.create_connection((args.host, args.port), timeout=10)
    s.setblocking(False)
    return s


# Each connection and the number of bytes of the endless request it has sent.
sent = {connect(): 0 for _ in range(args.connections)}
opened = len(sent)
print("ready %d" % len(sent), flush=True)
# Any readable socket is one the server answered (an error page) or closed.
selector = selectors.DefaultSelector()
for s in sent:
    selector.register(s, selectors.EVENT_READ)
closed_by_server = 0


def replace(s):
    """The server closed s: another takes its place at once, as an attacker's would."""
    global closed_by_server, opened
    selector.unregister(s)
    del sent[s]
    s.close()
    closed_by_server += 1
    if not stop:
        n = connect()
        sent[n] = 0
        opened += 1
        selector.register(n, selectors.EVENT_READ)


start = time.monotonic()
while not stop:
    for s in list(sent):
        try:
            s.send(header_byte(sent[s]))
            sent[s] += 1
        except OSError:
            replace(s)
    deadline = time.monotonic() + args.interval
    while not stop:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        for key, _ in selector.select(timeout=left):
            s = key.fileobj
            if s not in sent:
                continue
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if not data:  # closed or reset
                replace(s)
for s in list(sent):
    s.close()
print("phasor-slow: opened=%d closed_by_server=%d seconds=%.1f"
      % (opened, closed_by_server, time.monotonic() - start), flush=True)
sys.exit(0)
