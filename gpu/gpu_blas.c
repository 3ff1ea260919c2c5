/*
** gpu_blas.c -- cuBLAS products: fp16 / bf16 (or fp32) weights and
** activations, fp32 accumulation and fp32 output (CUBLAS_COMPUTE_32F), so no
** layer rescaling is needed for fp16 (the reference's `rescale_layer` guards
** fp16 *outputs* against overflow; ours stay fp32).
**
** Row-major to cuBLAS's column-major: W [rows][cols] row-major is the
** column-major matrix W^T (cols x rows), X [T][cols] is X^T (cols x T) and
** Y [T][ldy] is Y^T (rows x T, ld ldy), so Y^T = op_T(W^T) X^T:
**     gemm(OP_T, OP_N, m = rows, n = T, k = cols, A = W lda = cols,
**          B = X ldb = cols, C = Y ldc = ldy).
*/
#include "gpu_internal.h"

static const char *
gpu_blas_status_str(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_NOT_INITIALIZED:  return "not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED:     return "out of memory";
    case CUBLAS_STATUS_INVALID_VALUE:    return "invalid value";
    case CUBLAS_STATUS_ARCH_MISMATCH:    return "unsupported by this GPU";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "execution failed";
    case CUBLAS_STATUS_NOT_SUPPORTED:    return "not supported";
    case CUBLAS_STATUS_INTERNAL_ERROR:   return "internal error";
    default:                             return "error";
    }
}

int
gpu_gemm(gpu_ctx *g, enum gpu_dtype dt, const void *w, int rows, int cols, const void *x,
         int t, float *y, int ldy, float beta, rwkv_err *err)
{
    const float alpha = 1.0f;
    cudaDataType_t ty;
    cublasStatus_t s;

    if (dt == GPU_F16)
        ty = CUDA_R_16F;
    else if (dt == GPU_BF16)
        ty = CUDA_R_16BF;
    else if (dt == GPU_F32)
        ty = CUDA_R_32F;   /* CUBLAS_COMPUTE_32F: true fp32, never TF32 */
    else
        return rwkv_errf(err, RWKV_EINVAL, "cublas: gemm: unknown dtype %d", (int)dt);
    if (rows <= 0 || cols <= 0 || t <= 0 || ldy < rows)
        return rwkv_errf(err, RWKV_EINVAL, "cublas: bad gemm shape rows %d cols %d T %d ldy %d",
                         rows, cols, t, ldy);
    s = cublasGemmEx(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, rows, t, cols, &alpha, w, ty, cols,
                     x, ty, cols, &beta, y, CUDA_R_32F, ldy, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT);
    if (s != CUBLAS_STATUS_SUCCESS)
        return rwkv_errf(err, s == CUBLAS_STATUS_ALLOC_FAILED ? RWKV_ENOMEM : RWKV_EIO,
                         "cublas: gemm %dx%d by T %d on device %d: %s", rows, cols, t, g->dev,
                         gpu_blas_status_str(s));
    return RWKV_OK;
}
