"""Sections of bench/figures_report.py's page: the encoder against ONNX Runtime,
the precisions, and PE rows."""
import json

from figures_common import CASES, PRECISIONS, dot_peaks, med, num, si_length, spread, table

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
