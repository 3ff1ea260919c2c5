/*
** emu_cuda.h -- just enough of CUDA to run gpu/gpu_kernels.cuh on the CPU
** (tests/gpu/test_gpu_emu.cpp): the kernels' index arithmetic, shared-memory
** staging, barriers and warp shuffles are checked in CI, where no GPU is.
**
** A launch runs the grid's blocks one after another and the threads of a
** block as std::threads: __syncthreads is a barrier of the block, a warp
** shuffle a barrier of the warp around a 32-slot exchange buffer (so every
** lane of a warp must reach it, as on the GPU with a full mask), and
** __shared__ is `static` (one copy, used by one block at a time).  fp16 and
** bf16 are their bit patterns with gpu_ref.h's round-to-nearest-even
** conversions.  Speed means nothing here.
*/
#ifndef RWKV_TESTS_GPU_EMU_CUDA_H
#define RWKV_TESTS_GPU_EMU_CUDA_H

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

extern "C" {
#include "gpu_ref.h"
}

using std::min;

struct emu_dim3 {
    unsigned x, y, z;
};
inline thread_local emu_dim3 threadIdx, blockIdx;
inline emu_dim3 blockDim, gridDim;
inline thread_local std::barrier<> *emu_block_bar, *emu_warp_bar;
inline thread_local double *emu_warp_buf;

#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
#define __launch_bounds__(n)
#define __grid_constant__
#define __shared__ static

static inline void
__syncthreads()
{
    emu_block_bar->arrive_and_wait();
}

template <typename F>
static inline F
__shfl_xor_sync(unsigned mask, F v, int lane_mask)
{
    int lane = (int)(threadIdx.x & 31);
    F r;

    (void)mask;
    emu_warp_bar->arrive_and_wait();   /* the previous exchange is read */
    emu_warp_buf[lane] = (double)v;
    emu_warp_bar->arrive_and_wait();
    r = (F)emu_warp_buf[lane ^ lane_mask];
    return r;
}

static inline float
__uint_as_float(uint32_t u)
{
    float f;

    memcpy(&f, &u, 4);
    return f;
}

struct float2 {
    float x, y;
};
struct float4 {
    float x, y, z, w;
};
struct uint4 {
    uint32_t x, y, z, w;
};
struct char4 {
    int8_t x, y, z, w;
};
static inline float4 make_float4(float a, float b, float c, float d) { return { a, b, c, d }; }

struct __half {
    uint16_t bits;
};
struct __half2 {
    __half lo, hi;
};
struct __nv_bfloat16 {
    uint16_t bits;
};
static inline float __half2float(__half h) { return ref_f16_to_f32(h.bits); }
static inline float2 __half22float2(__half2 h)
{
    return { ref_f16_to_f32(h.lo.bits), ref_f16_to_f32(h.hi.bits) };
}
static inline __half __float2half_rn(float f) { return { ref_f32_to_f16(f) }; }
static inline __nv_bfloat16 __float2bfloat16_rn(float f) { return { ref_f32_to_bf16(f) }; }

/* KERNEL(ARGS...) over GRID blocks of BLOCK threads (1-D blocks). */
template <typename K, typename... A>
static void
emu_launch(emu_dim3 grid, unsigned block, K kernel, A... args)
{
    unsigned nw = (block + 31) / 32;

    gridDim = grid;
    blockDim = { block, 1, 1 };
    for (unsigned by = 0; by < grid.y; by++)
        for (unsigned bx = 0; bx < grid.x; bx++) {
            std::barrier<> bar((std::ptrdiff_t)block);
            std::vector<std::unique_ptr<std::barrier<>>> wbar;
            std::vector<double> buf((size_t)nw * 32);
            std::vector<std::thread> th;

            for (unsigned w = 0; w < nw; w++)
                wbar.emplace_back(new std::barrier<>((std::ptrdiff_t)std::min(32u, block - 32 * w)));
            for (unsigned t = 0; t < block; t++)
                th.emplace_back([&, t] {
                    threadIdx = { t, 0, 0 };
                    blockIdx = { bx, by, 0 };
                    emu_block_bar = &bar;
                    emu_warp_bar = wbar[t / 32].get();
                    emu_warp_buf = buf.data() + (size_t)(t / 32) * 32;
                    kernel(args...);
                });
            for (auto &x : th)
                x.join();
        }
}

#endif
