#!/usr/bin/env bash
# Compares phasor's ids with the Rust crate `tokenizers` (npm `tokenizers`
# 0.23.2, its Node bindings) on the parity folders mpnet-wordpiece and
# modernbert-bpe (or the folders named): the corpus's single lines, then every
# code point X of planes 0-3 and 14 (but \n and \r, line ends) as X, aXb,
# eX\u0301, 1X2, "X  X" and "  X   " (the runs of spaces are ModernBERT's added
# tokens), without special tokens. Run by hand, not in CI:
#
#   tests/data/tokenizers/check_folders_sweep.sh FOLDERS_DIR NODE_MODULES [PHASOR] [FOLDER...]
#
# FOLDERS_DIR: make_folders.py's output (build/tests/tokenizer_folders);
# NODE_MODULES: a node_modules holding tokenizers@0.23.2. Prints, per folder,
# how many lines differ. model_max_length is lifted in a copy of each folder
# (the corpus has lines past 384 tokens).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
folders=$1
modules=$2
phasor=${3:-$here/../../../build/bin/phasor}
shift $(($# < 3 ? $# : 3))
names=${*:-mpnet-wordpiece modernbert-bpe}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
node - "$here/corpus/single.txt" "$scratch/lines.txt" <<'JS'
const fs = require("fs");
const [corpus, out] = process.argv.slice(2);
const lines = fs.readFileSync(corpus, "utf8").split("\n");
lines.pop();
for (const plane of [0, 1, 2, 3, 14]) {
  for (let c = plane << 16; c < (plane + 1) << 16; ++c) {
    if ((c >= 0xd800 && c <= 0xdfff) || c === 10 || c === 13) continue;
    const x = String.fromCodePoint(c);
    lines.push(x, "a" + x + "b", "e" + x + "\u0301", "1" + x + "2", x + "  " + x, "  " + x + "   ");
  }
}
fs.writeFileSync(out, lines.join("\n") + "\n");
JS
for name in $names; do
  cp -r "$folders/$name" "$scratch/$name"
  sed -i 's/"model_max_length": [0-9.e]*/"model_max_length": 1e30/' "$scratch/$name/tokenizer_config.json"
  NODE_PATH=$modules node - "$scratch/$name/tokenizer.json" "$scratch/lines.txt" "$scratch/rust.txt" <<'JS'
const fs = require("fs");
const { Tokenizer } = require("tokenizers");
(async () => {
  const [json, input, output] = process.argv.slice(2);
  const tokenizer = Tokenizer.fromFile(json);
  const lines = fs.readFileSync(input, "utf8").split("\n");
  lines.pop();
  const out = [];
  for (let i = 0; i < lines.length; i += 8192) {
    const batch = await tokenizer.encodeBatch(lines.slice(i, i + 8192), { addSpecialTokens: false });
    for (const e of batch) out.push(e.getIds().join(" "));
  }
  fs.writeFileSync(output, out.join("\n") + "\n");
})();
JS
  "$phasor" tokenize --no-special --model "$scratch/$name" --text-file "$scratch/lines.txt" \
    --output "$scratch/phasor.txt" 2>/dev/null
  differ=$(paste -d'|' "$scratch/rust.txt" "$scratch/phasor.txt" | awk -F'|' '$1 != $2' | wc -l)
  echo "$name: $differ of $(wc -l <"$scratch/lines.txt") lines differ"
done
