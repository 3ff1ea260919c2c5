/*
** gpu_stub.c -- the GPU layer of a build without CUDA (CUDA=0 or no nvcc):
** every gpu_ function fails with RWKV_ENOTSUP "built without CUDA", so a
** `cuda` strategy gets one clear line; destructors accept anything.
*/
#include "gpu.h"

#define GPU_STUB_MSG "cuda: this rwkv-tui was built without CUDA (rebuild with CUDA=1)"

static int
gpu_stub(rwkv_err *err)
{
    return rwkv_errf(err, RWKV_ENOTSUP, GPU_STUB_MSG);
}

int gpu_compiled(void) { return 0; }

int
gpu_device_count(int *n, rwkv_err *err)
{
    *n = 0;
    return gpu_stub(err);
}

int
gpu_device_query(int dev, gpu_device_info *out, rwkv_err *err)
{
    (void)dev, (void)out;
    return gpu_stub(err);
}

int
gpu_ctx_create(int dev, gpu_ctx **out, rwkv_err *err)
{
    (void)dev;
    *out = NULL;
    return gpu_stub(err);
}

void gpu_ctx_destroy(gpu_ctx *g) { (void)g; }

int
gpu_sync(gpu_ctx *g, rwkv_err *err)
{
    (void)g;
    return gpu_stub(err);
}

int
gpu_alloc(gpu_ctx *g, size_t bytes, void **out, rwkv_err *err)
{
    (void)g, (void)bytes;
    *out = NULL;
    return gpu_stub(err);
}

void gpu_free(gpu_ctx *g, void *p) { (void)g, (void)p; }

int
gpu_host_alloc(gpu_ctx *g, size_t bytes, void **out, rwkv_err *err)
{
    (void)g, (void)bytes;
    *out = NULL;
    return gpu_stub(err);
}

void gpu_host_free(gpu_ctx *g, void *p) { (void)g, (void)p; }

int
gpu_upload(gpu_ctx *g, void *dst, const void *src, size_t bytes, rwkv_err *err)
{
    (void)g, (void)dst, (void)src, (void)bytes;
    return gpu_stub(err);
}

int
gpu_download(gpu_ctx *g, void *dst, const void *src, size_t bytes, rwkv_err *err)
{
    (void)g, (void)dst, (void)src, (void)bytes;
    return gpu_stub(err);
}

int
gpu_copy(gpu_ctx *g, void *dst, const void *src, size_t bytes, rwkv_err *err)
{
    (void)g, (void)dst, (void)src, (void)bytes;
    return gpu_stub(err);
}

int
gpu_zero(gpu_ctx *g, void *dst, size_t bytes, rwkv_err *err)
{
    (void)g, (void)dst, (void)bytes;
    return gpu_stub(err);
}

int
gpu_capture_begin(gpu_ctx *g, rwkv_err *err)
{
    (void)g;
    return gpu_stub(err);
}

int
gpu_capture_end(gpu_ctx *g, gpu_graph **out, rwkv_err *err)
{
    (void)g;
    *out = NULL;
    return gpu_stub(err);
}

int
gpu_graph_launch(gpu_ctx *g, gpu_graph *gr, rwkv_err *err)
{
    (void)g, (void)gr;
    return gpu_stub(err);
}

void gpu_graph_destroy(gpu_graph *gr) { (void)gr; }

int
gpu_gemm(gpu_ctx *g, enum gpu_dtype dt, const void *w, int rows, int cols, const void *x,
         int t, float *y, int ldy, float beta, rwkv_err *err)
{
    (void)g, (void)dt, (void)w, (void)rows, (void)cols, (void)x, (void)t, (void)y, (void)ldy;
    (void)beta;
    return gpu_stub(err);
}

int
gpu_convert(gpu_ctx *g, const float *src, enum gpu_dtype dt, void *dst, size_t n,
            rwkv_err *err)
{
    (void)g, (void)src, (void)dt, (void)dst, (void)n;
    return gpu_stub(err);
}

int
gpu_dequant_q8(gpu_ctx *g, const int8_t *q, const float *scales, int rows, int cols,
               enum gpu_dtype dt, void *dst, rwkv_err *err)
{
    (void)g, (void)q, (void)scales, (void)rows, (void)cols, (void)dt, (void)dst;
    return gpu_stub(err);
}

int
gpu_dequant_q4(gpu_ctx *g, const uint8_t *q, const uint32_t *dm, int rows, int cols,
               enum gpu_dtype dt, void *dst, rwkv_err *err)
{
    (void)g, (void)q, (void)dm, (void)rows, (void)cols, (void)dt, (void)dst;
    return gpu_stub(err);
}

int
gpu_matmul_batch(gpu_ctx *g, const gpu_mm_job *jobs, int n, int t, rwkv_err *err)
{
    (void)g, (void)jobs, (void)n, (void)t;
    return gpu_stub(err);
}

int
gpu_matmul_q8(gpu_ctx *g, const int8_t *q, const float *scales, int rows, int cols,
              const float *x, int t, float *y, rwkv_err *err)
{
    (void)g, (void)q, (void)scales, (void)rows, (void)cols, (void)x, (void)t, (void)y;
    return gpu_stub(err);
}

int
gpu_matmul_q4(gpu_ctx *g, const uint8_t *q, const uint32_t *dm, int rows, int cols,
              const float *x, int t, float *y, rwkv_err *err)
{
    (void)g, (void)q, (void)dm, (void)rows, (void)cols, (void)x, (void)t, (void)y;
    return gpu_stub(err);
}

int
gpu_matmul_f16(gpu_ctx *g, const uint16_t *w, int rows, int cols, const float *x, int t,
               float *y, rwkv_err *err)
{
    (void)g, (void)w, (void)rows, (void)cols, (void)x, (void)t, (void)y;
    return gpu_stub(err);
}

int
gpu_layer_norm(gpu_ctx *g, const float *x, const float *w, const float *b, float *y, int t,
               int c, float eps, rwkv_err *err)
{
    (void)g, (void)x, (void)w, (void)b, (void)y, (void)t, (void)c, (void)eps;
    return gpu_stub(err);
}

int
gpu_group_norm(gpu_ctx *g, const float *x, const float *w, const float *b, const float *gate,
               float *y, int t, int h, int n, float eps, rwkv_err *err)
{
    (void)g, (void)x, (void)w, (void)b, (void)gate, (void)y, (void)t, (void)h, (void)n;
    (void)eps;
    return gpu_stub(err);
}

int
gpu_ln_mix(gpu_ctx *g, const float *x, const float *w, const float *b, float *xn,
           float *prev, int t, int c, float eps, const gpu_mix *mx, rwkv_err *err)
{
    (void)g, (void)x, (void)w, (void)b, (void)xn, (void)prev, (void)t, (void)c, (void)eps;
    (void)mx;
    return gpu_stub(err);
}

int
gpu_token_mix(gpu_ctx *g, const float *xn, float *prev, int t, int c, const gpu_mix *mx,
              rwkv_err *err)
{
    (void)g, (void)xn, (void)prev, (void)t, (void)c, (void)mx;
    return gpu_stub(err);
}

int
gpu_mix_add(gpu_ctx *g, const float *xn, const float *delta, const float *maa,
            const float *add, float *out, int t, int c, rwkv_err *err)
{
    (void)g, (void)xn, (void)delta, (void)maa, (void)add, (void)out, (void)t, (void)c;
    return gpu_stub(err);
}

int
gpu_ewise(gpu_ctx *g, enum gpu_op op, size_t n, int period, const float *a, const float *b,
          const float *c, float *y, rwkv_err *err)
{
    (void)g, (void)op, (void)n, (void)period, (void)a, (void)b, (void)c, (void)y;
    return gpu_stub(err);
}

int
gpu_wkv5(gpu_ctx *g, int t, int h, int n, float *state, const float *r, const float *k,
         const float *v, const float *w, const float *u, int w_tok, int chan, float *y,
         rwkv_err *err)
{
    (void)g, (void)t, (void)h, (void)n, (void)state, (void)r, (void)k, (void)v, (void)w;
    (void)u, (void)w_tok, (void)chan, (void)y;
    return gpu_stub(err);
}

int
gpu_wkv7(gpu_ctx *g, int t, int h, int n, float *state, const float *r, const float *w,
         const float *k, const float *v, const float *kk, const float *kka, float *y,
         rwkv_err *err)
{
    (void)g, (void)t, (void)h, (void)n, (void)state, (void)r, (void)w, (void)k, (void)v;
    (void)kk, (void)kka, (void)y;
    return gpu_stub(err);
}

int
gpu_v7_prep(gpu_ctx *g, int t, int h, int n, const gpu_v7_prep_args *p, rwkv_err *err)
{
    (void)g, (void)t, (void)h, (void)n, (void)p;
    return gpu_stub(err);
}

int
gpu_v7_out(gpu_ctx *g, int t, int h, int n, float *y, const float *r, const float *k,
           const float *v, const float *gate, const float *lnx_w, const float *lnx_b,
           const float *r_k, float eps, rwkv_err *err)
{
    (void)g, (void)t, (void)h, (void)n, (void)y, (void)r, (void)k, (void)v, (void)gate;
    (void)lnx_w, (void)lnx_b, (void)r_k, (void)eps;
    return gpu_stub(err);
}

int
gpu_v7_att1(gpu_ctx *g, int h, int n, float *state, const gpu_v7_prep_args *p,
            const float *r, const float *gate, const float *lnx_w, const float *lnx_b,
            const float *r_k, float eps, float *y, rwkv_err *err)
{
    (void)g, (void)h, (void)n, (void)state, (void)p, (void)r, (void)gate, (void)lnx_w;
    (void)lnx_b, (void)r_k, (void)eps, (void)y;
    return gpu_stub(err);
}

int
gpu_gemm_ldx(gpu_ctx *g, enum gpu_dtype dt, const void *w, int rows, int cols, const void *x,
             int ldx, int t, float *y, int ldy, float beta, rwkv_err *err)
{
    (void)g, (void)dt, (void)w, (void)rows, (void)cols, (void)x, (void)ldx, (void)t, (void)y;
    (void)ldy, (void)beta;
    return gpu_stub(err);
}

int
gpu_event_create(gpu_ctx *g, gpu_event **out, rwkv_err *err)
{
    (void)g;
    *out = NULL;
    return gpu_stub(err);
}

void gpu_event_destroy(gpu_event *e) { (void)e; }

int
gpu_event_record(gpu_ctx *g, gpu_event *e, rwkv_err *err)
{
    (void)g, (void)e;
    return gpu_stub(err);
}

int
gpu_stream_wait(gpu_ctx *g, gpu_event *e, rwkv_err *err)
{
    (void)g, (void)e;
    return gpu_stub(err);
}

int
gpu_copy_bandwidth(int dev, size_t bytes, int reps, double *bytes_per_s, rwkv_err *err)
{
    (void)dev, (void)bytes, (void)reps;
    *bytes_per_s = 0;
    return gpu_stub(err);
}

/* No backend to register: core's strat_check then says "built without CUDA". */
void gpu_backend_register(void) {}
