#!/usr/bin/env bash
# The demo `make demo` runs: phasor on its built-in toy model, no files needed.
# Four parts, under a minute on 2 cores (most of it bench-pe): the PE table,
# its heatmap, the toy encoder, and cached against recomputed PE measured on
# this machine, with its chart.
set -euo pipefail
phasor="${1:-build/bin/phasor}"
out="${TMPDIR:-/tmp}/phasor-demo"
mkdir -p "$out"

echo "== The sinusoidal PE table, d_model 8, positions 0..3 (phasor pe)"
"$phasor" pe --d-model 8 --length 4
echo
echo "== A heatmap of positions 0..255 x 128 dimensions (phasor pe --output FILE.png)"
"$phasor" pe --d-model 128 --length 256 --output "$out/pe.png"
echo
echo "== The toy encoder on 5 token ids (phasor encode)"
"$phasor" encode --tokens "3 14 15 92 65"
echo
echo "== Cached table against rows recomputed by rotation, d_model 512, on this machine"
echo "   (phasor bench-pe --lengths 1K,16K,256K; under a minute)"
json="$out/bench-pe.json"
"$phasor" bench-pe --lengths 1K,16K,256K --min-seconds 0.05 --json --png "$out/bench-pe.png" \
  >"$json"
if command -v python3 >/dev/null 2>&1; then
  python3 - "$json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
rows = {(r["group"], r["mode"], r["length"]): r for r in j["rows"]}
print(f"{'':14}{'length':>8}  {'cached GB/s':>11}  {'on the fly GB/s':>15}  "
      f"{'on the fly / cached':>19}  {'on the fly / bound':>18}")
for group, bound in (("pe", "stream_write"), ("embedding+pe", "gather")):
    for n in sorted({k[2] for k in rows if k[0] == group}):
        c, o, b = (rows.get((group, m, n), {}).get("gb_per_s")
                   for m in ("cached", "on_the_fly", bound))
        if c and o and b:
            k = f"{n // 1024}K"
            print(f"{group:14}{k:>8}  {c:11.1f}  {o:15.1f}  {o / c:19.2f}  {o / b:18.2f}")
print(f"({j['threads']} threads, target {j['isa']}; bound: a plain write of the same bytes "
      "for pe, the bare token gather for embedding+pe)")
wins = []
for group in ("pe", "embedding+pe"):
    ks = [n for (g, m, n), r in sorted(rows.items()) if g == group and m == "on_the_fly"
          and rows.get((g, "cached", n), {}).get("gb_per_s")
          and r["gb_per_s"] > rows[(g, "cached", n)]["gb_per_s"]]
    wins.append(f"{group} at " + (", ".join(f"{n // 1024}K" for n in ks) if ks else "no length"))
print("Recomputed rows beat the cached table here: " + "; ".join(wins) + ".")
PY
else
  "$phasor" bench-pe --lengths 1K,16K,256K --min-seconds 0.05
fi
echo "chart: $out/bench-pe.png (GB/s against length, each mode beside its bound)"
echo "The full comparison, 512 to 1M tokens, and how it was measured: docs/benchmarks.md."
