/*
** test_state_file.c -- state-tuning files with non-finite values
** (core/model/state.c rwkv_state_load_file).
**
** State files are written with the project's own .pth writer
** (core/io/ckpt_write.h) for the demo model (RWKV-7, built in memory): a clean
** file loads; one NaN or one Inf anywhere in a layer's time_state is
** refused with one line naming the file and the tensor, and the state is
** left as it was.
*/
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../core/io/ckpt_write.h"
#include "../../core/rwkv.h"
#include "../harness.h"

/* Write a state file for M at PATH whose layer BAD_LAYER (-1: none) holds
** BAD at element BAD_AT.  0 on success. */
static int
write_state(const rwkv_model *m, const char *path, int bad_layer, size_t bad_at, float bad)
{
    const rwkv_info *in = rwkv_model_info(m);
    int64_t sh[3] = { in->n_head, in->head_size, in->head_size };
    size_t n = (size_t)in->n_head * (size_t)in->head_size * (size_t)in->head_size;
    float *v = malloc(n * sizeof *v);
    rwkv_err err;
    ckw *w;
    int rc = -1;

    if (v == NULL || ckw_create(path, NULL, &w, &err) != RWKV_OK) {
        free(v);
        return -1;
    }
    for (int l = 0; l < in->n_layer; l++) {
        char name[64];
        for (size_t k = 0; k < n; k++)
            v[k] = 0.01f * (float)((k + (size_t)l) % 17) - 0.08f;
        if (l == bad_layer)
            v[bad_at] = bad;
        snprintf(name, sizeof name, "blocks.%d.att.time_state", l);
        if (ckw_tensor(w, name, CK_F32, 3, sh, v, &err) != RWKV_OK) {
            ckw_abort(w);
            goto out;
        }
    }
    rc = ckw_finish(w, NULL, &err) == RWKV_OK ? 0 : -1;
out:
    free(v);
    return rc;
}

int
main(void)
{
    rwkv_model *m = NULL;
    rwkv_state *s = NULL;
    rwkv_err err;
    char path[512];
    float *before = NULL;
    size_t len;
    const rwkv_info *in;

    if (test_tmpdir("rwkv-state") == NULL)
        return 1;
    TEST_COND("demo model", rwkv_model_open_demo(0, NULL, &m, &err) == RWKV_OK);
    if (m == NULL)
        return TEST_REPORT();
    in = rwkv_model_info(m);
    TEST_COND("state", rwkv_state_create(m, &s, &err) == RWKV_OK);
    len = rwkv_state_len(s);
    before = malloc(len * sizeof *before);

    test_tmp_path(path, sizeof path, "good.pth");
    TEST_COND("write clean file", write_state(m, path, -1, 0, 0) == 0);
    TEST_CONDF(rwkv_state_load_file(m, path, s, &err) == RWKV_OK, "clean file: %s", err.msg);

    static const struct {
        const char *file, *what;
        float       v;
        int         layer;
    } bad[] = {
        { "nan.pth", "NaN", NAN, 1 },
        { "inf.pth", "Inf", INFINITY, 0 },
        { "ninf.pth", "Inf", -INFINITY, 1 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char tensor[64];
        int layer = bad[i].layer < in->n_layer ? bad[i].layer : 0;
        size_t at = (size_t)in->head_size + 3;   /* inside head 0 */
        test_tmp_path(path, sizeof path, bad[i].file);
        snprintf(tensor, sizeof tensor, "'blocks.%d.att.time_state'", layer);
        TEST_COND("write bad file", write_state(m, path, layer, at, bad[i].v) == 0);
        memcpy(before, rwkv_state_cdata(s), len * sizeof *before);
        TEST_CONDF(rwkv_state_load_file(m, path, s, &err) == RWKV_EFORMAT &&
                       strstr(err.msg, bad[i].file) && strstr(err.msg, tensor) &&
                       strstr(err.msg, bad[i].what) && strchr(err.msg, '\n') == NULL,
                   "%s: %s", bad[i].file, err.msg);
        TEST_COND("state untouched by a refused file",
                  memcmp(before, rwkv_state_cdata(s), len * sizeof *before) == 0);
    }
    /* every value of the refused state is still finite */
    {
        const float *d = rwkv_state_cdata(s);
        size_t nonfinite = 0;
        for (size_t k = 0; k < len; k++)
            nonfinite += !isfinite(d[k]);
        TEST_CONDF(nonfinite == 0, "%zu non-finite values in the state", nonfinite);
    }
    free(before);
    rwkv_state_destroy(s);
    rwkv_model_close(m);
    test_tmpdir_remove();
    return TEST_REPORT();
}
