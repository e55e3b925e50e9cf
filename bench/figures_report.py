#!/usr/bin/env python3
"""Turns the output folder of bench/figures.sh into docs/benchmarks.md,
docs/machine.txt and README.md's block of measured results.

    python3 bench/figures_report.py OUT [--docs DIR] [--readme README.md]

Every table and every sentence with a figure in it is computed here from the
files of one run: medians over the runs with the spread (min to max) beside
them, every ratio taken within one run (or one round) before its median is
taken, every rate read against the limit of the target that ran it (the float32
peak for products and encoders, the stream write or gather for PE rows). The
summary bullets are made from the same values as the tables, so the two cannot
disagree. Without --docs the page goes to stdout. With --readme, the lines
between README's markers `<!-- figures:begin -->` and `<!-- figures:end -->` are
replaced by the summary.
"""
import argparse
import os
import re
import sys
import textwrap

from figures_common import (CASES, Run, cpu_generation, machine_section, machine_txt, med,
                            peak_wording, peaks, si_length, span, table)
from figures_sections import (accuracy_rows, encoder_flops, ort_cells, ort_rows, ort_section,
                              own_peak_fraction, pe_facts, pe_section, precision_section)
from figures_targets import (encode_4096, long_section, ragged_facts, ragged_section, resident_mib,
                             suite_section, targets_facts, targets_section)


# ---------------------------------------------------------------- summary, durations

def summary(run):
    """The bullets of 'What the figures say' and of README, from the tables' values."""
    pk = peaks(run)
    cells = ort_cells(ort_rows(run))
    bullets = []
    # The d512 case, or the first case the run has (a --quick run takes d256 alone).
    main = next((c for c in CASES if (c, "fp32", 2) in cells), None)
    c2, c1 = cells.get((main, "fp32", 2)), cells.get((main, "fp32", 1))
    peak2 = pk.get((run.default_isa, 2))
    if c2 and c2["phasor"]:
        tok = med(c2["phasor"])
        g = tok * encoder_flops(main) / 1e9
        s = f"**The encoder** ({CASES[main][0]} tokens, 2 threads) runs {tok:,.0f} tokens/s"
        if peak2:
            s += (f", {g:.0f} GFLOP/s: {g / peak2:.2f} of the float32 peak of "
                  f"`{run.default_isa}` ({peak2:.0f})")
        if c2["ratio"]:
            s += f", {med(c2['ratio']):.2f}× ONNX Runtime on the same weights"
        for other in (c for c in CASES if c != main):
            o = cells.get((other, "fp32", 2))
            if o and o["ratio"]:
                s += f"; {CASES[other][0]} tokens: {med(o['ratio']):.2f}× ONNX Runtime"
        if c1 and c1["ratio"]:
            s += f". On one thread the {main} case runs at {med(c1['ratio']):.2f}× ONNX Runtime"
        e = encode_4096(run)
        if e and e["fraction"] is not None:
            s += (f". One sequence of {e['seq']:,} tokens through the d512 encoder runs at "
                  f"{e['fraction']:.2f} of the float32 peak")
        bullets.append(s + ".")
    p8, pb = cells.get((main, "int8", 2)), cells.get((main, "bf16", 2))
    acc = {r["output"]: r for r in accuracy_rows(run, "precision_accuracy.txt")}
    if (p8 and p8["vs_fp32"]) or (pb and pb["vs_fp32"]):
        parts = []
        for p, c in (("int8", p8), ("bf16", pb)):
            if not (c and c["vs_fp32"]):
                continue
            parts.append((f"`--precision {p}` runs the {main} case at " if not parts else
                          f"`{p}` at ") + f"{med(c['vs_fp32']):.2f}×"
                         + (" its float32 speed" if not parts else "")
                         + (f" and {med(c['ratio']):.2f}× ONNX Runtime's {p} graph of the "
                            "same weights" if c["ratio"] else ""))
        tf = targets_facts(run).get(run.default_isa, {})
        if not (p8 and p8["vs_fp32"]) and tf.get("int8_vs"):
            parts.append(f"`int8` at {med(tf['int8_vs']):.2f}× (the CPU targets' runs)")
        s = "**Reduced precision**: " + ", ".join(parts)
        own = []
        for p, c in (("int8", p8), ("bf16", pb)):
            f = own_peak_fraction(run, main, p, med(c["phasor"])) if c else None
            if f:
                own.append(f"{f:.2f} ({p})")
        if own:
            s += ("; against the peaks of the instructions they are made of (`vpdpbusd`, "
                  "`vdpbf16ps`) they run at " + " and ".join(own))
        cos = [f"{acc['phasor ' + p]['min_cosine']:.6f} ({p})" for p in ("int8", "bf16")
               if "phasor " + p in acc]
        if cos:
            s += ("; output rows at cosine " + " and ".join(cos)
                  + " or closer to PyTorch's float32")
        bullets.append(s + ".")
    pe = pe_facts(run)
    if pe:
        longest = pe["longest"]
        s = "**Positional encoding**: "
        if pe["wins_from"]:
            wins = [n for n in pe["lengths"] if n >= pe["wins_from"]]
            s += (f"recomputing rows by rotation beats reading the cached table from "
                  f"{si_length(pe['wins_from'])} tokens up, for PE alone "
                  f"({span([pe['ratio'][('pe', n)] for n in wins])}×) and with the embedding "
                  f"({span([pe['ratio'][('embedding+pe', n)] for n in wins])}×), because the "
                  "table is a second stream of memory that the rotation does not read")
        else:
            s += "recomputing rows by rotation does not beat the cached table at every long length here"
        s += (f". At {si_length(longest)} tokens on-the-fly PE writes at "
              f"{pe['bound'][('pe', longest)]:.2f} of the stream-write bound and embedding + PE "
              f"runs at {pe['bound'][('embedding+pe', longest)]:.2f} of the bare gather")
        if pe["small"]:
            sm = pe["small"]
            where = (f"From {si_length(sm[0])} to {si_length(sm[-1])} tokens" if len(sm) > 1
                     else f"At {si_length(sm[0])} tokens")
            s += (f". {where}, where the table sits in cache, on the fly ÷ cached is "
                  f"{span([pe['ratio'][(g, n)] for g in ('pe', 'embedding+pe') for n in sm])}")
        if pe["direct"]:
            s += (f"; a sine and a cosine per value (direct) is "
                  f"{span(pe['direct'], '{:.0f}')}× slower than the faster of the two")
        if pe["rope_bound"]:
            s += (f". RoPE applied to q and k runs at {span(pe['rope_bound'])} of the "
                  f"memory's read + write speed, its cos/sin rows made on the fly at "
                  f"{span(pe['rope_ratio'])}× the cached table")
        bullets.append(s + ".")
    tf = targets_facts(run)
    if len(tf) > 1:
        first = run.isas[0]
        parts = [f"on `{t}` at {med(d['vs_first']):.2f}×" for t, d in tf.items() if t != first]
        frac = [f"{d['fraction']:.2f} on `{t}`" for t, d in tf.items() if d["fraction"]]
        bullets.append("**The CPU targets**: the d512 encoder runs " + " and ".join(parts)
                       + f" its `{first}` speed. " + peak_wording(run)
                       + " Its share of the float32 peak of the target that runs it, in "
                       "that section's shorter runs: "
                       + ", ".join(frac) + ".")
    rf = ragged_facts(run)
    if "ratio dense" in rf:
        s = (f"**Ragged batches** cost their real tokens: 64 corpus-like lines run at "
             f"{rf['ratio dense']:.2f}× a dense batch of the same tokens and "
             f"{rf['ratio one per call']:.2f}× the lines encoded one per call")
        if "ort ratio: ort, one padded batch + mask" in rf:
            s += (f", {rf['ort ratio: ort, one padded batch + mask']:.1f}× ONNX Runtime given "
                  f"the padded batch with its mask and "
                  f"{rf['ort ratio: ort, sorted, batches of 32']:.1f}× ONNX Runtime fed the lines "
                  "sorted in batches of 32")
        c = rf["corpus"]
        if c.get("ragged") and c.get("dense"):
            r = med([a["tokens_per_s"] / b["tokens_per_s"] for a, b in zip(c["ragged"], c["dense"])])
            s += (f"; {c['ragged'][0]['batch']:,} lines run at {r:.2f}× a dense file in "
                  f"{max(j['peak_rss_bytes'] for j in c['ragged']) / 2**20:.0f} MiB")
        bullets.append(s + ".")
    e, enc = run.json("embed_long.json"), run.json("encode_long.json")
    if e and enc:
        bullets.append(f"**Long sequences in bounded memory**: {e['seq_len']:,} tokens embedded "
                       f"in {e['seconds']:.1f} s with a peak of "
                       f"{resident_mib(run, 'embed_long.time'):.0f} MiB; {enc['seq_len']:,} "
                       f"tokens through the d512 encoder at a peak of "
                       f"{resident_mib(run, 'encode_long.time'):.0f} MiB.")
    return bullets


STEP_GROUPS = [("the limits (start and end)", r"(peak|stream)_"),
               ("PE side by side (bench-pe)", r"bench_pe_(\d|d\d|rope)"),
               ("long runs, Python, the suite", r"(embed_|python_|suite|encode_)"),
               ("the CPU targets", r"(isa_|products_|bench_pe_isa_)"),
               ("ONNX Runtime and accuracy", r"(ort_\d|precision_)"),
               ("ragged batches and corpora", r"(ragged|ort_ragged|corpus|budget_|dask_)")]


def durations(run):
    total = run.info.get("total", "").replace(" s", "")
    rows = []
    for label, pattern in STEP_GROUPS:
        sec = sum(s["seconds"] for s in run.steps if re.match(pattern, s["name"]))
        if sec:
            rows.append([label, f"{sec / 60:.1f}"])
    return total, rows


def steps_section(run):
    total, groups = durations(run)
    lines = []
    if total:
        lines.append(f"The whole run took {int(total) / 60:.0f} minutes "
                     f"({run.info.get('date', '')}, commit {run.info.get('commit', '?')}); "
                     f"the load average (1, 5, 15 min) was {run.info.get('load before', '?')} "
                     "before it. By part, in minutes:")
        lines += ["", table(["part", "minutes"], groups), ""]
    lines += ["Every step, its seconds and the load average before and after it (the "
              "benchmark's own two threads raise it to about 2 during a step):", "",
              table(["step", "seconds", "load before", "load after"],
                    [[s["name"], f"{s['seconds']:.1f}", s["before"], s["after"]]
                     for s in run.steps])]
    return "\n".join(lines)


METHOD = """- **Encoder.** `bench/ort_compare.sh` writes each model with `phasor make-toy`,
  exports the same weights to ONNX (`tools/export_onnx.py`, PyTorch), checks
  that both engines give the same hidden states, then times the engines in
  turn: onnxruntime-node on the CPU with all graph optimisations and the same
  thread count. The products use phasor's own kernel: weights packed once at
  load into panels for a register tile of fused multiply-adds, with bias and
  activation applied in registers. Attention runs in tiles of queries with an
  online softmax, so no `[seq, seq]` score matrix exists; residual + LayerNorm
  is fused into the last product of each sublayer. The fraction of the float32
  peak counts the multiply-adds of the products (per token and layer,
  2·(4·d² + 2·d·d_ff) for the projections and the feed-forward, 2·2·seq·d for
  q·kᵀ and p·v) against the peak measured in the same run.
- **PE.** `phasor bench-pe` times each case once per round, in interleaved
  rounds, so a change in the machine's load falls on all of them alike; a short
  call is repeated back to back for about 20 ms per sample. Each bound is the
  faster of ordinary and non-temporal stores of the same bytes (PE alone) or
  the bare gather of the same token rows (embedding + PE). Outputs of 64 MiB or
  more are written with non-temporal stores; gathered token rows are prefetched
  ahead; buffers of 2 MiB or more sit in transparent huge pages where the
  kernel allows (`madvise`), so the random row gather does not miss the TLB on
  every row.
- **Reduced precision.** `bf16` rounds the weights to bfloat16 once at load and
  each product's inputs per call, with float32 sums; `int8` quantizes weights
  per output channel at load and inputs per token per call, with exact int32
  sums; attention's two products run in bfloat16 at bf16, its scores in int8
  and the weights times v in bfloat16 at int8. The rest (softmax's
  exp, LayerNorm, residuals) stays float32 and bounds what the narrow products
  can gain.
- **The benchmark suite** (`phasor_bench`) runs each benchmark on its own:
  PE alone writes 1 GiB of output, embedding + PE 2 GiB at d_model 512 and
  256 MiB otherwise; direct sin/cos runs on one thread and few rows.
- **The host** is a shared virtual machine: a neighbour's load can slow a run
  without showing in our load average, which is why limits are measured at
  both ends and every ratio is taken within one run or round."""


def page(run):
    gen = cpu_generation(run)
    fam = run.lscpu.get("CPU family", "?")
    total, _ = durations(run)
    minutes = f"{int(total) / 60:.0f} minutes" if total else "its duration is not recorded"
    head = ["# Measured results", ""]
    if run.quick:
        head += ["**A `--quick` smoke run: one round of tiny repetitions, to check the "
                 "pipeline. None of its figures is a measurement to quote.**", ""]
    head += ["Every figure on this page comes from one run of", "",
             "    make build",
             "    bench/figures.sh" + (" --quick" if run.quick else "")
             + (f" --runs {run.info.get('runs')}" if not run.quick
                and run.info.get("runs") not in (None, "3") else ""), "",
             f"({minutes} here; \"Duration and load\" at the end lists every step), which "
             "writes this page, [machine.txt](machine.txt) and README's measured results "
             f"with `bench/figures_report.py`. Taken {run.info.get('date', '?')} at commit "
             f"{run.info.get('commit', '?')}, on a CPU of family {fam} "
             f"({gen if gen != 'other' else 'not a Zen: ' + run.lscpu.get('Model name', '?')}). "
             "Tables give medians over the runs with the range (min–max) beside them; "
             "every ratio is taken within one run or round, where both sides met the same "
             "machine, before its median is taken; every rate is read against the limit of "
             "the target that ran it.", ""]
    cells = ort_cells(ort_rows(run))
    pk = peaks(run)
    sections = [("The machine", machine_section(run)),
                ("What the figures say", "\n".join("- " + b for b in summary(run))),
                ("Encoder against ONNX Runtime", ort_section(run, cells, pk) if cells else ""),
                ("Reduced precision", precision_section(run, cells, pk)),
                ("Positional encoding, side by side", pe_section(run)),
                ("The CPU targets", targets_section(run)),
                ("Ragged batches and corpora", ragged_section(run)),
                ("Long runs", long_section(run)),
                ("The benchmark suite", suite_section(run)),
                ("How the figures are taken", METHOD),
                ("Duration and load", steps_section(run))]
    body = [f"## {t}\n\n{x.strip()}\n" for t, x in sections if x and x.strip()]
    return "\n".join(head) + "\n" + "\n".join(body)


def readme_block(run):
    total, _ = durations(run)
    when = (f"{run.info.get('date', '?')}, commit {run.info.get('commit', '?')}, "
            f"{run.lscpu.get('CPU(s)', '?')} CPUs of CPU family {run.lscpu.get('CPU family', '?')} "
            f"({cpu_generation(run)})" + (f", {int(total) / 60:.0f} minutes" if total else ""))
    lines = ["<!-- figures:begin (written by bench/figures_report.py; edit it there) -->"]
    wrap = dict(width=80, break_on_hyphens=False, break_long_words=False)
    lines += [textwrap.fill(b, initial_indent="- ", subsequent_indent="  ", **wrap)
              for b in summary(run)]
    lines += ["", textwrap.fill(f"Measured by one run of `bench/figures.sh` ({when}); every "
                                "figure's table and command are in "
                                "[docs/benchmarks.md](docs/benchmarks.md).", **wrap),
              "<!-- figures:end -->"]
    return "\n".join(lines)


def update_readme(path, block):
    text = open(path).read()
    m = re.search(r"<!-- figures:begin.*?-->.*?<!-- figures:end -->", text, re.S)
    if not m:
        raise SystemExit(f"figures_report: {path} has no <!-- figures:begin --> ... "
                         "<!-- figures:end --> block")
    open(path, "w").write(text[:m.start()] + block + text[m.end():])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", default="/tmp/phasor-figures",
                    help="the folder bench/figures.sh wrote")
    ap.add_argument("--docs", help="write DIR/benchmarks.md and DIR/machine.txt")
    ap.add_argument("--readme", help="replace the figures block of this README.md")
    a = ap.parse_args()
    run = Run(a.out)
    if not run.steps:
        raise SystemExit(f"figures_report: {a.out} holds no steps.tsv (run bench/figures.sh)")
    text = page(run)
    if a.docs:
        os.makedirs(a.docs, exist_ok=True)
        with open(os.path.join(a.docs, "benchmarks.md"), "w") as f:
            f.write(text)
        with open(os.path.join(a.docs, "machine.txt"), "w") as f:
            f.write(machine_txt(run))
        print(f"figures_report: wrote {a.docs}/benchmarks.md and {a.docs}/machine.txt",
              file=sys.stderr)
    else:
        sys.stdout.write(text)
    if a.readme:
        update_readme(a.readme, readme_block(run))
        print(f"figures_report: updated the figures block of {a.readme}", file=sys.stderr)


if __name__ == "__main__":
    main()
