/*
** hash.h -- the two small non-cryptographic hashes the model code shares:
** FNV-1a over bytes and the splitmix64 finaliser.  Used by the model's
** content fingerprint (model.c) and the random-model generator's per-tensor
** streams (model_gen.c); both results are stored or compared across runs,
** so these functions never change.
*/
#ifndef RWKV_HASH_H
#define RWKV_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_FNV_OFFSET 1469598103934665603ULL
#define HASH_FNV_PRIME 1099511628211ULL

/* FNV-1a: H updated with the N bytes at P (borrowed). */
static inline uint64_t
hash_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;

    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= HASH_FNV_PRIME;
    }
    return h;
}

/* The splitmix64 output function (a bijection of 64-bit values). */
static inline uint64_t
hash_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif
