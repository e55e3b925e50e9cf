"""Sections of bench/figures_report.py's page: the CPU targets, ragged corpora,
long sequences and the benchmark suite."""
import json
import os
import re

from figures_common import (CASES, PRECISIONS, med, num, peak_wording, peaks, si_length, spread,
                            table)
from figures_sections import attention_share, encoder_flops, ort_cells, ort_rows, ratio_values


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
