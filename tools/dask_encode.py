#!/usr/bin/env python3
"""Encode a tokens file (or a text file) across a Dask cluster, in shards of lines.

    PYTHONPATH=build/python python3 tools/dask_encode.py --model DIR \\
        (--tokens-file FILE | --text-file FILE [--pairs] [--prompt NAME | --prefix TEXT]) \\
        --out-dir OUT [--shard-lines 256] [--stage final|embeddings|pooler|logits] \\
        [--pe-mode M] [--pool none|mean|cls|max|last|mean_sqrt_len|model [--normalize]] \\
        [--truncate | --no-truncate] [--merge ALL.npy] \\
        [--workers 2 | --scheduler ADDRESS]

The file is read as `phasor encode --tokens-file` reads it (one sequence a line,
ids separated by spaces or commas, blank lines skipped, for a model with token
types a tab marking where a pair's segment 1 begins, ragged lines padded with
the model's pad_token_id to the longest line of the whole file). Each worker
loads the model once; each shard is encoded in one call and written to
OUT/shard_NNNNN.npy, float32 [lines, seq_len, d_model]; OUT/index.json lists the
shards in order; with --pool each shard is [lines, d_model], one vector a line,
(with --stage pooler|logits [lines, width]),
as `phasor encode --pool` writes them (each with first_row, its first row in the whole array, and
first_line, the file line of that row, from 1 as the CLI counts them); the
shards and index.json of an earlier run in OUT are removed first. Put together
(--merge ALL.npy), they are the array `phasor encode --output` writes for the
same file, bit for bit. Bad input is refused before anything is sent to the
cluster, with the CLI's message (`phasor: error: FILE: line 5, token 3: ...`);
a line longer than the model's positions, which only the loaded model knows,
before any shard is sent: an error naming the line and the limit, or with
--truncate its first tokens, as `phasor encode --truncate` keeps them.
Text is cut as `phasor encode --text-file` cuts it: at the least of the
tokenizer's model_max_length, the folder's max_seq_length and the model's
positions, by default for a sentence-transformers folder (--no-truncate: a
longer line is an error), and pooled by default as its modules.json says.
With --text-file, the file's lines are tokenized first, on this machine, by
the model folder's own tokenizer as `phasor encode --text-file` tokenizes
them (one text a line, or text_a<TAB>text_b with --pairs; invalid UTF-8 an
error naming the line and byte offset unless --invalid-utf8 replace), and
the ids go on as a tokens file's would.
With --scheduler, OUT and the model directory must be visible to every worker
at the same path.
"""
import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dask_cluster  # noqa: E402  (beside this file)


def token_types_of(config):
    """Token types a model of this config.json has (BERT's segments), as phasor reads it:
    type_vocab_size for the BERT family (2 if absent), token_types in phasor's own format."""
    if config.get("model_type") in ("bert", "roberta", "xlm-roberta", "camembert"):
        return config.get("type_vocab_size", 2)
    return 0 if "model_type" in config else config.get("token_types", 0)


def parse_tokens(text, source, pairs=False):
    """Lines of ids as phasor's tokens parser reads them; ValueError with its message.
    pairs (a model with token types): a tab marks where a line's segment 1 begins, and
    each line is (line number, ids, types); else (line number, ids, None)."""
    lines = []
    for line_no, line in enumerate(text.split("\n"), start=1):
        ids, types, segment = [], [], 0
        # With pairs a tab is kept (captured) to mark segment 1; the other pieces may be None.
        for token in re.split(r"(\t)|[ ,\r]+" if pairs else r"[ \t,\r]+", line):
            if token == "\t":
                if segment == 1:
                    raise ValueError(f"{source}: line {line_no} holds a second tab: a line is one "
                                     "sequence, or a pair whose segment 1 follows its one tab")
                segment = 1
                continue
            if not token:
                continue
            where = f"{source}: line {line_no}, token {len(ids) + 1}"
            if not re.fullmatch(r"-?[0-9]+", token):
                raise ValueError(f"{where}: '{token[:40]}' is not a token id")
            value = int(token)
            if not -2**31 <= value < 2**31:
                raise ValueError(f"{where}: token id {token[:40]} is out of range, expected a "
                                 "32-bit integer")
            ids.append(value)
            types.append(segment)
        if ids:
            lines.append((line_no, ids, types if pairs else None))
    if not lines:
        raise ValueError(f"{source}: holds no token ids")
    return lines


def read_text_lines(data, source, pairs, replace):
    """The lines of a text file as phasor reads them: split at \\n, a \\r before it dropped,
    a last line without \\n kept; each (line number, text) or (line number, (a, b)) with
    pairs. ValueError with the CLI's message for invalid UTF-8 or a pair without one tab."""
    pieces = data.split(b"\n")
    if data.endswith(b"\n"):
        pieces.pop()
    lines = []
    for line_no, raw in enumerate(pieces, start=1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        try:
            text = raw.decode("utf-8", errors="replace" if replace else "strict")
        except UnicodeDecodeError as e:
            raise ValueError(f"{source}: line {line_no}, byte offset {e.start}: invalid UTF-8 "
                             f"(byte 0x{raw[e.start]:02x}); give --invalid-utf8 replace to read "
                             "it as U+FFFD") from None
        if pairs:
            parts = text.split("\t")
            if len(parts) != 2:
                raise ValueError(f"{source}: line {line_no}: expected text_a<TAB>text_b, found "
                                 + ("no tab" if len(parts) == 1 else "a second tab"))
            text = (parts[0], parts[1])
        lines.append((line_no, text))
    if not lines:
        raise ValueError(f"{source}: no line of text")
    return lines


def text_truncation(args, model_dir):
    """Whether text is cut, as the CLI decides it (models/length_rule.h): --truncate,
    --no-truncate, else the folder's default, on for a sentence-transformers folder
    (one with modules.json)."""
    if args.truncate or args.no_truncate:
        return args.truncate
    return (model_dir / "modules.json").is_file()


def tokenize_text_file(args, model_dir, with_types):
    """--text-file: (line number, ids, types or None) a line, tokenized by the folder's own
    tokenizer with the CLI's options; phasor.Error or ValueError with its message. Lines are
    cut at the folder's length rule (the least of model_max_length, max_seq_length and the
    model's positions) when truncation is on, else a longer line is an error, as the CLI."""
    import phasor
    data = sys.stdin.buffer.read() if args.text_file == "-" else Path(args.text_file).read_bytes()
    source = "standard input" if args.text_file == "-" else args.text_file
    lines = read_text_lines(data, source, args.pairs, args.invalid_utf8 == "replace")
    texts = [text for _, text in lines]
    truncate = text_truncation(args, model_dir)
    options = dict(add_special_tokens=not args.no_special, prompt=args.prompt, prefix=args.prefix)
    try:
        # The model, for its positions: the rule's third bound.
        model = phasor.Model(str(model_dir))
        cut = model.tokenize(texts, truncate=True, **options)
        enc = cut if truncate else model.tokenize(texts, truncate=False, **options)
    except phasor.Error as e:
        # "texts[i]" in the module's words is the file's line i + 1.
        raise ValueError(re.sub(r"^texts\[(\d+)\](\[\d\])?",
                                lambda m: f"{source}: line {lines[int(m.group(1))][0]}",
                                str(e))) from None
    if not truncate:
        for (line_no, _), ids, kept in zip(lines, enc["input_ids"], cut["input_ids"]):
            if len(ids) > len(kept):  # longer than the rule's limit: what the cut kept
                raise ValueError(f"{source}: line {line_no} has {len(ids)} tokens, more than the "
                                 f"{len(kept)} the model folder allows; give --truncate to cut "
                                 f"it to its first {len(kept)} (as sentence-transformers does)")
    out = []
    for (line_no, _), ids, types in zip(lines, enc["input_ids"], enc["token_type_ids"]):
        out.append((line_no, ids, types if with_types and args.pairs else None))
    return out


def check_ids(lines, vocab, source):
    """ValueError with the CLI's message for the first id outside [0, vocab)."""
    for line_no, ids, _ in lines:
        for k, value in enumerate(ids):
            if not 0 <= value < vocab:
                raise ValueError(f"{source}: line {line_no}, token {k + 1}: token id {value} is "
                                 f"outside the vocabulary [0, {vocab})")


def load_model(path, pe_mode):
    import phasor
    return phasor.Model(path, pe_mode)


def resolve_lines(sequences, pad_id, source, line_numbers, truncate):
    """On a worker: the CLI's input rules for the file's lines with the worker's model's
    positions: (real lengths, warning), or {"error": message} (as encode_shard)."""
    import phasor
    try:
        return phasor._input_rules(sequences, pad_id, source, line_numbers,
                                   model=dask_cluster.state(), truncate=truncate)
    except phasor.Error as e:
        return {"error": str(e)}


def encode_shard(lines, real, seq, pad_id, stage, pool, normalize, out_path, types):
    """On a worker: encodes lines (padded to seq with pad_id; real: each line's real
    tokens, the input rules applied on the client; types: each line's token types, or
    None for lines of one segment) with the worker's model and saves
    [len(lines), seq, d_model] to out_path, in batches under the module's token budget
    (only real tokens are computed). A phasor.Error comes back as {"error": message},
    not raised, so that the worker logs no failure dump."""
    import phasor
    model = dask_cluster.state()
    ids = np.full((len(lines), seq), 0 if pad_id is None else pad_id, dtype=np.int32)
    lengths = np.array(real, dtype=np.int64)
    token_types = np.zeros((len(lines), seq), dtype=np.int32)
    for b, line in enumerate(lines):
        ids[b, :len(line)] = line
        if types[b] is not None:
            token_types[b, :len(line)] = types[b]
    try:
        out = model.encode(ids, lengths, stage=stage, pool=pool, normalize=normalize,
                           token_type_ids=token_types if token_types.any() else None)
    except phasor.Error as e:
        return {"error": str(e)}
    with dask_cluster.output_file(out_path) as temp, open(temp, "wb") as f:
        np.save(f, out)
    return {"file": Path(out_path).name, "lines": len(lines), "worker": dask_cluster.get_worker().address}


def main(argv=None):
    p = dask_cluster.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True, help="model directory (config.json, "
                   "model.safetensors); `phasor make-toy --out DIR` writes the toy model")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--tokens-file", help="one sequence a line")
    source.add_argument("--text-file", help="one text a line, tokenized by the model folder's "
                        "own tokenizer (as phasor encode --text-file)")
    p.add_argument("--pairs", action="store_true",
                   help="with --text-file: each line is text_a<TAB>text_b")
    p.add_argument("--no-special", action="store_true",
                   help="with --text-file: leave out the special tokens")
    p.add_argument("--invalid-utf8", choices=["error", "replace"], default="error",
                   help="with --text-file: invalid UTF-8 is an error naming the line (default) "
                   "or read as U+FFFD")
    p.add_argument("--prompt", help="with --text-file: a prompt of config_sentence_transformers.json")
    p.add_argument("--prefix", help="with --text-file: text put before each text")
    p.add_argument("--out-dir", required=True, help="where shards and index.json go")
    p.add_argument("--shard-lines", type=int, default=256, help="lines per shard (default 256)")
    p.add_argument("--stage", choices=["final", "embeddings", "pooler", "logits"], default="final",
                   help="pooler, logits: a head's output (as phasor encode --stage), shards "
                   "[lines, width]; without --pool")
    p.add_argument("--pool", choices=["none", "mean", "cls", "max", "last", "mean_sqrt_len",
                                      "model"],
                   help="one vector a line (as phasor encode --pool): shards [lines, d_model]; "
                   "default as phasor encode: model for a sentence-transformers folder "
                   "(modules.json) at --stage final, else none")
    p.add_argument("--normalize", action="store_true", help="with --pool: unit L2 norm")
    p.add_argument("--pe-mode", choices=["cached", "on_the_fly", "auto"],
                   help="replaces the config's positional mode")
    cut = p.add_mutually_exclusive_group()
    cut.add_argument("--truncate", action="store_true",
                     help="a longer line keeps its first tokens, as phasor encode --truncate: "
                     "text at the least of the tokenizer's model_max_length, the folder's "
                     "max_seq_length and the model's positions (the default for a "
                     "sentence-transformers folder), token ids at the model's positions")
    cut.add_argument("--no-truncate", action="store_true",
                     help="a longer line is an error naming it (the default for other folders "
                     "and for token ids)")
    p.add_argument("--merge", metavar="ALL.npy",
                   help="also write every shard in one array, as phasor encode --output")
    dask_cluster.add_cluster_arguments(p)
    args = p.parse_args(argv)
    if args.shard_lines < 1:
        p.error("--shard-lines must be >= 1")
    if not args.text_file:
        for flag, given in (("--pairs", args.pairs), ("--no-special", args.no_special),
                            ("--prompt", args.prompt), ("--prefix", args.prefix),
                            ("--invalid-utf8", args.invalid_utf8 != "error")):
            if given:
                p.error(f"{flag} needs --text-file")
    if args.pool is None:  # the folder's, as phasor encode
        st = (Path(args.model) / "modules.json").is_file()
        args.pool = "model" if st and args.stage == "final" else "none"
    if args.pool == "none":
        args.pool = None
    source_name = args.text_file or args.tokens_file
    source_option = "--text-file" if args.text_file else "--tokens-file"
    if args.normalize and not args.pool:
        p.error("--normalize needs --pool")
    one_row = args.pool or args.stage in ("pooler", "logits")
    if args.pool and args.stage in ("pooler", "logits"):
        p.error(f"--stage {args.stage} and --pool {args.pool} do not go together")
    if args.merge:
        dask_cluster.check_output_file(p, "--merge", args.merge, ".npy")
        dask_cluster.check_distinct_paths(p, [("--merge", args.merge)],
                                          [(source_option, source_name)])
        # The merged array is read from this run's shards: it cannot be one of them.
        if (Path(args.merge).resolve().parent == Path(args.out_dir).resolve()
                and re.fullmatch(r"shard_[0-9]+\.npy", Path(args.merge).name)):
            p.error(f"--merge names a shard file of --out-dir ({args.merge})")

    model_dir = Path(args.model).resolve()
    try:
        config = json.loads((model_dir / "config.json").read_text())
        pad_id = config.get("pad_token_id")
        if args.text_file:
            lines = tokenize_text_file(args, model_dir, token_types_of(config) >= 2)
        else:
            stdin = args.tokens_file == "-"
            lines = parse_tokens(sys.stdin.read() if stdin else Path(args.tokens_file).read_text(),
                                 "standard input" if stdin else args.tokens_file,
                                 pairs=token_types_of(config) >= 2)
        if isinstance(config.get("vocab_size"), int):
            check_ids(lines, config["vocab_size"], source_name)
    except (OSError, ValueError) as e:
        return dask_cluster.fail(e)
    except Exception as e:  # noqa: BLE001 - phasor.Error (a ValueError too), kept as it reads
        return dask_cluster.fail(e)
    # A text's ids are all real: no trailing id of a tokenized line is padding.
    rules_pad = None if args.text_file else pad_id
    seq = max(len(ids) for _, ids, _ in lines)
    import phasor  # the CLI's input rules, phasor's own
    try:
        # A line of pad ids only is refused here; trailing pad ids warn once, with the
        # model's positions, once it is loaded.
        phasor._input_rules([ids for _, ids, _ in lines], rules_pad, source_name,
                            [n for n, _, _ in lines])
    except phasor.Error as e:
        return dask_cluster.fail(e)
    out_dir = Path(args.out_dir).resolve()
    if dask_cluster.prepare_out_dir(out_dir, args.out_dir, "shard_*.npy"):
        return 1

    def work(client, _workers):
        # Text is cut (or refused) at the folder's limit already; ids at the positions.
        rules = client.submit(resolve_lines, [ids for _, ids, _ in lines], rules_pad, source_name,
                              [n for n, _, _ in lines], args.truncate, pure=False)
        rules = dask_cluster.gather(client, [rules], args.timeout)[0]
        if isinstance(rules, dict):
            raise ValueError(rules["error"])
        real, warning = rules
        if warning:
            print(f"phasor: warning: {warning}", file=sys.stderr)
        futures = []
        for first in range(0, len(lines), args.shard_lines):
            shard = [ids for _, ids, _ in lines[first:first + args.shard_lines]]
            types = [t for _, _, t in lines[first:first + args.shard_lines]]
            path = out_dir / f"shard_{first // args.shard_lines:05d}.npy"
            futures.append(client.submit(encode_shard, shard, real[first:first + args.shard_lines],
                                         seq, pad_id, args.stage, args.pool, args.normalize,
                                         str(path), types, pure=False))
        return dask_cluster.gather(client, futures, args.timeout)

    ran = dask_cluster.run_on_cluster(args, load_model, (str(model_dir), args.pe_mode), work)
    if isinstance(ran, int):
        return ran
    results, workers, threads, seconds = ran

    shards, first = [], 0
    for r in results:
        shards.append({"file": r["file"], "first_row": first, "first_line": lines[first][0],
                       "lines": r["lines"]})
        first += r["lines"]
    d_model = int(np.load(out_dir / shards[0]["file"], mmap_mode="r").shape[-1])
    source_path = source_name if source_name == "-" else str(Path(source_name).resolve())
    index = {("text_file" if args.text_file else "tokens_file"): source_path,
             "model": str(model_dir),
             "stage": args.stage, "pe_mode": args.pe_mode, "pool": args.pool,
             "normalize": args.normalize, "lines": len(lines), "seq_len": seq,
             "d_model": d_model, "dtype": "float32", "shards": shards}
    with dask_cluster.output_file(out_dir / "index.json") as temp:
        Path(temp).write_text(json.dumps(index, indent=1) + "\n")
    if args.merge:
        shape = (len(lines), d_model) if one_row else (len(lines), seq, d_model)
        with dask_cluster.output_file(args.merge) as temp:
            merged = np.lib.format.open_memmap(temp, mode="w+", dtype=np.float32, shape=shape)
            for s in shards:
                merged[s["first_row"]:s["first_row"] + s["lines"]] = np.load(out_dir / s["file"])
            merged.flush()
            del merged
    used = sorted({r["worker"] for r in results})
    print(f"dask_encode: {len(lines)} lines x {seq} tokens in {len(shards)} shards on "
          f"{len(used)} of {workers} workers ({threads} threads each), {seconds:.2f} s; "
          f"wrote {out_dir / 'index.json'}" + (f" and {args.merge}" if args.merge else ""))
    return 0


if __name__ == "__main__":
    sys.exit(dask_cluster.run_main(main))
