/*
** fuzz_state.c -- libFuzzer harness: state-tuning files
** (rwkv_state_load_file, core/model/state.c) for the built-in demo model.
**
**   make fuzz && build-fuzz/fuzz_state -dict=tests/fuzz/ckpt.dict tests/fuzz/corpus/state
**
** The input is written to a file and loaded into a state of the demo model
** (RWKV-7, the shape tests/fuzz/gen_seeds.c writes its seeds for).
** Invariants: the load succeeds or fails with one line naming the file; a
** loaded state is all finite (NaN/Inf are refused, naming the tensor), and
** one token evaluated from it gives finite logits.
*/
#include <math.h>
#include <stdint.h>

#include "../../core/rwkv.h"
#include "fuzz_tmp.h"

#include "fuzz_entry.h"

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    static rwkv_model *m;
    static rwkv_state *s;
    static float *logits;
    char path[512];
    rwkv_err err;
    const rwkv_info *in;
    int32_t tok = 'a';
    size_t n;
    float *v;

    if (m == NULL) {
        rwkv_open_opts oo;
        memset(&oo, 0, sizeof oo);
        oo.n_threads = 1;
        if (rwkv_model_open_demo(0, &oo, &m, &err) != RWKV_OK || rwkv_state_create(m, &s, &err) != RWKV_OK)
            abort();
        logits = malloc((size_t)rwkv_model_info(m)->n_vocab * sizeof *logits);
        if (logits == NULL)
            abort();
    }
    in = rwkv_model_info(m);
    fuzz_path(path, sizeof path, "state.pth");
    if (!fuzz_put(path, data, size))
        return 0;
    memset(&err, 0, sizeof err);
    if (rwkv_state_load_file(m, path, s, &err) != RWKV_OK) {
        FUZZ_CHECK(fuzz_one_line(err.msg) && strstr(err.msg, "state.pth") != NULL);
        return 0;
    }
    n = rwkv_state_len(s);
    v = rwkv_state_data(s);
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(isfinite(v[i]));
    FUZZ_CHECK(rwkv_eval(m, &tok, 1, s, logits, &err) == RWKV_OK);
    for (int i = 0; i < in->n_vocab; i++)
        FUZZ_CHECK(!isnan(logits[i]));
    return 0;
}
