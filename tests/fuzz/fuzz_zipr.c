/*
** fuzz_zipr.c -- libFuzzer harness: whole checkpoint files (zip layer first).
**
**   make fuzz  (builds build-fuzz/fuzz_zipr etc. with clang -fsanitize=fuzzer)
**   build-fuzz/fuzz_zipr -dict=tests/fuzz/ckpt.dict tests/fuzz/corpus/zipr
**
** Invariants: zipr_open either fails with one line naming "fuzz" or gives
** entries whose data lies inside the input and that zipr_find finds again;
** ckpt_open_mem either fails the same way or every tensor element is readable.
*/
#include <stdint.h>

#include "../../core/io/zipr.h"
#include "fuzz_common.h"

#include "fuzz_entry.h"

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    zipr *z = NULL;
    ckpt *ck = NULL;
    rwkv_err err;

    if (zipr_open(data, size, "fuzz", 0, &z, &err) == RWKV_OK) {
        for (size_t i = 0; i < zipr_count(z); i++) {
            const zipr_entry *e = zipr_at(z, i);
            FUZZ_CHECK(e->data_off <= size && e->size <= size - e->data_off);
            FUZZ_CHECK(zipr_find(z, e->name) == e);
            FUZZ_CHECK(strlen(e->name) == e->name_len);
        }
        zipr_close(z);
    } else {
        FUZZ_CHECK(z == NULL && fuzz_msg_ok(&err));
    }
    if (ckpt_open_mem(data, size, "fuzz", NULL, &ck, &err) == RWKV_OK) {
        fuzz_touch_all(ck);
        ckpt_close(ck);
    } else {
        FUZZ_CHECK(ck == NULL && fuzz_msg_ok(&err));
    }
    return 0;
}
