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
import glob
import json
import os
import re
import shlex
import statistics
import sys
import textwrap

ISAS = ["avx512", "avx2", "portable"]
PRECISIONS = ["fp32", "bf16", "int8"]
CASES = {"d512": ("d512/8h/6L/ff2048, 1 × 512", 512, 8, 6, 2048, 1, 512),
         "d256": ("d256/4h/4L/ff1024, 8 × 128", 256, 4, 4, 1024, 8, 128),
         "bert": ("d768/12h/12L/ff3072 gelu (BERT-base's shape), 1 × 384", 768, 12, 12, 3072, 1,
                  384)}


# ---------------------------------------------------------------- formatting

def med(values):
    return statistics.median(values) if values else None


def spread(values, fmt="{:.2f}"):
    """'median (min–max)' of values, or the value alone when there is one."""
    if not values:
        return "–"
    m = statistics.median(values)
    if len(values) < 2 or min(values) == max(values):
        return fmt.format(m)
    return f"{fmt.format(m)} ({fmt.format(min(values))}–{fmt.format(max(values))})"


def span(values, fmt="{:.2f}"):
    """'a–b' over values (their min and max), or the one value."""
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    lo, hi = fmt.format(min(values)), fmt.format(max(values))
    return lo if lo == hi else f"{lo}–{hi}"


def num(x, digits=0):
    return "–" if x is None else f"{x:,.{digits}f}"


def si_length(n):
    for unit, size in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size}{unit}"
    return str(n)


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------- reading a run

class Run:
    """The files of one bench/figures.sh run."""

    def __init__(self, out):
        self.out = os.path.abspath(out)
        self.root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        self.info = self._keyvalues("run.txt")
        self.lscpu = self._keyvalues("lscpu.txt")
        self.quick = self.info.get("quick") == "1"
        self.isas = self.info.get("targets", "").split()
        self.default_isa = self.info.get("default target", "")
        self.steps = []
        path = self.path("steps.tsv")
        if os.path.exists(path):
            with open(path) as f:
                rows = [line.rstrip("\n").split("\t") for line in f][1:]
            self.steps = [dict(name=r[0], seconds=float(r[1]), before=r[2], after=r[3],
                               command=r[4] if len(r) > 4 else "") for r in rows if r]

    def path(self, name):
        return os.path.join(self.out, name)

    def exists(self, name):
        return os.path.exists(self.path(name))

    def _keyvalues(self, name):
        d = {}
        if self.exists(name):
            for line in open(self.path(name)):
                k, sep, v = line.partition(":")
                if sep:
                    d[k.strip()] = v.strip()
        return d

    def json(self, name):
        return json.load(open(self.path(name))) if self.exists(name) else None

    def glob(self, pattern):
        return sorted(glob.glob(self.path(pattern)))

    def text(self, name):
        return open(self.path(name)).read() if self.exists(name) else ""

    def command(self, step):
        """The command of a step as a reader would type it: paths inside the
        repository relative to it, the run's folder written OUT."""
        for s in self.steps:
            if s["name"] == step:
                words = shlex.split(s["command"])
                words = [w.replace(self.root + "/", "").replace(self.out, "OUT") for w in words]
                if words[:1] == ["/usr/bin/time"]:  # the peak-memory wrapper: its options go
                    words = words[1:]
                    while words and words[0] in ("-v", "-o", "-f"):
                        words = words[1:] if words[0] == "-v" else words[2:]
                if words[:1] == ["env"]:  # env VAR=... CMD: the variables stay, env goes
                    words = words[1:]
                # PATH only puts figures.sh's python first; a reader's shell has its own.
                words = [w for w in words if not w.startswith("PATH=")]
                return " ".join(shlex.quote(w) if not re.match(r"^[\w./=:,+-]*$", w) else w
                                for w in words)
        return None

    def seconds(self, prefix):
        return sum(s["seconds"] for s in self.steps if s["name"].startswith(prefix))

    def benchmarks(self, name):
        j = self.json(name)
        return j["benchmarks"] if j else []


# ---------------------------------------------------------------- the machine

def cpu_generation(run):
    """'Zen 4', 'Zen 5', 'Zen 3', ... from lscpu's vendor and family, or 'other'."""
    vendor = run.lscpu.get("Vendor ID", "")
    family = run.lscpu.get("CPU family", "")
    flags = run.lscpu.get("Flags", "").split()
    if vendor == "AuthenticAMD" and family.isdigit():
        f = int(family)
        if f == 26:
            return "Zen 5"
        if f == 25:
            return "Zen 4" if "avx512f" in flags else "Zen 3"
        if f == 23:
            return "Zen or Zen 2"
    return "other"


def peaks(run):
    """{(isa, threads): GFLOP/s}, the higher of the start and end measurements."""
    found = {}
    for p in run.glob("peak_*_*.json"):
        m = re.match(r"peak_(\w+?)_(start|end)\.json", os.path.basename(p))
        for b in json.load(open(p))["benchmarks"]:
            t = int(b["name"].split("/")[1])
            found.setdefault((m[1], t), []).append(b["GFLOP/s"])
    return {k: max(v) for k, v in found.items()}


def peaks_both(run):
    found = {}
    for when in ("start", "end"):
        for p in run.glob(f"peak_*_{when}.json"):
            isa = re.match(r"peak_(\w+?)_", os.path.basename(p))[1]
            for b in json.load(open(p))["benchmarks"]:
                found.setdefault((isa, int(b["name"].split("/")[1])), {})[when] = b["GFLOP/s"]
    return found


def dot_peaks_both(run):
    """{('bf16' | 'int8', threads): {'start': G/s, 'end': G/s}}: BM_Bf16Peak's GFLOP/s
    and BM_Int8Peak's GOP/s, where the CPU has the instructions."""
    found = {}
    for when in ("start", "end"):
        for b in run.benchmarks(f"dot_peak_{when}.json"):
            if b.get("error_occurred"):
                continue
            name = b["name"].split("/")
            kind = "bf16" if "Bf16" in name[0] else "int8"
            value = b.get("GFLOP/s", b.get("GOP/s"))
            found.setdefault((kind, int(name[1])), {})[when] = value
    return found


def dot_peaks(run):
    """{('bf16' | 'int8', threads): the higher of the start and end peaks}."""
    return {k: max(v.values()) for k, v in dot_peaks_both(run).items()}


def streams(run):
    """{(shape, threads): {'start': GB/s, 'end': GB/s}}."""
    found = {}
    for when in ("start", "end"):
        for b in run.benchmarks(f"stream_{when}.json"):
            name = b["name"].split("/")
            key = (f"{int(name[1]):,} × {name[2]}", int(name[3]))
            found.setdefault(key, {})[when] = b["bytes_per_second"] / 1e9
    return found


def peak_wording(run):
    """What the CPU generation means for the targets' peaks, with the measured ratio."""
    pk = peaks(run)
    gen = cpu_generation(run)
    a, b = pk.get(("avx512", 2)), pk.get(("avx2", 2))
    ratio = f"{a / b:.2f}" if a and b else None
    measured = (f" (measured here: {num(a)} against {num(b)} GFLOP/s on 2 threads, "
                f"{ratio}×)") if ratio else ""
    if gen == "Zen 4":
        return ("Zen 4 runs a 512-bit FMA as two 256-bit halves, so `avx512` and `avx2` "
                "share one float32 peak" + measured + "; `avx512` gains by fewer "
                "instructions per value, not by wider arithmetic.")
    if gen == "Zen 5":
        return ("Zen 5 has full-width 512-bit FMA units, so the `avx512` float32 peak is "
                "twice `avx2`'s" + measured + ".")
    if ratio:
        return f"On this CPU the `avx512` float32 peak is {ratio}× `avx2`'s{measured}."
    return "This CPU has no `avx512` target; " + (
        f"`avx2` peaks at {num(b)} GFLOP/s on 2 threads." if b else "see the peaks below.")


def machine_txt(run):
    keys = ["Architecture", "Vendor ID", "Model name", "CPU family", "Model", "Stepping",
            "CPU(s)", "Thread(s) per core", "Core(s) per socket", "Socket(s)",
            "L1d cache", "L2 cache", "L3 cache", "Hypervisor vendor"]
    lines = ["# The machine of docs/benchmarks.md (bench/figures.sh; lscpu excerpt, limits",
             "# measured in the same run: the higher of the start and end measurements).", ""]
    if run.quick:
        lines += ["# A --quick smoke run: the limits below are rough.", ""]
    for k in keys:
        if k in run.lscpu:
            lines.append(f"{k + ':':22}{run.lscpu[k]}")
    flags = [f for f in run.lscpu.get("Flags", "").split()
             if f.startswith("avx512") or f in ("avx2", "fma", "avx_vnni", "amx_bf16")]
    lines.append(f"{'Vector flags:':22}{' '.join(flags)}")
    lines.append(f"{'Generation:':22}{cpu_generation(run)}")
    for k in ("memory", "kernel", "compiler", "commit", "date", "targets", "default target"):
        if k in run.info:
            lines.append(f"{k.capitalize() + ':':22}{run.info[k]}")
    lines += ["", "float32 peak, GFLOP/s (phasor_bench --benchmark_filter=BM_Fp32Peak, "
              "PHASOR_ISA=target):"]
    for (isa, t), v in sorted(peaks(run).items(), key=lambda kv: (ISAS.index(kv[0][0]), kv[0][1])):
        lines.append(f"  {isa:9} {t} thread{'s' if t > 1 else ' '}  {v:7.1f}")
    dots = dot_peaks(run)
    if dots:
        lines += ["", "bfloat16 and int8 dot-product peaks (phasor_bench "
                  "--benchmark_filter='BM_(Bf16|Int8)Peak', the default target):"]
        for (kind, t), v in sorted(dots.items()):
            what = "vdpbf16ps, GFLOP/s" if kind == "bf16" else "vpdpbusd, GOP/s"
            lines.append(f"  {what:18} {t} thread{'s' if t > 1 else ' '}  {v:7.1f}")
    lines += ["", "stream write, GB/s (phasor_bench --benchmark_filter=BM_StreamWrite; "
              "floats written, threads):"]
    for (shape, t), v in sorted(streams(run).items()):
        lines.append(f"  {shape:>16} floats, {t} thread{'s' if t > 1 else ' '}  "
                     f"{max(v.values()):6.1f}")
    return "\n".join(lines) + "\n"


def machine_section(run):
    gen = cpu_generation(run)
    model = run.lscpu.get("Model name", "unknown CPU")
    fam = run.lscpu.get("CPU family", "?")
    cpus = run.lscpu.get("CPU(s)", "?")
    text = [f"{cpus} CPUs of an {model} (CPU family {fam}: {gen if gen != 'other' else 'not a Zen'}"
            f"), {run.info.get('memory', '?')} of memory, {run.info.get('compiler', '?')}, "
            f"the default Release build (`make build`: kernels chosen at run time, here "
            f"`{run.default_isa}`; targets this CPU has: "
            f"{', '.join('`' + t + '`' for t in run.isas)}). [machine.txt](machine.txt) holds "
            "lscpu's description and the limits below.", "",
            "Two limits bound every other figure, and both are measured at the start and "
            "the end of the run (a disturbed measurement only reads low, so the higher one "
            "is the limit):", "",
            "- **float32 peak** (`PHASOR_ISA=NAME phasor_bench --benchmark_filter=BM_Fp32Peak`): "
            "independent chains of fused multiply-adds in the widest vectors of each target. "
            + peak_wording(run) + " Products and encoders are read against the peak of the "
            "target that ran them.",
            "- **bfloat16 and int8 dot-product peaks** (`phasor_bench "
            "--benchmark_filter='BM_(Bf16|Int8)Peak'`, where the CPU has AVX512-BF16 and "
            "AVX-512 VNNI): the same chains of `vdpbf16ps` (a pair of products in each of 16 "
            "lanes, 64 flops) and `vpdpbusd` (four byte products a lane, 128 operations), "
            "what the bf16 and int8 encoders are read against.",
            "- **memory write bandwidth** (`phasor_bench --benchmark_filter=BM_StreamWrite`, "
            "and `bench-pe`'s `stream_write` rows): the faster of ordinary and non-temporal "
            "stores of the same bytes. PE rows are read as fractions of the bound measured "
            "beside them in the same call.", ""]
    rows = []
    for (isa, t), v in sorted(peaks_both(run).items(),
                              key=lambda kv: (ISAS.index(kv[0][0]), kv[0][1])):
        rows.append([f"float32 peak, GFLOP/s, `{isa}`", t, num(v.get("start"), 1),
                     num(v.get("end"), 1)])
    for (kind, t), v in sorted(dot_peaks_both(run).items()):
        what = "bfloat16 dot peak (`vdpbf16ps`), GFLOP/s" if kind == "bf16" else \
            "int8 dot peak (`vpdpbusd`), GOP/s"
        rows.append([what, t, num(v.get("start"), 1), num(v.get("end"), 1)])
    for (shape, t), v in sorted(streams(run).items()):
        rows.append([f"stream write of {shape} floats, GB/s", t, num(v.get("start"), 1),
                     num(v.get("end"), 1)])
    text.append(table(["limit", "threads", "at the start", "at the end"], rows))
    return "\n".join(text)


# ---------------------------------------------------------------- the encoder

def encoder_flops(case, seq=None):
    """Multiply-adds ×2 of the products per token: per layer 2·(4·d² + 2·d·d_ff)
    for the projections and the feed-forward, and 2·2·seq·d for q·kᵀ and p·v."""
    _, d, _, layers, dff, _, s = CASES[case]
    s = seq or s
    return layers * 2 * (4 * d * d + 2 * d * dff + 2 * s * d)


def attention_share(case, seq=None):
    """q·kᵀ and p·v's part of encoder_flops(case, seq)."""
    _, d, _, layers, _, _, s = CASES[case]
    return layers * 2 * 2 * (seq or s) * d / encoder_flops(case, seq)


def own_peak_fraction(run, case, precision, tokens_per_s, threads=2):
    """The encoder's products against the peaks of the instructions that make them:
    bf16 all against vdpbf16ps; int8 the weight products and q·kᵀ against vpdpbusd
    and p·v (bfloat16) against vdpbf16ps, as the time they would take at those
    peaks over the time taken. None without the peaks or for fp32."""
    dots = dot_peaks(run)
    bf16, int8 = dots.get(("bf16", threads)), dots.get(("int8", threads))
    _, d, _, layers, _, _, seq = CASES[case]
    total = encoder_flops(case) * tokens_per_s / 1e9  # G/s the products ran at
    if precision == "bf16" and bf16:
        return total / bf16
    if precision == "int8" and bf16 and int8:
        pv = layers * 2 * seq * d / encoder_flops(case)  # p·v's share of the flops
        return total * ((1 - pv) / int8 + pv / bf16)
    return None


def ort_rows(run):
    rows = []
    for r, p in enumerate(run.glob("ort_*.jsonl")):
        for line in open(p):
            j = json.loads(line)
            j["run"] = r
            rows.append(j)
    return rows


def ort_cells(rows):
    """{(case, precision, threads): dict(phasor=[...], ort=[...], ratio=[...],
    vs_fp32=[...])}, one value per round of every run."""
    by_round = {}
    for j in rows:
        by_round.setdefault((j["case"], j["threads"], j["run"], j["round"]), {})[
            (j["precision"], j["engine"])] = j["tokens_per_s"]
    cells = {}
    for (case, t, _, _), rr in by_round.items():
        for (p, e), v in rr.items():
            c = cells.setdefault((case, p, t), dict(phasor=[], ort=[], ratio=[], vs_fp32=[],
                                                     ort_vs_fp32=[]))
            c[e].append(v)
            if e == "phasor":
                if (p, "ort") in rr:
                    c["ratio"].append(v / rr[(p, "ort")])
                if ("fp32", "phasor") in rr:
                    c["vs_fp32"].append(v / rr[("fp32", "phasor")])
            elif ("fp32", "ort") in rr:
                c["ort_vs_fp32"].append(v / rr[("fp32", "ort")])
    return cells


def ort_section(run, cells, pk):
    runs = len(run.glob("ort_*.jsonl"))
    rounds = len({(j["run"], j["round"]) for j in ort_rows(run)})
    lines = [f"`{run.command('ort_1.txt')}`, {runs} run{'s' if runs > 1 else ''} "
             f"({rounds} rounds in all, every engine, precision and thread count in turn "
             "within a round); tokens/s, median (min–max) over the rounds; each ratio taken "
             "within a round. The fraction of the peak counts the products' multiply-adds "
             f"against the float32 peak of `{run.default_isa}` at the same thread count "
             "(ONNX Runtime's kernels are its own, read against the same peak).", ""]
    out = []
    order = list(CASES)
    for (case, p, t), c in sorted(cells.items(), key=lambda kv: (order.index(kv[0][0]), -kv[0][2])):
        if p != "fp32":
            continue
        peak = pk.get((run.default_isa, t))
        f = encoder_flops(case) / 1e9
        frac = (f"{med(c['phasor']) * f / peak:.2f}, {med(c['ort']) * f / peak:.2f}"
                if peak and c["ort"] else "–")
        out.append([CASES[case][0], t, spread(c["phasor"], "{:.0f}"), spread(c["ort"], "{:.0f}"),
                    spread(c["ratio"]), frac])
    lines.append(table(["model, batch", "threads", "phasor", "ONNX Runtime",
                        "phasor ÷ ONNX Runtime", "phasor, ONNX Runtime: fraction of the peak"],
                       out))
    scaling = []
    for case in CASES:
        for e in ("phasor", "ort"):
            two, one = cells.get((case, "fp32", 2)), cells.get((case, "fp32", 1))
            if two and one and two[e] and one[e]:
                scaling.append(f"{'phasor' if e == 'phasor' else 'ONNX Runtime'} "
                               f"{med(two[e]) / med(one[e]):.2f}× on {case}")
    if scaling:
        lines += ["", "Two threads against one (medians): " + ", ".join(scaling) + "."]
    return "\n".join(lines)


def accuracy_rows(run, name):
    return [json.loads(l) for l in run.text(name).splitlines() if l.startswith("{")]


def precision_section(run, cells, pk):
    lines = []
    main_case = next((c for c in CASES if any(k[0] == c for k in cells)), None)
    if main_case:
        lines += ["From the same runs as the table above (2 threads). ÷ fp32: phasor at that "
                  "precision against phasor float32 within a round. The fraction counts the "
                  "same products against the float32 peak: bfloat16 and int8 products can "
                  "exceed it where the CPU has AVX512-BF16 and VNNI. \"Of its own peak\" reads "
                  "them against the peaks of the instructions that make them (machine "
                  "section): bf16 against `vdpbf16ps`'s; int8's weight products and q·kᵀ "
                  "against `vpdpbusd`'s and its p·v (bfloat16) against `vdpbf16ps`'s, as the "
                  "time the products would take at those peaks over the time taken.", ""]
        out = []
        for case in CASES:
            for p in PRECISIONS:
                c = cells.get((case, p, 2))
                if not c:
                    continue
                peak = pk.get((run.default_isa, 2))
                frac = f"{med(c['phasor']) * encoder_flops(case) / 1e9 / peak:.2f}" if peak else "–"
                own = (frac if p == "fp32" else
                       num(own_peak_fraction(run, case, p, med(c["phasor"])), 2))
                out.append([CASES[case][0], p, spread(c["phasor"], "{:.0f}"),
                            spread(c["vs_fp32"]), frac, own,
                            spread(c["ort"], "{:.0f}") if c["ort"] else "(none on CPU)"
                            if p == "bf16" else "not run",
                            spread(c["ratio"]) if c["ratio"] else "–"])
        lines.append(table(["model, batch", "precision", "phasor tokens/s", "÷ phasor fp32",
                            "fraction of the fp32 peak", "of its own peak", "ONNX Runtime",
                            "phasor ÷ ONNX Runtime"],
                           out))
        if any(k[1] == "int8" for k in cells):
            lines += ["", "ONNX Runtime's int8 graph (`tools/export_onnx.py --precision int8`) "
                      "holds phasor's own int8 weights and scales in its per-channel "
                      "dynamic-quantization form; it quantizes activations with one asymmetric "
                      "scale per tensor where phasor takes one symmetric scale per token, and "
                      "keeps attention in float32 where phasor's int8 takes its scores in "
                      "int8 and the weights times v in bfloat16. "
                      "ONNX Runtime has no bfloat16 product on CPU."]
        else:
            lines += ["", "int8 is not in this table: the run had no python3-onnx, which "
                      "`tools/export_onnx.py --precision int8` needs to write ONNX Runtime's "
                      "int8 graph. phasor's own int8 speed is in \"The CPU targets\". ONNX "
                      "Runtime has no bfloat16 product on CPU."]
    acc = accuracy_rows(run, "precision_accuracy.txt")
    if acc:
        lines += ["", f"Accuracy against PyTorch float32 on the same weights "
                  f"(`{run.command('precision_accuracy.txt')}`: the {acc[0]['model'].split('/')[-1]} "
                  f"model, {acc[0]['tokens']} tokens; smallest cosine similarity of an output row "
                  "with PyTorch's, largest absolute difference of one value):", "",
                  table(["output", "min cosine", "max abs"],
                        [[r["output"], f"{r['min_cosine']:.7f}", f"{r['max_abs']:.2g}"]
                         for r in acc])]
    gold = accuracy_rows(run, "precision_golden.txt")
    if gold:
        cases = list(dict.fromkeys(r["model"] for r in gold))
        by = {(r["model"], r["output"]): r for r in gold}
        out = []
        for c in cases:
            row = [c]
            for p in PRECISIONS:
                r = by.get((c, f"phasor {p}"))
                row += [f"{r['min_cosine']:.6f}", f"{r['max_abs']:.2g}"] if r else ["–", "–"]
            out.append(row)
        lines += ["", f"And on every golden case against its PyTorch float32 output "
                  f"(`{run.command('precision_golden.txt')}`, target `{run.default_isa}`):", "",
                  table(["case"] + [f"{p} {w}" for p in PRECISIONS
                                    for w in ("min cosine", "max abs")], out)]
    mem = []
    for p in PRECISIONS:
        js = [json.load(open(f)) for f in run.glob(f"isa_{run.default_isa}_{p}_*.json")]
        if js:
            mem.append([p, f"{js[0]['weight_bytes'] / 1e6:.1f}",
                        f"{max(j['peak_rss_bytes'] for j in js) / 1e6:.0f}"])
    if mem:
        lines += ["", "Memory of the d512 model (`phasor encode --precision P --json`: "
                  "`weight_bytes`, `peak_rss_bytes`, from the runs of \"The CPU targets\"):", "",
                  table(["precision", "weights in memory, MB", "peak resident, MB"], mem)]
    return "\n".join(lines)


# ---------------------------------------------------------------- positional encoding

def pe_runs(run, pattern):
    runs = [json.load(open(p)) for p in run.glob(pattern)]
    return runs, [{(r["group"], r["mode"], r["length"]): r for r in j["rows"]} for j in runs]


def gb_values(rows, group, n, mode):
    return [r[(group, mode, n)]["gb_per_s"] for r in rows
            if (group, mode, n) in r and r[(group, mode, n)].get("gb_per_s") is not None]


def ratio_values(rows, group, n, a, b):
    return [r[(group, a, n)]["gb_per_s"] / r[(group, b, n)]["gb_per_s"] for r in rows
            if r.get((group, a, n), {}).get("gb_per_s") and r.get((group, b, n), {}).get("gb_per_s")]


def pe_section(run):
    runs, rows = pe_runs(run, "bench_pe_[0-9]*.json")
    if not runs:
        return ""
    lengths = sorted({k[2] for k in rows[0]})
    lines = [f"{len(runs)} run{'s' if len(runs) > 1 else ''} of `{run.command('bench_pe_1.json')}`, "
             f"d_model {runs[0]['d_model']}, {runs[0]['threads']} threads, target "
             f"`{runs[0].get('isa', run.default_isa)}`. GB/s written: median (min–max) over the "
             "runs; table build: the cached table made once (median of five builds). The "
             "ratios to the bound are this section's \"against the limit\": PE is a write "
             "of memory, not arithmetic.", ""]
    for group, bound, label in (("pe", "stream_write", "PE alone"),
                                ("embedding+pe", "gather", "embedding + PE")):
        build = group == "pe"
        modes = ["cached", "on_the_fly", "direct"] + (["table_build"] if build else []) + [bound]
        out = []
        for n in lengths:
            row = [si_length(n)] + [spread(gb_values(rows, group, n, m), "{:.1f}")
                                    if gb_values(rows, group, n, m) else "skipped" for m in modes]
            row += [spread(ratio_values(rows, group, n, "on_the_fly", "cached")),
                    spread(ratio_values(rows, group, n, "on_the_fly", bound))]
            if build:
                row.append(spread(ratio_values(rows, group, n, "table_build", bound)))
            out.append(row)
        header = (["length", "cached", "on the fly", "direct sin/cos"]
                  + (["table build"] if build else [])
                  + [f"{bound.replace('_', ' ')} (bound)", "on the fly ÷ cached",
                     "on the fly ÷ bound"] + (["table build ÷ bound"] if build else []))
        lines += [f"**{label}**", "", table(header, out), ""]
    wide = []
    for d in (64, 4096):
        _, drows = pe_runs(run, f"bench_pe_d{d}_[0-9]*.json")
        if not drows:
            continue
        for n in sorted({k[2] for k in drows[0]}):
            cells = [ratio_values(drows, "pe", n, "on_the_fly", "cached"),
                     ratio_values(drows, "pe", n, "on_the_fly", "stream_write"),
                     ratio_values(drows, "embedding+pe", n, "on_the_fly", "cached"),
                     ratio_values(drows, "embedding+pe", n, "on_the_fly", "gather")]
            wide.append([d, si_length(n)] + [spread(c) if c else "skipped" for c in cells])
    if wide:
        lines += [f"**Other widths** (`{run.command('bench_pe_d64_1.json')}`, and `--d-model 4096`; "
                  "a cached table over 4 GiB is skipped)", "",
                  table(["d_model", "length", "PE on the fly ÷ cached",
                         "PE on the fly ÷ stream write", "embedding + on the fly ÷ cached",
                         "embedding + on the fly ÷ gather"], wide), ""]
    rruns, rrows = pe_runs(run, "bench_pe_rope_[0-9]*.json")
    if rruns:
        out = []
        for n in sorted({k[2] for k in rrows[0]}):
            out.append([si_length(n)] + [spread(gb_values(rrows, "rope", n, m), "{:.1f}")
                                         for m in ("cached", "on_the_fly", "read_write")]
                       + [spread(ratio_values(rrows, "rope", n, "on_the_fly", "cached")),
                          spread(ratio_values(rrows, "rope", n, "on_the_fly", "read_write"))])
        lines += [f"**RoPE** (`{run.command('bench_pe_rope_1.json')}`: q and k of "
                  f"{rruns[0]['heads']} heads, d_model {rruns[0]['d_model']}, turned in place; "
                  "GB/s of q and k read and written)", "",
                  table(["length", "cached", "on the fly", "read + write (bound)",
                         "on the fly ÷ cached", "on the fly ÷ bound"], out), ""]
    return "\n".join(lines)


def pe_facts(run):
    """The figures the summary quotes about PE, from the tables' own values."""
    runs, rows = pe_runs(run, "bench_pe_[0-9]*.json")
    if not runs:
        return None
    lengths = sorted({k[2] for k in rows[0]})
    ratio = {(g, n): med(ratio_values(rows, g, n, "on_the_fly", "cached"))
             for g in ("pe", "embedding+pe") for n in lengths}
    bound = {(g, n): med(ratio_values(rows, g, n, "on_the_fly", b))
             for g, b in (("pe", "stream_write"), ("embedding+pe", "gather")) for n in lengths}
    # The shortest length from which on the fly beats the table at every longer one.
    wins_from = None
    for n in reversed(lengths):
        if all((ratio[(g, n)] or 0) > 1.0 for g in ("pe", "embedding+pe")):
            wins_from = n
        else:
            break
    small = [n for n in lengths if n <= 4096]
    direct = []
    for n in lengths:
        for g in ("pe", "embedding+pe"):
            d = med(gb_values(rows, g, n, "direct"))
            best = max(med(gb_values(rows, g, n, "cached")) or 0,
                       med(gb_values(rows, g, n, "on_the_fly")) or 0)
            if d and best:
                direct.append(best / d)
    rr = pe_runs(run, "bench_pe_rope_[0-9]*.json")[1]
    rope_l = sorted({k[2] for k in rr[0]}) if rr else []
    return dict(lengths=lengths, ratio=ratio, bound=bound, wins_from=wins_from, small=small,
                longest=lengths[-1], direct=direct,
                rope_bound=[med(ratio_values(rr, "rope", n, "on_the_fly", "read_write"))
                            for n in rope_l],
                rope_ratio=[med(ratio_values(rr, "rope", n, "on_the_fly", "cached"))
                            for n in rope_l])


# ---------------------------------------------------------------- the CPU targets

def isa_runs(run):
    """{(isa, precision): [json per round]} and per-round dicts {round: {(isa, p): tok/s}}."""
    runs, rounds = {}, {}
    for p in run.glob("isa_*_*_*.json"):
        m = re.match(r"isa_(\w+?)_(fp32|bf16|int8)_(\d+)\.json", os.path.basename(p))
        j = json.load(open(p))
        runs.setdefault((m[1], m[2]), []).append(j)
        rounds.setdefault(int(m[3]), {})[(m[1], m[2])] = j["tokens_per_s"]
    return runs, rounds


def targets_facts(run):
    runs, rounds = isa_runs(run)
    pk = peaks(run)
    f = encoder_flops("d512") / 1e9
    facts = {}
    for t in run.isas:
        fp = [j["tokens_per_s"] for j in runs.get((t, "fp32"), [])]
        if not fp:
            continue
        d = dict(fp32=fp,
                 vs_first=[r[(t, "fp32")] / r[(run.isas[0], "fp32")] for r in rounds.values()
                           if (t, "fp32") in r and (run.isas[0], "fp32") in r],
                 peak=pk.get((t, 2)))
        d["fraction"] = med(fp) * f / d["peak"] if d["peak"] else None
        for p in ("bf16", "int8"):
            d[p] = [j["tokens_per_s"] for j in runs.get((t, p), [])]
            d[p + "_vs"] = [r[(t, p)] / r[(t, "fp32")] for r in rounds.values()
                            if (t, p) in r and (t, "fp32") in r]
        facts[t] = d
    return facts


def products(run):
    """{isa: {kind: GFLOP/s}} of the one-thread products at 512 × 512·2048."""
    out = {}
    for t in run.isas:
        for b in run.benchmarks(f"products_{t}.json"):
            kind = b["name"].split("/")[0][3:].replace("Linear", "")
            rate = b.get("GFLOP/s") or b.get("GOP/s")
            if rate:
                out.setdefault(t, {})[{"Packed": "fp32", "Bf16": "bf16", "Int8": "int8"}[kind]] = rate
    return out


def targets_section(run):
    facts = targets_facts(run)
    if not facts:
        return ""
    first = run.isas[0]
    nrounds = len(isa_runs(run)[1])
    lines = [f"{nrounds} round{'s' if nrounds > 1 else ''} of "
             f"`{run.command(f'isa_{first}_fp32_1.json')}` and the same for every target "
             "(`--isa NAME`) and precision (`--precision P`), all in turn within a round; "
             f"tokens/s, median (min–max) over the rounds; ratios within each round. "
             f"\"Fraction of its peak\" reads the float32 encoder against the float32 peak "
             f"of the target that ran it (2 threads). {peak_wording(run)}", ""]
    out = []
    for t, d in facts.items():
        out.append([f"`{t}`", num(d["peak"]), spread(d["fp32"], "{:.0f}"),
                    spread(d["vs_first"]), num(d["fraction"], 2),
                    f"{spread(d['bf16'], '{:.0f}')} ({spread(d['bf16_vs'])}×)" if d["bf16"] else "–",
                    f"{spread(d['int8'], '{:.0f}')} ({spread(d['int8_vs'])}×)" if d["int8"] else "–"])
    lines.append(table(["target", "float32 peak, 2 threads (GFLOP/s)", "fp32 tokens/s",
                        f"÷ {first}", "fraction of its peak", "bf16 (÷ its fp32)",
                        "int8 (÷ its fp32)"], out))
    cells = ort_cells(ort_rows(run))
    same = cells.get(("d512", "fp32", 2))
    d = facts.get(run.default_isa)
    if same and same["phasor"] and d:
        lines += ["", f"These runs are short and interleaved with the other targets: the same "
                  f"`{run.default_isa}` float32 case reads {med(d['fp32']):,.0f} tokens/s here "
                  f"and {med(same['phasor']):,.0f} in \"Encoder against ONNX Runtime\" "
                  f"({med(d['fp32']) / med(same['phasor']):.2f}×), the spread of this shared "
                  "machine from one step to another; read the ratios within a round."]
    prod = products(run)
    pk = peaks(run)
    if prod:
        out = []
        for t, p in prod.items():
            peak = pk.get((t, 1))
            row = [f"`{t}`", num(peak)]
            for k in PRECISIONS:
                v = p.get(k)
                row.append("–" if v is None else
                           f"{v:.1f} ({v / p['fp32']:.2f}×; {v / peak:.2f} of the peak)"
                           if k != "fp32" and peak and p.get("fp32") else
                           f"{v:.1f} ({v / peak:.2f} of the peak)" if peak else f"{v:.1f}")
            out.append(row)
        lines += ["", f"The products alone, one thread (`{run.command(f'products_{first}.json')}` "
                  "under each `PHASOR_ISA`; GFLOP/s, GOP/s for int8, the rows rounded or "
                  "quantized inside the timing; against the target's one-thread float32 peak):",
                  "", table(["target", "float32 peak, 1 thread", "fp32", "bf16", "int8"], out)]
        flags = run.lscpu.get("Flags", "").split()
        has = [f for f in ("avx512_bf16", "avx512_vnni") if f in flags]
        lines += ["", "The bfloat16 and int8 speed-ups need AVX512-BF16 and AVX512-VNNI "
                  f"({'this CPU has ' + ' and '.join(has) if has else 'this CPU has neither'}); "
                  "without them a target computes the same products with plain multiply-adds, "
                  "the narrow types widened first, once per chunk of the panel."]
    pe_rows = []
    for t in run.isas:
        j = run.json(f"bench_pe_isa_{t}.json")
        if not j:
            continue
        rows = [{(r["group"], r["mode"], r["length"]): r for r in j["rows"]}]
        for n in sorted({k[2] for k in rows[0]}):
            def r(g, a, b):
                v = ratio_values(rows, g, n, a, b)
                return f"{v[0]:.2f}" if v else "skipped"
            pe_rows.append([f"`{t}`", si_length(n), r("pe", "on_the_fly", "stream_write"),
                            r("pe", "on_the_fly", "cached"),
                            r("embedding+pe", "on_the_fly", "gather"),
                            r("embedding+pe", "on_the_fly", "cached")])
    if pe_rows:
        lines += ["", f"PE per target, one run each (`{run.command(f'bench_pe_isa_{first}.json')}` "
                  "and the same for every target):", "",
                  table(["target", "length", "PE on the fly ÷ stream write",
                         "PE on the fly ÷ cached", "embedding + on the fly ÷ gather",
                         "embedding + on the fly ÷ cached"], pe_rows)]
    return "\n".join(lines)


# ---------------------------------------------------------------- ragged and corpora

def ragged_facts(run):
    f = {}
    for line in run.text("ragged.txt").splitlines():
        m = re.match(r"\s+(.+?)\s+([\d.]+) real tokens/s", line)
        if m:
            f[m[1]] = float(m[2])
        m = re.match(r"\s+ragged / (one per call|dense)\s+([\d.]+)x", line)
        if m:
            f["ratio " + m[1]] = float(m[2])
        if line.startswith("model "):
            f["about"] = line.split(";", 1)[1].strip() if ";" in line else ""
    for line in run.text("ort_ragged.txt").splitlines():
        m = re.match(r"(.+?)\s+([\d.]+) real tokens/s", line)
        if m:
            f["ort: " + m[1].strip()] = float(m[2])
        m = re.match(r"phasor / (.+?)\s+([\d.]+)x", line)
        if m:
            f["ort ratio: " + m[1].strip()] = float(m[2])
    m = re.search(r"on real tokens = (\S+)", run.text("ort_ragged.txt.err"))
    if m:
        f["ort agreement"] = m[1]
    corpus = {}
    for line in run.text("corpus.txt").splitlines():
        m = re.match(r"(ragged|dense) round (\d+): (\{.*\})", line)
        if m:
            corpus.setdefault(m[1], []).append(json.loads(m[3]))
    f["corpus"] = corpus
    budgets = []
    for p in run.glob("budget_*.json"):
        j = json.load(open(p))
        budgets.append(j)
    f["budgets"] = sorted(budgets, key=lambda j: j["batch_tokens"])
    if run.exists("dask_encode.seconds"):
        f["dask seconds"] = float(run.text("dask_encode.seconds").split()[-1])
        f["dask identical"] = run.text("dask_identical.txt").strip() == "identical"
    return f


def ragged_section(run):
    f = ragged_facts(run)
    rows = []
    if "ragged batch, one call" in f:
        rows.append(["64 corpus-like lines (log-normal, median 24 tokens, one of 384), "
                     "d512/8h/6L/ff2048, Python",
                     f"`{run.command('ragged.txt')}`",
                     f"ragged list in one call {f['ragged batch, one call']:,.0f} real tokens/s; "
                     f"each line alone {f.get('one line per call', 0):,.0f} (ragged ÷ alone "
                     f"**{f.get('ratio one per call', 0):.2f}×**); a dense batch of the same "
                     f"tokens {f.get('dense batch', 0):,.0f} (ragged ÷ dense "
                     f"**{f.get('ratio dense', 0):.2f}×**)"])
    if "ort: phasor, one call" in f:
        rows.append(["the same lines against ONNX Runtime on the same weights, padded with "
                     "its key padding mask, or sorted by length in batches of 32 (as "
                     "sentence-transformers runs it)"
                     + (f"; outputs agree to {f['ort agreement']} on real tokens"
                        if "ort agreement" in f else ""),
                     f"`{run.command('ort_ragged.txt')}`",
                     f"phasor {f['ort: phasor, one call']:,.0f}; ONNX Runtime padded "
                     f"{f.get('ort: ort, one padded batch + mask', 0):,.0f} (phasor "
                     f"**{f.get('ort ratio: ort, one padded batch + mask', 0):.1f}×**), sorted "
                     f"in 32s {f.get('ort: ort, sorted, batches of 32', 0):,.0f} (phasor "
                     f"**{f.get('ort ratio: ort, sorted, batches of 32', 0):.1f}×**) real "
                     "tokens/s"])
    c = f["corpus"]
    if c.get("ragged") and c.get("dense"):
        rg, dn = c["ragged"], c["dense"]
        ratio = [a["tokens_per_s"] / b["tokens_per_s"] for a, b in zip(rg, dn)]
        rows.append([f"{rg[0]['batch']:,} corpus-like lines ({rg[0]['real_tokens']:,} tokens), "
                     "the toy model d256/4h/4L, `--pool mean`",
                     f"`{run.command('corpus.txt')}`",
                     f"ragged {med([j['tokens_per_s'] for j in rg]):,.0f} real tokens/s against "
                     f"a dense file of the same tokens {med([j['tokens_per_s'] for j in dn]):,.0f} "
                     f"(**{spread(ratio)}×**, rounds alternating); peak resident "
                     f"{max(j['peak_rss_bytes'] for j in rg) / 2**20:.0f} MiB ragged, "
                     f"{max(j['peak_rss_bytes'] for j in dn) / 2**20:.0f} MiB dense "
                     f"({rg[0]['batches']:,} batches of {rg[0]['batch_tokens']:,} tokens)"])
        if "dask seconds" in f:
            cli = med([j["seconds"] for j in rg])
            rows.append(["the same file through `tools/dask_encode.py --pool mean "
                         "--shard-lines 4096` on a LocalCluster of 2 single-threaded workers",
                         f"`{run.command('dask_encode.txt')}`",
                         f"{f['dask seconds']:.1f} s wall time, cluster start included, against "
                         f"`phasor encode`'s {cli:.1f} s (Dask at **{cli / f['dask seconds']:.2f}×** "
                         "the CLI's speed); merged output "
                         + ("byte-identical to" if f["dask identical"] else "DIFFERENT from")
                         + " `phasor encode --pool mean --output`"])
    if f["budgets"]:
        b = f["budgets"]
        best = max(b, key=lambda j: j["tokens_per_s"])
        rows.append([f"token budget, {b[0]['batch']:,} of those lines, d512, `--pool mean`, "
                     "one run each", f"`{run.command('budget_' + si_length(b[0]['batch_tokens']) + '.json')}` "
                     "for each budget",
                     "real tokens/s (peak resident) at a budget of "
                     + ", ".join(("**{}**" if j is best else "{}").format(
                         f"{si_length(j['batch_tokens'])}: {j['tokens_per_s']:,.0f}")
                         + f" ({j['peak_rss_bytes'] / 2**20:.0f} MiB)" for j in b)])
    if not rows:
        return ""
    return "\n".join([f"2 threads, target `{run.default_isa}`; medians of rounds alternating "
                      "within one run.", "", table(["what", "command", "result"], rows)])


# ---------------------------------------------------------------- single runs, the suite

def resident_mib(run, name):
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.text(name))
    return int(m[1]) / 1024 if m else None


def encode_4096(run):
    """The 4,096-token encodes (encode_4096_<r>.json): their tokens/s, and the
    median's fraction of the default target's float32 peak on 2 threads."""
    runs = sorted(run.glob("encode_4096_*.json"))
    if not runs:
        return None
    js = [json.load(open(p)) for p in runs]
    tok, seq = [j["tokens_per_s"] for j in js], js[0]["seq_len"]
    peak2 = peaks(run).get((run.default_isa, 2))
    g = med(tok) * encoder_flops("d512", seq) / 1e9
    return dict(tok=tok, seq=seq, gflops=g, fraction=g / peak2 if peak2 else None,
                command=run.command(os.path.basename(runs[0])))


def long_section(run):
    lines = []
    j = run.json("embed_long.json")
    if j:
        lines.append(f"- `{run.command('embed_long.json')}`: {j['seconds']:.1f} s, "
                     f"{j['gb_per_s']:.1f} GB/s written, peak resident "
                     f"{resident_mib(run, 'embed_long.time'):.0f} MiB.")
    d, m = run.json("embed_chunk_0.json"), run.json("embed_chunk_512.json")
    if d and m:
        lines.append(f"- `{run.command('embed_chunk_0.json')}`: the default chunk "
                     f"({d['chunk']} tokens, {d['chunk'] * d['d_model'] * 4 / 2**20:.0f} MiB "
                     f"of output) {d['gb_per_s']:.1f} GB/s; with `--chunk 512` "
                     f"({512 * d['d_model'] * 4 / 2**20:.0f} MiB) {m['gb_per_s']:.1f} GB/s.")
    j = run.json("python_overhead.json")
    if j:
        lines.append(f"- Python (`{run.command('python_overhead.json')}`, toy model, "
                     f"{j['batch']} × {j['seq']}): `phasor.Model.encode` "
                     f"{j['python_seconds'] * 1e3:.1f} ms against `phasor encode`'s "
                     f"{j['cli_seconds'] * 1e3:.1f} ms ({j['python_over_cli']:.2f}×); with "
                     f"`set_num_threads(1)`, two encodes in two Python threads "
                     f"{j['two_threads_seconds'] * 1e3:.1f} ms against "
                     f"{j['sequential_two_seconds'] * 1e3:.1f} ms one after the other "
                     f"({j['two_threads_over_sequential']:.2f}×), results "
                     f"{'identical' if j['two_threads_identical'] else 'DIFFERENT'}.")
    e = encode_4096(run)
    if e:
        lines.append(f"- `{e['command']}` (1 × {e['seq']:,} tokens, d512/8h/6L, "
                     f"{len(e['tok'])} run{'s' if len(e['tok']) > 1 else ''}): "
                     f"{spread(e['tok'], '{:.0f}')} tokens/s, {e['gflops']:.0f} GFLOP/s: "
                     f"{num(e['fraction'], 2)} of the float32 peak of `{run.default_isa}` on 2 "
                     f"threads; attention makes {attention_share('d512', e['seq']):.0%} of the "
                     f"products' multiply-adds here, against {attention_share('d512'):.0%} at "
                     f"{CASES['d512'][6]} tokens.")
    j = run.json("encode_long.json")
    if j:
        d = 512
        bound = (141.3e6 + 64 * j["seq_len"] * d * 4) / 1e9
        lines.append(f"- `{run.command('encode_long.json')}` ({j['seq_len']:,} tokens, "
                     f"d512/8h/6L): {j['seconds']:.1f} s ({j['tokens_per_s']:.0f} tokens/s), "
                     f"peak resident {resident_mib(run, 'encode_long.time'):.0f} MiB; the "
                     "encoder's workspace is bounded by 64 · seq · d_model · 4 bytes beside "
                     f"the weights ({bound:.2f} GB in all here), and no `[seq, seq]` matrix "
                     "is held.")
    return "\n".join(lines)


def suite_section(run):
    table_ = {}
    pk = peaks(run)
    lin, att = [], []
    for b in run.benchmarks("suite.json"):
        name = b["name"].split("/")
        kind = name[0][3:]
        if kind == "PackedLinear":
            t = int(name[4])
            p = pk.get((run.default_isa, t))
            lin.append([f"{name[1]}×{name[2]}·{name[3]}", t, f"{b['GFLOP/s']:.0f}",
                        f"{b['GFLOP/s'] / p:.2f}" if p else "–"])
            continue
        if kind.startswith("AttentionTile"):
            p = pk.get((run.default_isa, 1))
            att.append([f"{name[1]} queries × {name[2]} keys × d_head {name[3]}",
                        "bfloat16" if kind.endswith("Bf16") else "float32",
                        f"{b['GFLOP/s']:.1f}", f"{b['GFLOP/s'] / p:.2f}" if p else "–"])
            continue
        if kind == "EmbeddingPe":
            kind += {"-1": "Gather", "1": "OnTheFly", "0": "Cached"}[name[4]]
        threads = name[3] if kind != "PeDirect" else "1"
        if len(name) > 2 and "bytes_per_second" in b:
            table_.setdefault((name[2], threads), {})[kind] = f"{b['bytes_per_second'] / 1e9:.1f}"
    cols = ["StreamWrite", "PeOnTheFly", "PeCached", "PeDirect", "EmbeddingPeGather",
            "EmbeddingPeOnTheFly", "EmbeddingPeCached"]
    rows = [[f"{d}, {t}"] + [row.get(c, "") for c in cols]
            for (d, t), row in sorted(table_.items(), key=lambda kv: (int(kv[0][0]), kv[0][1]))]
    lines = [f"`{run.command('suite.json')}`; each benchmark runs on its own, one after "
             "another, so rows taken minutes apart may meet a different memory bandwidth: "
             "compare within a column with care and take ratios from `bench-pe`. GB/s "
             "written:", "",
             table(["d_model, threads", "stream write", "PE on the fly", "PE cached",
                    "PE direct", "gather", "embedding + on the fly", "embedding + cached"], rows)]
    if lin:
        lines += ["", f"The packed float32 product (`BM_PackedLinear`, target `{run.default_isa}`), "
                  "against the float32 peak at the same thread count:", "",
                  table(["product [rows×in·out]", "threads", "GFLOP/s", "fraction of the peak"],
                        sorted(lin))]
    if att:
        lines += ["", "One attention tile, one thread (`BM_AttentionTile`, `BM_AttentionTileBf16`), "
                  "against the one-thread float32 peak:", "",
                  table(["tile", "products in", "GFLOP/s", "fraction of the peak"], att)]
    return "\n".join(lines)


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
