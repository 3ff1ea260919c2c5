/*
** fuzz_wcache.c -- libFuzzer harness: the weight-cache reader
** (core/model/wcache.c), through real loads of a small model.
**
**   make fuzz && build-fuzz/fuzz_wcache tests/fuzz/corpus/wcache
**
** Setup (once per process): a demo-shape checkpoint written with the
** project's writer (mgen_save), its logits uncached, and the cache a first
** load writes (the reference cache).  Each input then replaces the cache
** file and the model is loaded again (cpu fp32i8, cache on) and run.
**   input[0] & 1 == 0: the rest is the cache file as is.  Checksums guard
**       everything, so the load must give exactly the uncached logits.
**   input[0] & 1 == 1: the key fields (checkpoint identity, plan, kernels)
**       are copied from the reference cache and the header and index
**       checksums recomputed: hostile layouts behind valid checksums reach
**       the entry validation.  The load must not fail or read outside the
**       file; its logits are not checked (the data region is only guarded
**       by its own checksums, which an index can legally point around).
** Seeds: the reference cache of the current build (tests/fuzz/gen_seeds.c).
*/
#include <stdint.h>

#include "../../core/model/model_gen.h"
#include "../../core/rwkv.h"
#include "../../core/model/wcache.h"
#include "fuzz_tmp.h"

#include "fuzz_entry.h"

/* struct wc_header field offsets (core/model/wcache.c; tests/unit/test_wcache.c). */
#define FW_KEY_A 48          /* ck_size .. kernels end */
#define FW_KEY_A_END 136
#define FW_INDEX_OFF 136
#define FW_INDEX_BYTES 144
#define FW_INDEX_SUM 168
#define FW_KEY_B 176         /* ck_ino .. crc_digest */
#define FW_HEADER_SUM 208
#define FW_HEADER 216
#define FW_MAX (8u << 20)    /* bigger inputs: not worth a load */

static const int32_t fw_toks[3] = { 'h', 'i', '\n' };

struct fw {
    char           model[512], dir[512], cache[4096];
    unsigned char *ref;       /* the reference cache */
    size_t         ref_n;
    float         *logits, *got;
    size_t         n_vocab;
};

/* Load FW->model (cache MODE) and run fw_toks; 1 if it all worked. */
static int
fw_run(struct fw *f, int mode, float *out, char *cache_path, size_t cap)
{
    rwkv_open_opts oo;
    rwkv_model *m;
    rwkv_state *s = NULL;
    rwkv_err err;
    int ok;

    memset(&oo, 0, sizeof oo);
    oo.strategy = "cpu fp32i8";
    oo.n_threads = 1;
    oo.weight_cache = mode;
    oo.weight_cache_dir = f->dir;
    if (rwkv_model_open(f->model, &oo, &m, &err) != RWKV_OK)
        return 0;
    if (cache_path != NULL)
        snprintf(cache_path, cap, "%s", rwkv_model_info(m)->weight_cache_path);
    ok = rwkv_state_create(m, &s, &err) == RWKV_OK &&
         rwkv_eval(m, fw_toks, 3, s, out, &err) == RWKV_OK;
    rwkv_state_destroy(s);
    rwkv_model_close(m);
    return ok;
}

static struct fw *
fw_setup(void)
{
    static struct fw f;
    mgen_opts mo;
    rwkv_err err;
    FILE *fp;
    long n;

    if (f.ref != NULL)
        return &f;
    fuzz_path(f.model, sizeof f.model, "m.pth");
    fuzz_path(f.dir, sizeof f.dir, "wc");
    memset(&mo, 0, sizeof mo);
    mo.dtype = CK_BF16;
    mo.seed = 1;
    mo.n_threads = 1;
    if (mgen_save("demo", f.model, &mo, NULL, &err) != RWKV_OK)
        abort();
    f.n_vocab = 256;
    f.logits = malloc(f.n_vocab * sizeof(float));
    f.got = malloc(f.n_vocab * sizeof(float));
    if (f.logits == NULL || f.got == NULL || !fw_run(&f, WC_OFF, f.logits, NULL, 0) ||
        !fw_run(&f, WC_ON, f.got, f.cache, sizeof f.cache) || f.cache[0] == '\0')
        abort();
    if ((fp = fopen(f.cache, "rb")) == NULL || fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < FW_HEADER ||
        fseek(fp, 0, SEEK_SET) != 0 || (f.ref = malloc((size_t)n)) == NULL ||
        fread(f.ref, 1, (size_t)n, fp) != (size_t)n)
        abort();
    fclose(fp);
    f.ref_n = (size_t)n;
    return &f;
}

static uint64_t
fw_rd64(const unsigned char *b, size_t off)
{
    uint64_t v;
    memcpy(&v, b + off, 8);
    return v;
}

static void
fw_wr64(unsigned char *b, size_t off, uint64_t v)
{
    memcpy(b + off, &v, 8);
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    struct fw *f = fw_setup();
    unsigned char *b;
    size_t n;
    int reseal, ok;

    if (size < 1 || size - 1 > FW_MAX)
        return 0;
    reseal = data[0] & 1;
    n = size - 1;
    if ((b = malloc(n ? n : 1)) == NULL)
        return 0;
    memcpy(b, data + 1, n);
    if (reseal && n >= FW_HEADER) {
        uint64_t io, ib;
        memcpy(b + FW_KEY_A, f->ref + FW_KEY_A, FW_KEY_A_END - FW_KEY_A);
        memcpy(b + FW_KEY_B, f->ref + FW_KEY_B, FW_HEADER_SUM - FW_KEY_B);
        io = fw_rd64(b, FW_INDEX_OFF);
        ib = fw_rd64(b, FW_INDEX_BYTES);
        if (io <= n && ib <= n - io)
            fw_wr64(b, FW_INDEX_SUM, wc_checksum(b + io, (size_t)ib));
        fw_wr64(b, FW_HEADER_SUM, wc_checksum(b, FW_HEADER_SUM));
    }
    ok = fuzz_put(f->cache, b, n);
    free(b);
    if (!ok)
        return 0;
    FUZZ_CHECK(fw_run(f, WC_ON, f->got, NULL, 0));
    if (!reseal)
        FUZZ_CHECK(memcmp(f->got, f->logits, f->n_vocab * sizeof(float)) == 0);
    return 0;
}
