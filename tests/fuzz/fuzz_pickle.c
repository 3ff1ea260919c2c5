/*
** fuzz_pickle.c -- libFuzzer harness: raw data.pkl bytes.
**
**   build-fuzz/fuzz_pickle -dict=tests/fuzz/ckpt.dict tests/fuzz/corpus/pickle
**
** The input runs through pkl_run alone, then wrapped in a stored zip
** ("fuzz/data.pkl" plus storages fuzz/data/0..3 of 0, 24, 256 and 4096
** bytes) through ckpt_open_mem, so tensors built by the VM are reconciled
** with real entries and read element by element.
*/
#include <stdint.h>

#include "../../core/io/pickle.h"
#include "fuzz_common.h"

#include "fuzz_entry.h"

static void
fpk_put(uint8_t **p, size_t *n, const void *src, size_t len)
{
    memcpy(*p + *n, src, len);
    *n += len;
}

static void
fpk_u16(uint8_t **p, size_t *n, unsigned v)
{
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    fpk_put(p, n, b, 2);
}

static void
fpk_u32(uint8_t **p, size_t *n, uint32_t v)
{
    fpk_u16(p, n, v & 0xffff);
    fpk_u16(p, n, v >> 16);
}

/* A minimal stored zip (no alignment, classic EOCD) around the pickle. */
static uint8_t *
fpk_wrap(const uint8_t *pkl, size_t len, size_t *out_len)
{
    static const char *const names[5] = {"fuzz/data.pkl", "fuzz/data/0", "fuzz/data/1",
                                         "fuzz/data/2", "fuzz/data/3"};
    static uint8_t fill[4096];
    size_t sizes[5] = {len, 0, 24, 256, 4096}, lho[5], n = 0, cd;
    uint8_t *p = malloc(len + 4096 + 256 + 24 + 5 * (30 + 46 + 2 * 16) + 22);

    if (p == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof fill; i++)
        fill[i] = (uint8_t)(i * 37u + 11u);
    for (int i = 0; i < 5; i++) {
        const void *d = i == 0 ? (const void *)pkl : (const void *)fill;
        lho[i] = n;
        fpk_u32(&p, &n, 0x04034b50u);
        fpk_u16(&p, &n, 20), fpk_u16(&p, &n, 0), fpk_u16(&p, &n, 0);
        fpk_u16(&p, &n, 0), fpk_u16(&p, &n, 0);
        fpk_u32(&p, &n, 0), fpk_u32(&p, &n, 0), fpk_u32(&p, &n, 0);
        fpk_u16(&p, &n, (unsigned)strlen(names[i])), fpk_u16(&p, &n, 0);
        fpk_put(&p, &n, names[i], strlen(names[i]));
        fpk_put(&p, &n, d, sizes[i]);
    }
    cd = n;
    for (int i = 0; i < 5; i++) {
        const uint8_t *d = i == 0 ? pkl : fill;
        uint32_t crc = 0xffffffffu;
        for (size_t k = 0; k < sizes[i]; k++) {
            crc ^= d[k];
            for (int b = 0; b < 8; b++)
                crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
        }
        fpk_u32(&p, &n, 0x02014b50u);
        fpk_u16(&p, &n, 20), fpk_u16(&p, &n, 20), fpk_u16(&p, &n, 0), fpk_u16(&p, &n, 0);
        fpk_u16(&p, &n, 0), fpk_u16(&p, &n, 0);
        fpk_u32(&p, &n, ~crc), fpk_u32(&p, &n, (uint32_t)sizes[i]), fpk_u32(&p, &n, (uint32_t)sizes[i]);
        fpk_u16(&p, &n, (unsigned)strlen(names[i])), fpk_u16(&p, &n, 0), fpk_u16(&p, &n, 0);
        fpk_u16(&p, &n, 0), fpk_u16(&p, &n, 0), fpk_u32(&p, &n, 0), fpk_u32(&p, &n, (uint32_t)lho[i]);
        fpk_put(&p, &n, names[i], strlen(names[i]));
    }
    fpk_u32(&p, &n, 0x06054b50u);
    fpk_u16(&p, &n, 0), fpk_u16(&p, &n, 0), fpk_u16(&p, &n, 5), fpk_u16(&p, &n, 5);
    fpk_u32(&p, &n, (uint32_t)(n - cd - 12)), fpk_u32(&p, &n, (uint32_t)cd), fpk_u16(&p, &n, 0);
    *out_len = n;
    return p;
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    pkl_doc *doc = NULL;
    ckpt *ck = NULL;
    rwkv_err err;
    uint8_t *zip;
    size_t zlen = 0;

    if (size > (1u << 20))
        return 0;
    if (pkl_run(data, size, "fuzz", NULL, &doc, &err) == RWKV_OK) {
        FUZZ_CHECK(pkl_root(doc) != NULL);
        pkl_free(doc);
    } else {
        FUZZ_CHECK(doc == NULL && fuzz_msg_ok(&err));
    }
    zip = fpk_wrap(data, size, &zlen);
    if (zip == NULL)
        return 0;
    if (ckpt_open_mem(zip, zlen, "fuzz", NULL, &ck, &err) == RWKV_OK) {
        fuzz_touch_all(ck);
        ckpt_close(ck);
    } else {
        FUZZ_CHECK(ck == NULL && fuzz_msg_ok(&err));
    }
    free(zip);
    return 0;
}
