#!/usr/bin/env python3
"""Export a phasor model directory to ONNX, for timing ONNX Runtime on the same weights.

The graph takes ``input_ids`` int64 [batch, seq] and returns ``hidden`` float32
[batch, seq, d_model]: the embedding, the positional table (sinusoidal or
learned, as a constant of ``--max-seq`` rows sliced to seq), the layers of
PyTorch's ``nn.TransformerEncoderLayer`` in eval mode, and the final norm if the
config has one. Batch and seq are dynamic. With ``--padding-mask`` the graph
takes a second input, ``padding_mask`` bool [batch, seq] (True: padding), passed
to the encoder as its ``src_key_padding_mask``: ragged batches the way a user of
ONNX Runtime runs them.

Needs torch and numpy (Debian ``python3-torch``)::

    /usr/bin/python3 tools/export_onnx.py --model /tmp/m --out /tmp/m/model.onnx

With ``--check-tokens "3 14 15"`` it also runs PyTorch on that sequence and
writes the result to ``--check-output`` (NPY), to compare with ``phasor encode
--output``. bench/ort_compare.sh uses both.

``--precision int8`` (needs python3-onnx as well) writes the same graph with
every nn.Linear of the layers (attention in_proj and out_proj, linear1,
linear2) in ONNX Runtime's dynamic-quantization form, the per-channel form of
``onnxruntime.quantization.quantize_dynamic(per_channel=True)``::

    x_u8, x_scale, x_zp = DynamicQuantizeLinear(x)
    acc = MatMulInteger(x_u8, Wq [in, out] int8, x_zp, zeros int8 [out])
    y   = Cast(acc, float) * (x_scale * sw) + b

with the weights phasor's ``--precision int8`` uses (engine/kernels/gemm_int8.h):
one scale per output channel, sw[c] = max_k |W[c, k]| / 127 (0 for an all-zero
channel), Wq = round_half_even(W / sw) in [-127, 127], both in float32. The
activations differ: DynamicQuantizeLinear takes one asymmetric uint8 scale and
zero point for the whole tensor, where phasor takes a symmetric scale per token.
The attention products, softmax, LayerNorm and residuals stay float32.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_torch import read_safetensors, sinusoidal_table  # noqa: E402


class PhasorEncoder(nn.Module):
    """phasor's encoder as one torch module: ids [batch, seq] -> [batch, seq, d_model]."""

    def __init__(self, config: dict, tensors: dict, max_seq: int):
        super().__init__()
        d_model = config["d_model"]
        self.scale = math.sqrt(d_model) if config.get("scale_embedding", False) else 1.0
        self.embedding = nn.Embedding(config["vocab_size"], d_model)
        pos = config.get("positional", {})
        kind = pos.get("kind", "sinusoidal")
        offset = pos.get("offset", 0)
        positions = torch.arange(max_seq) + offset
        if kind == "sinusoidal":
            pe = sinusoidal_table(positions, d_model, pos.get("base", 10000.0),
                                  pos.get("layout", "interleaved"),
                                  pos.get("denominator", "d_model")).to(torch.float32)
        elif kind == "learned":
            pe = torch.from_numpy(tensors["positional.weight"])[offset:offset + max_seq]
        elif kind == "none":
            pe = torch.zeros(max_seq, d_model)
        else:
            raise SystemExit(f"export_onnx: positional kind '{kind}' has no ONNX export here")
        self.register_buffer("pe", pe.contiguous())
        layer = nn.TransformerEncoderLayer(
            d_model, config["n_heads"], config["d_ff"], dropout=0.0,
            activation=config.get("activation", "relu"),
            layer_norm_eps=config.get("layer_norm_eps", 1e-5), batch_first=True,
            norm_first=config.get("norm_first", False))
        norm = nn.LayerNorm(d_model, eps=config.get("layer_norm_eps", 1e-5)) \
            if config.get("final_norm", False) else None
        self.encoder = nn.TransformerEncoder(layer, config["n_layers"], norm=norm,
                                             enable_nested_tensor=False)
        state = {"embedding.weight": tensors["embedding.weight"]}
        for name, value in tensors.items():
            if name.startswith("layers.") or name.startswith("norm."):
                state["encoder." + name] = value
        missing, unexpected = self.load_state_dict(
            {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in state.items()},
            strict=False)
        missing = [m for m in missing if m != "pe"]
        if missing or unexpected:
            raise SystemExit(f"export_onnx: missing {missing}, unexpected {unexpected}")
        self.eval()

    def forward(self, ids: torch.Tensor, padding_mask: torch.Tensor = None) -> torch.Tensor:
        x = self.embedding(ids) * self.scale + self.pe[:ids.shape[1]].unsqueeze(0)
        return self.encoder(x, src_key_padding_mask=padding_mask)


# ---------------------------------------------------------------------------
# int8: the Linear layers in ONNX Runtime's dynamic-quantization form

LINEAR_WEIGHTS = ("self_attn.in_proj_weight", "self_attn.out_proj.weight",
                  "linear1.weight", "linear2.weight")


def quantize_weight(w: np.ndarray):
    """Wq int8 [out, in] and sw float32 [out] for an nn.Linear weight w [out, in].

    Symmetric, one scale per output channel, in float32 as phasor computes it:
    sw = max|w[c]| / 127, Wq = round_half_even(w / sw) clamped to [-127, 127]; a
    channel whose scale is 0 (all zero, or too small for max / 127) has Wq = 0.
    """
    w = np.asarray(w, dtype=np.float32)
    sw = (np.abs(w).max(axis=1) / np.float32(127)).astype(np.float32)
    safe = np.where(sw > 0, sw, np.float32(1))[:, None]
    wq = np.clip(np.rint(w / safe), -127, 127)  # np.rint rounds half to even
    wq[sw == 0] = 0
    return wq.astype(np.int8), sw


def quantize_linears(model, tensors: dict, n_layers: int) -> int:
    """Rewrites each Linear of the exported graph into the int8 form, in place.

    A Linear is a MatMul by a constant [in, out] followed by an Add of a
    constant bias, or a Gemm by a constant with a bias (transB=1: [out, in]).
    Each constant is matched by value to a weight of the model file, so that
    no other product (q·kᵀ, weights·v) is touched and each Wq, sw is computed
    from the file's own W. Returns the number of layers rewritten
    (4 · n_layers, or an error).
    """
    import hashlib

    import onnx
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    alias = {n.output[0]: n.input[0] for n in graph.node if n.op_type == "Identity"}

    def constant(name):
        while name in alias:
            name = alias[name]
        return numpy_helper.to_array(inits[name]) if name in inits else None

    def digest(a):
        a = np.ascontiguousarray(a, dtype=np.float32)
        return hashlib.sha256(str(a.shape).encode() + a.tobytes()).hexdigest()

    weights = {}  # digest of W [out, in] -> the names of the tensors holding it
    for i in range(n_layers):
        for suffix in LINEAR_WEIGHTS:
            name = f"layers.{i}.{suffix}"
            weights.setdefault(digest(tensors[name]), []).append(name)

    consumers = {}
    for n in graph.node:
        for x in n.input:
            consumers.setdefault(x, []).append(n)

    def bias_name(weight_name):
        return weight_name.replace("_weight", "_bias").replace(".weight", ".bias")

    replaced, removed, new_nodes = 0, set(), {}
    quantized = {}  # weight name -> (Wq, sw, zero point) initializer names
    for node in graph.node:
        if node.op_type not in ("MatMul", "Gemm") or len(node.input) < 2:
            continue
        b_const = constant(node.input[1])
        if b_const is None:
            continue  # an activation product: stays float32
        if node.op_type == "Gemm":
            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            if attrs.get("transA", 0) or attrs.get("alpha", 1.0) != 1.0 \
                    or attrs.get("beta", 1.0) != 1.0 or len(node.input) < 3:
                raise SystemExit(f"export_onnx: Gemm {node.name} is not a plain Linear")
            w = b_const if attrs.get("transB", 0) else b_const.T
            x, bias_input, out, gone = node.input[0], node.input[2], node.output[0], [node]
        else:
            w = b_const.T
            users = consumers.get(node.output[0], [])
            if len(users) != 1 or users[0].op_type != "Add":
                raise SystemExit(f"export_onnx: MatMul {node.name} by a constant is not "
                                 "followed by its bias Add")
            add = users[0]
            bias_input = next(v for v in add.input if v != node.output[0])
            x, out, gone = node.input[0], add.output[0], [node, add]
        names = weights.get(digest(w))
        if names is None:
            raise SystemExit(f"export_onnx: {node.op_type} {node.name} multiplies by a "
                             "constant that is no Linear weight of the model")
        # Layers may hold equal weights (copies of one layer); the bias tells them apart.
        bias = constant(bias_input)
        name = next((n for n in names if bias is not None
                     and np.array_equal(bias.reshape(-1), tensors[bias_name(n)])), None)
        if name is None:
            raise SystemExit(f"export_onnx: the bias of {node.name} is none of "
                             f"{[bias_name(n) for n in names]}")

        if name not in quantized:
            wq, sw = quantize_weight(tensors[name])
            names = (name + ".wq", name + ".sw", name + ".w_zero_point")
            graph.initializer.extend([
                numpy_helper.from_array(np.ascontiguousarray(wq.T), names[0]),  # [in, out]
                numpy_helper.from_array(sw, names[1]),
                numpy_helper.from_array(np.zeros(sw.shape, np.int8), names[2])])
            quantized[name] = names
        wq_name, sw_name, wzp_name = quantized[name]
        p = f"{node.name or out}/int8"
        new_nodes[id(node)] = [
            helper.make_node("DynamicQuantizeLinear", [x],
                             [p + "/x_u8", p + "/x_scale", p + "/x_zero_point"],
                             name=p + "/DynamicQuantizeLinear"),
            helper.make_node("MatMulInteger",
                             [p + "/x_u8", wq_name, p + "/x_zero_point", wzp_name],
                             [p + "/acc"], name=p + "/MatMulInteger"),
            helper.make_node("Cast", [p + "/acc"], [p + "/acc_f32"], to=TensorProto.FLOAT,
                             name=p + "/Cast"),
            helper.make_node("Mul", [p + "/x_scale", sw_name], [p + "/scale"],
                             name=p + "/ScaleMul"),
            helper.make_node("Mul", [p + "/acc_f32", p + "/scale"], [p + "/product"],
                             name=p + "/Mul"),
            helper.make_node("Add", [p + "/product", bias_input], [out], name=p + "/Add"),
        ]
        removed.update(id(n) for n in gone)
        replaced += 1

    if replaced != len(LINEAR_WEIGHTS) * n_layers:
        raise SystemExit(f"export_onnx: found {replaced} Linear layers in the graph, "
                         f"expected {len(LINEAR_WEIGHTS) * n_layers}")
    # The new nodes take the place of the MatMul or Gemm: their inputs (x and
    # constants) exist there, so the graph stays in topological order.
    nodes = []
    for n in graph.node:
        nodes.extend(new_nodes.get(id(n), []))
        if id(n) not in removed:
            nodes.append(n)
    del graph.node[:]
    graph.node.extend(nodes)
    _drop_unused(graph)
    onnx.checker.check_model(model)
    return replaced


def _drop_unused(graph) -> None:
    """Removes Identity nodes and initializers that nothing reads any more."""
    while True:
        used = {x for n in graph.node for x in n.input} | {o.name for o in graph.output}
        dead = [n for n in graph.node if n.op_type == "Identity" and n.output[0] not in used]
        if not dead:
            break
        for n in dead:
            graph.node.remove(n)
    used = {x for n in graph.node for x in n.input}
    keep = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(keep)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="phasor model directory")
    ap.add_argument("--out", required=True, help="ONNX file to write")
    ap.add_argument("--max-seq", type=int, default=0,
                    help="rows of the positional table in the graph (default: max_len)")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--precision", choices=("fp32", "int8"), default="fp32",
                    help="int8: the Linear layers in ONNX Runtime's dynamic-quantization "
                         "form (needs python3-onnx)")
    ap.add_argument("--padding-mask", action="store_true",
                    help="a second input padding_mask bool [batch, seq], True at padding")
    ap.add_argument("--check-tokens", metavar="IDS", help="ids of one sequence to run in torch")
    ap.add_argument("--check-output", metavar="FILE.npy", help="where to write torch's output")
    args = ap.parse_args(argv)

    with open(os.path.join(args.model, "config.json")) as f:
        config = json.load(f)
    tensors = read_safetensors(os.path.join(args.model, "model.safetensors"))
    max_seq = args.max_seq or config.get("positional", {}).get("max_len", 4096)
    model = PhasorEncoder(config, tensors, max_seq)

    ids = torch.randint(1, config["vocab_size"], (2, 7), dtype=torch.long)
    # Grad mode with requires-grad parameters keeps PyTorch off its fused fast
    # path (aten::_transformer_encoder_layer_fwd), which has no ONNX export.
    inputs, names = (ids,), ["input_ids"]
    axes = {"input_ids": {0: "batch", 1: "seq"}, "hidden": {0: "batch", 1: "seq"}}
    if args.padding_mask:
        mask = torch.zeros(2, 7, dtype=torch.bool)
        mask[1, 5:] = True
        inputs, names = (ids, mask), ["input_ids", "padding_mask"]
        axes["padding_mask"] = {0: "batch", 1: "seq"}
    with torch.enable_grad():
        torch.onnx.export(model, inputs, args.out, input_names=names,
                          output_names=["hidden"], opset_version=args.opset,
                          dynamic_axes=axes, do_constant_folding=True)
    if args.precision == "int8":
        try:
            import onnx
        except ImportError:
            raise SystemExit("export_onnx: --precision int8 needs the onnx package "
                             "(Debian: apt install python3-onnx)")
        graph = onnx.load(args.out)
        count = quantize_linears(graph, tensors, config["n_layers"])
        onnx.save(graph, args.out)
        print(f"export_onnx: {count} Linear layers in int8", file=sys.stderr)
    print(f"export_onnx: wrote {args.out}", file=sys.stderr)

    if args.check_tokens:
        seq_ids = [int(t) for t in args.check_tokens.replace(",", " ").split()]
        with torch.enable_grad():  # the exact (non-fast-path) kernels, as exported
            y = model(torch.tensor([seq_ids], dtype=torch.long)).detach().numpy()
        np.save(args.check_output or args.out + ".check.npy", y)
    return 0


if __name__ == "__main__":
    sys.exit(main())
