/*
** test_store_stateid.c -- state-file rows by content (store.c
** store_statefile_add / _list, store_stateid.c): a file saved over the old
** name gets a row of its own (it updated the one row of its path, so the
** sessions made with the old bytes claimed the new ones), the same bytes
** at the same path are the same row, and the list names a path once; a
** digest is recorded only on a row without one; store_statefile_fits
** tells a state file for the model's shape from another model's or from
** no state file at all, before any model is loaded.  Real database files
** and .pth files (the project's writer) in a temp dir.
*/
#include "../harness.h"
#include "../../core/io/ckpt_write.h"
#include "../../storage/store.h"

/* A referenced row for PATH with digest D. */
static int64_t
add_ref(store *st, const char *path, uint64_t d)
{
    store_statefile f;
    int64_t id = 0;
    rwkv_err err;

    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "s.pth");
    snprintf(f.path, sizeof f.path, "%s", path);
    f.fingerprint = d;
    params_defaults(&f.defaults);
    if (store_statefile_add(st, &f, &id, &err) != RWKV_OK)
        printf("  add: %s\n", err.msg);
    return id;
}

static void
test_rows_by_content(store *st)
{
    store_statefile *v = NULL, got;
    size_t n = 0, of_path = 0;
    int64_t a, b, a2, c;
    rwkv_err err;

    a = add_ref(st, "/x/s.pth", 0x1111);
    b = add_ref(st, "/x/s.pth", 0x2222);        /* saved over with other bytes */
    a2 = add_ref(st, "/x/s.pth", 0x1111);
    c = add_ref(st, "/x/t.pth", 0x2222);        /* a copy elsewhere */
    TEST_CONDF(a > 0 && b > 0 && b != a, "other bytes at the same path: rows %lld, %lld",
               (long long)a, (long long)b);
    TEST_CONDF(a2 == a, "the same bytes again: row %lld, not %lld", (long long)a2, (long long)a);
    TEST_COND("another path is another row", c > 0 && c != a && c != b);
    TEST_COND("the old row keeps its digest", store_statefile_get(st, a, &got, NULL, &err) == RWKV_OK &&
              got.fingerprint == 0x1111);
    /* the list: a file once (its newest row), every other path */
    TEST_COND("list", store_statefile_list(st, &v, &n, &err) == RWKV_OK);
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].path, "/x/s.pth") == 0) {
            of_path++;
            TEST_CONDF(v[i].id == b, "listed row of s.pth: %lld, newest %lld", (long long)v[i].id,
                       (long long)b);
        }
    TEST_CONDF(of_path == 1 && n == 2, "listed: %zu rows, %zu of s.pth", n, of_path);
    free(v);

    /* a digest goes only on a row without one */
    c = add_ref(st, "/x/old.pth", 0);
    TEST_COND("record on a row without", store_statefile_set_digest(st, c, 0x3333, 99, &err) == RWKV_OK &&
              store_statefile_get(st, c, &got, NULL, &err) == RWKV_OK && got.fingerprint == 0x3333 &&
              got.size == 99);
    TEST_COND("a row with one is kept", store_statefile_set_digest(st, a, 0x4444, 1, &err) == RWKV_OK &&
              store_statefile_get(st, a, &got, NULL, &err) == RWKV_OK && got.fingerprint == 0x1111);
}

/* A .pth at PATH with TENSOR (layers L, each [H,N,N]). */
static int
write_pth(const char *path, const char *tensor, int layers, int64_t h, int64_t nn)
{
    int64_t sh[3] = { h, nn, nn };
    float v[64] = { 0 };
    rwkv_err err;
    ckw *w;

    if ((size_t)(h * nn * nn) > sizeof v / sizeof v[0] || ckw_create(path, NULL, &w, &err) != RWKV_OK)
        return -1;
    for (int l = 0; l < layers; l++) {
        char name[64];
        snprintf(name, sizeof name, "blocks.%d.att.%s", l, tensor);
        if (ckw_tensor(w, name, CK_F32, 3, sh, v, &err) != RWKV_OK) {
            ckw_abort(w);
            return -1;
        }
    }
    return ckw_finish(w, NULL, &err) == RWKV_OK ? 0 : -1;
}

static void
test_fits(void)
{
    char ok[512], other[512], model[512];
    store_model m;
    rwkv_err err;

    test_tmp_path(ok, sizeof ok, "ok.pth");
    test_tmp_path(other, sizeof other, "other.pth");
    test_tmp_path(model, sizeof model, "model.pth");
    TEST_COND("write the files", write_pth(ok, "time_state", 2, 2, 4) == 0 &&
              write_pth(other, "time_state", 2, 1, 4) == 0 &&
              write_pth(model, "key.weight", 2, 2, 4) == 0);
    memset(&m, 0, sizeof m);
    snprintf(m.version, sizeof m.version, "7");
    m.n_layer = 2;
    m.n_head = 2;
    m.head_size = 4;
    TEST_COND("a state for the shape fits", store_statefile_fits(ok, &m, &err) == RWKV_OK);
    TEST_CONDF(store_statefile_fits(other, &m, &err) == RWKV_ESHAPE &&
               strstr(err.msg, "has shape [1,4,4], expected [2,4,4]") != NULL,
               "another model's heads: %s", err.msg);
    m.n_layer = 3;
    TEST_CONDF(store_statefile_fits(ok, &m, &err) == RWKV_ESHAPE &&
               strstr(err.msg, "state file has 2 layers, the model has 3") != NULL,
               "another model's layers: %s", err.msg);
    TEST_CONDF(store_statefile_fits(model, &m, &err) == RWKV_ESHAPE &&
               strstr(err.msg, "not a state file") != NULL, "no state file: %s", err.msg);
    memset(&m, 0, sizeof m);                     /* the model's shape unknown */
    TEST_COND("unknown shape: a state file", store_statefile_fits(ok, &m, &err) == RWKV_OK);
    TEST_COND("unknown shape: not a model", store_statefile_fits(model, &m, &err) != RWKV_OK);
}

int
main(void)
{
    char db[512];
    store *st = NULL;
    rwkv_err err;

    if (test_tmpdir("rwkv-stateid") == NULL)
        return 1;
    test_tmp_path(db, sizeof db, "s.db");
    TEST_COND("open", store_open(db, &st, &err) == RWKV_OK);
    if (st) {
        test_rows_by_content(st);
        store_close(st);
    }
    test_fits();
    test_tmpdir_remove();
    return TEST_REPORT();
}
