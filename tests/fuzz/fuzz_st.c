/*
** fuzz_st.c -- libFuzzer harness: safetensors files.
**
**   build-fuzz/fuzz_st -dict=tests/fuzz/ckpt.dict tests/fuzz/corpus/st
**
** Input bytes are used as the file; in addition, to reach the JSON and
** tiling checks more often, an input starting with '{' is treated as a
** header and given a correct length prefix and a 64-byte data section.
*/
#include <stdint.h>

#include "fuzz_common.h"

#include "fuzz_entry.h"

static void
fst_open(const uint8_t *data, size_t size)
{
    ckpt *ck = NULL;
    rwkv_err err;

    if (ckpt_open_mem(data, size, "fuzz", NULL, &ck, &err) == RWKV_OK) {
        fuzz_touch_all(ck);
        ckpt_close(ck);
    } else {
        FUZZ_CHECK(ck == NULL && fuzz_msg_ok(&err));
    }
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    fst_open(data, size);
    if (size > 0 && data[0] == '{' && size < (1u << 20)) {
        uint8_t *p = malloc(8 + size + 64);
        if (p == NULL)
            return 0;
        for (int i = 0; i < 8; i++)
            p[i] = (uint8_t)((uint64_t)size >> (8 * i));
        memcpy(p + 8, data, size);
        for (int i = 0; i < 64; i++)
            p[8 + size + (size_t)i] = (uint8_t)(i * 5 + 1);
        fst_open(p, 8 + size + 64);
        fst_open(p, 8 + size);          /* and with no data section */
        free(p);
    }
    return 0;
}
