/*
** vmath.c -- run-time choice of the vmath table, the public wrappers, and
** the portable table (vmath_impl.h with 4-float vectors: SSE2 on x86-64,
** NEON on arm64, scalar code elsewhere).
*/
#include "vmath.h"

#include "cpuid.h"
#include "kernels.h"

#define VM_W     4
#define VM_TABLE vm_ops_portable
#define VM_NAME  "portable"
#define VM_ISA   SIMD_ISA_PORTABLE
#include "vmath_impl.h"

static const vm_ops *vm_chosen;   /* atomic: vm_default's cache */

const vm_ops *
vm_get(enum simd_isa isa)
{
#if defined(__x86_64__)
    unsigned f;

    switch (isa) {
    case SIMD_ISA_PORTABLE:
        return &vm_ops_portable;
    case SIMD_ISA_AVX2:
        f = cpuid_features();
        return (f & CPUID_LEVEL_AVX2) == CPUID_LEVEL_AVX2 ? &vm_ops_avx2 : NULL;
    case SIMD_ISA_AVX512:
        f = cpuid_features();
        return (f & CPUID_LEVEL_AVX512) == CPUID_LEVEL_AVX512 ? &vm_ops_avx512 : NULL;
    case SIMD_NISA:
        break;
    }
    return NULL;
#else
    return isa == SIMD_ISA_PORTABLE ? &vm_ops_portable : NULL;
#endif
}

const vm_ops *
vm_default(void)
{
    const vm_ops *o = __atomic_load_n(&vm_chosen, __ATOMIC_ACQUIRE);

    if (o == NULL) {
        o = vm_get(simd_kernels_isa(kern_default_kernels()));
        if (o == NULL)
            o = &vm_ops_portable;
        __atomic_store_n(&vm_chosen, o, __ATOMIC_RELEASE);
    }
    return o;
}

const char *
vm_name(const vm_ops *o)
{
    return o->name;
}

void vm_exp(const vm_ops *o, const float *x, float *y, size_t n) { o->exp(x, y, n); }
void vm_sigmoid(const vm_ops *o, const float *x, float *y, size_t n) { o->sigmoid(x, y, n); }
void vm_tanh(const vm_ops *o, const float *x, float *y, size_t n) { o->tanh(x, y, n); }
void vm_silu(const vm_ops *o, const float *x, float *y, size_t n) { o->silu(x, y, n); }
void vm_relu2(const vm_ops *o, const float *x, float *y, size_t n) { o->relu2(x, y, n); }

void
vm_sigmoid_add(const vm_ops *o, const float *a, const float *b, float *y, size_t n)
{
    o->sigmoid_add(a, b, y, n);
}

void
vm_exp_scale(const vm_ops *o, const float *x, float s, float *y, size_t n)
{
    o->exp_scale(x, s, y, n);
}

void vm_add(const vm_ops *o, const float *x, float *y, size_t n) { o->add(x, y, n); }
void vm_mul(const vm_ops *o, const float *x, float *y, size_t n) { o->mul(x, y, n); }
void vm_sub(const vm_ops *o, const float *x, float *y, size_t n) { o->sub(x, y, n); }

void
vm_mix_add(const vm_ops *o, const float *x, const float *s, const float *m, const float *d,
           float *out, size_t n)
{
    o->mix_add(x, s, m, d, out, n);
}

void
vm_add_sigmoid_mul(const vm_ops *o, const float *r, const float *x, float *y, size_t n)
{
    o->add_sigmoid_mul(r, x, y, n);
}

void
vm_mix(const vm_ops *o, enum vm_mix_form form, const float *x, const float *sx,
       const float *const *mix, float *const *out, int nout, size_t n)
{
    o->mix(form, x, sx, mix, out, nout, n);
}

void
vm_layer_norm(const vm_ops *o, const float *x, const float *w, const float *b, float *y,
              size_t n, float eps)
{
    o->layer_norm(x, w, b, y, n, eps);
}

void
vm_group_norm(const vm_ops *o, const float *x, const float *w, const float *b, float *y,
              size_t h, size_t n, float eps)
{
    for (size_t g = 0; g < h; g++)
        o->layer_norm(x + g * n, w + g * n, b + g * n, y + g * n, n, eps);
}

void
vm_wkv7(const vm_ops *o, float *s, size_t n, size_t t, size_t ld, const float *r,
        const float *w, const float *k, const float *v, const float *kk, const float *kka,
        float *y)
{
    o->wkv7(s, n, t, ld, r, w, k, v, kk, kka, y);
}

void
vm_wkv5(const vm_ops *o, float *s, size_t n, size_t t, size_t ld, const float *r,
        const float *k, const float *v, const float *w, size_t w_ld, size_t w_step,
        const float *u, size_t u_step, float *y)
{
    o->wkv5(s, n, t, ld, r, k, v, w, w_ld, w_step, u, u_step, y);
}

void
vm_wkv4(const vm_ops *o, float *aa, float *bb, float *pp, size_t n, size_t t, size_t ld,
        const float *r, const float *k, const float *v, const float *w, const float *u,
        float *y)
{
    o->wkv4(aa, bb, pp, n, t, ld, r, k, v, w, u, y);
}

void
vm_v7_pre(const vm_ops *o, const struct vm_v7_pre *p)
{
    o->v7_pre(p);
}

void
vm_v7_post(const vm_ops *o, float *y, const float *r, const float *k, const float *v,
           const float *g, const float *r_k, const float *lnx_w, const float *lnx_b,
           size_t h, size_t n, float eps)
{
    o->v7_post(y, r, k, v, g, r_k, lnx_w, lnx_b, h, n, eps);
}
