#!/usr/bin/env python3
"""Turns the output folder of bench/figures.sh into the Markdown tables of
docs/benchmarks.md: medians over the runs, with the spread (min to max) beside
each median, and every ratio taken within one run before its median is taken.

    python3 bench/figures_report.py /tmp/phasor-figures > tables.md
"""
import glob
import json
import os
import re
import statistics
import sys


def spread(values, fmt="{:.2f}"):
    """'median (min–max)' of values."""
    med = statistics.median(values)
    if len(values) < 2:
        return fmt.format(med)
    return f"{fmt.format(med)} ({fmt.format(min(values))}–{fmt.format(max(values))})"


def si_length(n):
    for unit, size in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size}{unit}"
    return str(n)


def load_lines(out):
    path = os.path.join(out, "load.txt")
    return open(path).read().strip().splitlines() if os.path.exists(path) else []


def pe_runs(out, pattern):
    runs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(out, pattern)))]
    return runs, [{(r["group"], r["mode"], r["length"]): r for r in run["rows"]} for run in runs]


def gb_cells(rows, group, n, modes):
    """The median (min–max) GB/s of each mode over the runs, 'skipped' if none ran."""
    cells = []
    for m in modes:
        v = [r[(group, m, n)].get("gb_per_s") for r in rows if (group, m, n) in r]
        v = [x for x in v if x is not None]
        cells.append(spread(v, "{:.1f}") if v else "skipped")
    return cells


def ratios(rows, group, n, a, b):
    """spread of the ratio a ÷ b of GB/s, taken within each run."""
    v = [r[(group, a, n)]["gb_per_s"] / r[(group, b, n)]["gb_per_s"] for r in rows
         if "gb_per_s" in r.get((group, a, n), {}) and "gb_per_s" in r.get((group, b, n), {})]
    return spread(v) if v else "skipped"


def command(runs, kind_args, lengths):
    return (f"{len(runs)} runs of `phasor bench-pe {kind_args}--lengths "
            f"{','.join(si_length(n) for n in lengths)} --min-seconds 0.3 --json`")


def bench_pe(out):
    runs, rows = pe_runs(out, "bench_pe_[0-9]*.json")
    if not runs:
        return ""
    lengths = sorted({k[2] for k in rows[0]})
    lines = [f"{command(runs, '', lengths)}, d_model {runs[0]['d_model']}, "
             f"{runs[0]['threads']} threads. GB/s written: median (min–max) over the runs; "
             "table build: the cached table made once (median of five builds).", ""]
    for group, bound, label in (("pe", "stream_write", "PE alone"),
                                ("embedding+pe", "gather", "embedding + PE")):
        build = group == "pe"
        lines += [f"**{label}**", "",
                  f"| length | cached | on the fly | direct sin/cos | "
                  + ("table build | " if build else "")
                  + f"{bound.replace('_', ' ')} (bound) | on the fly ÷ cached | on the fly ÷ bound |"
                  + (" table build ÷ bound |" if build else ""),
                  "|---|---|---|---|---|---|---|" + ("---|---|" if build else "")]
        for n in lengths:
            modes = ["cached", "on_the_fly", "direct"] + (["table_build"] if build else []) + [bound]
            lines.append(f"| {si_length(n)} | " + " | ".join(gb_cells(rows, group, n, modes)) +
                         f" | {ratios(rows, group, n, 'on_the_fly', 'cached')}"
                         f" | {ratios(rows, group, n, 'on_the_fly', bound)} |" +
                         (f" {ratios(rows, group, n, 'table_build', bound)} |" if build else ""))
        lines.append("")
    # The narrow and the wide row: ratios alone.
    wide = []
    for d in (64, 4096):
        druns, drows = pe_runs(out, f"bench_pe_d{d}_[0-9]*.json")
        if not druns:
            continue
        for n in sorted({k[2] for k in drows[0]}):
            wide.append(f"| {d} | {si_length(n)} | "
                        f"{ratios(drows, 'pe', n, 'on_the_fly', 'cached')} | "
                        f"{ratios(drows, 'pe', n, 'on_the_fly', 'stream_write')} | "
                        f"{ratios(drows, 'embedding+pe', n, 'on_the_fly', 'cached')} | "
                        f"{ratios(drows, 'embedding+pe', n, 'on_the_fly', 'gather')} |")
    if wide:
        lines += ["**Other widths** (`--d-model 64` and `4096`, lengths 4K and 1M; a cached "
                  "table over 4 GiB is skipped)", "",
                  "| d_model | length | PE on the fly ÷ cached | PE on the fly ÷ stream write | "
                  "embedding + on the fly ÷ cached | embedding + on the fly ÷ gather |",
                  "|---|---|---|---|---|---|"] + wide + [""]
    rruns, rrows = pe_runs(out, "bench_pe_rope_[0-9]*.json")
    if rruns:
        rl = sorted({k[2] for k in rrows[0]})
        lines += [f"**RoPE** ({command(rruns, '--kind rope ', rl)}: q and k of "
                  f"{rruns[0]['heads']} heads, d_model {rruns[0]['d_model']}, turned in place; "
                  "GB/s of q and k read and written)", "",
                  "| length | cached | on the fly | read + write (bound) | on the fly ÷ cached | "
                  "on the fly ÷ bound |", "|---|---|---|---|---|---|"]
        for n in rl:
            lines.append(f"| {si_length(n)} | " +
                         " | ".join(gb_cells(rrows, "rope", n, ["cached", "on_the_fly",
                                                                 "read_write"])) +
                         f" | {ratios(rrows, 'rope', n, 'on_the_fly', 'cached')}"
                         f" | {ratios(rrows, 'rope', n, 'on_the_fly', 'read_write')} |")
        lines.append("")
    return "\n".join(lines)


def benchmarks(path):
    if not os.path.exists(path):
        return []
    return json.load(open(path))["benchmarks"]


def limits(out):
    """{(kind, shape, threads): [values]} from the start and end measurements."""
    found = {}
    for f in ("peak.json", "peak_end.json"):
        for b in benchmarks(os.path.join(out, f)):
            name = b["name"].split("/")
            if name[0] == "BM_Fp32Peak":
                found.setdefault(("peak", "", int(name[1])), []).append(b["GFLOP/s"])
            elif name[0] == "BM_StreamWrite":
                found.setdefault(("stream", f"{int(name[1]):,} × {name[2]}", int(name[3])),
                                 []).append(b["bytes_per_second"] / 1e9)
    return found


def peak_gflops(out, threads):
    v = limits(out).get(("peak", "", threads))
    return max(v) if v else None


def peak(out):
    lines = ["| limit | threads | at the start | at the end |", "|---|---|---|---|"]
    for (kind, shape, t), v in sorted(limits(out).items()):
        cells = " | ".join(f"{x:.0f}" if kind == "peak" else f"{x:.1f}" for x in v)
        what = ("float32 FMA peak, GFLOP/s (`BM_Fp32Peak`)" if kind == "peak" else
                f"stream write of {shape} floats, GB/s (`BM_StreamWrite`)")
        lines.append(f"| {what} | {t} | {cells} |")
    return "\n".join(lines)


def suite(out):
    table = {}
    for b in benchmarks(os.path.join(out, "suite.json")):
        name = b["name"].split("/")
        kind = name[0][3:]
        if kind == "Fp32Peak":
            continue
        if kind == "EmbeddingPe":
            kind += {"-1": "Gather", "1": "OnTheFly", "0": "Cached"}[name[4]]
        if kind == "PackedLinear":
            key = (f"{name[1]}×{name[2]}·{name[3]}", name[4])
            table.setdefault(key, {})[kind] = f"{b['GFLOP/s']:.0f}"
            continue
        threads = name[3] if kind != "PeDirect" else "1"  # direct: one thread
        table.setdefault((name[2], threads), {})[kind] = f"{b['bytes_per_second'] / 1e9:.1f}"
    cols = ["StreamWrite", "PeOnTheFly", "PeCached", "PeDirect", "EmbeddingPeGather",
            "EmbeddingPeOnTheFly", "EmbeddingPeCached"]
    lines = ["| d_model, threads | stream write | PE on the fly | PE cached | PE direct | "
             "gather | embedding + on the fly | embedding + cached |",
             "|---|---|---|---|---|---|---|---|"]
    for (d, t), row in sorted(((k, v) for k, v in table.items() if "×" not in k[0]),
                              key=lambda kv: (int(kv[0][0]), kv[0][1])):
        if "StreamWrite" in row or "PeOnTheFly" in row:
            lines.append(f"| {d}, {t} | " + " | ".join(row.get(c, "") for c in cols) + " |")
    lines += ["", "| product [rows×in·out] | threads | packed (GFLOP/s) |", "|---|---|---|"]
    for (shape, t), row in sorted((k, v) for k, v in table.items() if "×" in k[0]):
        lines.append(f"| {shape} | {t} | {row.get('PackedLinear', '')} |")
    return "\n".join(lines)


def ort(out):
    runs = sorted(glob.glob(os.path.join(out, "ort_*.txt")))
    cells = {}
    for p in runs:
        for line in open(p):
            # case [precision] threads phasor ort ratio: the float32 rows (older
            # runs have no precision column).
            m = re.match(r"(d\d+)\s+(?:(\w+)\s+)??(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)",
                         line)
            if m and m[2] in (None, "fp32"):
                m = (m[0], m[1], m[3], m[4], m[5], m[6])
                c = cells.setdefault((m[1], int(m[2])), {"phasor": [], "ort": [], "ratio": []})
                c["phasor"].append(float(m[3]))
                c["ort"].append(float(m[4]))
                c["ratio"].append(float(m[5]))
    if not cells:
        return ""
    names = {"d512": "d512/8h/6L/ff2048, 1 × 512", "d256": "d256/4h/4L/ff1024, 8 × 128"}
    # Multiply-adds of the products per token, ×2: per layer 2·(4·d² + 2·d·d_ff) for the
    # projections and feed-forward, plus 2·2·seq·d for q·kᵀ and p·v.
    flops = {"d512": 6 * 2 * (4 * 512 ** 2 + 2 * 512 * 2048 + 2 * 512 * 512),
             "d256": 4 * 2 * (4 * 256 ** 2 + 2 * 256 * 1024 + 2 * 128 * 256)}
    lines = [f"{len(runs)} runs of `bench/ort_compare.sh --rounds 3 --repeat 10`; tokens/s, "
             "median (min–max) over the runs, each run itself the median of 3 alternating "
             "rounds.", "",
             "| model, batch | threads | phasor | ONNX Runtime | phasor ÷ ONNX Runtime | "
             "phasor, ONNX Runtime: fraction of the float32 peak |",
             "|---|---|---|---|---|---|"]
    for (case, t), c in sorted(cells.items(), key=lambda kv: (-int(kv[0][0][1:]), -kv[0][1])):
        p = peak_gflops(out, t)
        frac = (f"{statistics.median(c['phasor']) * flops[case] / 1e9 / p:.2f}, "
                f"{statistics.median(c['ort']) * flops[case] / 1e9 / p:.2f}") if p else ""
        lines.append(f"| {names.get(case, case)} | {t} | {spread(c['phasor'], '{:.0f}')} | "
                     f"{spread(c['ort'], '{:.0f}')} | {spread(c['ratio'])} | {frac} |")
    return "\n".join(lines)


def targets(out):
    runs = {}
    for p in glob.glob(os.path.join(out, "isa_*_*.json")):
        m = re.match(r"isa_(\w+?)_(\d+)\.json", os.path.basename(p))
        runs.setdefault(int(m[2]), {})[m[1]] = json.load(open(p))["tokens_per_s"]
    if not runs:
        return ""
    names = sorted({t for r in runs.values() for t in r}, key=["avx512", "avx2", "portable"].index)
    lines = [f"{len(runs)} rounds of `phasor --isa NAME encode` (d512/8h/6L/ff2048, 1 × 512 "
             "tokens, 2 threads, `--repeat 10`), the targets alternating within a round; "
             "tokens/s and the ratio to `avx512` within each round, median (min–max).", "",
             "| target | tokens/s | ÷ avx512 |", "|---|---|---|"]
    for t in names:
        v = [r[t] for r in runs.values() if t in r]
        ratio = [r[t] / r["avx512"] for r in runs.values() if t in r and "avx512" in r]
        lines.append(f"| `{t}` | {spread(v, '{:.0f}')} | {spread(ratio)} |")
    path = os.path.join(out, "bench_pe_avx2.json")
    if os.path.exists(path):
        rows = {(r["group"], r["mode"], r["length"]): r.get("gb_per_s")
                for r in json.load(open(path))["rows"]}
        lines += ["", "`phasor --isa avx2 bench-pe --lengths 4K,1M --min-seconds 0.3`, one run:", "",
                  "| length | PE on the fly ÷ stream write | PE on the fly ÷ cached | "
                  "embedding + on the fly ÷ gather | embedding + on the fly ÷ cached |",
                  "|---|---|---|---|---|"]
        for n in sorted({k[2] for k in rows}):
            def r(g, a, b):
                x, y = rows.get((g, a, n)), rows.get((g, b, n))
                return f"{x / y:.2f}" if x and y else "skipped"
            lines.append(f"| {si_length(n)} | {r('pe', 'on_the_fly', 'stream_write')} | "
                         f"{r('pe', 'on_the_fly', 'cached')} | "
                         f"{r('embedding+pe', 'on_the_fly', 'gather')} | "
                         f"{r('embedding+pe', 'on_the_fly', 'cached')} |")
    return "\n".join(lines)


def resident(out, name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return None
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(path).read())
    return int(m[1]) / 1024 if m else None


def singles(out):
    lines = []
    path = os.path.join(out, "embed_1e8.json")
    if os.path.exists(path):
        j = json.load(open(path))
        lines.append(f"- `phasor embed --seq-len 100000000 --d-model 512`: {j['seconds']:.1f} s, "
                     f"{j['gb_per_s']:.1f} GB/s written, peak resident "
                     f"{resident(out, 'embed_1e8.time'):.0f} MiB.")
    chunks = {c: os.path.join(out, f"embed_chunk_{c}.json") for c in (0, 512)}
    if all(os.path.exists(p) for p in chunks.values()):
        d, m = (json.load(open(chunks[c])) for c in (0, 512))
        lines.append(f"- `phasor embed --seq-len 4M --d-model 512 --repeat 3`: the default chunk "
                     f"({d['chunk']} tokens, 8 MiB of output) {d['gb_per_s']:.1f} GB/s, "
                     f"`--chunk 512` (1 MiB) {m['gb_per_s']:.1f} GB/s.")
    path = os.path.join(out, "python_overhead.json")
    if os.path.exists(path):
        j = json.load(open(path))
        lines.append(f"- Python (`bench/python_overhead.py --repeat 30`, toy model, "
                     f"{j['batch']} × {j['seq']}): `phasor.Model.encode` "
                     f"{j['python_seconds'] * 1e3:.1f} ms against `phasor encode`'s "
                     f"{j['cli_seconds'] * 1e3:.1f} ms ({j['python_over_cli']:.2f}×); with "
                     f"`set_num_threads(1)`, two encodes in two Python threads "
                     f"{j['two_threads_seconds'] * 1e3:.1f} ms against "
                     f"{j['sequential_two_seconds'] * 1e3:.1f} ms one after the other "
                     f"({j['two_threads_over_sequential']:.2f}×), results "
                     f"{'identical' if j['two_threads_identical'] else 'DIFFERENT'}.")
    path = os.path.join(out, "encode_16k.json")
    if os.path.exists(path):
        j = json.load(open(path))
        lines.append(f"- `phasor encode` of 16,384 tokens, d512/8h/6L, 2 threads: "
                     f"{j['seconds']:.1f} s ({j['tokens_per_s']:.0f} tokens/s), peak resident "
                     f"{resident(out, 'encode_16k.time'):.0f} MiB.")
    return "\n".join(lines)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/phasor-figures"
    for title, text in (("Load averages (1, 5, 15 min) around each step", "\n".join(
                            f"    {l}" for l in load_lines(out))),
                        ("Physical limits", peak(out)),
                        ("Encoder against ONNX Runtime", ort(out)),
                        ("Positional encoding, side by side", bench_pe(out)),
                        ("The CPU targets", targets(out)),
                        ("Long runs", singles(out)),
                        ("The benchmark suite", suite(out))):
        if text:
            print(f"## {title}\n\n{text}\n")


if __name__ == "__main__":
    main()
