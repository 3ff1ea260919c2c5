/*
** fuzz_common.h -- shared by the checkpoint fuzz harnesses (fuzz_zipr.c,
** fuzz_pickle.c, fuzz_st.c) and by tests/unit/test_ckpt_corpus.c, which
** includes all three to replay tests/fuzz/corpus/ under `make test`.
**
** FUZZ_CHECK(cond) aborts (libFuzzer reports the input) unless the includer
** defines it; fuzz_touch_all reads every element of every tensor so that
** ASan sees any view that escapes its buffer.
*/
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/io/ckpt.h"

#include "fuzz_entry.h"

/* Tensors with more elements than this are only spot-checked (speed). */
#define FUZZ_MAX_TOUCH (1u << 20)

/* A failed open left one line naming "fuzz". */
static inline int
fuzz_msg_ok(const rwkv_err *err)
{
    return strncmp(err->msg, "fuzz", 4) == 0 && strchr(err->msg, '\n') == NULL;
}

/* Read every element (by strides) of every tensor; convert floats. */
static inline void
fuzz_touch_all(const ckpt *ck)
{
    volatile uint8_t sink = 0;

    for (size_t i = 0; i < ckpt_count(ck); i++) {
        const ckpt_tensor *t = ckpt_at(ck, i);
        size_t es = ck_dtype_size(t->dtype);
        int64_t idx[CK_MAX_DIMS] = {0};
        uint64_t n = t->numel;

        FUZZ_CHECK(t != NULL && t->name != NULL && es > 0 && t->ndim >= 0 && t->ndim <= CK_MAX_DIMS);
        FUZZ_CHECK(ckpt_find(ck, t->name) == t);
        FUZZ_CHECK(t->nbytes == t->numel * es);
        if (n == 0 || n > FUZZ_MAX_TOUCH)
            continue;
        for (uint64_t k = 0; k < n; k++) {
            int64_t off = 0;
            for (int d = 0; d < t->ndim; d++)
                off += idx[d] * t->stride[d];
            for (size_t b = 0; b < es; b++)
                sink ^= ((const uint8_t *)t->data)[(size_t)off * es + b];
            for (int d = t->ndim - 1; d >= 0; d--) {
                if (++idx[d] < t->shape[d])
                    break;
                idx[d] = 0;
            }
        }
        if (t->dtype == CK_F32 || t->dtype == CK_F16 || t->dtype == CK_BF16 || t->dtype == CK_F64) {
            float *v = malloc((size_t)n * sizeof *v);
            rwkv_err err;
            if (v != NULL) {
                FUZZ_CHECK(ckpt_to_f32(t, v, n, &err) == RWKV_OK);
                free(v);
            }
        }
    }
    (void)sink;
}

#endif
