"""Python threads sharing one model: the same bits as one thread, whatever the
thread counts."""
import threading

import numpy as np

import phasor
from conftest import assert_same_bits


def run_in_threads(fn, n):
    results, errors = [None] * n, []

    def work(k):
        try:
            results[k] = fn(k)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread hangs"
    assert not errors, errors
    return results


def test_two_threads_share_a_model(toy_dir):
    model = phasor.Model(toy_dir)
    rng = np.random.default_rng(17)
    batches = [rng.integers(0, model.vocab_size, size=(4, 64), dtype=np.int32) for _ in range(2)]
    try:
        phasor.set_num_threads(0)
        want = [model.encode(b) for b in batches]  # one thread, all cores
        for threads in (1, 2):
            phasor.set_num_threads(threads)
            assert phasor.get_num_threads() == threads
            assert run_in_threads(lambda k: phasor.get_num_threads(), 2) == [threads] * 2
            for _ in range(3):
                got = run_in_threads(lambda k: [model.encode(batches[k]) for _ in range(3)], 2)
                for k in range(2):
                    for out in got[k]:
                        assert_same_bits(out, want[k])
    finally:
        phasor.set_num_threads(0)


def test_threads_share_positional_calls():
    want = phasor.positional_encoding(128, 3000, start=77)
    rope = phasor.rope_rows(64, 3000, start=77, scaling={"type": "yarn", "factor": 4})
    got = run_in_threads(lambda k: (phasor.positional_encoding(128, 3000, start=77),
                                    phasor.rope_rows(64, 3000, start=77,
                                                     scaling={"type": "yarn", "factor": 4})), 4)
    for pe, rr in got:
        assert_same_bits(pe, want)
        assert_same_bits(rr, rope)


def test_the_gil_is_released_while_cpp_computes(toy_dir):
    """While one thread is inside encode, another keeps running Python. With the GIL
    held, the other thread would stall for the whole call (C++ never yields it)."""
    import time
    model = phasor.Model(toy_dir)
    ids = np.random.default_rng(5).integers(0, model.vocab_size, size=(16, 256), dtype=np.int32)
    phasor.set_num_threads(1)
    try:
        model.encode(ids)  # warm up
        span = {}
        started = threading.Event()

        def encode():
            started.set()
            span["begin"] = time.perf_counter()
            model.encode(ids)
            span["end"] = time.perf_counter()

        t = threading.Thread(target=encode)
        ticks = []
        t.start()
        started.wait()
        while t.is_alive():
            ticks.append(time.perf_counter())
        t.join()
    finally:
        phasor.set_num_threads(0)
    duration = span["end"] - span["begin"]
    inside = [x for x in ticks if span["begin"] <= x <= span["end"]]
    assert duration > 0.02, "the call is too short to tell"
    edges = [span["begin"], *inside, span["end"]]
    longest_stall = max(b - a for a, b in zip(edges, edges[1:]))
    assert longest_stall < 0.5 * duration, (longest_stall, duration, len(inside))
