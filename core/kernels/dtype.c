/*
** dtype.c -- fp16 / bf16 <-> fp32 scalar conversions.  See dtype.h.
**
** bf16 is the top half of an fp32, so widening is a shift.  fp16 widening
** handles subnormals by renormalising; narrowing rounds to nearest even like
** the hardware (and torch's .to()) does.
*/
#include "dtype.h"

#include <string.h>

static float
bits_to_f32(uint32_t u)
{
    float f;

    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t
f32_to_bits(float f)
{
    uint32_t u;

    memcpy(&u, &f, sizeof u);
    return u;
}

float
dtype_bf16_to_f32(uint16_t h)
{
    return bits_to_f32((uint32_t)h << 16);
}

float
dtype_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;

    if (exp == 0x1f)                       /* inf / NaN */
        return bits_to_f32(sign | 0x7f800000u | (man << 13));
    if (exp == 0) {
        if (man == 0)
            return bits_to_f32(sign);
        /* subnormal: shift the mantissa up until the implicit bit appears */
        exp = 127 - 15 + 1;
        while ((man & 0x400u) == 0) {
            man <<= 1;
            exp--;
        }
        man &= 0x3ffu;
        return bits_to_f32(sign | (exp << 23) | (man << 13));
    }
    return bits_to_f32(sign | ((exp + 127 - 15) << 23) | (man << 13));
}

uint16_t
dtype_f32_to_bf16(float f)
{
    uint32_t u = f32_to_bits(f);

    if ((u & 0x7fffffffu) > 0x7f800000u)   /* NaN: keep it a quiet NaN */
        return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);       /* round to nearest even */
    return (uint16_t)(u >> 16);
}

uint16_t
dtype_f32_to_f16(float f)
{
    uint32_t u = f32_to_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    int32_t  exp;
    uint32_t man, r;

    if (a > 0x7f800000u)
        return (uint16_t)(sign | 0x7e00u);
    if (a >= 0x477ff000u)                  /* rounds to >= 65520: inf */
        return (uint16_t)(sign | 0x7c00u);
    exp = (int32_t)(a >> 23) - 127 + 15;
    man = (a & 0x7fffffu) | 0x800000u;
    if (exp <= 0) {                        /* subnormal or zero */
        uint32_t shift = (uint32_t)(14 - exp);
        if (shift > 24)
            return sign;
        r = man >> shift;
        {
            uint32_t rem = man & ((1u << shift) - 1u), half = 1u << (shift - 1);
            if (rem > half || (rem == half && (r & 1u)))
                r++;
        }
        return (uint16_t)(sign | r);
    }
    r = ((uint32_t)exp << 10) | ((man >> 13) & 0x3ffu);
    {
        uint32_t rem = man & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (r & 1u)))
            r++;                           /* may carry into the exponent: fine */
    }
    return (uint16_t)(sign | r);
}

void
dtype_bf16_to_f32_n(const void *src, float *dst, size_t n)
{
    const unsigned char *p = src;

    for (size_t i = 0; i < n; i++) {
        uint16_t h;
        memcpy(&h, p + 2 * i, 2);
        dst[i] = dtype_bf16_to_f32(h);
    }
}

void
dtype_f16_to_f32_n(const void *src, float *dst, size_t n)
{
    const unsigned char *p = src;

    for (size_t i = 0; i < n; i++) {
        uint16_t h;
        memcpy(&h, p + 2 * i, 2);
        dst[i] = dtype_f16_to_f32(h);
    }
}
