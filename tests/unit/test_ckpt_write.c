/*
** test_ckpt_write.c -- the checkpoint writer (core/io/ckpt_write.h) and the
** benchmark model files (core/model/model_gen.h).
**
** Round trip: every tiny fixture model is read with our loader, written
** back with the writer (float32 as stored, bfloat16 as stored, and float32
** converted to bfloat16), read again: same tensors, same bytes; the
** float32 -> bfloat16 conversion equals the bf16 fixture torch wrote; the
** written files give the fixture's expected logits (fixtures README 2)
** within the runs' own tolerances and the same logits as the original
** files bit for bit.  Also: CRC-32 and its combination against the
** loader's bitwise CRC, a ZIP64 archive (threshold lowered) read by our
** loader and by Python's zipfile, LONG1 integers in the pickle, errors,
** and generated model files: deterministic for any thread count, finite
** outputs, RNN and chunked paths agreeing.
*/
#include <dirent.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../core/io/ckpt.h"
#include "../../core/io/ckpt_write.h"
#include "../../core/io/json.h"
#include "../../core/kernels/kernels.h"
#include "../../core/model/model_gen.h"
#include "../../core/rwkv.h"
#include "../../core/kernels/simd.h"
#include "../../core/io/zipr.h"
#include "../harness.h"
#include "fixture_json.h"

static char tmpdir[256];

/* Temporary files of the writer for BASE in tmpdir (".BASE.XXXXXXXX.tmp",
** core/io/fileio.h), plus an old-style BASE.tmp: how many exist. */
static int
count_temps(const char *base)
{
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    size_t bl = strlen(base);
    int n = 0;

    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        size_t nl = strlen(e->d_name);
        if (nl > 4 && strcmp(e->d_name + nl - 4, ".tmp") == 0 &&
            ((e->d_name[0] == '.' && strncmp(e->d_name + 1, base, bl) == 0) ||
             strncmp(e->d_name, base, bl) == 0))
            n++;
    }
    closedir(d);
    return n;
}

static const char *
tmp_path(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", tmpdir, name);
    return buf;
}

static uint64_t
rnd64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Bit-at-a-time CRC-32, the reference for the table-driven zipr_crc32. */
static uint32_t
crc_bitwise(const unsigned char *b, size_t n)
{
    uint32_t crc = ~0u;

    for (size_t i = 0; i < n; i++) {
        crc ^= b[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static void
test_crc(void)
{
    enum { N = 10000 };
    unsigned char *buf = malloc(N + 8);
    uint64_t s = 7;
    int bad = 0, badc = 0;

    for (size_t i = 0; i < N + 8; i++)
        buf[i] = (unsigned char)rnd64(&s);
    TEST_COND("crc of nothing", zipr_crc32(0, buf, 0) == 0);
    /* the classic check value */
    TEST_COND("crc check value", zipr_crc32(0, "123456789", 9) == 0xcbf43926u);
    for (int k = 0; k < 200; k++) {
        size_t off = (size_t)(rnd64(&s) % 8), n = (size_t)(rnd64(&s) % N), cut = n ? (size_t)(rnd64(&s) % n) : 0;
        uint32_t want = crc_bitwise(buf + off, n);
        uint32_t a = zipr_crc32(0, buf + off, cut), b = zipr_crc32(0, buf + off + cut, n - cut);
        bad += zipr_crc32(0, buf + off, n) != want;
        bad += zipr_crc32(a, buf + off + cut, n - cut) != want;   /* continuation */
        badc += ckw_crc32_combine(a, b, n - cut) != want;
    }
    TEST_CONDF(bad == 0, "zipr_crc32 differs from the bitwise CRC in %d cases", bad);
    TEST_CONDF(badc == 0, "ckw_crc32_combine wrong in %d cases", badc);
    free(buf);
}

/* Write every tensor of CK to PATH in dtype DT (-1: as stored). */
static int
write_copy(const ckpt *ck, const char *path, int dt, const ckw_opts *wo)
{
    ckw *w;
    rwkv_err err;
    const simd_kernels *k = kern_default_kernels();

    if (ckw_create(path, wo, &w, &err) != RWKV_OK) {
        TEST_CONDF(0, "create %s: %s", path, err.msg);
        return -1;
    }
    for (size_t i = 0; i < ckpt_count(ck); i++) {
        const ckpt_tensor *t = ckpt_at(ck, i);
        int rc;
        if (dt < 0 && t->contiguous) {
            rc = ckw_tensor(w, t->name, t->dtype, t->ndim, t->shape, t->data, &err);
        } else {
            float *f = malloc((t->numel ? t->numel : 1) * sizeof *f);
            uint16_t *h = malloc((t->numel ? t->numel : 1) * sizeof *h);
            ckpt_to_f32(t, f, t->numel, &err);
            simd_f32_to_bf16(k, f, h, (size_t)t->numel);
            rc = ckw_tensor(w, t->name, CK_BF16, t->ndim, t->shape, h, &err);
            free(f);
            free(h);
        }
        if (rc != RWKV_OK) {
            TEST_CONDF(0, "write %s: %s", path, err.msg);
            ckw_abort(w);
            return -1;
        }
    }
    if (ckw_finish(w, NULL, &err) != RWKV_OK) {
        TEST_CONDF(0, "finish %s: %s", path, err.msg);
        return -1;
    }
    return 0;
}

/* Same tensors, order, dtypes, shapes and bytes; WANT_DT -1 = A's dtypes. */
static int
same_tensors(const char *what, const ckpt *a, const ckpt *b, int want_dt)
{
    int bad = 0;

    if (ckpt_count(a) != ckpt_count(b)) {
        TEST_CONDF(0, "%s: %zu tensors, expected %zu", what, ckpt_count(b), ckpt_count(a));
        return -1;
    }
    for (size_t i = 0; i < ckpt_count(a); i++) {
        const ckpt_tensor *x = ckpt_at(a, i), *y = ckpt_at(b, i);
        int ok = strcmp(x->name, y->name) == 0 && x->ndim == y->ndim &&
                 (int)y->dtype == (want_dt < 0 ? (int)x->dtype : want_dt) && y->contiguous &&
                 ((uintptr_t)y->data % CKW_ALIGN == 0 || y->nbytes == 0);
        for (int d = 0; ok && d < x->ndim; d++)
            ok = x->shape[d] == y->shape[d];
        if (ok && want_dt < 0)
            ok = x->nbytes == y->nbytes && memcmp(x->data, y->data, (size_t)x->nbytes) == 0;
        if (!ok && bad++ < 3)
            printf("FAIL %s: tensor %zu '%s' differs\n", what, i, x->name);
    }
    TEST_CONDF(bad == 0, "%s: %d tensors differ", what, bad);
    return bad ? -1 : 0;
}

static size_t
tokens_of(const json_value *arr, int32_t *t, size_t cap)
{
    size_t n = arr ? arr->len : 0;

    if (n > cap)
        n = cap;
    for (size_t i = 0; i < n; i++)
        t[i] = (int32_t)json_at(arr, i)->num;
    return n;
}

/* Token-by-token logits of TOK [N] (V each) into OUT. */
static int
rnn_logits(rwkv_model *m, const int32_t *tok, size_t n, float *out)
{
    rwkv_state *s;
    rwkv_err err;
    size_t V = (size_t)rwkv_model_info(m)->n_vocab;
    int rc = 0;

    if (rwkv_state_create(m, &s, &err) != RWKV_OK)
        return -1;
    for (size_t t = 0; t < n && rc == 0; t++)
        rc = rwkv_eval(m, &tok[t], 1, s, out + t * V, &err) == RWKV_OK ? 0 : -1;
    rwkv_state_destroy(s);
    return rc;
}

#define MAX_T 64

/* One manifest: the round trips and the runs S and M (zero state). */
static void
test_roundtrip(const char *tag)
{
    char rel[256], path[1024], orig[2][1024], w32[1024], w16[1024], w16c[1024];
    json_doc *doc;
    rwkv_err err;
    const json_value *root, *runs, *files;
    ckpt *src[2] = { NULL, NULL }, *back = NULL;
    const char *kinds[2] = { "fp32", "bf16" };
    int nruns = 0;

    snprintf(rel, sizeof rel, "tiny/%s.json", tag);
    if ((doc = test_fixture_json(rel)) == NULL)
        return;
    root = json_root(doc);
    runs = json_get(root, "runs");
    files = json_get(root, "model_files");
    tmp_path(w32, sizeof w32, "w32.pth");
    tmp_path(w16, sizeof w16, "w16.pth");
    tmp_path(w16c, sizeof w16c, "w16c.pth");
    unlink(w32);
    unlink(w16);
    unlink(w16c);
    for (int k = 0; k < 2; k++) {
        const char *f = json_str(files, kinds[k]);
        orig[k][0] = 0;
        if (f == NULL)
            continue;
        test_fixture_path(orig[k], sizeof orig[k], f);
        if (ckpt_open(orig[k], NULL, &src[k], &err) != RWKV_OK) {
            TEST_CONDF(0, "%s: %s", f, err.msg);
            continue;
        }
    }
    /* stored dtype kept */
    for (int k = 0; k < 2; k++) {
        const char *out = k ? w16 : w32;
        if (src[k] == NULL || write_copy(src[k], out, -1, NULL) != 0)
            continue;
        if (ckpt_open(out, NULL, &back, &err) != RWKV_OK) {
            TEST_CONDF(0, "%s %s reopened: %s", tag, kinds[k], err.msg);
            continue;
        }
        same_tensors(out, src[k], back, -1);
        TEST_CONDF(strcmp(ckpt_format(back), "pth") == 0, "%s: format", out);
        ckpt_close(back);
        back = NULL;
    }
    /* float32 converted to bfloat16 by the writer's caller: torch rounded
     * the bf16 fixture the same way (round to nearest even) */
    if (src[0] != NULL && write_copy(src[0], w16c, CK_BF16, NULL) == 0) {
        if (ckpt_open(w16c, NULL, &back, &err) != RWKV_OK) {
            TEST_CONDF(0, "%s bf16 converted: %s", tag, err.msg);
        } else {
            same_tensors(w16c, src[0], back, CK_BF16);
            if (src[1] != NULL) {
                int bad = 0;
                for (size_t i = 0; i < ckpt_count(back); i++) {
                    const ckpt_tensor *x = ckpt_at(back, i);
                    const ckpt_tensor *y = ckpt_find(src[1], x->name);
                    if (y == NULL || y->dtype != CK_BF16 || y->nbytes != x->nbytes ||
                        memcmp(x->data, y->data, (size_t)x->nbytes) != 0) {
                        if (bad++ < 3)
                            printf("FAIL %s: '%s' rounds differently from the bf16 fixture\n",
                                   tag, x->name);
                    }
                }
                TEST_CONDF(bad == 0, "%s: %d tensors differ from the bf16 fixture", tag, bad);
            }
            ckpt_close(back);
            back = NULL;
        }
    }
    for (int k = 0; k < 2; k++)
        ckpt_close(src[k]);

    /* logits: the written files against the fixture's reference and against
     * the original files */
    for (size_t i = 0; runs && i < runs->len; i++) {
        const json_value *run = json_at(runs, i), *init = json_get(run, "init_state");
        const char *seq = json_str(run, "sequence"), *wk = json_str(run, "weights");
        int k = strcmp(wk, "bf16") == 0;
        const char *mine[2] = { k ? w16 : w32, k ? w16c : NULL };
        double tol = json_num(json_get(run, "tolerance"), "logits_max_abs", 1e-3);
        int32_t tok[MAX_T];
        size_t T, V, nref;
        float *ref, *got, *base;
        rwkv_model *m;

        if (strcmp(json_str(run, "strategy"), "cpu fp32") != 0 ||
            (init != NULL && init->type == JSON_OBJECT) || seq == NULL ||
            (strcmp(seq, "S") != 0 && strcmp(seq, "M") != 0) || orig[k][0] == 0)
            continue;
        T = tokens_of(json_get(run, "tokens"), tok, MAX_T);
        if (rwkv_model_open(orig[k], NULL, &m, &err) != RWKV_OK) {
            TEST_CONDF(0, "%s: %s", orig[k], err.msg);
            continue;
        }
        V = (size_t)rwkv_model_info(m)->n_vocab;
        base = malloc(T * V * sizeof *base);
        got = malloc(T * V * sizeof *got);
        rnn_logits(m, tok, T, base);
        rwkv_model_close(m);
        ref = test_read_f32(test_fixture_path(path, sizeof path,
                                              json_str(json_get(json_get(run, "rnn"), "logits"),
                                                       "file")), &nref);
        TEST_CONDF(ref != NULL && nref >= T * V, "%s %s: reference logits", tag,
                   json_str(run, "id"));
        for (int j = 0; j < 2 && ref != NULL && nref >= T * V; j++) {
            /* the converted file only for the 7v0 model, whose weights are
             * exactly bf16-representable (same values as the bf16 file) */
            if (mine[j] == NULL || (j == 1 && strcmp(tag, "tiny-7v0") != 0))
                continue;
            if (rwkv_model_open(mine[j], NULL, &m, &err) != RWKV_OK) {
                TEST_CONDF(0, "%s: %s", mine[j], err.msg);
                continue;
            }
            if (rnn_logits(m, tok, T, got) == 0) {
                double d = test_max_abs_diff(got, ref, T * V);
                double e = test_max_abs_diff(got, base, T * V);
                TEST_CONDF(d <= tol, "%s %s via %s: logits max abs err %g > %g", tag,
                           json_str(run, "id"), mine[j], d, tol);
                TEST_CONDF(e == 0, "%s %s via %s: differs from the original file by %g", tag,
                           json_str(run, "id"), mine[j], e);
                nruns++;
            } else {
                TEST_CONDF(0, "%s: eval failed", mine[j]);
            }
            rwkv_model_close(m);
        }
        free(ref);
        free(base);
        free(got);
    }
    TEST_CONDF(nruns > 0, "%s: no run compared", tag);
    TEST_INFO("%-10s round trip fp32 / bf16 / fp32->bf16, %d runs compared", tag, nruns);
    json_free(doc);
    unlink(w32);
    unlink(w16);
    unlink(w16c);
}

/* Python's zipfile + pickletools read PATH (CRCs, alignment, the pickle). */
static void
python_check(const char *path, int want_tensors)
{
    char cmd[2048], line[256] = "";
    FILE *p;
    int n = -1;

    if (system("python3 -c 'import zipfile, pickletools' >/dev/null 2>&1") != 0) {
        TEST_INFO("python3 not available: skipping the zipfile check of %s", path);
        return;
    }
    snprintf(cmd, sizeof cmd, "python3 tests/cli/ckpt_check.py '%s' 2>&1", path);
    p = popen(cmd, "r");
    if (p == NULL) {
        TEST_CONDF(0, "cannot run python3");
        return;
    }
    while (fgets(line, sizeof line, p) != NULL)
        if (sscanf(line, "ok %d tensors", &n) != 1)
            printf("     python: %s", line);
    pclose(p);
    TEST_CONDF(n == want_tensors, "python3 zipfile/pickle check of %s: %d tensors, expected %d",
               path, n, want_tensors);
}

static void
test_zip64(void)
{
    char a[1024], b[1024], path[1024];
    ckpt *src, *x, *y;
    rwkv_err err;
    ckw_opts wo = { NULL, 1 };   /* every size and offset >= 1 goes to ZIP64 fields */
    ckw_opts wp = { "rand-7v0", 0 };

    tmp_path(a, sizeof a, "z32.pth");
    tmp_path(b, sizeof b, "z64.pth");
    /* a fixture checkpoint (torch's writer) or, without the fixtures, one
     * of our own generated models */
    if (test_fixture_exists("models/rand-7v0-h2-bf16.pth") || test_ci()) {
        test_fixture_path(path, sizeof path, "models/rand-7v0-h2-bf16.pth");
    } else {
        tmp_path(path, sizeof path, "zsrc.pth");
        if (mgen_save("demo", path, &(mgen_opts){ .dtype = CK_BF16, .seed = 3 }, NULL,
                      &err) != RWKV_OK) {
            TEST_CONDF(0, "zip64 source: %s", err.msg);
            return;
        }
    }
    if (ckpt_open(path, NULL, &src, &err) != RWKV_OK) {
        TEST_CONDF(0, "%s", err.msg);
        return;
    }
    if (write_copy(src, a, -1, &wp) == 0 && write_copy(src, b, -1, &wo) == 0 &&
        ckpt_open(a, NULL, &x, &err) == RWKV_OK) {
        if (ckpt_open(b, NULL, &y, &err) == RWKV_OK) {
            same_tensors("zip64 file", src, y, -1);
            TEST_CONDF(ckpt_file_size(y) > ckpt_file_size(x), "zip64 file not larger (%llu)",
                       (unsigned long long)ckpt_file_size(y));
            ckpt_close(y);
        } else {
            TEST_CONDF(0, "zip64 file: %s", err.msg);
        }
        same_tensors("prefixed file", src, x, -1);
        ckpt_close(x);
        python_check(a, (int)ckpt_count(src));
        python_check(b, (int)ckpt_count(src));
        /* same model, same logits */
        {
            rwkv_model *m1, *m2;
            int32_t tok[3] = { 34, 105, 110 };
            float l1[3 * 256], l2[3 * 256];
            if (rwkv_model_open(a, NULL, &m1, &err) == RWKV_OK) {
                if (rwkv_model_open(b, NULL, &m2, &err) == RWKV_OK) {
                    rnn_logits(m1, tok, 3, l1);
                    rnn_logits(m2, tok, 3, l2);
                    TEST_COND("zip64 logits", memcmp(l1, l2, sizeof l1) == 0);
                    rwkv_model_close(m2);
                } else {
                    TEST_CONDF(0, "zip64 model: %s", err.msg);
                }
                rwkv_model_close(m1);
            } else {
                TEST_CONDF(0, "model: %s", err.msg);
            }
        }
    } else {
        TEST_CONDF(0, "zip64 setup: %s", err.msg);
    }
    ckpt_close(src);
    unlink(a);
    unlink(b);
    if (strncmp(path, tmpdir, strlen(tmpdir)) == 0)   /* the generated source */
        unlink(path);
}

/* Big integers (LONG1) and a 0-d and an empty tensor. */
static void
test_pickle_ints(void)
{
    char p[1024];
    ckw *w;
    ckpt *ck;
    rwkv_err err;
    int64_t big[2] = { 0, 3000000000LL }, none[1] = { 0 }, four[4] = { 1, 2, 1, 3 };
    float one = 1.5f, six[6] = { 1, 2, 3, 4, 5, 6 };

    tmp_path(p, sizeof p, "ints.pth");
    TEST_COND("create", ckw_create(p, NULL, &w, &err) == RWKV_OK);
    TEST_COND("huge empty", ckw_tensor(w, "huge", CK_F16, 2, big, NULL, &err) == RWKV_OK);
    TEST_COND("scalar", ckw_tensor(w, "scalar", CK_F32, 0, NULL, &one, &err) == RWKV_OK);
    TEST_COND("empty", ckw_tensor(w, "empty", CK_BF16, 1, none, NULL, &err) == RWKV_OK);
    TEST_COND("4-d", ckw_tensor(w, "four", CK_F32, 4, four, six, &err) == RWKV_OK);
    TEST_COND("finish", ckw_finish(w, NULL, &err) == RWKV_OK);
    if (ckpt_open(p, NULL, &ck, &err) != RWKV_OK) {
        TEST_CONDF(0, "reopen: %s", err.msg);
        return;
    }
    {
        const ckpt_tensor *h = ckpt_find(ck, "huge"), *s = ckpt_find(ck, "scalar"),
                          *e = ckpt_find(ck, "empty"), *f = ckpt_find(ck, "four");
        TEST_COND("huge shape", h && h->ndim == 2 && h->shape[1] == 3000000000LL &&
                                    h->numel == 0 && h->dtype == CK_F16);
        TEST_COND("scalar", s && s->ndim == 0 && s->numel == 1 && *(const float *)s->data == 1.5f);
        TEST_COND("empty", e && e->ndim == 1 && e->numel == 0);
        TEST_COND("four", f && f->ndim == 4 && f->shape[3] == 3 && f->stride[1] == 3 &&
                              f->stride[0] == 6 && memcmp(f->data, six, sizeof six) == 0);
    }
    ckpt_close(ck);
    python_check(p, 4);
    unlink(p);
}

static void
test_errors(void)
{
    char p[1024], t[1100], q[1100];
    ckw *w;
    rwkv_err err;
    int64_t sh[2] = { 2, 3 };
    float d[8] = { 0 };   /* one tensor [2,3] and 8 bytes more */
    struct stat st;

    TEST_COND("missing dir", ckw_create("/nonexistent-dir/x.pth", NULL, &w, &err) == RWKV_EIO &&
                                 w == NULL && strstr(err.msg, "/nonexistent-dir/x.pth") &&
                                 strstr(err.msg, "No such file"));
    TEST_COND("bad prefix", ckw_create("/tmp/x.pth", &(ckw_opts){ "a/b", 0 }, &w, &err) ==
                                RWKV_EINVAL);
    tmp_path(p, sizeof p, "err.pth");
    snprintf(t, sizeof t, "%s.tmp", p);
    TEST_COND("create", ckw_create(p, NULL, &w, &err) == RWKV_OK);
    TEST_COND("one temporary while writing", count_temps("err.pth") == 1 && stat(p, &st) != 0);
    TEST_COND("bad dtype", ckw_begin(w, "x", CK_I64, 2, sh, &err) == RWKV_EINVAL &&
                               strstr(err.msg, "int64"));
    TEST_COND("negative dim", ckw_begin(w, "x", CK_F32, 2, (int64_t[]){ 2, -1 }, &err) ==
                                  RWKV_EINVAL);
    TEST_COND("empty name", ckw_begin(w, "", CK_F32, 2, sh, &err) == RWKV_EINVAL);
    TEST_COND("ok", ckw_tensor(w, "a", CK_F32, 2, sh, d, &err) == RWKV_OK);
    TEST_COND("duplicate", ckw_begin(w, "a", CK_F32, 2, sh, &err) == RWKV_EINVAL &&
                               strstr(err.msg, "twice"));
    TEST_COND("begin", ckw_begin(w, "b", CK_F32, 2, sh, &err) == RWKV_OK);
    TEST_COND("too much", ckw_write(w, d, sizeof d, &err) == RWKV_EINVAL);
    TEST_COND("unusable after error", ckw_finish(w, NULL, &err) != RWKV_OK);
    TEST_COND("no file after a failed write", stat(p, &st) != 0 && count_temps("err.pth") == 0);

    TEST_COND("create 2", ckw_create(p, NULL, &w, &err) == RWKV_OK);
    TEST_COND("begin 2", ckw_begin(w, "b", CK_F32, 2, sh, &err) == RWKV_OK);
    TEST_COND("short", ckw_write(w, d, 8, &err) == RWKV_OK && ckw_end(w, &err) == RWKV_EINVAL &&
                           strstr(err.msg, "got 8 of its 24 bytes"));
    ckw_abort(w);
    TEST_COND("abort removes the temporary", count_temps("err.pth") == 0 && stat(p, &st) != 0);

    /* a symlink planted at the old temporary name PATH.tmp is never
     * followed: its target keeps its bytes, the save succeeds */
    snprintf(q, sizeof q, "%s/victim", tmpdir);
    {
        FILE *f = fopen(q, "w");
        TEST_COND("victim", f != NULL && fputs("keep", f) >= 0 && fclose(f) == 0);
    }
    TEST_COND("plant", symlink(q, t) == 0);
    TEST_COND("save past a planted link", ckw_create(p, NULL, &w, &err) == RWKV_OK &&
                                              ckw_tensor(w, "a", CK_F32, 2, sh, d, &err) ==
                                                  RWKV_OK &&
                                              ckw_finish(w, NULL, &err) == RWKV_OK);
    TEST_COND("link target untouched", stat(q, &st) == 0 && st.st_size == 4);
    TEST_COND("saved file is regular, 0644 less umask",
              lstat(p, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0133) == 0 &&
                  (st.st_mode & 0600) == 0600);
    TEST_COND("no temporary left", count_temps("err.pth") == 1 /* the planted link */);
    unlink(t);
    /* an existing non-regular PATH is refused, never replaced */
    snprintf(q, sizeof q, "%s/fifo.pth", tmpdir);
    TEST_COND("mkfifo", mkfifo(q, 0600) == 0);
    TEST_COND("FIFO refused", ckw_create(q, NULL, &w, &err) == RWKV_EIO && w == NULL &&
                                  strstr(err.msg, "fifo.pth: cannot create: it is a FIFO"));
    TEST_COND("FIFO still a FIFO", lstat(q, &st) == 0 && S_ISFIFO(st.st_mode));
    unlink(q);
    TEST_COND("unknown shape", mgen_save("7b", p, &(mgen_opts){ .dtype = CK_BF16 }, NULL, &err) ==
                                   RWKV_EINVAL && strstr(err.msg, "1.6b-v6"));
    TEST_COND("shape list", mgen_has_shape("1.6b-v6") && mgen_has_shape("1.5b") &&
                                !mgen_has_shape("1.6b"));
}

/* Generated model files. */
static void
test_gen(const char *shape, const char *ver, int ffn, ck_dtype dt, int ntens)
{
    char a[1024], b[1024], c[1024];
    mgen_opts o;
    rwkv_err err;
    uint64_t sa = 0, sb = 0;
    unsigned char *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    rwkv_model *m;

    memset(&o, 0, sizeof o);
    o.dtype = dt;
    o.seed = 5;
    tmp_path(a, sizeof a, "g1.pth");
    tmp_path(b, sizeof b, "g2.pth");
    tmp_path(c, sizeof c, "g3.pth");
    o.n_threads = 1;
    TEST_CONDF(mgen_save(shape, a, &o, &sa, &err) == RWKV_OK, "%s: %s", shape, err.msg);
    o.n_threads = 2;
    TEST_CONDF(mgen_save(shape, b, &o, &sb, &err) == RWKV_OK, "%s: %s", shape, err.msg);
    o.seed = 6;
    TEST_CONDF(mgen_save(shape, c, &o, NULL, &err) == RWKV_OK, "%s: %s", shape, err.msg);
    TEST_CONDF((x = test_slurp(a, &nx)) != NULL && (y = test_slurp(b, &ny)) != NULL &&
                   nx == ny && nx == sa && sb == sa && memcmp(x, y, nx) == 0,
               "%s: 1 and 2 threads give different files", shape);
    free(y);
    TEST_CONDF((y = test_slurp(c, &ny)) != NULL && ny == nx && memcmp(x, y, nx) != 0,
               "%s: the seed changes nothing", shape);
    free(x);
    free(y);
    python_check(a, ntens);
    if (rwkv_model_open(a, NULL, &m, &err) != RWKV_OK) {
        TEST_CONDF(0, "%s: open: %s", shape, err.msg);
    } else {
        const rwkv_info *in = rwkv_model_info(m);
        int32_t tok[16];
        float *l1 = malloc(16 * 256 * sizeof *l1), l2[256];
        rwkv_state *s;
        double sum = 0, sq = 0;
        int finite = 1;
        TEST_CONDF(strcmp(in->version, ver) == 0 && in->n_ffn == ffn && in->n_vocab == 256 &&
                       in->n_layer == 2 && in->n_embd == 128 && strstr(in->dtypes, ck_dtype_name(dt)),
                   "%s: info v%s ffn %d vocab %d dtypes %s", shape, in->version, in->n_ffn,
                   in->n_vocab, in->dtypes);
        for (int i = 0; i < 16; i++)
            tok[i] = (int32_t)(i * 37 % 256);
        rnn_logits(m, tok, 16, l1);
        rwkv_state_create(m, &s, &err);
        TEST_COND("chunked eval", rwkv_eval(m, tok, 16, s, l2, &err) == RWKV_OK);
        rwkv_state_destroy(s);
        for (int i = 0; i < 16 * 256; i++) {
            finite &= isfinite(l1[i]);
            sum += l1[i];
            sq += (double)l1[i] * l1[i];
        }
        sq = sqrt(sq / (16 * 256) - (sum / (16 * 256)) * (sum / (16 * 256)));
        TEST_CONDF(finite && sq > 0.05 && sq < 100, "%s: logits finite %d, spread %g", shape,
                   finite, sq);
        TEST_CONDF(test_max_abs_diff(l1 + 15 * 256, l2, 256) < 1e-3,
                   "%s: rnn vs chunked %g", shape, test_max_abs_diff(l1 + 15 * 256, l2, 256));
        TEST_INFO("%-8s %s file %llu bytes, logits spread %.3g", shape, ck_dtype_name(dt),
                  (unsigned long long)sa, sq);
        free(l1);
        rwkv_model_close(m);
    }
    unlink(a);
    unlink(b);
    unlink(c);
}

int
main(void)
{
    static const char *tags[] = { "tiny-4v0", "tiny-5v1", "tiny-5v2", "tiny-6v0", "tiny-7v0",
                                  "rand7h2", "randv4", "randv51" };
    const char *td = getenv("TMPDIR");

    snprintf(tmpdir, sizeof tmpdir, "%s/rwkv-ckw.XXXXXX", td && *td ? td : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        printf("FAIL cannot make a temporary directory\n");
        return 1;
    }
    test_crc();
    test_errors();
    test_pickle_ints();
    test_zip64();
    if (test_have_fixture("tiny", 128))   /* the checks the 8 round trips make */
        for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
            test_roundtrip(tags[i]);
    /* tensors: 6 globals + per layer 33 (v7; layer 0 lacks v0/v1/v2) or 28 (v6) */
    test_gen("demo", "7.0", 512, CK_BF16, 6 + 30 + 33);
    test_gen("demo-v6", "6.0", 448, CK_BF16, 6 + 2 * 28);
    test_gen("demo-v6", "6.0", 448, CK_F16, 6 + 2 * 28);
    test_gen("demo", "7.0", 512, CK_F32, 6 + 30 + 33);
    rmdir(tmpdir);
    return TEST_REPORT();
}
