#!/usr/bin/env bash
# `phasor serve` under load at the MiniLM shape (all-MiniLM-L6-v2's sizes,
# random weights, bert-base-uncased's tokenizer): wrk sends POST /embed of one
# corpus-like sentence a request (about 24 tokens) at 1, 8, 32 and 128
# concurrent connections; for each level, requests/s, real tokens/s (from the
# server's phasor_tokens_total), its ratio to `phasor encode`'s batch rate on
# the same sentences, p50 and p99 latency and the mean batch the server formed.
# The server-side figures (tokens/s, batches) are the growth of its /metrics
# counters between two reads while the load runs: the first and last tenth of
# the level (at most 1 s each) are left out, so that connecting and the
# requests abandoned when wrk stops do not count.
# Then 40 slow clients trickle a request header a byte every half second (one
# closed by the server comes back at once) while
# wrk runs 8 ordinary connections, then a hostile run (tests/serve/hostile.py), and
# the RSS is read against its size after a warm-up with the largest requests.
# A benchmark, not a test: run it on a quiet
# machine.
#
#   bench/serve.sh [--work /tmp/phasor-serve-bench] [--phasor build/bin/phasor]
#                  [--duration 10] [--threads 2] [--out WORK/results] [--quick]
#
#   --duration  seconds of load a level (and of the slow-client phase)
#   --threads   the server's encoder threads, and phasor encode's
#   --out       results.tsv (a row a level), summary.md (what is printed), the
#               chart serve_latency.png, and every log and /metrics page read
#   --quick     a smoke run: 2 s a level, shorter warm-up and fewer repeats
#
# The model and the sentences are made once under --work (bench/make_hf_checkpoint.py,
# tests/data/tokenizers/make_folders.py, bench/tokenize_text.py; lines of 20 to 28 tokens
# with [CLS] and [SEP]). The chart needs build/bin/phasor_serve_chart (beside --phasor;
# cmake --build build --target phasor_serve_chart); without it the chart is skipped.
# Needs wrk, curl and /usr/bin/python3 with NumPy.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
phasor="$root/build/bin/phasor"
work=/tmp/phasor-serve-bench
out=""
duration=""
threads=2
quick=0
python="${PYTHON:-/usr/bin/python3}"
while [ $# -gt 0 ]; do
  case "$1" in
    --work) work="$2" ;;
    --phasor) phasor="$2" ;;
    --duration) duration="$2" ;;
    --threads) threads="$2" ;;
    --out) out="$2" ;;
    --quick) quick=1; shift; continue ;;
    -h | --help) awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "serve: unknown option $1" >&2; exit 2 ;;
  esac
  [ $# -ge 2 ] || { echo "serve: $1 needs a value" >&2; exit 2; }
  shift 2
done
if [ "$quick" = 1 ]; then
  duration="${duration:-2}"; warmup=1; repeat_one=20
else
  duration="${duration:-10}"; warmup=3; repeat_one=50
fi
levels=(1 8 32 128)
sentences_wanted=2000
min_tokens=20
max_tokens=28
slow_connections=40
slow_concurrency=8
# One wrk thread drives far more requests a second than the server answers;
# a second one would only take a core from the server (2 here, shared).
wrk_threads=1
out="${out:-$work/results}"

say() { echo "serve: $*" >&2; }
die() { echo "serve: error: $*" >&2; exit 1; }
for tool in wrk curl "$python"; do
  command -v "$tool" > /dev/null || die "$tool not found (tools/install-deps.sh installs it)"
done
[ -x "$phasor" ] || die "$phasor not found: build it (cmake --build build --target phasor)"
chart="$(dirname "$phasor")/phasor_serve_chart"

server_pid=""
slow_pid=""
wrk_pid=""
wrk_line=""
server_status=""
server_stop_seconds=""
# Stops wrk and the slow clients, then the server (SIGTERM; SIGKILL after 30 s), and
# records the server's exit status. Runs on every exit.
stop_processes() {
  if [ -n "$wrk_pid" ]; then
    kill -TERM "$wrk_pid" 2> /dev/null || true
    wait "$wrk_pid" 2> /dev/null || true
    wrk_pid=""
  fi
  if [ -n "$slow_pid" ]; then
    kill -TERM "$slow_pid" 2> /dev/null || true
    wait "$slow_pid" 2> /dev/null || true
    slow_pid=""
  fi
  if [ -n "$server_pid" ]; then
    local status=0 waited=0
    kill -TERM "$server_pid" 2> /dev/null || true
    while kill -0 "$server_pid" 2> /dev/null && [ "$waited" -lt 300 ]; do
      sleep 0.1
      waited=$((waited + 1))
    done
    if kill -0 "$server_pid" 2> /dev/null; then
      say "the server did not stop 30 s after SIGTERM: SIGKILL"
      kill -KILL "$server_pid" 2> /dev/null || true
    fi
    wait "$server_pid" 2> /dev/null || status=$?
    server_status="$status"
    server_stop_seconds="$(awk -v n="$waited" 'BEGIN { printf "%.1f", n / 10 }')"
    server_pid=""
  fi
}
trap stop_processes EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$work" "$out" "$out/metrics"
rm -f "$out"/metrics/*.txt "$out"/wrk_*.txt "$out/levels.tsv"
load_before="$(uptime)"

model="$(PYTHON="$python" "$here/make_minilm_folder.sh" "$work")"

# The sentences: lines of tokenize_text.py's text of 20 to 28 tokens.
sentences="$work/sentences.txt"
if [ ! -f "$sentences" ]; then
  [ -f "$work/text_2mb.txt" ] ||
    "$python" "$here/tokenize_text.py" --mb 2 --out "$work/text_2mb.txt" >&2
  "$phasor" tokenize --model "$model" --text-file "$work/text_2mb.txt" > "$work/text_2mb.ids"
  "$python" - "$work/text_2mb.txt" "$work/text_2mb.ids" "$sentences" "$min_tokens" \
    "$max_tokens" "$sentences_wanted" << 'EOF'
import os, sys
text, ids, dest, lo, hi, wanted = sys.argv[1:]
with open(text, encoding="utf-8", newline="\n") as f:
    lines = f.read().split("\n")[:-1]
with open(ids) as f:
    counts = [len(line.replace(",", " ").split()) for line in f.read().split("\n")[:-1]]
if len(lines) != len(counts):
    sys.exit("serve: %d lines of text but %d lines of ids" % (len(lines), len(counts)))
keep = [t for t, n in zip(lines, counts) if int(lo) <= n <= int(hi) and t.strip()][:int(wanted)]
if len(keep) < int(wanted):
    sys.exit("serve: only %d lines of %s to %s tokens" % (len(keep), lo, hi))
with open(dest + ".tmp", "w", encoding="utf-8", newline="\n") as f:
    f.write("".join(t + "\n" for t in keep))
os.replace(dest + ".tmp", dest)
EOF
fi
# Real tokens a sentence, [CLS] and [SEP] counted: what the server counts.
"$phasor" tokenize --model "$model" --text-file "$sentences" > "$out/sentences.ids"
read -r n_sentences mean_tokens < <(awk '{ n++; t += NF } END { printf "%d %.3f\n", n, t / n }' \
  "$out/sentences.ids")
# The sentence alone: the first of the mean's length.
one="$out/one_sentence.txt"
at="$(awk -v m="$mean_tokens" 'BEGIN { want = int(m + 0.5) } NF == want { print NR; exit }' \
  "$out/sentences.ids")"
sed -n "${at:-1}p" "$sentences" > "$one"
say "$n_sentences sentences, $mean_tokens real tokens each on average"

# The CLI's batch rate on the same sentences (median of 3 runs), and one sentence alone.
: > "$out/cli_runs.jsonl"
for _ in 1 2 3; do
  "$phasor" encode --model "$model" --text-file "$sentences" --pool model --threads "$threads" \
    --json >> "$out/cli_runs.jsonl"
done
"$phasor" encode --model "$model" --text-file "$one" --pool model --threads "$threads" \
  --repeat "$repeat_one" --json > "$out/cli_one.json"

# The server, once for every level.
"$phasor" serve --model "$model" --port 0 --threads "$threads" --quiet 2> "$out/server.log" &
server_pid=$!
port=""
for _ in $(seq 600); do
  port="$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$out/server.log")"
  [ -n "$port" ] && break
  kill -0 "$server_pid" 2> /dev/null || { cat "$out/server.log" >&2; die "the server exited"; }
  sleep 0.1
done
[ -n "$port" ] || { cat "$out/server.log" >&2; die "the server did not listen within 60 s"; }
url="http://127.0.0.1:$port"
say "server pid $server_pid on $url"

rss() { awk '$1 == "'"$1"':" { print $2 }' "/proc/$server_pid/status"; }
rss_start_kb="$(rss VmRSS)"

# The first request, checked by hand: 200 and one vector of the model's width.
"$python" - "$one" > "$out/one_request.json" << 'EOF'
import json, sys
print(json.dumps({"inputs": open(sys.argv[1], encoding="utf-8").read().rstrip("\n")}))
EOF
read -r code first_seconds < <(curl -sS -o "$out/one_answer.json" -w '%{http_code} %{time_total}\n' \
  -H 'Content-Type: application/json' --data-binary @"$out/one_request.json" "$url/embed")
[ "$code" = 200 ] || { cat "$out/one_answer.json" >&2; die "POST /embed answered $code"; }
width="$("$python" -c 'import json, sys; v = json.load(open(sys.argv[1])); print(len(v[0]))' \
  "$out/one_answer.json")"
curl -sS "$url/info" > "$out/info.json"

# start_wrk CONCURRENCY SECONDS LOG: wrk in the background (wrk_pid);
# wrk_result LOG waits for it and sets wrk_line to its result line. (Never
# in $(...): a subshell cannot wait for the script's children.)
start_wrk() {
  wrk -t "$(($1 < wrk_threads ? $1 : wrk_threads))" -c "$1" -d "${2}s" --timeout 30s --latency \
    -s "$here/serve_wrk.lua" "$url" -- "$sentences" > "$3" 2>&1 &
  wrk_pid=$!
}
wrk_result() {
  local status=0
  wait "$wrk_pid" || status=$?
  wrk_pid=""
  [ "$status" = 0 ] || die "wrk exited with status $status (see $1)"
  wrk_line="$(grep '^phasor-wrk:' "$1")" || die "no result line from wrk in $1"
}
run_wrk() {  # run_wrk CONCURRENCY SECONDS LOG: start_wrk, then wrk_result
  start_wrk "$@"
  wrk_result "$3"
}
scrape() { curl -sS --max-time 10 "$url/metrics" > "$1"; }
# Waits (at most 30 s) until no request is in flight: the last level's
# abandoned requests must not count against the next one.
settle() {
  for _ in $(seq 300); do
    scrape "$out/metrics/settle.txt"
    awk '$1 == "phasor_requests_in_flight" && $2 == 0 { found = 1 } END { exit !found }' \
      "$out/metrics/settle.txt" && return 0
    sleep 0.1
  done
  say "requests still in flight 30 s after a level"
}
run_wrk 8 "$warmup" "$out/wrk_warmup.txt"
# Then the largest legitimate requests, 4 at once: --max-client-batch-size texts each cut
# to --max-input-tokens, so that every buffer has grown to the largest batch the server forms.
say "warm-up with the largest requests"
"$python" - "$url" "$out/info.json" << 'PY'
import json, sys, threading, urllib.request
url, info = sys.argv[1], json.load(open(sys.argv[2]))
body = json.dumps({"inputs": ["the quick brown fox jumps over the lazy dog " * 200]
                   * info["max_client_batch_size"], "truncate": True}).encode()
def send():
    for _ in range(2):
        req = urllib.request.Request(url + "/embed", body, {"Content-Type": "application/json"})
        assert urllib.request.urlopen(req, timeout=600).status == 200
threads = [threading.Thread(target=send) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
PY
settle
rss_warm_kb="$(rss VmRSS)"

# The window of a level whose /metrics growth is counted: from margin to duration - margin.
margin="$(awk -v d="$duration" 'BEGIN { m = d / 10; print (m > 1 ? 1 : m) }')"
window="$(awk -v d="$duration" -v m="$margin" 'BEGIN { print d - 2 * m }')"
printf 'concurrency\tseconds\tresult\n' > "$out/levels.tsv"
for c in "${levels[@]}"; do
  say "concurrency $c, ${duration} s"
  start_wrk "$c" "$duration" "$out/wrk_c$c.txt"
  sleep "$margin"
  scrape "$out/metrics/c${c}_before.txt"
  t0="$(date +%s.%N)"
  sleep "$window"
  scrape "$out/metrics/c${c}_after.txt"
  t1="$(date +%s.%N)"
  wrk_result "$out/wrk_c$c.txt"
  printf '%s\t%s\t%s\n' "$c" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$wrk_line" \
    >> "$out/levels.tsv"
  settle
done

# Slow clients: connections that never finish their header, beside ordinary load.
say "$slow_connections slow clients and concurrency $slow_concurrency, ${duration} s"
"$python" "$here/serve_slow_clients.py" --port "$port" --connections "$slow_connections" \
  > "$out/slow_clients.txt" 2>&1 &
slow_pid=$!
for _ in $(seq 300); do
  grep -q '^ready' "$out/slow_clients.txt" && break
  kill -0 "$slow_pid" 2> /dev/null || { cat "$out/slow_clients.txt" >&2; die "slow clients"; }
  sleep 0.1
done
grep -q '^ready' "$out/slow_clients.txt" || die "the slow clients did not connect within 30 s"
sleep 1  # their first bytes are in
run_wrk "$slow_concurrency" "$duration" "$out/wrk_slow.txt"
slow_result="$wrk_line"
kill -TERM "$slow_pid" 2> /dev/null || die "the slow clients ended early: $(cat "$out/slow_clients.txt")"
wait "$slow_pid" || die "the slow clients exited with status $?"
slow_pid=""
slow_summary="$(grep '^phasor-slow:' "$out/slow_clients.txt" || echo "phasor-slow: no summary")"
settle
# A hostile run (tests/serve/hostile.py: garbage, broken JSON, huge numbers, lying lengths),
# then the RSS against the warm-up's.
say "hostile run"
if "$python" "$root/tests/serve/hostile.py" "$port" > "$out/hostile.txt" 2>&1; then
  hostile_result="every case answered 4xx or closed"
else
  hostile_result="unexpected answers: $(tr '\n' ';' < "$out/hostile.txt")"
fi
settle
cp "$out/metrics/settle.txt" "$out/metrics/end.txt"

rss_end_kb="$(rss VmRSS)"
hwm_end_kb="$(rss VmHWM)"
stop_processes
load_after="$(uptime)"
[ "$server_status" = 0 ] || say "the server exited with status $server_status after SIGTERM"

cpu="$(lscpu | sed -n 's/^Model name: *//p' | head -n 1)"
family="$(lscpu | sed -n 's/^CPU family: *//p' | head -n 1)"
caption="MiniLM shape (6 layers, d_model 384, d_ff 1536, random F32 weights), bert-base-uncased \
tokenizer, $(printf '%.1f' "$mean_tokens") real tokens a sentence
--threads $threads, wrk $wrk_threads thread, ${duration} s a level; CPU: $cpu (family $family), \
$(nproc) cores (shared)"
cat > "$out/meta.tsv" << EOF
threads	$threads
duration	$duration
sentences	$n_sentences
mean_tokens	$mean_tokens
width	$width
first_seconds	$first_seconds
rss_start_kb	$rss_start_kb
rss_warm_kb	$rss_warm_kb
rss_end_kb	$rss_end_kb
hwm_end_kb	$hwm_end_kb
server_status	$server_status
server_stop_seconds	$server_stop_seconds
slow_connections	$slow_connections
slow_concurrency	$slow_concurrency
slow_result	$slow_result
slow_summary	$slow_summary
hostile_result	$hostile_result
cpu	$cpu
family	$family
load_before	$load_before
load_after	$load_after
EOF

"$python" - "$out" << 'EOF' | tee "$out/summary.md"
import json, os, statistics, sys

out = sys.argv[1]
meta = dict(line.rstrip("\n").split("\t", 1) for line in open(os.path.join(out, "meta.tsv")))


def wrk_fields(line):
    """phasor-wrk: key=value ... -> {key: float}"""
    return {k: float(v) for k, v in (kv.split("=") for kv in line.split()[1:])}


def metrics(path):
    """A Prometheus page -> {name with labels: value}."""
    m = {}
    for line in open(path):
        if line and not line.startswith("#") and line.strip():
            name, value = line.rsplit(" ", 1)
            m[name] = float(value)
    return m


def delta(before, after, name):
    return after.get(name, 0.0) - before.get(name, 0.0)


def mean_of(before, after, hist):
    n = delta(before, after, hist + "_count")
    return delta(before, after, hist + "_sum") / n if n else float("nan")


runs = [json.loads(line) for line in open(os.path.join(out, "cli_runs.jsonl")) if line.strip()]
cli_rate = statistics.median(r["tokens_per_s"] for r in runs)
cli_with_tok = statistics.median(r["real_tokens"] / (r["seconds"] + r["tokenize_seconds"])
                                 for r in runs)
one = json.load(open(os.path.join(out, "cli_one.json")))
one_ms = one["seconds"] * 1e3
target_ms = 2 * one_ms + 2
mean_tokens = float(meta["mean_tokens"])

rows = []
for line in list(open(os.path.join(out, "levels.tsv")))[1:]:
    c, seconds, result = line.rstrip("\n").split("\t")
    w = wrk_fields(result)
    b = metrics(os.path.join(out, "metrics", "c%s_before.txt" % c))
    a = metrics(os.path.join(out, "metrics", "c%s_after.txt" % c))
    tokens = delta(b, a, "phasor_tokens_total")
    rows.append({
        "concurrency": int(c),
        "requests_per_s": w["rps"],
        "tokens_per_s": tokens / float(seconds),
        "tokens_per_s_from_rps": w["rps"] * mean_tokens,
        "ratio_to_cli": tokens / float(seconds) / cli_rate,
        "p50_ms": w["p50_ms"],
        "p99_ms": w["p99_ms"],
        "max_ms": w["max_ms"],
        "mean_batch_seqs": mean_of(b, a, "phasor_batch_size"),
        "mean_batch_tokens": mean_of(b, a, "phasor_batch_tokens"),
        "requests": int(w["requests"]),
        "server_200": int(delta(b, a, 'phasor_requests_total{route="/embed",code="200"}')),
        "non2xx": int(w["non2xx"]),
        "socket_errors": int(w["connect"] + w["read"] + w["write"] + w["timeout"]),
        "server_request_ms": 1e3 * mean_of(b, a, "phasor_request_seconds"),
        "queue_ms": 1e3 * mean_of(b, a, "phasor_queue_seconds"),
        "tokenize_ms": 1e3 * mean_of(b, a, "phasor_tokenize_seconds"),
        "batch_encode_ms": 1e3 * mean_of(b, a, "phasor_inference_seconds"),
        "window_s": float(seconds),
    })

cols = list(rows[0])
with open(os.path.join(out, "results.tsv.tmp"), "w") as f:
    f.write("\t".join(cols) + "\n")
    for r in rows:
        f.write("\t".join(("%.4g" % r[k]) if isinstance(r[k], float) else str(r[k])
                          for k in cols) + "\n")
os.replace(os.path.join(out, "results.tsv.tmp"), os.path.join(out, "results.tsv"))

print("## phasor serve: POST /embed, one sentence a request\n")
print("MiniLM shape (random F32 weights), bert-base-uncased tokenizer; %s sentences of %.1f real "
      "tokens on average ([CLS] and [SEP] counted); --threads %s; %s s a level; embedding width %s."
      % (meta["sentences"], mean_tokens, meta["threads"], meta["duration"], meta["width"]))
print("CPU: %s, family %s. requests/s and latency: wrk over the whole level; real tokens/s and "
      "batches: the server's /metrics over the middle %.1f s of it.\n"
      % (meta["cpu"], meta["family"], rows[0]["window_s"]))
def table(header, row_format, keys):
    print("| " + " | ".join(header) + " |")
    print("|" + "---:|" * len(header))
    for r in rows:
        print("| " + " | ".join(f % r[k] for f, k in zip(row_format, keys)) + " |")


table(["concurrency", "requests/s", "real tokens/s", "(requests/s × mean tokens)", "ratio to CLI",
       "p50 ms", "p99 ms", "mean batch sequences", "non-2xx", "socket errors"],
      ["%d", "%.1f", "%.0f", "%.0f", "%.2f", "%.2f", "%.2f", "%.2f", "%d", "%d"],
      ["concurrency", "requests_per_s", "tokens_per_s", "tokens_per_s_from_rps", "ratio_to_cli",
       "p50_ms", "p99_ms", "mean_batch_seqs", "non2xx", "socket_errors"])
print("\nWhere a request's time goes (the server's histograms, means over the level):\n")
table(["concurrency", "request ms", "queued ms", "tokenize ms", "batch encode ms",
       "mean batch tokens", "max latency ms (wrk)"],
      ["%d", "%.2f", "%.2f", "%.3f", "%.2f", "%.1f", "%.1f"],
      ["concurrency", "server_request_ms", "queue_ms", "tokenize_ms", "batch_encode_ms",
       "mean_batch_tokens", "max_ms"])
r0 = runs[0]
print("\nCLI: `phasor encode --text-file` of the same %d sentences (%d real tokens), --pool model, "
      "--threads %s: %.0f real tokens/s (median of %d runs; tokenizing left out, as its "
      "tokens_per_s does; %.0f tokens/s with it)."
      % (r0["batch"], r0["real_tokens"], meta["threads"], cli_rate, len(runs), cli_with_tok))
c1 = [r for r in rows if r["concurrency"] == 1]
verdict = ""
if c1:
    verdict = "; c=1 p50 %.2f ms: %s" % (c1[0]["p50_ms"],
                                        "met" if c1[0]["p50_ms"] <= target_ms else "MISSED")
print("One sentence alone (%d tokens): %.3f ms (median of %d); c=1 target p50 <= 2 × that + 2 ms "
      "= %.2f ms%s." % (one["real_tokens"], one_ms, one["repeat"], target_ms, verdict))
s = wrk_fields(meta["slow_result"])
print("Slow clients: %s connections trickling a header (a byte every 0.5 s, never ending) while "
      "wrk ran c=%s: %.1f requests/s, p50 %.2f ms, p99 %.2f ms, max %.2f ms, non-2xx %d, "
      "socket errors %d; %s."
      % (meta["slow_connections"], meta["slow_concurrency"], s["rps"], s["p50_ms"], s["p99_ms"],
         s["max_ms"], s["non2xx"], s["connect"] + s["read"] + s["write"] + s["timeout"],
         meta["slow_summary"]))
print("Hostile run (tests/serve/hostile.py) after the slow clients: %s." % meta["hostile_result"])
print("Server RSS: %.1f MiB once listening, %.1f MiB after the warm-up with the largest requests, "
      "%.1f MiB at the end after the slow clients and the hostile run: %.2f× the warm-up's "
      "(target <= 1.5×; peak %.1f MiB); the first request took %.3f s; exit status %s, %s s "
      "after SIGTERM."
      % (int(meta["rss_start_kb"]) / 1024, int(meta["rss_warm_kb"]) / 1024,
         int(meta["rss_end_kb"]) / 1024, int(meta["rss_end_kb"]) / int(meta["rss_warm_kb"]),
         int(meta["hwm_end_kb"]) / 1024,
         float(meta["first_seconds"]), meta["server_status"], meta["server_stop_seconds"]))
end = metrics(os.path.join(out, "metrics", "end.txt"))
print("Answers by route and status over the whole run: %s (499: requests wrk left when a level "
      "ended)." % ", ".join("%s %d" % (k[len("phasor_requests_total"):], v)
                            for k, v in end.items() if k.startswith("phasor_requests_total{")))
print("Load before: %s" % meta["load_before"].strip())
print("Load after:  %s" % meta["load_after"].strip())
with open(os.path.join(out, "chart_args.txt"), "w") as f:
    f.write("%.6g\n%.6g\n" % (cli_rate, target_ms))
EOF

if [ -x "$chart" ]; then
  { read -r cli_rate; read -r target_ms; } < "$out/chart_args.txt"
  "$chart" --in "$out/results.tsv" --out "$out/serve_latency.png" --caption "$caption" \
    --cli-tokens-per-s "$cli_rate" --target-ms "$target_ms"
  say "wrote $out/serve_latency.png"
else
  say "no $chart: the chart is skipped (cmake --build build --target phasor_serve_chart)"
fi
say "wrote $out/results.tsv and $out/summary.md"
[ "$server_status" = 0 ] || exit 1
