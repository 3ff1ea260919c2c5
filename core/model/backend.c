/*
** backend.c -- the registered device backend and the model-side glue (see
** backend.h): opening / closing it with the model, and the CPU segments of
** a mixed plan.
*/
#include "backend.h"

#include "model.h"

static const rwkv_backend *backend_registered;

void
rwkv_backend_register(const rwkv_backend *b)
{
    backend_registered = b;
}

const rwkv_backend *
rwkv_backend_get(void)
{
    return backend_registered;
}

int
strat_has_device(const strat *s)
{
    for (int i = 0; i < s->n_stages; i++)
        if (s->stages[i].device == STRAT_CUDA)
            return 1;
    return 0;
}

int
mdl_backend_open(rwkv_model *m, rwkv_err *err)
{
    const rwkv_backend *b = rwkv_backend_get();
    int rc;

    if (!strat_has_device(&m->strategy))
        return RWKV_OK;
    if (b == NULL)   /* strat_check refused this already; belt and braces */
        return rwkv_errf(err, RWKV_ENOTSUP, "strategy '%s': no device backend registered",
                         m->strategy.normalised);
    rc = b->open(m, &m->be_data, err);
    if (rc != RWKV_OK) {
        m->be_data = NULL;
        return rc;
    }
    m->be = b;
    return RWKV_OK;
}

void
mdl_backend_close(rwkv_model *m)
{
    if (m->be != NULL)
        m->be->close(m->be_data);
    m->be = NULL;
    m->be_data = NULL;
}

void
mdl_cpu_layers(rwkv_model *m, int l0, int l1, size_t t, float *state)
{
    struct mdl_layer *all = m->layers;
    int n_layer = m->n_layer, base = m->layer_base;
    float *st = state + (size_t)l0 * mdl_layer_state_len(m);

    if (l0 >= l1)
        return;
    /* The block functions run m->layers[0 .. n_layer) on state[0 ..):
     * present them the range as a model of its own.  layer_base tells v7
     * which layer is the real layer 0 (v_first). */
    m->layers = all + l0;
    m->n_layer = l1 - l0;
    m->layer_base = base + l0;
    m->run_layers(m, t, st);   /* the version's block math (model.h) */
    m->layers = all;
    m->n_layer = n_layer;
    m->layer_base = base;
}

void
mdl_cpu_head(rwkv_model *m, size_t t, float *logits)
{
    size_t C = (size_t)m->C;

    kern_layer_norm(m->ws.x + (t - 1) * C, m->ln_out_w, m->ln_out_b, m->ws.last, C,
                    MDL_LN_EPS);
    kern_matmul(&m->kc, &m->head, m->ws.last, 1, logits);
}
