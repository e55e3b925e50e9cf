#!/usr/bin/env bash
# Makes WORK/minilm once, a sentence-transformers folder of all-MiniLM-L6-v2's
# shape (random F32 weights from bench/make_hf_checkpoint.py, mean pooling and
# Normalize) with bert-base-uncased's tokenizer (tests/data/tokenizers/make_folders.py),
# and prints its path. The benchmarks of text in share it (tokenize_share.sh, serve.sh).
#
#   model="$(bench/make_minilm_folder.sh WORK)"
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
python="${PYTHON:-/usr/bin/python3}"
work="$1"
model="$work/minilm"
mkdir -p "$work"
if [ ! -f "$model/model.safetensors" ]; then
  "$python" "$here/make_hf_checkpoint.py" --shape minilm --dtype F32 --sentence-transformers \
    "$model" >&2
fi
if [ ! -f "$model/tokenizer.json" ]; then
  "$python" "$root/tests/data/tokenizers/make_folders.py" --out "$work/folders" >&2
  cp "$work/folders/bert-uncased/"{tokenizer.json,tokenizer_config.json,vocab.txt} "$model/"
fi
echo "$model"
