/*
** le.h -- little-endian loads and stores of 16/32/64-bit integers at any
** alignment, for the byte formats the project reads and writes (zip and
** pickle in checkpoints, snapshot blobs).  Header-only.
*/
#ifndef RWKV_LE_H
#define RWKV_LE_H

#include <stdint.h>

static inline uint16_t
le_get16(const void *q)
{
    const uint8_t *p = q;
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t
le_get32(const void *q)
{
    const uint8_t *p = q;
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static inline uint64_t
le_get64(const void *q)
{
    const uint8_t *p = q;
    return (uint64_t)le_get32(p) | ((uint64_t)le_get32(p + 4) << 32);
}

static inline void
le_put16(void *q, uint32_t v)
{
    uint8_t *p = q;
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void
le_put32(void *q, uint32_t v)
{
    uint8_t *p = q;
    le_put16(p, v & 0xffffu);
    le_put16(p + 2, v >> 16);
}

static inline void
le_put64(void *q, uint64_t v)
{
    uint8_t *p = q;
    le_put32(p, (uint32_t)v);
    le_put32(p + 4, (uint32_t)(v >> 32));
}

#endif
