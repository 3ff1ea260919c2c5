/*
** cpuid.c -- x86 feature detection with CPUID + XGETBV (inline asm, so this
** file needs no ISA flags).  See cpuid.h for the contract.
*/
#include "cpuid.h"

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)

static void
cpuid_raw(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
    uint32_t a, b, c, d;

    __asm__ volatile("cpuid"
                     : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
                     : "a"(leaf), "c"(sub));
    r[0] = a;
    r[1] = b;
    r[2] = c;
    r[3] = d;
}

static uint64_t
cpuid_xgetbv0(void)
{
    uint32_t lo, hi;

    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

unsigned
cpuid_features(void)
{
    uint32_t r[4], max_leaf;
    unsigned f = 0;
    int os_ymm, os_zmm;
    uint64_t xcr0;

    cpuid_raw(0, 0, r);
    max_leaf = r[0];
    if (max_leaf < 7)
        return 0;
    cpuid_raw(1, 0, r);
    /* OSXSAVE (ecx bit 27) is required before XGETBV may run. */
    if (!(r[2] & (1u << 27)))
        return 0;
    xcr0 = cpuid_xgetbv0();
    os_ymm = (xcr0 & 0x6) == 0x6;        /* XMM + YMM state */
    os_zmm = os_ymm && (xcr0 & 0xe0) == 0xe0; /* opmask + ZMM0-15 hi + ZMM16-31 */
    if (!os_ymm)
        return 0;
    if (r[2] & (1u << 12))
        f |= CPUID_FMA;
    if (r[2] & (1u << 29))
        f |= CPUID_F16C;

    cpuid_raw(7, 0, r);
    if (r[1] & (1u << 5))
        f |= CPUID_AVX2;
    if (os_zmm) {
        if (r[1] & (1u << 16))
            f |= CPUID_AVX512F;
        if (r[1] & (1u << 17))
            f |= CPUID_AVX512DQ;
        if (r[1] & (1u << 30))
            f |= CPUID_AVX512BW;
        if (r[1] & (1u << 31))
            f |= CPUID_AVX512VL;
        if (r[2] & (1u << 11))
            f |= CPUID_AVX512VNNI;
    }
    if (r[0] >= 1) {
        cpuid_raw(7, 1, r);
        if (os_zmm && (r[0] & (1u << 5)))
            f |= CPUID_AVX512BF16;
        if (r[0] & (1u << 4))
            f |= CPUID_AVX_VNNI;
    }
    return f;
}

#else

unsigned
cpuid_features(void)
{
    return 0;
}

#endif

char *
cpuid_feature_names(unsigned f, char *buf, unsigned long n)
{
    static const struct {
        unsigned    bit;
        const char *name;
    } names[] = {
        {CPUID_AVX2, "avx2"},         {CPUID_FMA, "fma"},           {CPUID_F16C, "f16c"},
        {CPUID_AVX512F, "avx512f"},   {CPUID_AVX512BW, "avx512bw"}, {CPUID_AVX512VL, "avx512vl"},
        {CPUID_AVX512DQ, "avx512dq"}, {CPUID_AVX512BF16, "bf16"},   {CPUID_AVX512VNNI, "vnni"},
        {CPUID_AVX_VNNI, "avx_vnni"},
    };
    unsigned long at = 0;

    if (n == 0)
        return buf;
    buf[0] = '\0';
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *s = names[i].name;
        if (!(f & names[i].bit))
            continue;
        if (at > 0 && at + 1 < n)
            buf[at++] = ' ';
        while (*s != '\0' && at + 1 < n)
            buf[at++] = *s++;
        buf[at] = '\0';
    }
    if (at == 0) {
        const char *s = "none";
        while (*s != '\0' && at + 1 < n)
            buf[at++] = *s++;
        buf[at] = '\0';
    }
    return buf;
}
