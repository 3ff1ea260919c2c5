/*
** dtype.h -- scalar conversions between float32 and the 16-bit float formats
** found in checkpoints (IEEE binary16 "fp16" and bfloat16).
**
** Sources may be unaligned (tensor data from a foreign zip writer), so the
** bulk helpers read element bytes with memcpy.  Little-endian host assumed
** (the checkpoint reader refuses big-endian archives).
*/
#ifndef RWKV_DTYPE_H
#define RWKV_DTYPE_H

#include <stddef.h>
#include <stdint.h>

float    dtype_bf16_to_f32(uint16_t h);
float    dtype_f16_to_f32(uint16_t h);
/* Round to nearest even; NaN stays NaN (quiet), overflow becomes inf. */
uint16_t dtype_f32_to_bf16(float f);
uint16_t dtype_f32_to_f16(float f);

/* DST[i] = convert(SRC[i]) for N elements; SRC may be unaligned. */
void dtype_bf16_to_f32_n(const void *src, float *dst, size_t n);
void dtype_f16_to_f32_n(const void *src, float *dst, size_t n);

#endif
