/*
** cmd_sessions_state.c -- the saved states of `rwkv-tui sessions`:
** `budget [SIZE|off]`, the disk budget of the database's states
** (storage/store_budget.c), and `state ID TURN [--vs TURN2]`, what a saved
** state holds, without loading the model.  Per layer the L2
** norm of each part (the attention's token shift, the WKV recurrence, the
** FFN's token shift); with --vs, how far the state moved from another turn's
** (|a - b| / |b| per part, and the cosine of the whole states).  The layout
** comes from the engine (rwkv_state_parts_of), the floats from the database
** (store_snapshot_meta / store_snapshot_get).
*/
#include "cli.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../storage/store.h"

/* The three parts of a layer, in the order the tables print them. */
enum { PART_ATT, PART_WKV, PART_FFN, NPART };
static const char *const part_key[NPART] = { "att_shift", "wkv", "ffn_shift" };

/* One turn's saved state, read and checked. */
struct saved {
    int64_t          turn;
    int              role;
    store_state_meta meta;
    rwkv_state_parts parts;
    float           *x;      /* n floats: meta.n_layer layers of parts.layer */
    size_t           n;
};

/* The line for turn T without a saved state: cut before its state was
** saved (interrupted: a crash or kill during it), one the retention policy
** dropped, or one it keeps that the state budget dropped. */
static void
no_state(store *st, const store_turn *t)
{
    uint64_t budget = 0;
    int keeps = 0;
    rwkv_err err;
    char b[32];

    if (t->interrupted) {
        cli_errorf("sessions state: turn %lld has no saved state: it was cut before its state "
                   "was saved (a crash or kill during it); resuming session %lld rebuilds it "
                   "(a replay of its tokens) and saves it",
                   (long long)t->id, (long long)t->session_id);
        return;
    }
    if (store_retention_keeps(st, t->session_id, t->id, &keeps, &err) == RWKV_OK && keeps &&
        store_budget_get(st, &budget, &err) == RWKV_OK && budget > 0) {
        cli_errorf("sessions state: turn %lld has no saved state: the state budget (%s) "
                   "dropped it; going on from it (F6, /fork %lld) rebuilds it from the nearest "
                   "saved state before it (a replay of the turns' tokens); a larger budget "
                   "('sessions budget SIZE') keeps more states",
                   (long long)t->id, store_size_str(budget, b, sizeof b), (long long)t->id);
        return;
    }
    cli_errorf("sessions state: turn %lld has no saved state (kept: leaves, branch points, "
               "the last %d turns of a branch, every %dth; 'sessions show %lld' marks them "
               "[state])", (long long)t->id, STORE_KEEP_LAST_DEFAULT, STORE_EVERY_DEFAULT,
               (long long)t->session_id);
}

/* Turn TURN (of SESSION, unless 0) and its saved state into *S; 1 after
** one line. */
static int
saved_load(store *st, int64_t session, int64_t turn, struct saved *s)
{
    store_turn t;
    rwkv_err err;

    memset(s, 0, sizeof *s);
    s->turn = turn;
    if (store_turn_get(st, turn, &t, &err) != RWKV_OK)
        return cli_fail(&err);
    s->role = t.role;
    if (session != 0 && t.session_id != session) {
        cli_errorf("sessions state: turn %lld is in session %lld, not %lld", (long long)turn,
                   (long long)t.session_id, (long long)session);
        store_turn_fini(&t);
        return 1;
    }
    if (!t.has_snapshot) {
        no_state(st, &t);
        store_turn_fini(&t);
        return 1;
    }
    store_turn_fini(&t);
    if (store_snapshot_meta(st, turn, &s->meta, &s->n, &err) != RWKV_OK ||
        rwkv_state_parts_of(s->meta.version, s->meta.n_embd, s->meta.n_head, s->meta.head_size,
                            &s->parts, &err) != RWKV_OK)
        return cli_fail(&err);
    if (s->meta.n_layer <= 0 || s->n != (size_t)s->meta.n_layer * s->parts.layer) {
        cli_errorf("sessions state: saved state of turn %lld holds %zu floats, not %d layers "
                   "of %zu", (long long)turn, s->n, s->meta.n_layer, s->parts.layer);
        return 1;
    }
    if ((s->x = malloc(s->n * sizeof *s->x)) == NULL) {
        cli_errorf("sessions state: out of memory (%zu floats)", s->n);
        return 1;
    }
    if (store_snapshot_get(st, turn, &s->meta, s->x, s->n, NULL, &err) != RWKV_OK)
        return cli_fail(&err);
    return 0;
}

/* Part P of layer L of S: its first float, its length in *LEN. */
static const float *
part_of(const struct saved *s, int l, int p, size_t *len)
{
    const float *base = s->x + (size_t)l * s->parts.layer;

    *len = p == PART_WKV ? s->parts.wkv_len : (size_t)s->meta.n_embd;
    return base + (p == PART_ATT ? s->parts.att_shift
                   : p == PART_WKV ? s->parts.wkv : s->parts.ffn_shift);
}

/*
** Sums over layer L (L < 0: every layer) of S, part P: *AA = sum a^2; with B
** also *BB = sum b^2, *DD = sum (a - b)^2 and *AB = sum a*b.  In double: a
** state has millions of floats.
*/
static void
sums(const struct saved *s, const struct saved *b, int l, int p, double *aa, double *bb,
     double *dd, double *ab)
{
    int l0 = l < 0 ? 0 : l, l1 = l < 0 ? s->meta.n_layer : l + 1;

    *aa = *bb = *dd = *ab = 0;
    for (int k = l0; k < l1; k++) {
        size_t len;
        const float *x = part_of(s, k, p, &len), *y = b ? part_of(b, k, p, &len) : NULL;
        for (size_t i = 0; i < len; i++) {
            double u = x[i], v = y ? y[i] : 0, d = u - v;
            *aa += u * u;
            *bb += v * v;
            *dd += d * d;
            *ab += u * v;
        }
    }
}

/* The value a table cell shows for layer L (-1: all), part P: the norm of
** A's part, or with B the relative distance |a - b| / |b| (0 when both are
** zero, infinity when only b is). */
static double
cell(const struct saved *a, const struct saved *b, int l, int p)
{
    double aa, bb, dd, ab;

    sums(a, b, l, p, &aa, &bb, &dd, &ab);
    if (b == NULL)
        return sqrt(aa);
    if (bb == 0)
        return dd == 0 ? 0 : INFINITY;
    return sqrt(dd / bb);
}

/* The cosine of the whole states A and B (0 when either is all zeros). */
static double
cosine(const struct saved *a, const struct saved *b)
{
    double aa = 0, bb = 0, ab = 0;

    for (int p = 0; p < NPART; p++) {
        double x, y, d, xy;
        sums(a, b, -1, p, &x, &y, &d, &xy);
        aa += x;
        bb += y;
        ab += xy;
    }
    return aa > 0 && bb > 0 ? ab / sqrt(aa * bb) : 0;
}

static void
print_table(const struct saved *a, const struct saved *b)
{
    printf("%5s %12s %12s %12s\n", "layer", "att shift", "wkv", "ffn shift");
    for (int row = 0; row <= a->meta.n_layer; row++) {
        int l = row < a->meta.n_layer ? row : -1;   /* the layers, then "all" */
        if (l < 0)
            printf("%5s", "all");
        else
            printf("%5d", l);
        for (int p = 0; p < NPART; p++)
            printf(" %12.5g", cell(a, b, l, p));
        printf("\n");
    }
}

static void
print_text(const struct saved *a, int64_t session, const struct saved *b)
{
    const store_state_meta *m = &a->meta;
    char size[32];

    printf("turn %lld (%s) of session %lld: v%.8s, %d layer%s x %d channels", (long long)a->turn,
           store_role_name(a->role), (long long)session, m->version, m->n_layer,
           m->n_layer == 1 ? "" : "s", m->n_embd);
    if (m->n_head > 0)
        printf(" (%d head%s of %d)", m->n_head, m->n_head == 1 ? "" : "s", m->head_size);
    printf(", saved in %s, %s; model fingerprint %016llx\n", store_precision_name(m->precision),
           store_size_str((uint64_t)a->n * 4, size, sizeof size), (unsigned long long)m->fingerprint);
    if (b == NULL) {
        printf("L2 norms%s:\n", m->n_head > 0 ? "" : " (v4: wkv = the aa and bb sums)");
        print_table(a, NULL);
        return;
    }
    if (b->meta.fingerprint != m->fingerprint || b->meta.precision != m->precision)
        printf("note: turn %lld's state was made by another model or precision (fingerprint "
               "%016llx, %s)\n", (long long)b->turn, (unsigned long long)b->meta.fingerprint,
               store_precision_name(b->meta.precision));
    printf("change from turn %lld (%s), |a - b| / |b|:\n", (long long)b->turn,
           store_role_name(b->role));
    print_table(a, b);
    printf("cosine of the whole states: %.6f\n", cosine(a, b));
}

/* Layer rows, then the "all" one, as JSON objects of the three parts. */
static void
json_rows(const struct saved *a, const struct saved *b)
{
    printf("[");
    for (int l = 0; l < a->meta.n_layer; l++) {
        printf("%s{", l ? "," : "");
        for (int p = 0; p < NPART; p++)
            printf("%s\"%s\":%.9g", p ? "," : "", part_key[p], cell(a, b, l, p));
        printf("}");
    }
    printf("],\"all\":{");
    for (int p = 0; p < NPART; p++)
        printf("%s\"%s\":%.9g", p ? "," : "", part_key[p], cell(a, b, -1, p));
    printf("}");
}

static void
print_json(const struct saved *a, int64_t session, const struct saved *b)
{
    const store_state_meta *m = &a->meta;

    printf("{\"session\":%lld,\"turn\":%lld,\"role\":\"%s\",\"version\":", (long long)session,
           (long long)a->turn, store_role_name(a->role));
    cli_json_str(stdout, m->version);
    printf(",\"n_layer\":%d,\"n_embd\":%d,\"n_head\":%d,\"head_size\":%d,\"precision\":\"%s\","
           "\"fingerprint\":\"%016llx\",\"floats\":%zu,\"layers\":",
           m->n_layer, m->n_embd, m->n_head, m->head_size, store_precision_name(m->precision),
           (unsigned long long)m->fingerprint, a->n);
    json_rows(a, NULL);
    if (b != NULL) {
        printf(",\"vs\":{\"turn\":%lld,\"role\":\"%s\",\"fingerprint\":\"%016llx\",\"change\":",
               (long long)b->turn, store_role_name(b->role),
               (unsigned long long)b->meta.fingerprint);
        json_rows(a, b);
        printf(",\"cosine\":%.9g}", cosine(a, b));
    }
    printf("}\n");
}

/* The states of A and B can be compared: the same layout. */
static int
same_layout(const struct saved *a, const struct saved *b)
{
    const store_state_meta *x = &a->meta, *y = &b->meta;

    if (strncmp(x->version, y->version, sizeof x->version) == 0 && x->n_layer == y->n_layer &&
        x->n_embd == y->n_embd && x->n_head == y->n_head && x->head_size == y->head_size)
        return 1;
    cli_errorf("sessions state: turn %lld's state is of another shape (v%.8s, %d x %d), turn "
               "%lld's v%.8s, %d x %d: nothing to compare", (long long)b->turn, y->version,
               y->n_layer, y->n_embd, (long long)a->turn, x->version, x->n_layer, x->n_embd);
    return 0;
}

int
sessions_state(store *st, int64_t session, int64_t turn, int64_t vs, int json)
{
    struct saved a, b;
    int rc;

    memset(&b, 0, sizeof b);
    if ((rc = saved_load(st, session, turn, &a)) == 0 && vs != 0 &&
        (rc = saved_load(st, 0, vs, &b)) == 0 && !same_layout(&a, &b))
        rc = 1;
    if (rc == 0) {
        if (json)
            print_json(&a, session, vs ? &b : NULL);
        else
            print_text(&a, session, vs ? &b : NULL);
    }
    free(a.x);
    free(b.x);
    return rc;
}

/* ---- sessions budget --------------------------------------------------- */

int
sessions_budget(store *st, const char *arg)
{
    char h1[32], h2[32], line[256];
    store_budget_info bi;
    uint64_t bytes, budget;
    int64_t count;
    rwkv_err err;

    if (arg == NULL) {
        if (store_budget_get(st, &budget, &err) != RWKV_OK ||
            store_snapshot_usage(st, 0, &bytes, &count, &err) != RWKV_OK)
            return cli_fail(&err);
        printf("saved states: %s in %lld state%s; budget: ",
               store_size_str(bytes, h1, sizeof h1), (long long)count, count == 1 ? "" : "s");
        if (budget == 0)
            printf("none (the retention policy alone decides)\n");
        else
            printf("%s\n", store_size_str(budget, h2, sizeof h2));
        return 0;
    }
    if (store_budget_parse(st, arg, &budget, &err) != RWKV_OK) {
        cli_errorf("sessions %s", err.msg);
        return 2;
    }
    if (store_budget_set(st, budget, &bi, &err) != RWKV_OK) {
        cli_errorf("sessions budget: %s", err.msg);
        return 1;
    }
    printf("%s\n", store_budget_say(st, &bi, line, sizeof line));
    return 0;
}
