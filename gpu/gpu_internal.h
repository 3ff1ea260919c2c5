/*
** gpu_internal.h -- internal to gpu/: the context struct shared by
** gpu_device.c, gpu_blas.c and gpu_kernels.cu, and the CUDA error helper.
** Needs the CUDA headers (only ever included by CUDA-built files).
*/
#ifndef RWKV_GPU_INTERNAL_H
#define RWKV_GPU_INTERNAL_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cuBLAS workspace per context: set explicitly so cuBLAS never allocates
 * while a graph is being captured (32 MiB is NVIDIA's figure for Hopper). */
#define GPU_BLAS_WORKSPACE ((size_t)32 << 20)

struct gpu_ctx {
    int            dev;
    cudaStream_t   stream;
    cublasHandle_t blas;
    void          *blas_ws;   /* GPU_BLAS_WORKSPACE bytes of device memory */
};

/*
** Fill ERR from a CUDA runtime error RC met while doing WHAT ("launching
** wkv7", ...) and return the rwkv status (RWKV_ENOMEM for out-of-memory,
** RWKV_ENOTSUP for a missing device/driver/kernel image, RWKV_EIO else).
** The message reads "cuda: WHAT on device N: <cudaGetErrorString>".
*/
int gpu_cuda_fail(rwkv_err *err, int rc, int dev, const char *what);
/* Make G's device current for the calling thread. */
int gpu_enter(gpu_ctx *g, rwkv_err *err);

/*
** cuBLAS, loaded with dlopen on the first context (gpu_blas.c): linking it
** would make every run of a CUDA build map and relocate ~500 MB of libraries
** at start (0.2-0.3 s, 200 MB RSS measured), GPU or not.  The CUDA runtime
** itself is small and stays linked.
*/
struct gpu_blas_api {
    cublasStatus_t (*create)(cublasHandle_t *);
    cublasStatus_t (*destroy)(cublasHandle_t);
    cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
    cublasStatus_t (*set_workspace)(cublasHandle_t, void *, size_t);
    cublasStatus_t (*set_math_mode)(cublasHandle_t, cublasMath_t);
    cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                              int, const void *, const void *, cudaDataType, int,
                              const void *, cudaDataType, int, const void *, void *,
                              cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
};
extern struct gpu_blas_api gpu_blas;
/* Load cuBLAS once (thread-safe); RWKV_ENOTSUP naming the library when it
 * cannot be loaded. */
int gpu_blas_load(rwkv_err *err);

#ifdef __cplusplus
}
#endif

#endif
