"""README.md's Python example, run as written: it prints what the README shows."""
import json
import re
import shutil
import subprocess
import sys

from conftest import SOURCE_DIR, run_cli


def readme_example():
    """The first ```python block of the section '## Python' and the ``` block after it
    (its output, after a '$ ...' command line)."""
    readme = (SOURCE_DIR / "README.md").read_text()
    section = readme[readme.index("\n## Python\n"):]
    section = section[:section.find("\n## ", 1)] if "\n## " in section[1:] else section
    code = re.search(r"\n```python\n(.*?)\n```\n", section, re.S)
    assert code, "README.md '## Python' has no ```python block"
    output = re.search(r"\n```\n\$ [^\n]*\n(.*?)\n```\n", section[code.end() - 1:], re.S)
    assert output, "README.md '## Python' shows no output of its example"
    return code.group(1) + "\n", output.group(1) + "\n"


def test_readme_python_example(tmp_path):
    code, shown = readme_example()
    run_cli("make-toy", "--out", tmp_path / "toy")
    (tmp_path / "example.py").write_text(code)
    proc = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == shown


def walk_command():
    """The encode command of README's walk 'From a downloaded folder to one vector a line'."""
    readme = (SOURCE_DIR / "README.md").read_text()
    walk = readme[readme.index("**From a downloaded folder to one vector a line.**"):]
    command = re.search(r"\n\s*(build/bin/phasor encode [^\n]*)\n", walk)
    assert command, "README's walk lost its command"
    return command.group(1)


def test_readme_walk_from_a_folder_to_vectors(tmp_path):
    """The walk's command as written, on a golden sentence-transformers folder in place of
    the download, with a tokenizer.json whose pieces t0..t59 are the ids 0..59 and sentences
    spelling the golden case's lines: one unit vector a line, the float64 reference's, and
    the bits of the same ids given as a tokens file."""
    import numpy as np
    golden = SOURCE_DIR / "tests" / "data" / "hf" / "st_mean"
    folder = tmp_path / "all-MiniLM-L6-v2"
    shutil.copytree(golden, folder)
    vocab = {f"t{i}": i for i in range(60)}
    (folder / "tokenizer.json").write_text(json.dumps({
        "version": "1.0", "added_tokens": [], "normalizer": None,
        "pre_tokenizer": {"type": "WhitespaceSplit"}, "post_processor": None,
        "model": {"type": "WordPiece", "unk_token": "t1", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab}}))
    lines = (golden / "tokens.txt").read_text().split("\n")
    (tmp_path / "sentences.txt").write_text(
        "".join(" ".join(f"t{i}" for i in line.split()) + "\n" for line in lines if line.strip()))
    args = walk_command().split()[2:]
    args = [str(tmp_path / a) if a in ("sentences.txt", "vectors.npy", "all-MiniLM-L6-v2") else a
            for a in args]
    run_cli("encode", *args)
    got = np.load(tmp_path / "vectors.npy")
    want = np.load(golden / "expected_pooled.npy")
    assert got.shape == want.shape
    assert np.max(np.abs(got - want)) <= 1e-4
    assert np.allclose(np.linalg.norm(got, axis=1), 1, atol=1e-6)
    run_cli("encode", "--model", folder, "--tokens-file", golden / "tokens.txt", "--pool", "model",
            "--output", tmp_path / "ids.npy")
    assert (tmp_path / "ids.npy").read_bytes() == (tmp_path / "vectors.npy").read_bytes()
