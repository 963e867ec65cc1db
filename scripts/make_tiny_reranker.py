#!/usr/bin/env python3
"""Create tests/fixtures/tiny-reranker/: a tiny, randomly initialised
XLM-RoBERTa cross-encoder (XLMRobertaForSequenceClassification, one logit) with
a word-level tokenizer, plus reference logits from a numpy forward pass that
follows the HF transformers code.

    pip install numpy safetensors tokenizers
    scripts/make_tiny_reranker.py [OUT_DIR]                 # default tests/fixtures/tiny-reranker
    scripts/make_tiny_reranker.py --verify-transformers DIR # also needs torch + transformers

Files written:
  config.json        HF config (model_type xlm-roberta, hidden 32, 2 layers, 4 heads,
                     intermediate 64, max_position_embeddings 64, type_vocab_size 1,
                     pad_token_id 1, layer_norm_eps 1e-5, gelu, num_labels 1)
  tokenizer.json     `tokenizers` WordLevel: Lowercase normalizer, Whitespace
                     pre-tokenizer (\\w+|[^\\w\\s]+), <s>=0 <pad>=1 </s>=2 <unk>=3,
                     RoBERTa-style template: single "<s> A </s>",
                     pair "<s> A </s> </s> B </s>", all type ids 0
  model.safetensors  f32 weights, HF names (roberta.embeddings.*, roberta.encoder.layer.{i}.*,
                     classifier.dense.*, classifier.out_proj.*), seeded N(0, 0.2)
                     (LayerNorm weights 1 + N(0, 0.2))
  reference.json     6 (query, passage) pairs: tokens, input_ids and the logit from
                     the numpy forward (float64 arithmetic over the f32 weights),
                     one pair at a time, no padding

The weights are random: the logits say nothing about relevance, they only pin
the arithmetic. Everything is deterministic (seed 20240611).
"""
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20240611
STD = 0.2

CONFIG = {
    "architectures": ["XLMRobertaForSequenceClassification"],
    "model_type": "xlm-roberta",
    "attention_probs_dropout_prob": 0.1,
    "bos_token_id": 0,
    "classifier_dropout": None,
    "eos_token_id": 2,
    "hidden_act": "gelu",
    "hidden_dropout_prob": 0.1,
    "hidden_size": 32,
    "id2label": {"0": "LABEL_0"},
    "initializer_range": 0.02,
    "intermediate_size": 64,
    "label2id": {"LABEL_0": 0},
    "layer_norm_eps": 1e-5,
    "max_position_embeddings": 64,
    "num_attention_heads": 4,
    "num_hidden_layers": 2,
    "pad_token_id": 1,
    "position_embedding_type": "absolute",
    "type_vocab_size": 1,
    "vocab_size": None,  # filled in from the tokenizer
}

SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]

# The vocabulary is every word of this corpus (lowercased, split like the
# tokenizer's Whitespace pre-tokenizer). "küchenzeile" (pair 6) is left out on
# purpose so that one pair exercises <unk>.
CORPUS = [
    "Is heating included in the rent?",
    "Utilities (Nebenkosten) are an additional 240 EUR per month, heating included.",
    "Darf ich meinen Hund mitbringen?",
    "Haustiere sind nach Absprache erlaubt, Hunde bis 20 kg.",
    "Muss ich als Mieter eine Provision zahlen?",
    "Tenants pay no commission for rentals.",
    "Wie hoch ist die Kaution?",
    "The viewing takes place on Saturday at 10 am.",
    "When can I view the flat?",
    "Die Kaution beträgt drei Monatskaltmieten.",
    "Is the apartment furnished?",
    "Die Wohnung ist möbliert und hat einen Balkon.",
    "Besichtigungen finden nach Vereinbarung statt, auch am Wochenende.",
    "The deposit is three months of base rent and is paid before the move-in.",
    "Pets are allowed on request; small animals do not need approval.",
    "Die Nebenkosten enthalten Wasser, Müll und Hausmeister, aber nicht Strom.",
    "Furnished flats come with a kitchen, a bed, a table and chairs.",
    "Graduated rent rises by a fixed amount every year (Staffelmiete).",
    "Eine Eigentumswohnung kann auch vermietet werden; der Vermieter entscheidet.",
    "Who pays the agent's fee when I rent a flat in Hamburg, Berlin, München or Köln?",
]

PAIRS = [
    ("Is heating included in the rent?", "Utilities (Nebenkosten) are an additional 240 EUR per month, heating included."),
    ("Darf ich meinen Hund mitbringen?", "Haustiere sind nach Absprache erlaubt, Hunde bis 20 kg."),
    ("Muss ich als Mieter eine Provision zahlen?", "Tenants pay no commission for rentals."),
    ("Wie hoch ist die Kaution?", "The viewing takes place on Saturday at 10 am."),
    ("When can I view the flat?", "Die Kaution beträgt drei Monatskaltmieten."),
    ("Is the apartment furnished, with a Küchenzeile?", "Die Wohnung ist möbliert und hat einen Balkon."),
]


def build_tokenizer():
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordLevel

    pre = pre_tokenizers.Whitespace()
    words = []
    for s in CORPUS:
        for w, _ in pre.pre_tokenize_str(s.lower()):
            if w not in words:
                words.append(w)
    vocab = {t: i for i, t in enumerate(SPECIALS)}
    for w in sorted(words):
        vocab.setdefault(w, len(vocab))
    tok = Tokenizer(WordLevel(vocab, unk_token="<unk>"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>",
        pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", 0), ("</s>", 2)],
    )
    tok.add_special_tokens(SPECIALS)
    assert [tok.token_to_id(t) for t in SPECIALS] == [0, 1, 2, 3]
    return tok, len(vocab)


def make_weights(cfg, rng):
    H, FF, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    P, T = cfg["max_position_embeddings"], cfg["type_vocab_size"]

    def n(*shape):
        return (rng.standard_normal(shape) * STD).astype(np.float32)

    def ln(prefix):
        return {prefix + ".weight": (1.0 + rng.standard_normal(H) * STD).astype(np.float32),
                prefix + ".bias": n(H)}

    w = {
        "roberta.embeddings.word_embeddings.weight": n(V, H),
        "roberta.embeddings.position_embeddings.weight": n(P, H),
        "roberta.embeddings.token_type_embeddings.weight": n(T, H),
    }
    w.update(ln("roberta.embeddings.LayerNorm"))
    for l in range(cfg["num_hidden_layers"]):
        p = f"roberta.encoder.layer.{l}."
        for name in ("query", "key", "value"):
            w[p + f"attention.self.{name}.weight"] = n(H, H)
            w[p + f"attention.self.{name}.bias"] = n(H)
        w[p + "attention.output.dense.weight"] = n(H, H)
        w[p + "attention.output.dense.bias"] = n(H)
        w.update(ln(p + "attention.output.LayerNorm"))
        w[p + "intermediate.dense.weight"] = n(FF, H)
        w[p + "intermediate.dense.bias"] = n(FF)
        w[p + "output.dense.weight"] = n(H, FF)
        w[p + "output.dense.bias"] = n(H)
        w.update(ln(p + "output.LayerNorm"))
    w["classifier.dense.weight"] = n(H, H)
    w["classifier.dense.bias"] = n(H)
    w["classifier.out_proj.weight"] = n(1, H)
    w["classifier.out_proj.bias"] = n(1)
    return w


# ---------------------------------------------------------------------------
# numpy XLMRobertaForSequenceClassification (eval mode: no dropout), written
# after transformers' modeling_xlm_roberta.py / modeling_roberta.py.

_erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu(x):  # ACT2FN["gelu"]: exact erf GELU
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)  # biased variance, as torch
    return (x - mu) / np.sqrt(var + eps) * w + b


def forward(cfg, weights, input_ids, attention_mask=None):
    """input_ids: [B, L] (right-padded with pad_token_id). Returns logits [B, num_labels]."""
    w = {k: v.astype(np.float64) for k, v in weights.items()}
    ids = np.asarray(input_ids, dtype=np.int64)
    B, L = ids.shape
    pad = cfg["pad_token_id"]
    eps = cfg["layer_norm_eps"]
    H, NH = cfg["hidden_size"], cfg["num_attention_heads"]
    hd = H // NH
    if attention_mask is None:
        attention_mask = np.ones((B, L))
    attention_mask = np.asarray(attention_mask, dtype=np.float64)

    # create_position_ids_from_input_ids: positions count non-pad tokens from padding_idx + 1
    m = (ids != pad).astype(np.int64)
    pos = np.cumsum(m, axis=1) * m + pad
    tt = np.zeros_like(ids)  # token_type_ids default to zeros
    x = (w["roberta.embeddings.word_embeddings.weight"][ids]
         + w["roberta.embeddings.token_type_embeddings.weight"][tt]
         + w["roberta.embeddings.position_embeddings.weight"][pos])
    x = layer_norm(x, w["roberta.embeddings.LayerNorm.weight"], w["roberta.embeddings.LayerNorm.bias"], eps)

    bias = (1.0 - attention_mask)[:, None, None, :] * np.finfo(np.float32).min

    def lin(t, name):
        return t @ w[name + ".weight"].T + w[name + ".bias"]

    for l in range(cfg["num_hidden_layers"]):
        p = f"roberta.encoder.layer.{l}."

        def heads(t):
            return t.reshape(B, L, NH, hd).transpose(0, 2, 1, 3)

        q = heads(lin(x, p + "attention.self.query"))
        k = heads(lin(x, p + "attention.self.key"))
        v = heads(lin(x, p + "attention.self.value"))
        s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(hd) + bias
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(0, 2, 1, 3).reshape(B, L, H)
        x = layer_norm(lin(ctx, p + "attention.output.dense") + x,
                       w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], eps)
        inter = gelu(lin(x, p + "intermediate.dense"))
        x = layer_norm(lin(inter, p + "output.dense") + x,
                       w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)

    # RobertaClassificationHead: <s> token -> dense -> tanh -> out_proj
    cls = x[:, 0, :]
    hcls = np.tanh(lin(cls, "classifier.dense"))
    return lin(hcls, "classifier.out_proj")


# ---------------------------------------------------------------------------

def write_json(path, obj):
    """Indented JSON, but lists of scalars (ids, tokens) kept on one line."""
    def enc(o, ind):
        pad = "  " * (ind + 1)
        if isinstance(o, dict):
            items = [f"{pad}{json.dumps(k)}: {enc(v, ind + 1)}" for k, v in o.items()]
            return "{\n" + ",\n".join(items) + "\n" + "  " * ind + "}"
        if isinstance(o, list) and any(isinstance(v, (dict, list)) for v in o):
            return "[\n" + ",\n".join(pad + enc(v, ind + 1) for v in o) + "\n" + "  " * ind + "]"
        return json.dumps(o, ensure_ascii=False)

    with open(path, "w", encoding="utf-8") as f:
        f.write(enc(obj, 0) + "\n")
    json.load(open(path, encoding="utf-8"))


def make(out_dir):
    from safetensors.numpy import save_file

    os.makedirs(out_dir, exist_ok=True)
    tok, vocab_size = build_tokenizer()
    cfg = dict(CONFIG, vocab_size=vocab_size)
    weights = make_weights(cfg, np.random.default_rng(SEED))

    tok.save(os.path.join(out_dir, "tokenizer.json"))
    write_json(os.path.join(out_dir, "config.json"), cfg)
    save_file(weights, os.path.join(out_dir, "model.safetensors"), metadata={"format": "pt"})
    os.chmod(os.path.join(out_dir, "model.safetensors"), 0o644)

    pairs = []
    encs = []
    for q, p in PAIRS:
        enc = tok.encode(q, p)
        assert len(enc.ids) <= cfg["max_position_embeddings"] - cfg["pad_token_id"] - 1
        logit = float(forward(cfg, weights, [enc.ids])[0, 0])
        encs.append(enc.ids)
        pairs.append({"query": q, "passage": p, "tokens": enc.tokens, "input_ids": enc.ids, "logit": logit})
        print(f"logit={logit:+.6f}  len={len(enc.ids)}  {q} | {p}", file=sys.stderr)
    assert any(3 in e for e in encs), "no pair exercises <unk>"

    # self-check: a right-padded batch gives the same logits (masking, RoBERTa positions)
    L = max(map(len, encs))
    batch = [e + [cfg["pad_token_id"]] * (L - len(e)) for e in encs]
    mask = [[1] * len(e) + [0] * (L - len(e)) for e in encs]
    batched = forward(cfg, weights, batch, mask)[:, 0]
    diff = float(np.abs(batched - [p["logit"] for p in pairs]).max())
    assert diff < 1e-9, f"padded batch differs by {diff}"

    write_json(os.path.join(out_dir, "reference.json"), {
        "model": "random tiny XLMRobertaForSequenceClassification (scripts/make_tiny_reranker.py, "
                 f"seed {SEED}); logits are meaningless beyond parity",
        "computed_with": "numpy float64 forward over the f32 weights, one pair at a time, no padding; "
                         "tokenizer.json via the `tokenizers` package, tok.encode(query, passage)",
        "pairs": pairs,
    })
    total = sum(os.path.getsize(os.path.join(out_dir, f)) for f in os.listdir(out_dir))
    print(f"make_tiny_reranker: wrote {out_dir} (vocab {vocab_size}, {total / 1024:.0f} KiB)", file=sys.stderr)


def verify_with_transformers(out_dir):
    """Compare reference.json against transformers' XLMRobertaForSequenceClassification."""
    import torch
    from transformers import PreTrainedTokenizerFast, XLMRobertaForSequenceClassification

    ref = json.load(open(os.path.join(out_dir, "reference.json"), encoding="utf-8"))
    model = XLMRobertaForSequenceClassification.from_pretrained(out_dir).eval()
    hf_tok = PreTrainedTokenizerFast(tokenizer_file=os.path.join(out_dir, "tokenizer.json"),
                                     bos_token="<s>", eos_token="</s>", unk_token="<unk>",
                                     pad_token="<pad>", sep_token="</s>", cls_token="<s>")
    worst = 0.0
    ok = True
    for p in ref["pairs"]:
        enc = hf_tok(p["query"], p["passage"])
        ok &= enc["input_ids"] == p["input_ids"]
        with torch.no_grad():
            got32 = model(torch.tensor([p["input_ids"]])).logits[0, 0].item()
            got64 = model.double()(torch.tensor([p["input_ids"]])).logits[0, 0].item()
            model.float()
        worst = max(worst, abs(got64 - p["logit"]))
        print(f"numpy={p['logit']:+.9f}  torch f64={got64:+.9f}  torch f32={got32:+.9f}  "
              f"ids_equal={enc['input_ids'] == p['input_ids']}")
    # padded batch through transformers
    batch = hf_tok([p["query"] for p in ref["pairs"]], [p["passage"] for p in ref["pairs"]],
                   padding=True, return_tensors="pt")
    with torch.no_grad():
        bl = model(**batch).logits[:, 0].numpy()
    bdiff = float(np.abs(bl - [p["logit"] for p in ref["pairs"]]).max())
    print(f"max |numpy - torch f64| = {worst:.3e}; padded f32 batch max diff = {bdiff:.3e}; "
          f"tokenization {'equal' if ok else 'DIFFERS'}")
    return 0 if ok and worst < 1e-9 and bdiff < 1e-4 else 1


def main(argv):
    if len(argv) == 3 and argv[1] == "--verify-transformers":
        return verify_with_transformers(argv[2])
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    out = argv[1] if len(argv) == 2 else os.path.normpath(os.path.join(HERE, "..", "tests", "fixtures", "tiny-reranker"))
    make(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
