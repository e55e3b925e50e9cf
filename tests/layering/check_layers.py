#!/usr/bin/env python3
"""Fails when a source file includes a header of a layer above its own.

The layers, lowest first (README, "Layout of the code"):

    engine                      tensors, weights, threads, kernels, errors
    layers      tokenizers      one layer a file | text to ids
    models                      configs, the encoder stack, inputs, pooling, phasor.h
    commands                    each command's work as a library call
    serving     python          phasor serve | the Python module
    tools                       the command line

A folder may include its own headers and those of the folders it is built on
(ALLOWED below); bench/ and tests/ may include anything. Usage:
check_layers.py SOURCE_DIR; prints each offending include and exits 1.
"""
import pathlib
import re
import sys

ALLOWED = {
    "engine": {"engine"},
    "layers": {"engine", "layers"},
    "tokenizers": {"engine", "tokenizers"},
    "models": {"engine", "layers", "tokenizers", "models"},
    "commands": {"engine", "layers", "tokenizers", "models", "commands"},
    "serving": {"engine", "layers", "tokenizers", "models", "commands", "serving"},
    "python": {"engine", "layers", "tokenizers", "models", "commands", "python"},
    "tools": {"engine", "layers", "tokenizers", "models", "commands", "serving", "tools"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def offences(root):
    for folder, allowed in ALLOWED.items():
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".h", ".cc", ".inc"):
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                target = match.group(1).split("/")[0]
                if target in ALLOWED and target not in allowed:
                    yield f"{path.relative_to(root)}:{number}: {folder}/ includes {match.group(1)}"


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    missing = [f for f in ALLOWED if not (root / f).is_dir()]
    if missing:
        print(f"check_layers: no folder {', '.join(missing)} under {root}")
        return 1
    found = list(offences(root))
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
