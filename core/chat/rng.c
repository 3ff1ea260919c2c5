/*
** rng.c -- xoshiro256** with splitmix64 seeding.  See rng.h.
**
** Written from the published algorithm descriptions: xoshiro256** output is
** rotl(s1 * 5, 7) * 9, then the linear engine advances the four words;
** splitmix64 adds the golden-ratio increment and applies two xor-shift-
** multiply rounds.
*/
#include "rng.h"

#include <stdint.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t
rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t
rng_mix(uint64_t x)
{
    uint64_t z = x + 0x9e3779b97f4a7c15ull;

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void
rng_seed(rng *r, uint64_t seed)
{
    uint64_t x = seed;

    for (int i = 0; i < 4; i++) {
        r->s[i] = rng_mix(x);
        x += 0x9e3779b97f4a7c15ull;
    }
    if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0)
        r->s[0] = 1;    /* unreachable in practice; all-zero is a fixed point */
}

uint64_t
rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

double
rng_uniform(rng *r)
{
    return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);  /* 2^-53 */
}

uint64_t
rng_random_seed(void)
{
    struct timespec rt, mono;
    uint64_t x;

    clock_gettime(CLOCK_REALTIME, &rt);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    x = rng_mix((uint64_t)rt.tv_sec * 1000000007ull + (uint64_t)rt.tv_nsec);
    x = rng_mix(x ^ ((uint64_t)mono.tv_nsec << 20) ^ (uint64_t)mono.tv_sec);
    x = rng_mix(x ^ (uint64_t)getpid());
    x = rng_mix(x ^ (uint64_t)(uintptr_t)&rt);   /* stack address: ASLR entropy */
    return x;
}
