/*
** rng.h -- the seeded pseudo-random generator behind sampling.
**
** xoshiro256** (Blackman & Vigna) seeded through splitmix64, so any 64-bit
** seed gives a well-mixed, never-all-zero state.  Same seed, same stream, on
** every platform: that is what lets a reply be replayed exactly.
*/
#ifndef RWKV_RNG_H
#define RWKV_RNG_H

#include <stdint.h>

typedef struct rng {
    uint64_t s[4];   /* xoshiro256** state, never all zero */
} rng;

/* Seed R from SEED (splitmix64 expansion). */
void     rng_seed(rng *r, uint64_t seed);
/* Next 64 random bits. */
uint64_t rng_next(rng *r);
/* Uniform double in [0, 1) with 53 random bits. */
double   rng_uniform(rng *r);
/* One splitmix64 step: mixes X into a well-distributed 64-bit value. */
uint64_t rng_mix(uint64_t x);
/*
** A seed for when the user gave none: mixed from the real-time and
** monotonic clocks, the process id and a stack address (no file I/O).
** Not for cryptography.
*/
uint64_t rng_random_seed(void);

#endif
