"""Ctrl-C in a long model.encode: KeyboardInterrupt within half a second, the model as
usable as before; and the Dask tools' files, complete or absent under SIGTERM and errors."""
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import SOURCE_DIR

TOOLS = SOURCE_DIR / "tools"

# Runs in a fresh interpreter, as a user's script would: SIGINT (what Ctrl-C sends) to itself
# one second into an encode that takes many seconds; prints how long the call took to stop.
INTERRUPTED_SCRIPT = textwrap.dedent("""
    import os, signal, sys, threading, time
    import numpy as np
    import phasor
    model = phasor.Model(sys.argv[1])
    rng = np.random.default_rng(0)
    ids = rng.integers(1, model.vocab_size, size=(64, 512))
    small = ids[:2]
    want = model.encode(small)
    t0 = time.perf_counter()
    model.encode(ids[:4])
    per_row = (time.perf_counter() - t0) / 4
    # Enough rows for at least 20 s of work, at most 4096 of them.
    rows = int(min(4096, max(64, 20 / per_row)))
    ids = rng.integers(1, model.vocab_size, size=(rows, 512))
    sent = []
    def interrupt():
        time.sleep(1.0)
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)
    threading.Thread(target=interrupt, daemon=True).start()
    t0 = time.perf_counter()
    try:
        model.encode(ids)
        print("finished", time.perf_counter() - t0)
    except KeyboardInterrupt:
        stopped = time.perf_counter()
        print("interrupted", stopped - sent[0], rows * per_row)
    again = model.encode(small)
    print("same", again.tobytes() == want.tobytes())
""")


def test_ctrl_c_stops_a_long_encode_within_half_a_second(toy_dir):
    proc = subprocess.run([sys.executable, "-c", INTERRUPTED_SCRIPT, str(toy_dir)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split("\n")
    first = lines[0].split()
    assert first[0] == "interrupted", proc.stdout
    latency, full = float(first[1]), float(first[2])
    assert full > 10, proc.stdout  # the call had far more work than the second it ran
    assert latency < 0.5, proc.stdout
    assert lines[1] == "same True", proc.stdout


# A tool's main under dask_cluster.run_main that writes an output file slowly.
SLOW_WRITER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, sys.argv[1])
    import dask_cluster
    def main():
        with dask_cluster.output_file(sys.argv[2]) as temp:
            with open(temp, "wb") as f:
                f.write(b"half")
                f.flush()
                print("writing", flush=True)
                time.sleep(60)
        return 0
    sys.exit(dask_cluster.run_main(main))
""")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_dask_tool_signal_leaves_the_earlier_file_and_no_temporary(tmp_path, sig):
    out = tmp_path / "merged.npy"
    out.write_bytes(b"earlier")
    proc = subprocess.Popen([sys.executable, "-c", SLOW_WRITER, str(TOOLS), str(out)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "writing\n"
    proc.send_signal(sig)
    assert proc.wait(timeout=30) == -sig  # ended by the signal: 128 + n in a shell
    assert out.read_bytes() == b"earlier"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["merged.npy"]


def test_dask_output_file_replaces_only_when_complete(tmp_path):
    sys.path.insert(0, str(TOOLS))
    import dask_cluster
    out = tmp_path / "a.npy"
    out.write_bytes(b"earlier")
    os.chmod(out, 0o600)
    with pytest.raises(ValueError):
        with dask_cluster.output_file(out) as temp:
            np.save(open(temp, "wb"), np.zeros(3))
            raise ValueError("a failure mid-write")
    assert out.read_bytes() == b"earlier"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.npy"]
    link = tmp_path / "link.npy"
    link.symlink_to("a.npy")
    with dask_cluster.output_file(link) as temp, open(temp, "wb") as f:
        np.save(f, np.arange(3.0))
    assert link.is_symlink()
    assert (np.load(out) == np.arange(3.0)).all()
    assert os.stat(out).st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.npy", "link.npy"]


def test_dask_encode_refuses_a_merge_over_its_input(tmp_path, toy_dir):
    tokens = tmp_path / "t.npy"
    tokens.write_text("3 14 15\n")
    proc = subprocess.run([sys.executable, str(TOOLS / "dask_encode.py"), "--model", str(toy_dir),
                           "--tokens-file", str(tokens), "--out-dir", str(tmp_path / "o"),
                           "--merge", str(tmp_path / "." / "t.npy")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == f"phasor: error: --merge names the input of --tokens-file " \
                          f"({tmp_path / '.' / 't.npy'})\n"
    assert tokens.read_text() == "3 14 15\n"
