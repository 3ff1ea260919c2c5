/*
** store_prune.c -- a session's whole turn tree in one read (the full-screen
** client's branches menu draws it), and deleting a branch: a turn with
** every turn below it, its space given back (store_vacuum).  See store.h.
**
** Deleting follows store_session_delete: the parent links of the doomed
** turns are cut first, so the ON DELETE CASCADE of turns.parent_id never
** recurses; snapshots go with their turns, search entries by the FTS
** trigger.  The walk down uses depth (it must grow at every step, as in
** store_branch_leaf), so a tampered parent loop cannot make it endless.
*/
#include "store_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/text/utf8.h"

/* ---- the tree ---------------------------------------------------------------- */

typedef struct tree_row {
    store_tree_node node;
    size_t          parent;        /* index, or SIZE_MAX for a root */
    size_t          first, count;  /* children: kids[first .. first+count) */
    int             seen;
} tree_row;

/* Bytes of a turn's text read for its label: the label is the text from its
** first visible character (utf8_san_label), so a reply opening with escape
** sequences, controls, NULs or blank lines is read past them -- this far
** and no further (16 sequences of the longest the rule follows). */
#define STORE_TREE_SCAN (16 * UTF8_SAN_MAX_SEQ)

/* A turn as read_rows reads it: role and text are NOT NULL (store_row_check). */
static const store_rowspec tree_spec = { "turns", NULL, STORE_COL(2) | STORE_COL(3) };

/* Read the session's turns, ordered by id (creation order). */
static int
read_rows(store *s, int64_t session, tree_row **rows, size_t *n, rwkv_err *err)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    int rc, r;

    *rows = NULL;
    *n = 0;
    /* (SQLite's substr of an empty blob is NULL: an empty text reads as an
    ** empty blob, only a NULL one as NULL, the damage the check names) */
    if ((rc = store_prep(s, "SELECT id, parent_id, role, CASE WHEN text IS NULL THEN NULL ELSE"
                            " ifnull(substr(CAST(text AS BLOB), 1, ?), x'') END AS text FROM turns"
                            " WHERE session_id=? ORDER BY id", &st, err)) != RWKV_OK)
        return rc;
    /* one byte more than is scanned tells whether the text goes on */
    sqlite3_bind_int(st, 1, STORE_TREE_SCAN + 1);
    sqlite3_bind_int64(st, 2, session);
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        tree_row *t;
        if ((rc = store_row_check(s, st, &tree_spec, err)) != RWKV_OK) {
            sqlite3_finalize(st);
            return rc;
        }
        if ((t = store_grow(*rows, &cap, *n, sizeof *t, 64)) == NULL) {
            sqlite3_finalize(st);
            return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory reading a turn tree", s->path);
        }
        *rows = t;
        t = &(*rows)[(*n)++];
        memset(t, 0, sizeof *t);
        t->node.id = sqlite3_column_int64(st, 0);
        t->node.parent_id = sqlite3_column_int64(st, 1);
        t->node.role = sqlite3_column_int(st, 2);
        {
            /* the bytes as saved, a NUL among them a control like any
            ** other (the rule drops it), not the end */
            size_t len = (size_t)sqlite3_column_bytes(st, 3);
            utf8_san_label(sqlite3_column_blob(st, 3), len < STORE_TREE_SCAN ? len : STORE_TREE_SCAN,
                           len > STORE_TREE_SCAN, t->node.text, sizeof t->node.text);
        }
    }
    rc = r == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "reading turns");
    sqlite3_finalize(st);
    return rc;
}

static size_t
find_row(const tree_row *rows, size_t n, int64_t id)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rows[mid].node.id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && rows[lo].node.id == id ? lo : SIZE_MAX;
}

/* Link every row to its parent; *KIDS (OUT) lists children grouped by
** parent, roots last (at kids[n_links..]), each group in id order. */
static size_t *
link_rows(tree_row *rows, size_t n, size_t *n_roots)
{
    size_t *kids = malloc((n ? n : 1) * sizeof *kids), next = 0, roots = 0;

    if (kids == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        rows[i].parent = rows[i].node.parent_id ? find_row(rows, n, rows[i].node.parent_id)
                                                : SIZE_MAX;
        if (rows[i].parent == i)
            rows[i].parent = SIZE_MAX;
        if (rows[i].parent != SIZE_MAX)
            rows[rows[i].parent].count++;
        else
            roots++;
    }
    for (size_t i = 0; i < n; i++) {
        rows[i].first = next;
        next += rows[i].count;
        rows[i].count = 0;
    }
    for (size_t i = 0, r = next; i < n; i++) {
        if (rows[i].parent == SIZE_MAX) {
            kids[r++] = i;
        } else {
            tree_row *p = &rows[rows[i].parent];
            kids[p->first + p->count++] = i;
        }
    }
    *n_roots = roots;
    return kids;
}

/* Depth first from the roots, with an explicit stack (any depth). */
static size_t
walk(tree_row *rows, size_t n, const size_t *kids, size_t n_roots, store_tree_node *out)
{
    size_t *stack = malloc((n ? n : 1) * sizeof *stack), sp = 0, k = 0;

    if (stack == NULL)
        return SIZE_MAX;
    for (size_t r = n_roots; r-- > 0;) {
        size_t i = kids[n - n_roots + r];
        rows[i].node.depth = 0;
        rows[i].node.last = r == n_roots - 1;
        stack[sp++] = i;
    }
    while (sp > 0) {
        tree_row *t = &rows[stack[--sp]];
        if (t->seen)
            continue;
        t->seen = 1;
        t->node.n_children = (int)t->count;
        out[k++] = t->node;
        for (size_t c = t->count; c-- > 0 && sp < n;) {
            tree_row *ch = &rows[kids[t->first + c]];
            ch->node.depth = t->node.depth + 1;
            ch->node.last = c == t->count - 1;
            stack[sp++] = kids[t->first + c];
        }
    }
    free(stack);
    return k;
}

int
store_session_tree(store *s, int64_t session, store_tree_node **out, size_t *n, rwkv_err *err)
{
    tree_row *rows;
    size_t nr, n_roots, *kids, k;
    int rc;

    *out = NULL;
    *n = 0;
    if ((rc = read_rows(s, session, &rows, &nr, err)) != RWKV_OK) {
        free(rows);
        return rc;
    }
    kids = link_rows(rows, nr, &n_roots);
    *out = malloc((nr ? nr : 1) * sizeof **out);
    k = kids && *out ? walk(rows, nr, kids, n_roots, *out) : SIZE_MAX;
    free(kids);
    free(rows);
    if (k == SIZE_MAX) {
        free(*out);
        *out = NULL;
        return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory reading a turn tree", s->path);
    }
    *n = k;
    return RWKV_OK;
}

/* ---- deleting a branch --------------------------------------------------------- */

/* Read the ids a prepared statement returns (one column) into *IDS. */
static int
read_ids(store *s, sqlite3_stmt *st, int64_t **ids, size_t *n, rwkv_err *err)
{
    size_t cap = 0;
    int r;

    *ids = NULL;
    *n = 0;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t *ni = store_grow(*ids, &cap, *n, sizeof *ni, 64);
        if (ni == NULL)
            return rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", s->path);
        *ids = ni;
        (*ids)[(*n)++] = sqlite3_column_int64(st, 0);
    }
    return r == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "reading turns");
}

/* TURN and every turn below it, and TURN's session and parent. */
static int
subtree(store *s, int64_t turn, store_prune *p, int64_t **ids, size_t *n, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    *ids = NULL;
    *n = 0;
    if ((rc = store_prep(s, "SELECT session_id, parent_id FROM turns WHERE id=?", &st, err)) !=
        RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, turn);
    rc = store_step_one(s, st, "reading a turn", err, "%s: no turn %lld", s->path, (long long)turn);
    if (rc == RWKV_OK) {
        p->session = sqlite3_column_int64(st, 0);
        p->parent = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    if (rc != RWKV_OK)
        return rc;
    if ((rc = store_prep(s, "WITH RECURSIVE sub(id, depth) AS ("
                            " SELECT id, depth FROM turns WHERE id=?1"
                            " UNION ALL SELECT t.id, t.depth FROM turns t JOIN sub"
                            " ON t.parent_id=sub.id AND t.depth > sub.depth AND t.session_id=?2)"
                            " SELECT id FROM sub", &st, err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, turn);
    sqlite3_bind_int64(st, 2, p->session);
    rc = read_ids(s, st, ids, n, err);
    sqlite3_finalize(st);
    return rc;
}

/* The head after the branch at TURN goes: the newest leaf of its previous
** sibling, else of its next one, else its parent. */
static int
head_after(store *s, int64_t turn, store_prune *p, rwkv_err *err)
{
    int64_t *sib = NULL;
    size_t n = 0, at = 0;
    int rc;

    if ((rc = store_turn_children(s, p->session, p->parent, &sib, &n, err)) != RWKV_OK)
        return rc;
    while (at < n && sib[at] != turn)
        at++;
    p->head = p->parent;
    if (at < n && at > 0)
        rc = store_branch_leaf(s, sib[at - 1], &p->head, err);
    else if (at + 1 < n)
        rc = store_branch_leaf(s, sib[at + 1], &p->head, err);
    free(sib);
    return rc;
}

/* The plan and the doomed ids (*IDS owned by the caller). */
static int
plan(store *s, int64_t turn, store_prune *p, int64_t **ids, rwkv_err *err)
{
    store_session ss;
    int rc;

    memset(p, 0, sizeof *p);
    if ((rc = subtree(s, turn, p, ids, &p->n_turns, err)) != RWKV_OK)
        return rc;
    if ((rc = store_session_get(s, p->session, &ss, err)) != RWKV_OK)
        return rc;
    p->head = ss.head_turn;
    for (size_t i = 0; i < p->n_turns && !p->has_head; i++)
        p->has_head = (*ids)[i] == ss.head_turn && ss.head_turn != 0;
    return p->has_head ? head_after(s, turn, p, err) : RWKV_OK;
}

int
store_turn_prune_plan(store *s, int64_t turn, store_prune *out, rwkv_err *err)
{
    int64_t *ids = NULL;
    int rc = plan(s, turn, out, &ids, err);

    free(ids);
    return rc;
}

static int
set_head(store *s, const store_prune *p, rwkv_err *err)
{
    sqlite3_stmt *st;
    int rc;

    if ((rc = store_prep(s, "UPDATE sessions SET head_turn=?2, updated_ms=?3 WHERE id=?1", &st,
                         err)) != RWKV_OK)
        return rc;
    sqlite3_bind_int64(st, 1, p->session);
    if (p->head > 0)
        sqlite3_bind_int64(st, 2, p->head);
    else
        sqlite3_bind_null(st, 2);
    sqlite3_bind_int64(st, 3, store_now_ms());
    rc = sqlite3_step(st) == SQLITE_DONE ? RWKV_OK : store_dberr(s, err, "updating session");
    sqlite3_finalize(st);
    return rc;
}

static int
prune(store *s, int64_t turn, store_prune *out, rwkv_err *err)
{
    store_prune p;
    int64_t *ids = NULL;
    int rc;

    if ((rc = store_tx_begin(s, err)) != RWKV_OK)
        return rc;
    if ((rc = plan(s, turn, &p, &ids, err)) != RWKV_OK ||
        (rc = store_snapshot_drop_tx(s, ids, p.n_turns, "deleting a branch", err)) != RWKV_OK ||
        (rc = store_exec_ids(s, "UPDATE turns SET parent_id=NULL WHERE id=?", ids, p.n_turns,
                             "deleting a branch", err)) != RWKV_OK ||
        (rc = store_exec_ids(s, "DELETE FROM turns WHERE id=?", ids, p.n_turns,
                             "deleting a branch", err)) != RWKV_OK ||
        (rc = set_head(s, &p, err)) != RWKV_OK) {
        free(ids);
        store_tx_rollback(s);
        return rc;
    }
    free(ids);
    if ((rc = store_tx_commit(s, err)) != RWKV_OK)
        return rc;
    if (out)
        *out = p;
    return RWKV_OK;
}

int
store_turn_prune(store *s, int64_t turn, store_prune *out, rwkv_err *err)
{
    int rc;

    rc = STORE_PLAIN(s, prune(s, turn, out, err));   /* the caller names the action (store.h) */
    /* give the space back: the pages of the deleted snapshots -- the
    ** branch is gone whether or not that works now (another program's
    ** lock): the pages stay free, reused by later writes and given back by
    ** the next delete or `sessions vacuum` */
    if (rc == RWKV_OK)
        store_vacuum_after_delete(s);  /* tried once: no wait for a lock */
    return rc;
}
