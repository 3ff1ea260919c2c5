/*
** store_budget.c -- a disk budget for the saved states of the whole
** database (schema v7: the settings row 'state_budget', bytes; none = no
** budget).
**
** A saved state is derived data: the turns' tokens rebuild it (the replay
** plan), so dropping one loses no text, only the time of a replay.  Over
** the budget, states are dropped in this order until the total fits:
**     1. other sessions' states of turns inside a chain (one child): the
**        least recently updated session first, its oldest turns first;
**     2. other sessions' leaves and branch points, in the same order (a
**        session's last state -- its instant resume -- goes last);
**     3. this session's chain states, oldest first;
**     4. this session's other leaves and branch points, oldest first.
** The session's head (the state the chat goes on from) is never dropped:
** a budget smaller than it is simply exceeded by that one state.
** It runs in the transaction that adds a turn (store_retain), and when a
** budget is set (store_budget_set, which then gives the space back).
**
** A state shared by several snapshots (schema v8: the sessions' greeting,
** a fork's copies; store_snapshot.c) counts once, and dropping one of its
** snapshots frees nothing while another keeps it: its snapshots are
** dropped together, when the order reaches the last of them, or none is
** (one of them a head, or the budget met before).
*/
#include "store_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUDGET_KEY "state_budget"

/* One saved state, as the budget weighs it. */
struct bstate {
    int64_t  turn;
    int      cls;        /* the order above, 1..4; 0 = never (the head) */
    int64_t  updated;    /* its session's updated_ms */
    int      depth;
    uint64_t bytes;
    int64_t  blob_id;    /* its shared row (v8), 0 = its bytes inline */
};

/* A shared row among the states: its bytes, and how many of its states the
** drop loop has not reached yet. */
struct bgroup {
    int64_t  id;
    size_t   left;
    uint64_t bytes;
};

const char *
store_size_str(uint64_t bytes, char *buf, size_t cap)
{
    /* each unit with the decimals it is shown with; a size that rounds to
    ** 1000 of one is said in the next ("1 TB", not "1000.00 GB"), and
    ** zeros after the point go ("2 GB", "2.5 GB", not "2.00 GB") */
    static const struct {
        const char *name;
        double      mul;
        int         dec;
    } u[] = { { "kB", 1e3, 0 }, { "MB", 1e6, 1 }, { "GB", 1e9, 2 },
              { "TB", 1e12, 2 }, { "PB", 1e15, 2 }, { "EB", 1e18, 2 } };
    char num[40], *end;
    size_t k = 0;

    for (;;) {
        snprintf(num, sizeof num, "%.*f", u[k].dec, (double)bytes / u[k].mul);
        if (k + 1 == sizeof u / sizeof u[0] || strtod(num, NULL) < 1000)
            break;
        k++;
    }
    if (strchr(num, '.') != NULL) {
        end = num + strlen(num);
        while (end[-1] == '0')
            *--end = '\0';
        if (end[-1] == '.')
            end[-1] = '\0';
    }
    snprintf(buf, cap, "%s %s", num, u[k].name);
    return buf;
}

/* Units of a size, their names compared without case. */
static const struct {
    const char *name;
    double      mul;
} size_units[] = {
    { "", 1 }, { "b", 1 },
    { "k", 1e3 }, { "kb", 1e3 }, { "m", 1e6 }, { "mb", 1e6 },
    { "g", 1e9 }, { "gb", 1e9 }, { "t", 1e12 }, { "tb", 1e12 },
    { "kib", 1024.0 }, { "mib", 1048576.0 }, { "gib", 1073741824.0 },
    { "tib", 1099511627776.0 },
};

int
store_size_parse(const char *text, uint64_t *out)
{
    char *end, unit[8];
    double v;
    size_t n = 0;
    int points = 0;

    if (strcmp(text, "off") == 0 || strcmp(text, "none") == 0) {
        *out = 0;
        return 0;
    }
    if (!isdigit((unsigned char)text[0]))
        return -1;
    v = strtod(text, &end);
    /* digits with one point at most: not strtod's hex or exponent (0x10MB
    ** and 1e3MB are no sizes anyone types); one space before the unit, as
    ** sizes are printed ("500 MB") */
    for (const char *p = text; p < end; p++)
        if (!isdigit((unsigned char)*p) && (*p != '.' || ++points > 1))
            return -1;
    if (end[0] == ' ' && isalpha((unsigned char)end[1]))
        end++;
    while (end[n] != '\0' && n + 1 < sizeof unit) {
        unit[n] = (char)tolower((unsigned char)end[n]);
        n++;
    }
    unit[n] = '\0';
    if (end[n] != '\0' || !isfinite(v))
        return -1;
    for (size_t i = 0; i < sizeof size_units / sizeof *size_units; i++) {
        if (strcmp(unit, size_units[i].name) == 0) {
            v *= size_units[i].mul;
            if (v >= 9.2e18)
                return -1;
            *out = (uint64_t)v;
            return 0;
        }
    }
    return -1;
}

/* The smallest saved state's bytes into *OUT (0: none saved). */
static int
budget_smallest(store *s, uint64_t *out, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    *out = 0;
    if ((rc = store_prep(s, "SELECT min(x) FROM (SELECT length(blob) x FROM snapshots"
                            " WHERE blob_id IS NULL UNION ALL SELECT length(blob) FROM state_blobs)",
                         &st, err)) != RWKV_OK)
        return rc;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        sqlite3_int64 v = sqlite3_column_int64(st, 0);   /* NULL (none): 0 */
        *out = v > 0 ? (uint64_t)v : 0;
        rc = RWKV_OK;
    } else {
        rc = store_dberr(s, err, "reading the saved states' sizes");
    }
    sqlite3_finalize(st);
    return rc;
}

/*
** A budget under one saved state drops every state at once (their turns'
** tokens rebuild them, slowly): `1kB` for 1GB, `500B`, `0.0001GB` are
** slips, refused as 0 is, with the smallest state saved.  With none saved
** yet, under BUDGET_FLOOR: the smallest RWKV released (RWKV-4 169M, 12
** layers of 768) keeps 184 kB of state, so a budget under 64 kB fits no
** real model's.  A bare number is bytes (as `1024B` is), but someone who
** types `budget 500` most likely meant megabytes: the refusal says so.
*/
#define BUDGET_FLOOR 64000

int
store_budget_parse(store *s, const char *text, uint64_t *bytes, rwkv_err *err)
{
    size_t len = strlen(text);
    uint64_t smallest;
    char h[32];
    int rc, bare;

    if (store_size_parse(text, bytes) < 0)
        return rwkv_errf(err, RWKV_EINVAL,
                         store_tr(s, "budget: '%s' is not a size (500MB, 2GB, 1.5GiB, or off)"),
                         text);
    if (*bytes == 0 && strcmp(text, "off") != 0 && strcmp(text, "none") != 0)
        return rwkv_errf(err, RWKV_EINVAL, "%s", store_tr(s, "budget: a budget of 0 bytes "
                         "would drop every state: say 'off' for none"));
    if (*bytes == 0)
        return RWKV_OK;
    if ((rc = budget_smallest(s, &smallest, err)) != RWKV_OK)
        return rc;
    if (*bytes >= (smallest > 0 ? smallest : BUDGET_FLOOR))
        return RWKV_OK;
    bare = len > 0 && (isdigit((unsigned char)text[len - 1]) || text[len - 1] == '.');
    if (smallest > 0)
        return rwkv_errf(err, RWKV_EINVAL,
                         bare ? store_tr(s, "budget: '%s' with no unit means bytes, less than "
                                            "one saved state (the smallest takes %s), and would "
                                            "drop every state: give a unit (500MB, 2GB)")
                              : store_tr(s, "budget: '%s' is less than one saved state (the "
                                            "smallest takes %s) and would drop every state: give "
                                            "more (500MB, 2GB), or say 'off' for none"),
                         text, store_size_str(smallest, h, sizeof h));
    return rwkv_errf(err, RWKV_EINVAL,
                     bare ? store_tr(s, "budget: '%s' with no unit means bytes, less than any "
                                        "model's saved state (%s at the least), and would drop "
                                        "every state: give a unit (500MB, 2GB)")
                          : store_tr(s, "budget: '%s' is less than any model's saved state (%s "
                                        "at the least) and would drop every state: give more "
                                        "(500MB, 2GB), or say 'off' for none"),
                     text, store_size_str(BUDGET_FLOOR, h, sizeof h));
}

const char *
store_budget_say(const store *s, const store_budget_info *bi, char *buf, size_t cap)
{
    char h1[32], h2[32], h3[32], n1[48], n2[48];

    /* the counts apart, each in its number ("1 state", "2 states") */
    snprintf(n1, sizeof n1,
             bi->states == 1 ? store_tr(s, "%lld state") : store_tr(s, "%lld states"),
             (long long)bi->states);
    snprintf(n2, sizeof n2,
             bi->dropped == 1 ? store_tr(s, "%lld saved state") : store_tr(s, "%lld saved states"),
             (long long)bi->dropped);
    if (bi->budget == 0)
        snprintf(buf, cap, "%s", store_tr(s, "budget: none (the retention policy alone decides)"));
    else if (bi->dropped == 0)
        snprintf(buf, cap, store_tr(s, "budget %s: the saved states fit (%s in %s)"),
                 store_size_str(bi->budget, h1, sizeof h1),
                 store_size_str(bi->after, h2, sizeof h2), n1);
    else
        snprintf(buf, cap, store_tr(s, "budget %s: dropped %s (%s; rebuilt from the turns' "
                                       "tokens when needed), %s in %s now"),
                 store_size_str(bi->budget, h1, sizeof h1), n2,
                 store_size_str(bi->dropped_bytes, h2, sizeof h2),
                 store_size_str(bi->after, h3, sizeof h3), n1);
    return buf;
}

int
store_budget_get(store *s, uint64_t *bytes, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    *bytes = 0;
    if ((rc = store_prep(s, "SELECT value FROM settings WHERE key='" BUDGET_KEY "'", &st,
                         err)) != RWKV_OK)
        return rc;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        sqlite3_int64 v = sqlite3_column_int64(st, 0);
        *bytes = v > 0 ? (uint64_t)v : 0;
        rc = RWKV_OK;
    } else {
        rc = rc == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "reading the state budget");
    }
    sqlite3_finalize(st);
    return rc;
}

static int
budget_write(store *s, uint64_t bytes, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    if (bytes == 0)
        rc = store_prep(s, "DELETE FROM settings WHERE key='" BUDGET_KEY "'", &st, err);
    else
        rc = store_prep(s, "INSERT OR REPLACE INTO settings(key, value) VALUES('" BUDGET_KEY
                           "', ?)", &st, err);
    if (rc != RWKV_OK)
        return rc;
    if (bytes != 0)
        sqlite3_bind_int64(st, 1, bytes > INT64_MAX ? INT64_MAX : (sqlite3_int64)bytes);
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "writing the state budget");
    sqlite3_finalize(st);
    return rc;
}

static int
bstate_cmp(const void *pa, const void *pb)
{
    const struct bstate *a = pa, *b = pb;

    if (a->cls != b->cls)
        return a->cls < b->cls ? -1 : 1;
    if (a->updated != b->updated)
        return a->updated < b->updated ? -1 : 1;
    if (a->depth != b->depth)
        return a->depth < b->depth ? -1 : 1;
    return a->turn < b->turn ? -1 : a->turn > b->turn;
}

/* Every saved state, weighed for SESSION (0: none is "this" one), into *OUT
** (*N of them, *TOTAL bytes). */
static int
budget_read(store *s, int64_t session, struct bstate **out, size_t *n, uint64_t *total,
            rwkv_err *err)
{
    sqlite3_stmt *st;
    struct bstate *v = NULL;
    size_t cap = 0;
    int rc;

    *out = NULL;
    *n = 0;
    *total = 0;
    if ((rc = store_prep(s, "SELECT n.turn_id, t.session_id, e.updated_ms, t.depth,"
                            " CASE WHEN n.blob_id IS NULL THEN length(n.blob) ELSE"
                            " (SELECT length(b.blob) FROM state_blobs b WHERE b.id=n.blob_id) END,"
                            " e.head_turn IS t.id,"
                            " (SELECT count(*) FROM turns c WHERE c.parent_id=t.id),"
                            " coalesce(n.blob_id, 0)"
                            " FROM snapshots n JOIN turns t ON t.id=n.turn_id"
                            " JOIN sessions e ON e.id=t.session_id", &st, err)) != RWKV_OK)
        return rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct bstate *t = store_grow(v, &cap, *n, sizeof *v, 64);
        int mine = sqlite3_column_int64(st, 1) == session, chain = sqlite3_column_int(st, 6) == 1;
        if (t == NULL) {
            rc = rwkv_errf(err, RWKV_ENOMEM, "out of memory");
            goto fail;
        }
        v = t;
        v[*n].turn = sqlite3_column_int64(st, 0);
        v[*n].updated = sqlite3_column_int64(st, 2);
        v[*n].depth = sqlite3_column_int(st, 3);
        v[*n].bytes = (uint64_t)sqlite3_column_int64(st, 4);
        v[*n].cls = mine ? (sqlite3_column_int(st, 5) ? 0 : chain ? 3 : 4) : chain ? 1 : 2;
        v[*n].blob_id = sqlite3_column_int64(st, 7);
        if (v[*n].blob_id == 0)
            *total += v[*n].bytes;    /* shared rows: once each (budget_groups) */
        (*n)++;
    }
    if (rc != SQLITE_DONE) {
        rc = store_dberr(s, err, "reading the saved states");
        goto fail;
    }
    sqlite3_finalize(st);
    *out = v;
    return RWKV_OK;
fail:
    sqlite3_finalize(st);
    free(v);
    *n = 0;
    return rc;
}

static int
bgroup_cmp(const void *pa, const void *pb)
{
    const struct bgroup *a = pa, *b = pb;

    return a->id < b->id ? -1 : a->id > b->id;
}

/* The shared rows among V[0..N) into *OUT (*NG, sorted by id), each of
** their bytes added to *TOTAL once.  NULL with *NG 0 and RWKV_OK: none. */
static int
budget_groups(const struct bstate *v, size_t n, struct bgroup **out, size_t *ng,
              uint64_t *total, rwkv_err *err)
{
    struct bgroup *g;
    size_t k = 0, m = 0;

    *out = NULL;
    *ng = 0;
    for (size_t i = 0; i < n; i++)
        k += v[i].blob_id != 0;
    if (k == 0)
        return RWKV_OK;
    if ((g = malloc(k * sizeof *g)) == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    for (size_t i = 0, j = 0; i < n; i++)
        if (v[i].blob_id != 0)
            g[j++] = (struct bgroup){ v[i].blob_id, 1, v[i].bytes };
    qsort(g, k, sizeof *g, bgroup_cmp);
    for (size_t i = 0; i < k; i++) {
        if (m > 0 && g[m - 1].id == g[i].id) {
            g[m - 1].left++;
            continue;
        }
        g[m++] = g[i];
        *total += g[i].bytes;
    }
    *out = g;
    *ng = m;
    return RWKV_OK;
}

/* Drop V[I] (sorted by the order) into DROP: an inline state at once, a
** shared one with the rest of its group when I is the last of them. */
static void
budget_take(const struct bstate *v, size_t i, struct bgroup *g, size_t ng, int64_t *drop,
            size_t *n_drop, uint64_t *total, store_budget_info *info)
{
    struct bgroup key = { v[i].blob_id, 0, 0 }, *grp;

    if (v[i].blob_id == 0) {
        drop[(*n_drop)++] = v[i].turn;
        *total -= v[i].bytes;
        info->dropped++;
        info->dropped_bytes += v[i].bytes;
        return;
    }
    grp = bsearch(&key, g, ng, sizeof *g, bgroup_cmp);
    if (grp == NULL || --grp->left > 0)
        return;                 /* another snapshot still uses it: frees nothing yet */
    for (size_t j = 0; j <= i; j++) {
        if (v[j].blob_id == v[i].blob_id) {
            drop[(*n_drop)++] = v[j].turn;
            info->dropped++;
        }
    }
    *total -= grp->bytes;
    info->dropped_bytes += grp->bytes;
}

int
store_budget_apply(store *s, int64_t session, store_budget_info *info, rwkv_err *err)
{
    struct bstate *v = NULL;
    struct bgroup *g = NULL;
    int64_t *drop = NULL;
    uint64_t budget, total;
    size_t n, ng = 0, n_drop = 0;
    int rc;

    memset(info, 0, sizeof *info);
    if ((rc = store_budget_get(s, &budget, err)) != RWKV_OK || budget == 0)
        return rc;
    info->budget = budget;
    /* under it (every turn, usually): one sum, not the weighing of each state */
    if ((rc = store_snapshot_usage(s, 0, &total, &info->states, err)) != RWKV_OK)
        return rc;
    info->before = info->after = total;
    if (total <= budget)
        return RWKV_OK;
    if ((rc = budget_read(s, session, &v, &n, &total, err)) != RWKV_OK)
        return rc;
    if ((rc = budget_groups(v, n, &g, &ng, &total, err)) != RWKV_OK)
        goto out;
    info->before = info->after = total;
    info->states = (int64_t)n;
    if (total <= budget)
        goto out;
    qsort(v, n, sizeof *v, bstate_cmp);
    if ((drop = malloc(n * sizeof *drop)) == NULL) {
        rc = rwkv_errf(err, RWKV_ENOMEM, "out of memory");
        goto out;
    }
    /* (a group with a head in it never completes: the head is never reached) */
    for (size_t i = 0; i < n && total > budget; i++)
        if (v[i].cls != 0)
            budget_take(v, i, g, ng, drop, &n_drop, &total, info);
    if ((rc = store_snapshot_drop_tx(s, drop, n_drop, "dropping a saved state over the budget",
                                     err)) != RWKV_OK)
        goto out;
    info->after = total;
    info->states = (int64_t)n - info->dropped;
out:
    free(drop);
    free(g);
    free(v);
    return rc;
}

static int
budget_set(store *s, uint64_t bytes, store_budget_info *info, rwkv_err *err)
{
    int rc;

    if ((rc = store_tx_begin(s, err)) != RWKV_OK)
        return rc;
    if ((rc = budget_write(s, bytes, err)) != RWKV_OK ||
        (rc = store_budget_apply(s, 0, info, err)) != RWKV_OK) {
        store_tx_rollback(s);
        return rc;
    }
    if ((rc = store_tx_commit(s, err)) != RWKV_OK)
        return rc;
    info->budget = bytes;
    return RWKV_OK;
}

int
store_budget_set(store *s, uint64_t bytes, store_budget_info *info, rwkv_err *err)
{
    int rc;

    rc = STORE_PLAIN(s, budget_set(s, bytes, info, err));   /* the caller names the action (store.h) */
    /* the space of the dropped states back to the file system: the budget
    ** is set whether or not that works now (another program's lock) -- as
    ** after a delete, the pages stay free, reused by later writes and given
    ** back by the next delete or `sessions vacuum` */
    if (rc == RWKV_OK && info->dropped > 0)
        store_vacuum_after_delete(s);  /* tried once: no wait for a lock */
    return rc;
}
