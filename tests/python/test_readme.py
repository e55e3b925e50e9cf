"""README.md's Python example, run as written: it prints what the README shows."""
import re
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


def walk_blocks():
    """The tokenizer script and the encode command of README's walk 'From a downloaded folder
    to one vector a line'."""
    readme = (SOURCE_DIR / "README.md").read_text()
    walk = readme[readme.index("**From a downloaded folder to one vector a line.**"):]
    script = re.search(r"<<'PY' > ids.txt\n(.*?)\n\s*PY\n", walk, re.S)
    command = re.search(r"\n\s*(build/bin/phasor encode [^\n]*)\n", walk)
    assert script and command, "README's walk lost its script or its command"
    lines = script.group(1).splitlines()
    indent = len(lines[0]) - len(lines[0].lstrip())
    return "\n".join(line[indent:] for line in lines) + "\n", command.group(1)


def test_readme_walk_from_a_folder_to_vectors(tmp_path):
    """The walk as written: its script run with a stand-in tokenizer (transformers is not
    installed here) writes one line of ids a sentence; its command, on a golden
    sentence-transformers folder in place of the download, writes one unit vector a line,
    the reference's."""
    import numpy as np
    script, command = walk_blocks()
    fake = tmp_path / "transformers"
    fake.mkdir()
    (fake / "__init__.py").write_text(
        "class AutoTokenizer:\n"
        "    @staticmethod\n"
        "    def from_pretrained(name):\n"
        "        assert name == 'all-MiniLM-L6-v2'\n"
        "        return lambda text, truncation, max_length: "
        "{'input_ids': [2] + [3 + len(w) for w in text.split()][:max_length - 2] + [4]}\n")
    (tmp_path / "sentences.txt").write_text("a small test\nof the walk\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-"], input=script, cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, env={"PYTHONPATH": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "2 4 8 7 4\n2 5 6 7 4\n"
    folder = SOURCE_DIR / "tests" / "data" / "hf" / "st_mean"
    args = command.split()[2:]
    args = [str(folder) if a == "all-MiniLM-L6-v2" else a for a in args]
    args = [str(folder / "tokens.txt") if a == "ids.txt" else a for a in args]
    args = [str(tmp_path / a) if a == "vectors.npy" else a for a in args]
    run_cli("encode", *args)
    got = np.load(tmp_path / "vectors.npy")
    want = np.load(folder / "expected_pooled.npy")
    assert got.shape == want.shape
    assert np.max(np.abs(got - want)) <= 1e-4
    assert np.allclose(np.linalg.norm(got, axis=1), 1, atol=1e-6)
