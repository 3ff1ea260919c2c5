/*
** backend.h -- internal: the interface a device backend (gpu/, for `cuda`
** stages) implements so the model can place layers on it, and the state
** bookkeeping that keeps a device copy of a state resident between calls.
**
** core/ never calls a device API: a backend registers a vtable at start-up
** (the program calls gpu_backend_register(), which the CPU-only build's stub
** implements as a no-op) and core/model/model.c calls it through that table.
**
**   strat_check   -> check(): can this machine run the device stages?
**   mdl_build     -> open():  upload the device slots' weights (after the CPU
**                             preparation, which made them in the slot dtype)
**   rwkv_eval     -> eval():  the whole forward call; the backend runs the
**                             device segments itself and the cpu segments
**                             through mdl_cpu_layers / mdl_cpu_head
**   rwkv_model_close -> close()
**
** States (rwkv_state) stay host float arrays (the public API's bytes are the
** same whatever ran them), but a backend keeps the device layers' part of
** ONE state resident on the device (its mdl_state_link) and syncs lazily:
**   - s->gen counts host-side changes: every host write (reset, copy into,
**     load, rwkv_state_data, a CPU-only eval) bumps it.  A backend that
**     uploaded generation G of S may reuse its device copy while S->gen == G.
**   - s->host_stale is set by a backend eval (the device copy is newer);
**     every host read (cdata, data, copy from, a CPU-only eval) first pulls
**     the device part back (mdl_state_pull).
**   - s->link / link->bound point at each other while bound; destroying the
**     state or closing the model cuts the link (the model pulls first).
*/
#ifndef RWKV_BACKEND_H
#define RWKV_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "../rwkv.h"
#include "../status.h"
#include "strategy.h"

/* A backend's resident copy of (part of) one state.  Owned by the backend. */
struct mdl_state_link {
    rwkv_state *bound;     /* the state the device copy belongs to, or NULL  */
    uint64_t    gen;       /* bound->gen when the device copy was current    */
    /* device -> host of the device layers of BOUND (bound->data); ERR filled
     * on failure.  Called with bound != NULL. */
    int       (*pull)(struct mdl_state_link *k, rwkv_err *err);
    int         failed;    /* a pull failed: the next eval reports PULL_ERR  */
    rwkv_err    pull_err;
};

typedef struct rwkv_backend {
    const char *name;      /* "cuda" */
    /* RWKV_OK when this machine can run S's STRAT_CUDA stages, else one line
     * ("no CUDA device: ...", "strategy ...: cuda:3 does not exist ..."). */
    int  (*check)(const strat *s, rwkv_err *err);
    /* Take over the slots the strategy places on the device: M is fully
     * prepared (weights in their slot dtype on the host, workspace).  *OUT is
     * the backend's per-model data, freed by close. */
    int  (*open)(rwkv_model *m, void **out, rwkv_err *err);
    void (*close)(void *be);
    /* rwkv_eval's contract (arguments already validated). */
    int  (*eval)(void *be, rwkv_model *m, const int32_t *tokens, size_t n, rwkv_state *s,
                 float *logits, rwkv_err *err);
} rwkv_backend;

/* Register B for device stages (NULL: none; B must outlive its models).
 * Not thread-safe: call once at start-up. */
void rwkv_backend_register(const rwkv_backend *b);
const rwkv_backend *rwkv_backend_get(void);

/* Has S a stage on a device (cuda)? */
int strat_has_device(const strat *s);

/* ---- hooks of core/model/model.c ---- */

/* After the CPU preparation: open the backend when the strategy has device
 * stages (no-op otherwise). */
int  mdl_backend_open(rwkv_model *m, rwkv_err *err);
void mdl_backend_close(rwkv_model *m);

/* ---- for backends: the CPU parts of a mixed plan ---- */

/* Run layers [L0, L1) on the CPU over m->ws.x (T rows), on the host STATE
 * (the whole state array; only those layers' entries are touched). */
void mdl_cpu_layers(rwkv_model *m, int l0, int l1, size_t t, float *state);
/* X [C] = the embedding row of TOK with ln0 applied (the folded table, or
 * the checkpoint's row normalised on the fly). */
void mdl_embed(const rwkv_model *m, int32_t tok, float *x);
/* ln_out + head of row T-1 of m->ws.x into LOGITS [n_vocab]. */
void mdl_cpu_head(rwkv_model *m, size_t t, float *logits);

/* ---- state bookkeeping (state.c) ---- */

/* Make S's host data current (pull the device part if a backend holds a
 * newer copy).  A failed pull is kept in the link and reported by the
 * backend's next eval. */
void mdl_state_pull(rwkv_state *s);
/* Pull, then cut S's link to whatever backend holds it (the host copy is
 * then the only one). */
void mdl_state_release(rwkv_state *s);
/* The host data of S changed (after a write): device copies are outdated. */
void mdl_state_touch(rwkv_state *s);

#endif
