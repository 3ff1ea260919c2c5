/*
** gpu_device.c -- devices, contexts and memory on the CUDA runtime API.
**
** Every CUDA error becomes one rwkv_err line naming the device and what was
** being done, e.g. "cuda: out of memory allocating 1.2 GB on device 0".  A
** machine with a CUDA build but no driver or no device is not an error for
** gpu_device_count: it reports 0 devices so callers (tests, strategy
** parsing) can say "no CUDA device" instead of failing.
*/
#include "gpu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
gpu_compiled(void)
{
    return 1;
}

int
gpu_cuda_fail(rwkv_err *err, int rc, int dev, const char *what)
{
    cudaError_t e = (cudaError_t)rc;
    int code = RWKV_EIO;

    if (e == cudaErrorMemoryAllocation)
        code = RWKV_ENOMEM;
    else if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ||
             e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDevice)
        code = RWKV_ENOTSUP;
    (void)cudaGetLastError();   /* clear a sticky-free error */
    return rwkv_errf(err, code, "cuda: %s on device %d: %s", what, dev,
                     cudaGetErrorString(e));
}

int
gpu_enter(gpu_ctx *g, rwkv_err *err)
{
    cudaError_t rc = cudaSetDevice(g->dev);

    return rc == cudaSuccess ? RWKV_OK : gpu_cuda_fail(err, rc, g->dev, "selecting device");
}

int
gpu_device_count(int *n, rwkv_err *err)
{
    cudaError_t rc = cudaGetDeviceCount(n);

    if (rc != cudaSuccess) {
        *n = 0;
        (void)cudaGetLastError();
        rwkv_errf(err, RWKV_OK, "no CUDA device (%s)", cudaGetErrorString(rc));
        return RWKV_OK;
    }
    if (*n == 0)
        rwkv_errf(err, RWKV_OK, "no CUDA device");
    return RWKV_OK;
}

int
gpu_device_query(int dev, gpu_device_info *out, rwkv_err *err)
{
    struct cudaDeviceProp p;
    cudaError_t rc = cudaGetDeviceProperties(&p, dev);
    size_t fr = 0, tot = 0;

    if (rc != cudaSuccess)
        return gpu_cuda_fail(err, rc, dev, "querying device");
    memset(out, 0, sizeof *out);
    out->index = dev;
    snprintf(out->name, sizeof out->name, "%.*s", (int)sizeof out->name - 1, p.name);
    out->cc_major = p.major;
    out->cc_minor = p.minor;
    out->sm_count = p.multiProcessorCount;
    out->total_bytes = p.totalGlobalMem;
    if (cudaSetDevice(dev) == cudaSuccess && cudaMemGetInfo(&fr, &tot) == cudaSuccess)
        out->free_bytes = fr;
    (void)cudaGetLastError();
    return RWKV_OK;
}

int
gpu_ctx_create(int dev, gpu_ctx **out, rwkv_err *err)
{
    gpu_ctx *g;
    cudaError_t rc;
    cublasStatus_t bs;

    *out = NULL;
    g = calloc(1, sizeof *g);
    if (g == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "cuda: out of host memory creating a context");
    g->dev = dev;
    rc = cudaSetDevice(dev);
    if (rc != cudaSuccess)
        goto cuda_fail;
    rc = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking);
    if (rc != cudaSuccess)
        goto cuda_fail;
    if (gpu_blas_load(err) != RWKV_OK) {
        int code = err ? err->code : RWKV_ENOTSUP;
        gpu_ctx_destroy(g);
        return code;
    }
    bs = gpu_blas.create(&g->blas);
    if (bs != CUBLAS_STATUS_SUCCESS) {
        int code = bs == CUBLAS_STATUS_ALLOC_FAILED ? RWKV_ENOMEM : RWKV_EIO;

        g->blas = NULL;
        gpu_ctx_destroy(g);
        return rwkv_errf(err, code, "cublas: creating a handle on device %d failed "
                         "(status %d)", dev, (int)bs);
    }
    rc = cudaMalloc(&g->blas_ws, GPU_BLAS_WORKSPACE);
    if (rc != cudaSuccess) {
        g->blas_ws = NULL;
        goto cuda_fail;
    }
    bs = gpu_blas.set_stream(g->blas, g->stream);
    if (bs == CUBLAS_STATUS_SUCCESS)
        bs = gpu_blas.set_workspace(g->blas, g->blas_ws, GPU_BLAS_WORKSPACE);
    if (bs == CUBLAS_STATUS_SUCCESS)
        bs = gpu_blas.set_math_mode(g->blas, CUBLAS_DEFAULT_MATH);
    if (bs != CUBLAS_STATUS_SUCCESS) {
        gpu_ctx_destroy(g);
        return rwkv_errf(err, RWKV_EIO, "cublas: setting up the handle on device %d failed "
                         "(status %d)", dev, (int)bs);
    }
    *out = g;
    return RWKV_OK;

cuda_fail:
    {
        int code = gpu_cuda_fail(err, rc, dev, "creating a context");
        gpu_ctx_destroy(g);
        return code;
    }
}

void
gpu_ctx_destroy(gpu_ctx *g)
{
    if (g == NULL)
        return;
    (void)cudaSetDevice(g->dev);
    if (g->stream)
        (void)cudaStreamSynchronize(g->stream);
    if (g->blas)
        (void)gpu_blas.destroy(g->blas);
    if (g->stream)
        (void)cudaStreamDestroy(g->stream);
    if (g->blas_ws)
        (void)cudaFree(g->blas_ws);
    (void)cudaGetLastError();
    free(g);
}

struct gpu_graph {
    cudaGraph_t     graph;
    cudaGraphExec_t exec;
};

int
gpu_capture_begin(gpu_ctx *g, rwkv_err *err)
{
    cudaError_t rc;
    int st;

    if ((st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    rc = cudaStreamBeginCapture(g->stream, cudaStreamCaptureModeThreadLocal);
    return rc == cudaSuccess ? RWKV_OK : gpu_cuda_fail(err, rc, g->dev, "starting a capture");
}

int
gpu_capture_end(gpu_ctx *g, gpu_graph **out, rwkv_err *err)
{
    gpu_graph *gr;
    cudaGraph_t graph = NULL;
    cudaError_t rc;

    *out = NULL;
    rc = cudaStreamEndCapture(g->stream, &graph);
    if (rc != cudaSuccess) {
        if (graph != NULL)
            (void)cudaGraphDestroy(graph);
        return gpu_cuda_fail(err, rc, g->dev, "ending a capture");
    }
    gr = calloc(1, sizeof *gr);
    if (gr == NULL) {
        (void)cudaGraphDestroy(graph);
        return rwkv_errf(err, RWKV_ENOMEM, "cuda: out of host memory for a graph");
    }
    gr->graph = graph;
    rc = cudaGraphInstantiate(&gr->exec, graph, 0);
    if (rc != cudaSuccess) {
        gr->exec = NULL;
        gpu_graph_destroy(gr);
        return gpu_cuda_fail(err, rc, g->dev, "instantiating a graph");
    }
    *out = gr;
    return RWKV_OK;
}

int
gpu_graph_launch(gpu_ctx *g, gpu_graph *gr, rwkv_err *err)
{
    cudaError_t rc;
    int st;

    if ((st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    rc = cudaGraphLaunch(gr->exec, g->stream);
    return rc == cudaSuccess ? RWKV_OK : gpu_cuda_fail(err, rc, g->dev, "launching a graph");
}

void
gpu_graph_destroy(gpu_graph *gr)
{
    if (gr == NULL)
        return;
    if (gr->exec)
        (void)cudaGraphExecDestroy(gr->exec);
    if (gr->graph)
        (void)cudaGraphDestroy(gr->graph);
    free(gr);
}

int
gpu_sync(gpu_ctx *g, rwkv_err *err)
{
    cudaError_t rc = cudaStreamSynchronize(g->stream);

    return rc == cudaSuccess ? RWKV_OK : gpu_cuda_fail(err, rc, g->dev, "running kernels");
}

/* "1.2 GB" / "12.0 MB" / "512 bytes" into BUF. */
static const char *
gpu_size_str(size_t bytes, char *buf, size_t cap)
{
    if (bytes >= (size_t)1 << 30)
        snprintf(buf, cap, "%.1f GB", (double)bytes / (double)(1u << 30));
    else if (bytes >= (size_t)1 << 20)
        snprintf(buf, cap, "%.1f MB", (double)bytes / (double)(1u << 20));
    else
        snprintf(buf, cap, "%zu bytes", bytes);
    return buf;
}

int
gpu_alloc(gpu_ctx *g, size_t bytes, void **out, rwkv_err *err)
{
    cudaError_t rc;
    char sz[32];
    int st;

    *out = NULL;
    if ((st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    rc = cudaMalloc(out, bytes ? bytes : 1);
    if (rc == cudaErrorMemoryAllocation) {
        *out = NULL;
        (void)cudaGetLastError();
        return rwkv_errf(err, RWKV_ENOMEM, "cuda: out of memory allocating %s on device %d",
                         gpu_size_str(bytes, sz, sizeof sz), g->dev);
    }
    if (rc != cudaSuccess) {
        *out = NULL;
        return gpu_cuda_fail(err, rc, g->dev, "allocating device memory");
    }
    return RWKV_OK;
}

void
gpu_free(gpu_ctx *g, void *p)
{
    if (p == NULL || g == NULL)
        return;
    (void)cudaSetDevice(g->dev);
    (void)cudaFree(p);
}

int
gpu_host_alloc(gpu_ctx *g, size_t bytes, void **out, rwkv_err *err)
{
    cudaError_t rc = cudaHostAlloc(out, bytes ? bytes : 1, cudaHostAllocPortable);
    char sz[32];

    if (rc == cudaSuccess)
        return RWKV_OK;
    *out = NULL;
    if (rc == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return rwkv_errf(err, RWKV_ENOMEM, "cuda: out of memory allocating %s of pinned "
                         "host memory", gpu_size_str(bytes, sz, sizeof sz));
    }
    return gpu_cuda_fail(err, rc, g->dev, "allocating pinned host memory");
}

void
gpu_host_free(gpu_ctx *g, void *p)
{
    (void)g;
    if (p != NULL)
        (void)cudaFreeHost(p);
}

static int
gpu_memcpy(gpu_ctx *g, void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
           const char *what, rwkv_err *err)
{
    cudaError_t rc;
    int st;

    if (bytes == 0)
        return RWKV_OK;
    if ((st = gpu_enter(g, err)) != RWKV_OK)   /* G's device current (several GPUs) */
        return st;
    rc = cudaMemcpyAsync(dst, src, bytes, kind, g->stream);
    return rc == cudaSuccess ? RWKV_OK : gpu_cuda_fail(err, rc, g->dev, what);
}

int
gpu_upload(gpu_ctx *g, void *dst, const void *src, size_t bytes, rwkv_err *err)
{
    return gpu_memcpy(g, dst, src, bytes, cudaMemcpyHostToDevice, "copying to the device",
                      err);
}

int
gpu_download(gpu_ctx *g, void *dst, const void *src, size_t bytes, rwkv_err *err)
{
    int st = gpu_memcpy(g, dst, src, bytes, cudaMemcpyDeviceToHost,
                        "copying from the device", err);

    return st != RWKV_OK ? st : gpu_sync(g, err);
}

int
gpu_copy(gpu_ctx *g, void *dst, const void *src, size_t bytes, rwkv_err *err)
{
    return gpu_memcpy(g, dst, src, bytes, cudaMemcpyDeviceToDevice,
                      "copying on the device", err);
}

int
gpu_zero(gpu_ctx *g, void *dst, size_t bytes, rwkv_err *err)
{
    cudaError_t rc;
    int st;

    if (bytes == 0)
        return RWKV_OK;
    if ((st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    rc = cudaMemsetAsync(dst, 0, bytes, g->stream);
    return rc == cudaSuccess ? RWKV_OK : gpu_cuda_fail(err, rc, g->dev, "clearing memory");
}

/* ---- events ---- */

struct gpu_event {
    int         dev;
    cudaEvent_t ev;
};

int
gpu_event_create(gpu_ctx *g, gpu_event **out, rwkv_err *err)
{
    gpu_event *e;
    cudaError_t rc;
    int st;

    *out = NULL;
    if ((st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    e = calloc(1, sizeof *e);
    if (e == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "cuda: out of host memory for an event");
    e->dev = g->dev;
    rc = cudaEventCreateWithFlags(&e->ev, cudaEventDisableTiming);
    if (rc != cudaSuccess) {
        free(e);
        return gpu_cuda_fail(err, rc, g->dev, "creating an event");
    }
    *out = e;
    return RWKV_OK;
}

void
gpu_event_destroy(gpu_event *e)
{
    if (e == NULL)
        return;
    (void)cudaSetDevice(e->dev);
    (void)cudaEventDestroy(e->ev);
    (void)cudaGetLastError();
    free(e);
}

int
gpu_event_record(gpu_ctx *g, gpu_event *e, rwkv_err *err)
{
    cudaError_t rc;
    int st;

    if ((st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    rc = cudaEventRecord(e->ev, g->stream);
    return rc == cudaSuccess ? RWKV_OK : gpu_cuda_fail(err, rc, g->dev, "recording an event");
}

int
gpu_stream_wait(gpu_ctx *g, gpu_event *e, rwkv_err *err)
{
    cudaError_t rc;
    int st;

    if ((st = gpu_enter(g, err)) != RWKV_OK)
        return st;
    rc = cudaStreamWaitEvent(g->stream, e->ev, 0);
    return rc == cudaSuccess ? RWKV_OK : gpu_cuda_fail(err, rc, g->dev, "waiting for an event");
}

/* ---- copy bandwidth probe ---- */

int
gpu_copy_bandwidth(int dev, size_t bytes, int reps, double *bytes_per_s, rwkv_err *err)
{
    gpu_ctx *g = NULL;
    void *a = NULL, *b = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    cudaError_t rc = cudaSuccess;
    float best = 0;
    int st;

    *bytes_per_s = 0;
    if (bytes == 0 || reps <= 0)
        return rwkv_errf(err, RWKV_EINVAL, "cuda: copy bandwidth: bad size or repeat count");
    if ((st = gpu_ctx_create(dev, &g, err)) != RWKV_OK)
        return st;
    if ((st = gpu_alloc(g, bytes, &a, err)) != RWKV_OK || (st = gpu_alloc(g, bytes, &b, err)) != RWKV_OK)
        goto done;
    if ((rc = cudaEventCreate(&e0)) != cudaSuccess || (rc = cudaEventCreate(&e1)) != cudaSuccess)
        goto fail;
    /* warm-up (also pages the buffers in) */
    if ((st = gpu_zero(g, a, bytes, err)) != RWKV_OK || (st = gpu_copy(g, b, a, bytes, err)) != RWKV_OK ||
        (st = gpu_sync(g, err)) != RWKV_OK)
        goto done;
    for (int i = 0; i < reps; i++) {
        float ms = 0;
        if ((rc = cudaEventRecord(e0, g->stream)) != cudaSuccess)
            goto fail;
        if ((st = gpu_copy(g, b, a, bytes, err)) != RWKV_OK)
            goto done;
        if ((rc = cudaEventRecord(e1, g->stream)) != cudaSuccess ||
            (rc = cudaEventSynchronize(e1)) != cudaSuccess ||
            (rc = cudaEventElapsedTime(&ms, e0, e1)) != cudaSuccess)
            goto fail;
        if (ms > 0 && (best == 0 || ms < best))
            best = ms;
    }
    if (best > 0)
        *bytes_per_s = 2.0 * (double)bytes / ((double)best * 1e-3);
    st = RWKV_OK;
    goto done;
fail:
    st = gpu_cuda_fail(err, rc, dev, "measuring copy bandwidth");
done:
    if (e0)
        (void)cudaEventDestroy(e0);
    if (e1)
        (void)cudaEventDestroy(e1);
    gpu_free(g, a);
    gpu_free(g, b);
    gpu_ctx_destroy(g);
    return st;
}
