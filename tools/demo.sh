#!/usr/bin/env bash
# The demo `make demo` runs: phasor on its built-in toy model, no files needed.
set -euo pipefail
phasor="${1:-build/bin/phasor}"
out="${TMPDIR:-/tmp}/phasor-demo"
mkdir -p "$out"

echo "== The sinusoidal PE table, d_model 8, positions 0..3 (phasor pe)"
"$phasor" pe --d-model 8 --length 4
echo
echo "== A heatmap of positions 0..255 x 128 dimensions: $out/pe.png"
"$phasor" pe --d-model 128 --length 256 --output "$out/pe.png"
if "$phasor" encode --help > /dev/null 2>&1; then
  echo
  echo "== The toy encoder on 5 token ids (phasor encode)"
  "$phasor" encode --tokens "3 14 15 92 65"
fi
