"""The shared part of bench/figures_report.py: the run folder (Run), its machine,
the limits read in it, and the formatting of medians, spreads and tables."""
import glob
import json
import os
import re
import shlex
import statistics

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
