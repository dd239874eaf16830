#!/usr/bin/env python3
"""Would static embeddings help the ranker? A one-off measurement, kept to be re-run.

WordLlama (PyPI `wordllama`, MIT) ships its token-embedding table (Llama 2 tokenizer, 32,000 x
256, 16 MB) inside the wheel: the only sentence-embedding weights the package registries carry.
This script ranks the benchmark's requests by cosine similarity of mean-pooled token embeddings,
alone and fused with a plain BM25 (rank-bm25, Snowball stemming), over stores built like the
`selection` example's (the labelled skills, then real corpus skills shuffled with a fixed seed;
the shuffle differs from the Rust example's, so the stores are alike but not the same).

    python3 -m venv /tmp/emb && /tmp/emb/bin/pip install wordllama rank-bm25 nltk pyyaml
    /tmp/emb/bin/python bench/selection/experiments/static_embeddings.py /tmp/skill-corpus

Measured 2026-12-01 at 1,000 skills, top-5 on tune / holdout: embeddings alone 60.7% / 60.1%,
this BM25 alone 56.3% / 63.8%, the best fusion (half each) 62.7% / 68.1%; Skilldeck's own ranker
gets 59.9% / 67.4% on its stores. Fusion adds a few points over plain BM25 and about one over the
tuned ranker, far from the 95% target, so no model is shipped for it.
"""
import csv
import os
import random
import re
import sys
from pathlib import Path

import numpy as np
import wordllama
import yaml
from nltk.stem.snowball import SnowballStemmer
from rank_bm25 import BM25Okapi
from safetensors.numpy import load_file
from tokenizers import Tokenizer

HERE = Path(__file__).resolve().parent.parent
PKG = Path(wordllama.__file__).parent
TOKENIZER = Tokenizer.from_file(str(PKG / "tokenizers" / "l2_supercat_tokenizer_config.json"))
TABLE = next(iter(load_file(str(PKG / "weights" / "l2_supercat_256.safetensors")).values())).astype(np.float32)
STEM = SnowballStemmer("english")
STOP = set("a an the to of for and or in on with my me i it this that is be do can you please how what from by at as".split())


def embed(texts):
    out = []
    for t in texts:
        ids = [min(i, TABLE.shape[0] - 1) for i in TOKENIZER.encode(t).ids]
        v = TABLE[ids].mean(0) if ids else np.zeros(TABLE.shape[1], np.float32)
        out.append(v / (np.linalg.norm(v) + 1e-9))
    return np.array(out)


def words(text):
    out = [STEM.stem(w) for w in re.findall(r"[a-z0-9]+|[\u4e00-\u9fff]", text.lower().replace("-", " ")) if w not in STOP]
    for run in re.findall(r"[\u4e00-\u9fff]+", text):
        out += [run[i : i + 2] for i in range(len(run) - 1)]
    return out


def corpus_skills(root, taken):
    found = {}
    for folder, _, files in sorted(os.walk(root)):
        if "SKILL.md" not in files:
            continue
        text = open(os.path.join(folder, "SKILL.md"), errors="replace").read()
        if not text.startswith("---"):
            continue
        try:
            fm = yaml.safe_load(text.split("---")[1])
        except yaml.YAMLError:
            continue
        if not isinstance(fm, dict) or "name" not in fm or "description" not in fm:
            continue
        name = str(fm["name"])
        if name not in taken and name not in found:
            found[name] = (name, str(fm["description"]), "")
    real = list(found.values())
    random.Random(12).shuffle(real)
    return real


def main():
    labelled = [tuple(r[:3]) for r in list(csv.reader(open(HERE / "skills.tsv"), delimiter="\t"))[1:]]
    requests = list(csv.reader(open(HERE / "requests.tsv"), delimiter="\t"))[1:]
    real = corpus_skills(sys.argv[1], {s[0] for s in labelled})
    for size in (200, 1000):
        store = labelled + real[: size - len(labelled)]
        where = {s[0]: i for i, s in enumerate(store)}
        cos = embed([r[0] for r in requests]) @ embed([f"{n.replace('-', ' ')}: {d} {z}" for n, d, z in store]).T
        bm25 = BM25Okapi([words(f"{n} {n} {d} {z}") for n, d, z in store])
        lexical = np.array([bm25.get_scores(words(r[0])) for r in requests])
        for mode in ("embeddings", "bm25", "fused 0.5", "fused 0.7"):
            for split in ("tune", "holdout"):
                top1 = top5 = n = 0
                for i, (text, want, s) in enumerate(requests):
                    if s != split:
                        continue
                    n += 1
                    e, b = cos[i], lexical[i]
                    if mode == "embeddings":
                        score = e
                    elif mode == "bm25":
                        score = b
                    else:
                        w = float(mode.split()[1])
                        score = w * b / (b.max() + 1e-9) + (1 - w) * (e - e.mean()) / (e.max() - e.mean() + 1e-9)
                    rank = (score > score[where[want]]).sum()
                    top1 += rank < 1
                    top5 += rank < 5
                print(f"{size:>5} {mode:<11} {split:<8} {n:>4}  top-1 {top1 / n:6.1%}  top-5 {top5 / n:6.1%}")


if __name__ == "__main__":
    main()
