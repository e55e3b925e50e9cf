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
