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

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define GPU_STR2(x) #x
#define GPU_STR(x) GPU_STR2(x)
/* The cuBLAS this was compiled against (its soname), then fallbacks. */
static const char *const gpu_blas_names[] = {
    "libcublas.so." GPU_STR(CUBLAS_VER_MAJOR),
    "/usr/local/cuda/lib64/libcublas.so." GPU_STR(CUBLAS_VER_MAJOR),
    "libcublas.so",
};

struct gpu_blas_api gpu_blas;
static pthread_once_t gpu_blas_once = PTHREAD_ONCE_INIT;
static int gpu_blas_ok;
static char gpu_blas_why[256];

/* dlsym into a function pointer without a cast between object and function
 * pointers (ISO C: copy the bytes). */
static int
gpu_blas_sym(void *lib, const char *name, void *fnp, size_t size)
{
    void *p = dlsym(lib, name);

    if (p == NULL) {
        snprintf(gpu_blas_why, sizeof gpu_blas_why, "symbol %s missing", name);
        return 0;
    }
    memcpy(fnp, &p, size);
    return 1;
}

static void
gpu_blas_init(void)
{
    void *lib = NULL;

    /* compile-time checks that the pointers have the header's types (sizeof
     * does not evaluate, so nothing links against cuBLAS) */
    (void)sizeof(gpu_blas.create == &cublasCreate_v2);
    (void)sizeof(gpu_blas.destroy == &cublasDestroy_v2);
    (void)sizeof(gpu_blas.set_stream == &cublasSetStream_v2);
    (void)sizeof(gpu_blas.set_workspace == &cublasSetWorkspace_v2);
    (void)sizeof(gpu_blas.set_math_mode == &cublasSetMathMode);
    (void)sizeof(gpu_blas.gemm_ex == &cublasGemmEx);
    for (size_t i = 0; lib == NULL && i < sizeof gpu_blas_names / sizeof gpu_blas_names[0]; i++)
        lib = dlopen(gpu_blas_names[i], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *e = dlerror();
        snprintf(gpu_blas_why, sizeof gpu_blas_why, "%s", e ? e : "not found");
        return;
    }
    gpu_blas_ok =
        gpu_blas_sym(lib, "cublasCreate_v2", &gpu_blas.create, sizeof gpu_blas.create) &&
        gpu_blas_sym(lib, "cublasDestroy_v2", &gpu_blas.destroy, sizeof gpu_blas.destroy) &&
        gpu_blas_sym(lib, "cublasSetStream_v2", &gpu_blas.set_stream, sizeof gpu_blas.set_stream) &&
        gpu_blas_sym(lib, "cublasSetWorkspace_v2", &gpu_blas.set_workspace,
                     sizeof gpu_blas.set_workspace) &&
        gpu_blas_sym(lib, "cublasSetMathMode", &gpu_blas.set_math_mode,
                     sizeof gpu_blas.set_math_mode) &&
        gpu_blas_sym(lib, "cublasGemmEx", &gpu_blas.gemm_ex, sizeof gpu_blas.gemm_ex);
    /* the library stays loaded for the process's lifetime */
}

int
gpu_blas_load(rwkv_err *err)
{
    pthread_once(&gpu_blas_once, gpu_blas_init);
    if (gpu_blas_ok)
        return RWKV_OK;
    return rwkv_errf(err, RWKV_ENOTSUP, "cublas: cannot load %s (%s)", gpu_blas_names[0],
                     gpu_blas_why);
}

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
    return gpu_gemm_ldx(g, dt, w, rows, cols, x, cols, t, y, ldy, beta, err);
}

int
gpu_gemm_ldx(gpu_ctx *g, enum gpu_dtype dt, const void *w, int rows, int cols, const void *x,
             int ldx, int t, float *y, int ldy, float beta, rwkv_err *err)
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
    if (rows <= 0 || cols <= 0 || t <= 0 || ldy < rows || ldx < cols)
        return rwkv_errf(err, RWKV_EINVAL, "cublas: bad gemm shape rows %d cols %d T %d ldx %d "
                         "ldy %d", rows, cols, t, ldx, ldy);
    {
        int st = gpu_enter(g, err);
        if (st != RWKV_OK)
            return st;
    }
    /* X [T][ldx] row-major is the column-major cols x T matrix X^T, ld ldx */
    s = gpu_blas.gemm_ex(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, rows, t, cols, &alpha, w, ty, cols,
                     x, ty, ldx, &beta, y, CUDA_R_32F, ldy, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT);
    if (s != CUBLAS_STATUS_SUCCESS)
        return rwkv_errf(err, s == CUBLAS_STATUS_ALLOC_FAILED ? RWKV_ENOMEM : RWKV_EIO,
                         "cublas: gemm %dx%d by T %d on device %d: %s", rows, cols, t, g->dev,
                         gpu_blas_status_str(s));
    return RWKV_OK;
}
