/*
** store_blob.c -- the snapshot blob: a fixed 64-byte header, then the state
** as little-endian float32, stored raw.
**
**   off  size  field
**     0     8  magic "RWKVSNAP"
**     8     2  blob format version (1)
**    10     2  encoding (0 = raw float32 LE; others reserved)
**    12     4  precision (enum store_precision of the strategy)
**    16     8  n_floats
**    24     8  model fingerprint
**    32    16  n_layer, n_embd, n_head, head_size (u32 each)
**    48     8  model version string, NUL padded
**    56     8  checksum of bytes [0, 56) and of the payload
**    64   4*n  payload
**
** Why raw (measured on the reference fixtures' states, $RWKV_FIXTURES/tiny/
** *state.bin and world/world-7v0/chat_demo_flow-final-state.bin; see
** docs/testing.md; ratio = stored/raw):
**
**   state (floats)              zlib-6  shuffle+zlib  shuffle+RLE  shuffle+H0*
**   7v0 L (50688)               0.939   0.867         1.003        0.844
**   7v0 ST1 (50688)             0.931   0.863         1.003        0.837
**   rand7h2 L (25344)           0.933   0.878         1.004        0.840
**   6v0 L (15360)               0.948   0.882         1.003        0.858
**   4v0 L (2560)                0.846   0.796         0.878        0.814
**   world-7v0 chat (8448)       0.934   0.891         1.003        0.836
**   (* H0 = order-0 entropy bound of each byte plane: the best any byte-wise
**      entropy coder could do.)
**
** The three low bytes of each float are noise (7.9-8.0 bits/byte); only the
** sign+exponent byte compresses (~3 bits).  So a lossless codec can save at
** most ~16%, a byte-plane shuffle + RLE (the libc-only option) saves nothing
** (it grows the blob by 0.3%), and the size of a long conversation is bounded
** by the retention policy instead (store_snapshot.c).  The encoding field
** leaves room for an exponent-plane entropy coder later.
*/
#include "store.h"

#include <string.h>

#include "../core/io/le.h"

#define BLOB_MAGIC   "RWKVSNAP"
#define BLOB_VERSION 1
#define BLOB_ENC_RAW 0
#define BLOB_CHECKED 56     /* header bytes covered by the checksum */

/*
** A 64-bit checksum, 8 bytes per step (about 1 ns per word: a 13 MB state
** costs a few ms).  It catches corruption, not adversaries.
*/
static uint64_t
mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

static uint64_t
hash_update(uint64_t h, const unsigned char *p, size_t n)
{
    size_t i = 0;

    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h ^= w * 0x9e3779b97f4a7c15ull;
        h = (h << 29 | h >> 35) * 0xbf58476d1ce4e5b9ull;
    }
    for (; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t
blob_checksum(const unsigned char *blob, size_t n_payload)
{
    uint64_t h = 0x243f6a8885a308d3ull;
    h = hash_update(h, blob, BLOB_CHECKED);
    h = hash_update(h, blob + STORE_BLOB_HEADER, n_payload);
    return mix(h ^ n_payload);
}

size_t
store_blob_size(size_t n)
{
    uint64_t b = (uint64_t)n * 4 + STORE_BLOB_HEADER;   /* n is capped: no overflow */

    if (n > STORE_MAX_STATE_FLOATS || b > SIZE_MAX)
        return 0;
    return (size_t)b;
}

void
store_blob_encode(const float *state, size_t n, const store_state_meta *meta,
                  unsigned char *blob)
{
    memset(blob, 0, STORE_BLOB_HEADER);
    memcpy(blob, BLOB_MAGIC, 8);
    le_put16(blob + 8, BLOB_VERSION);
    le_put16(blob + 10, BLOB_ENC_RAW);
    le_put32(blob + 12, (uint32_t)meta->precision);
    le_put64(blob + 16, n);
    le_put64(blob + 24, meta->fingerprint);
    le_put32(blob + 32, (uint32_t)meta->n_layer);
    le_put32(blob + 36, (uint32_t)meta->n_embd);
    le_put32(blob + 40, (uint32_t)meta->n_head);
    le_put32(blob + 44, (uint32_t)meta->head_size);
    strncpy((char *)blob + 48, meta->version, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    for (size_t i = 0; i < n; i++) {
        uint32_t w;
        memcpy(&w, state + i, 4);
        le_put32(blob + STORE_BLOB_HEADER + 4 * i, w);
    }
#else
    memcpy(blob + STORE_BLOB_HEADER, state, n * 4);
#endif
    le_put64(blob + BLOB_CHECKED, blob_checksum(blob, n * 4));
}

uint64_t
store_blob_hash(const unsigned char *blob)
{
    return le_get64(blob + BLOB_CHECKED);
}

int
store_blob_decode(const unsigned char *blob, size_t len, store_state_meta *meta, size_t *n,
                  float *out, size_t cap, rwkv_err *err)
{
    uint64_t nf;

    *n = 0;
    memset(meta, 0, sizeof *meta);
    if (len < STORE_BLOB_HEADER)
        return rwkv_errf(err, RWKV_EFORMAT, "snapshot blob truncated (%zu bytes, header is %d)",
                         len, STORE_BLOB_HEADER);
    if (memcmp(blob, BLOB_MAGIC, 8) != 0)
        return rwkv_errf(err, RWKV_EFORMAT, "snapshot blob has no RWKVSNAP header");
    if (le_get16(blob + 8) != BLOB_VERSION)
        return rwkv_errf(err, RWKV_EFORMAT, "snapshot blob format v%u is not supported (v%d)",
                         le_get16(blob + 8), BLOB_VERSION);
    if (le_get16(blob + 10) != BLOB_ENC_RAW)
        return rwkv_errf(err, RWKV_EFORMAT, "snapshot blob encoding %u is not supported",
                         le_get16(blob + 10));
    nf = le_get64(blob + 16);
    if (nf > STORE_MAX_STATE_FLOATS)
        return rwkv_errf(err, RWKV_EFORMAT, "snapshot blob claims %llu floats (limit %u)",
                         (unsigned long long)nf, STORE_MAX_STATE_FLOATS);
    if (len != STORE_BLOB_HEADER + nf * 4)
        return rwkv_errf(err, RWKV_EFORMAT, "snapshot blob is %zu bytes, expected %llu for %llu floats",
                         len, (unsigned long long)(STORE_BLOB_HEADER + nf * 4), (unsigned long long)nf);
    if (le_get64(blob + BLOB_CHECKED) != blob_checksum(blob, (size_t)nf * 4))
        return rwkv_errf(err, RWKV_EFORMAT, "snapshot blob checksum mismatch (corrupt)");
    /* the version string: at most 7 bytes, NUL padded (one encoding only) */
    {
        int i = 48;
        while (i < 55 && blob[i] != 0)
            i++;
        while (i < 56 && blob[i] == 0)
            i++;
        if (i != 56)
            return rwkv_errf(err, RWKV_EFORMAT, "snapshot blob has a malformed model version");
    }
    meta->precision = (int)le_get32(blob + 12);
    meta->fingerprint = le_get64(blob + 24);
    meta->n_layer = (int)le_get32(blob + 32);
    meta->n_embd = (int)le_get32(blob + 36);
    meta->n_head = (int)le_get32(blob + 40);
    meta->head_size = (int)le_get32(blob + 44);
    memcpy(meta->version, blob + 48, 8);
    meta->version[7] = '\0';
    *n = (size_t)nf;
    if (out == NULL)
        return RWKV_OK;
    if (cap != nf)
        return rwkv_errf(err, RWKV_ESHAPE, "snapshot holds %llu floats, the model's state has %zu",
                         (unsigned long long)nf, cap);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    for (size_t i = 0; i < nf; i++) {
        uint32_t w = le_get32(blob + STORE_BLOB_HEADER + 4 * i);
        memcpy(out + i, &w, 4);
    }
#else
    memcpy(out, blob + STORE_BLOB_HEADER, (size_t)nf * 4);
#endif
    return RWKV_OK;
}
