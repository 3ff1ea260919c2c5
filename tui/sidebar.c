/*
** sidebar.c -- parameter sidebar model.  See sidebar.h.
*/
#include "sidebar.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

int
tui_param_count(void)
{
    int n = 0;

    while (params_table[n].name != NULL)
        n++;
    return n;
}

int
tui_param_step(rwkv_sampling *s, int i, int dir)
{
    const params_entry *e = &params_table[i];
    char *p = (char *)s + e->offset;
    double v = params_get(s, i), nv;

    if (e->type == PARAMS_U64) {
        uint64_t u = *(uint64_t *)(void *)p, d = (uint64_t)(dir < 0 ? -dir : dir);
        uint64_t nu = dir < 0 ? (u >= d ? u - d : 0) : (u + d < u ? UINT64_MAX : u + d);
        *(uint64_t *)(void *)p = nu;
        return nu != u;
    }
    nv = v + dir * e->step;
    if (e->type == PARAMS_FLOAT)        /* keep values on the step grid */
        nv = round(nv / e->step) * e->step;
    if (nv < e->min)
        nv = e->min;
    if (nv > e->max)
        nv = e->max;
    if (e->type == PARAMS_INT) {
        int iv = (int)llround(nv);
        int old = *(int *)(void *)p;
        *(int *)(void *)p = iv;
        return iv != old;
    }
    {
        float fv = (float)nv, old = *(float *)(void *)p;
        *(float *)(void *)p = fv;
        return fv != old;
    }
}

int
tui_param_set_text(rwkv_sampling *s, int i, const char *text, rwkv_err *err)
{
    rwkv_sampling tmp = *s;
    int rc = params_set(&tmp, i, text, err);

    if (rc == RWKV_OK)
        *s = tmp;
    return rc;
}

int
tui_sidebar_row_at(const tui_sidebar_geom *g, int y, int x)
{
    if (g->rows <= 0 || x < g->x || y < g->top || y >= g->top + g->rows)
        return -1;
    return y - g->top;
}
