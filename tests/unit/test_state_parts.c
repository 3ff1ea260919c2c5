/*
** test_state_parts.c -- rwkv_state_parts_of (core/model/model_block.c): the
** layout of a state's layer, as core/rwkv.h documents it, for code that
** holds a saved state without its model (`sessions state`).
**
** Every tiny fixture model (v4 to v7) and the in-memory demo model: the
** parts tile a layer exactly (att shift, recurrence, [v4: pp,] ffn shift)
** and n_layer layers make rwkv_info.state_len.  Bad versions and sizes are
** refused with one line.
*/
#include <string.h>

#include "../../core/rwkv.h"
#include "../harness.h"

/* The parts of M's layer against the documented layout. */
static void
check_model(const char *name, const rwkv_model *m)
{
    const rwkv_info *in = rwkv_model_info(m);
    size_t C = (size_t)in->n_embd, hnn = (size_t)in->n_head * in->head_size * in->head_size;
    int v4 = strcmp(in->version, "4") == 0;
    rwkv_state_parts p;
    rwkv_err err;

    TEST_CONDF(rwkv_state_parts_of(in->version, in->n_embd, in->n_head, in->head_size, &p, &err) ==
                   RWKV_OK, "%s: %s", name, err.msg);
    TEST_CONDF((size_t)in->n_layer * p.layer == in->state_len, "%s: %d x %zu != state_len %zu",
               name, in->n_layer, p.layer, in->state_len);
    TEST_CONDF(p.att_shift == 0 && p.wkv == C, "%s: att shift at %zu, wkv at %zu", name,
               p.att_shift, p.wkv);
    /* v4: [x_prev, aa, bb, pp, ffn x_prev]; v5+: [x_prev, kv, ffn x_prev] */
    TEST_CONDF(p.wkv_len == (v4 ? 2 * C : hnn) && p.ffn_shift == (v4 ? 4 * C : C + hnn) &&
                   p.layer == p.ffn_shift + C,
               "%s: wkv %zu long, ffn shift at %zu, layer %zu", name, p.wkv_len, p.ffn_shift,
               p.layer);
}

int
main(void)
{
    static const char *const tiny[] = { "tiny-4v0-fp32.pth", "tiny-5v1-fp32.pth", "tiny-5v2-fp32.pth",
                                        "tiny-6v0-fp32.pth", "tiny-7v0-fp32.pth" };
    static const char *const shapes[] = { "demo" };
    rwkv_state_parts p;
    rwkv_err err;

    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        rwkv_model *m = NULL;
        TEST_CONDF(rwkv_model_open_shape(shapes[i], 1, NULL, &m, &err) == RWKV_OK, "%s: %s",
                   shapes[i], err.msg);
        if (m != NULL)
            check_model(shapes[i], m);
        rwkv_model_close(m);
    }
    for (size_t i = 0; i < sizeof tiny / sizeof *tiny; i++) {
        char rel[128], path[1024];
        rwkv_model *m = NULL;
        snprintf(rel, sizeof rel, "models/%s", tiny[i]);
        if (!test_have_fixture(rel, 4))
            continue;
        snprintf(path, sizeof path, "%s/%s", test_fixtures(), rel);
        TEST_CONDF(rwkv_model_open(path, NULL, &m, &err) == RWKV_OK, "%s: %s", tiny[i], err.msg);
        if (m != NULL)
            check_model(tiny[i], m);
        rwkv_model_close(m);
    }

    /* refusals: one line, nothing filled */
    TEST_COND("unknown version", rwkv_state_parts_of("8.0", 64, 1, 64, &p, &err) == RWKV_EINVAL &&
                                     strstr(err.msg, "unknown model version '8.0'") != NULL &&
                                     p.layer == 0);
    TEST_COND("empty version", rwkv_state_parts_of("", 64, 1, 64, &p, &err) == RWKV_EINVAL);
    TEST_COND("no version", rwkv_state_parts_of(NULL, 64, 1, 64, &p, &err) == RWKV_EINVAL);
    TEST_COND("no channels", rwkv_state_parts_of("7.0", 0, 1, 64, &p, &err) == RWKV_EINVAL &&
                                 strstr(err.msg, "impossible state sizes") != NULL);
    TEST_COND("no heads (v7)", rwkv_state_parts_of("7.0", 64, 0, 64, &p, &err) == RWKV_EINVAL);
    TEST_COND("huge head", rwkv_state_parts_of("5.2", 64, 1, 1 << 20, &p, &err) == RWKV_EINVAL);
    TEST_COND("v4 needs no heads", rwkv_state_parts_of("4", 8, 0, 0, &p, &err) == RWKV_OK &&
                                       p.layer == 40 && p.wkv_len == 16 && p.ffn_shift == 32);
    return TEST_REPORT();
}
