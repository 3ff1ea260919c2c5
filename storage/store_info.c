/*
** store_info.c -- rows and snapshot metadata built from what the engine
** reports about a loaded model (rwkv_info), so that every front end files a
** model, a state file or a snapshot the same way.
*/
#include "store.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/model/strategy.h"

int
store_precision_of(const char *strategy, int n_layer)
{
    const int base = strstr(strategy, "bf16") ? STORE_PREC_BF16
                   : strstr(strategy, "fp16") ? STORE_PREC_FP16 : STORE_PREC_FP32;
    int *slot, kinds = 0;
    uint32_t h = 2166136261u;   /* FNV-1a over the slots' weight kinds */
    strat st;

    if (n_layer <= 0 || strat_parse(strategy, &st, NULL) != RWKV_OK ||
        (slot = malloc(((size_t)n_layer + 1) * sizeof *slot)) == NULL)
        return base;
    strat_plan(&st, n_layer, slot);
    for (int l = 0; l <= n_layer; l++) {
        const int q = st.stages[slot[l]].quant;   /* i3 is ignored, as the engine does */
        const int k = q == 8 ? STORE_PREC_I8 : q == 4 ? STORE_PREC_I4 : 0;
        kinds |= k;
        h = (h ^ (uint32_t)(k >> 8)) * 16777619u;
    }
    free(slot);
    return kinds ? base | kinds | (int)((h & 0x1fffffu) << 10) : base;
}

void
store_meta_from_info(store_state_meta *meta, const rwkv_info *inf)
{
    memset(meta, 0, sizeof *meta);
    meta->fingerprint = inf->fingerprint;
    snprintf(meta->version, sizeof meta->version, "%s", inf->version);
    meta->n_layer = inf->n_layer;
    meta->n_embd = inf->n_embd;
    meta->n_head = inf->n_head;
    meta->head_size = inf->head_size;
    meta->precision = store_precision_of(inf->strategy, inf->n_layer);
    meta->digest = inf->file_digest;
}

void
store_model_from_info(store_model *m, const char *path, const rwkv_info *inf)
{
    struct stat sb;

    memset(m, 0, sizeof *m);
    snprintf(m->path, sizeof m->path, "%s", path);
    if (!inf->is_demo && stat(path, &sb) == 0) {
        m->size = (uint64_t)sb.st_size;
        m->mtime = (int64_t)sb.st_mtime;
    }
    m->fingerprint = inf->fingerprint;
    m->digest = inf->file_digest;
    snprintf(m->version, sizeof m->version, "%s", inf->version);
    m->n_layer = inf->n_layer;
    m->n_embd = inf->n_embd;
    m->n_head = inf->n_head;
    m->head_size = inf->head_size;
}

void
store_statefile_from_path(store_statefile *f, const char *path)
{
    const char *slash = strrchr(path, '/');
    uint64_t size;

    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%.200s", slash ? slash + 1 : path);
    snprintf(f->path, sizeof f->path, "%s", path);
    params_defaults(&f->defaults);
    params_apply_state_defaults(&f->defaults, 0);
    /* its content identity: a copy of it elsewhere is the same state file */
    if (store_statefile_digest(path, &f->fingerprint, &size, NULL) == RWKV_OK)
        f->size = (size_t)size;
}
