/*
** gen_seeds.c -- writes the generated seeds of the issue-14 harnesses into
** tests/fuzz/corpus/{state,wcache,import}/ (run from the repo root after a
** build; the output is checked in, so this only needs re-running when the
** formats change -- the weight-cache seeds after a WC_FORMAT_VERSION bump):
**
**   make && cc -std=c11 -D_DEFAULT_SOURCE -o /tmp/gen_seeds tests/fuzz/gen_seeds.c \
**       build/libstorage.a build/libgpu.a build/libcore.a -lsqlite3 -lpthread -lm && /tmp/gen_seeds
**
**   state/   state-tuning files for the demo model (fuzz_state.c): fp32,
**            bf16, one layer missing, a wrong shape, and a NaN-filled one
**   wcache/  the cache a cpu fp32i8 load of the harness's model writes,
**            raw (mode byte 0) and to be resealed (mode byte 1)
**   import/  the JSON export of a small branching session
** The hand-written seeds (config, theme, sampling, db, the rest of import)
** are plain files in the corpus.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/io/ckpt_write.h"
#include "../../core/model/model_gen.h"
#include "../../core/rwkv.h"
#include "../../core/model/wcache.h"
#include "../../storage/store.h"

static void
die(const char *what, const rwkv_err *err)
{
    fprintf(stderr, "gen_seeds: %s: %s\n", what, err ? err->msg : "failed");
    exit(1);
}

static unsigned char *
slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b;
    long sz;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        (b = malloc((size_t)sz + 1)) == NULL || fread(b, 1, (size_t)sz, f) != (size_t)sz)
        die(path, NULL);
    fclose(f);
    *n = (size_t)sz;
    return b;
}

static void
save(const char *dir, const char *name, const unsigned char *pre, size_t npre, const void *p, size_t n)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof path, "tests/fuzz/corpus/%s/%s", dir, name);
    if ((f = fopen(path, "wb")) == NULL || fwrite(pre, 1, npre, f) != npre ||
        (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0)
        die(path, NULL);
}

/* A state file for H heads of size N in L layers (layer SKIP left out). */
static void
state_seed(const char *name, int L, int H, int N, ck_dtype dt, int skip, float fill)
{
    char tmp[] = "/tmp/gen-seeds-XXXXXX", path[64], key[64];
    int64_t shape[3] = { H, N, N };
    size_t cnt = (size_t)H * N * N;
    float *v = malloc(cnt * sizeof *v);
    uint16_t *h = malloc(cnt * sizeof *h);
    unsigned char *b;
    size_t n;
    ckw *w;
    rwkv_err err;

    if (mkdtemp(tmp) == NULL || v == NULL || h == NULL)
        die("temp", NULL);
    snprintf(path, sizeof path, "%s/s.pth", tmp);
    if (ckw_create(path, NULL, &w, &err) != RWKV_OK)
        die("ckw_create", &err);
    for (int l = 0; l < L; l++) {
        if (l == skip)
            continue;
        for (size_t i = 0; i < cnt; i++) {
            float x = isnan(fill) ? fill : (float)((int)((i * 7 + (size_t)l) % 17) - 8) / 16.0f;
            uint32_t u;
            v[i] = x;
            memcpy(&u, &x, 4);
            h[i] = (uint16_t)(u >> 16);
        }
        snprintf(key, sizeof key, "blocks.%d.att.time_state", l);
        if (ckw_tensor(w, key, dt, 3, shape, dt == CK_BF16 ? (const void *)h : (const void *)v, &err) !=
            RWKV_OK)
            die("ckw_tensor", &err);
    }
    if (ckw_finish(w, NULL, &err) != RWKV_OK)
        die("ckw_finish", &err);
    b = slurp(path, &n);
    save("state", name, NULL, 0, b, n);
    free(b);
    free(v);
    free(h);
    unlink(path);
    rmdir(tmp);
}

static void
wcache_seeds(void)
{
    char tmp[] = "/tmp/gen-seeds-XXXXXX", model[128], dir[128], cpath[1024];
    mgen_opts mo;
    rwkv_open_opts oo;
    rwkv_model *m;
    rwkv_err err;
    unsigned char *b, mode;
    size_t n;

    if (mkdtemp(tmp) == NULL)
        die("temp", NULL);
    snprintf(model, sizeof model, "%s/m.pth", tmp);
    snprintf(dir, sizeof dir, "%s/wc", tmp);
    memset(&mo, 0, sizeof mo);
    mo.dtype = CK_BF16;
    mo.seed = 1;
    mo.n_threads = 1;
    if (mgen_save("demo", model, &mo, NULL, &err) != RWKV_OK)
        die("mgen_save", &err);
    memset(&oo, 0, sizeof oo);
    oo.strategy = "cpu fp32i8";
    oo.n_threads = 1;
    oo.weight_cache = WC_ON;
    oo.weight_cache_dir = dir;
    if (rwkv_model_open(model, &oo, &m, &err) != RWKV_OK)
        die("open", &err);
    snprintf(cpath, sizeof cpath, "%s", rwkv_model_info(m)->weight_cache_path);
    rwkv_model_close(m);   /* waits for the writer */
    b = slurp(cpath, &n);
    mode = 0;
    save("wcache", "seed-raw", &mode, 1, b, n);
    mode = 1;
    save("wcache", "seed-reseal", &mode, 1, b, n);
    free(b);
    if (system("rm -rf /tmp/gen-seeds-*") != 0)
        die("rm", NULL);
}

static void
import_seed(void)
{
    static const char *texts[] = { "hi", "hello \xe2\x80\x94 there", "what is 2+2?", "4",
                                   "and 3+3?", "6", "another branch" };
    static const int parents[] = { -1, 0, 1, 2, 3, 1, 5 };
    char tmp[] = "/tmp/gen-seeds-XXXXXX", path[128];
    store *st;
    store_session ss;
    rwkv_err err;
    int64_t sid, ids[7];
    int32_t toks[3] = { 1, 2, 3 };
    char *buf;
    size_t len;

    if (mkdtemp(tmp) == NULL)
        die("temp", NULL);
    snprintf(path, sizeof path, "%s/s.db", tmp);
    if (store_open(path, &st, &err) != RWKV_OK)
        die("store_open", &err);
    memset(&ss, 0, sizeof ss);
    snprintf(ss.title, sizeof ss.title, "arithmetic");
    snprintf(ss.strategy, sizeof ss.strategy, "cpu fp32");
    if (store_session_new(st, &ss, &sid, &err) != RWKV_OK)
        die("session", &err);
    for (int i = 0; i < 7; i++) {
        store_turn t;
        memset(&t, 0, sizeof t);
        t.session_id = sid;
        t.parent_id = parents[i] < 0 ? 0 : ids[parents[i]];
        t.role = i % 2 == 0 ? STORE_ROLE_USER : STORE_ROLE_ASSISTANT;
        t.text = texts[i];
        t.tokens = toks;
        t.n_tokens = 3;
        t.has_sampling = i % 2;
        t.sampling.temperature = 1.0f;
        t.sampling.top_p = 0.3f;
        t.sampling.max_tokens = 100;
        t.sampling.chunk = 64;
        t.sampling.seed = 7;
        if (store_turn_append(st, &t, NULL, 0, NULL, &err) != RWKV_OK)
            die("turn", &err);
        ids[i] = t.id;
    }
    if (store_export(st, sid, STORE_FMT_JSON, &buf, &len, &err) != RWKV_OK)
        die("export", &err);
    save("import", "seed-export", NULL, 0, buf, len);
    free(buf);
    store_close(st);
    if (system("rm -rf /tmp/gen-seeds-*") != 0)
        die("rm", NULL);
}

int
main(void)
{
    rwkv_model *m;
    rwkv_err err;
    const rwkv_info *in;
    int L, H, N;

    if (rwkv_model_open_demo(0, NULL, &m, &err) != RWKV_OK)
        die("demo", &err);
    in = rwkv_model_info(m);
    L = in->n_layer;
    H = in->n_head;
    N = in->head_size;
    rwkv_model_close(m);
    state_seed("seed-f32", L, H, N, CK_F32, -1, 0);
    state_seed("seed-bf16", L, H, N, CK_BF16, -1, 0);
    state_seed("seed-layer-missing", L, H, N, CK_F32, 1, 0);
    state_seed("seed-wrong-shape", L, H + 1, N, CK_F32, -1, 0);
    state_seed("seed-nan", L, H, N, CK_F32, -1, NAN);
    wcache_seeds();
    import_seed();
    return 0;
}
