/*
** menu_branches.c -- F6: the whole turn tree of the session, drawn as a
** tree (branch glyphs, ASCII when the locale is not UTF-8), the current
** path marked with '*'.  A chain of turns stays at one indentation; the
** children of a turn with several replies (or edits) are indented under
** it, each with its sibling position.
**
** Keys: Left/Right step the selected turn to its previous/next sibling;
** Enter on a turn of the current path edits your message there (the next
** send starts a branch) or scrolls the transcript to the reply, and on any
** other turn switches to its branch;
** C-d (Delete) deletes a turn and everything below it, after saying what
** happens (storage/store_prune.c).
*/
#include "menus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

#define TREE_MAX_LEVELS 12        /* indentation stops growing here */
#define TREE_GLYPH_BYTES 12       /* one glyph of three cells, UTF-8 */

/* The tree's glyphs: tee, corner, bar, blank (three cells each). */
static const char *const glyphs_utf8[4] = { "\u251c\u2500 ", "\u2514\u2500 ", "\u2502  ", "   " };
static const char *const glyphs_ascii[4] = { "|- ", "`- ", "|  ", "   " };

/* Ids root..head of the current branch (*N 0 when nothing is saved). */
static int64_t *
current_path(const struct app *a, size_t *n)
{
    int64_t *ids = NULL;
    rwkv_err err;

    *n = 0;
    if (a->st == NULL || a->head <= 0 || store_turn_path(a->st, a->head, &ids, n, &err) != RWKV_OK)
        return NULL;
    return ids;
}

static int
on_path(const int64_t *path, size_t n, int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (path[i] == id)
            return 1;
    return 0;
}

/*
** The start of turn T's text as the transcript shows it (tui_label: the
** terminal rule, the first line, its first 80 bytes, more than any row
** shows) into OUT.  The tree holds the text's first bytes as saved, so the
** one rule cleans them here as it cleans the transcript.  A reply's
** leading space goes as the transcript drops it (tui_reply_lead): "RWKV: Hi",
** not "RWKV:  Hi".
*/
static void
node_text(const store_tree_node *t, char *out, size_t cap)
{
    size_t skip = t->role == STORE_ROLE_ASSISTANT ? tui_reply_lead(t->text, strlen(t->text)) : 0;

    tui_label(out, cap, t->text + skip, strlen(t->text + skip), 80);
}

/*
** Who speaks in turn T, with its colon, into OUT: the names the
** transcript's headers show (tui_tr_who: the session's own, else "You" and
** "RWKV"), the shorter padded to the longer so that messages and replies
** start in one column ("You:  hi", "RWKV: Hi").
*/
static void
node_who(const struct app *a, const store_tree_node *t, char *out, size_t cap)
{
    const char *user = tui_tr_who(TUI_TURN_USER, a->fr_user, a->fr_bot);
    const char *bot = tui_tr_who(TUI_TURN_ASSISTANT, a->fr_user, a->fr_bot);
    const char *who = t->role == STORE_ROLE_USER ? user : bot;
    int wu = tui_str_width(user, strlen(user)), wb = tui_str_width(bot, strlen(bot));
    int pad = (wu > wb ? wu : wb) - tui_str_width(who, strlen(who));

    if (t->role != STORE_ROLE_USER && t->role != STORE_ROLE_ASSISTANT)
        snprintf(out, cap, "%s", TR("Start:"));
    else
        snprintf(out, cap, "%s:%*s", who, pad, "");
}

static void
add_node(tui_menu *m, const struct app *a, const store_tree_node *t, const char *prefix,
         int mark, int sib, int nsib)
{
    char label[400], detail[32] = "";
    char who[2 * CHAT_MAX_NAME + 8];
    char cut[100];

    node_who(a, t, who, sizeof who);
    node_text(t, cut, sizeof cut);
    snprintf(label, sizeof label, "%c %s%s %s", mark ? '*' : ' ', prefix, who, cut);
    if (nsib > 1)
        snprintf(detail, sizeof detail, "< %d/%d >", sib, nsib);
    tui_menu_add(m, label, detail[0] ? detail : NULL, mark ? "*" : NULL, t->id);
}

/* One level of the walk: what the children of the last turn seen at a
** depth need (level 0 stands above the roots). */
typedef struct tree_level {
    char base[TREE_MAX_LEVELS * TREE_GLYPH_BYTES + 1]; /* their descendants' prefix */
    int  indent;                                       /* glyphs in base */
    int  kids, seen;                                   /* children, of them seen */
} tree_level;

/*
** A turn whose parent has one child continues its parent's prefix; a child
** of a branch point gets a tee (the last one a corner) and gives its
** descendants a bar (the last one a blank).  Several roots are children of
** a branch point above them.  Depth first order: the parent of a turn at
** depth d is the last turn seen at depth d - 1.
*/
static void
add_tree(tui_menu *m, const struct app *a, const store_tree_node *t, size_t n,
         const int64_t *path, size_t np)
{
    const char *const *g = MB_CUR_MAX > 1 ? glyphs_utf8 : glyphs_ascii;
    tree_level *lv = tui_xmalloc((n + 2) * sizeof *lv);

    memset(&lv[0], 0, sizeof lv[0]);
    for (size_t i = 0; i < n; i++)
        lv[0].kids += t[i].depth == 0;
    for (size_t i = 0; i < n; i++) {
        tree_level *up = &lv[t[i].depth], *me = &lv[t[i].depth + 1];
        char prefix[sizeof up->base + TREE_GLYPH_BYTES], next[sizeof up->base];
        int fork = up->kids > 1 && up->indent < TREE_MAX_LEVELS;

        up->seen++;
        snprintf(prefix, sizeof prefix, "%s%s", up->base, fork ? g[t[i].last ? 1 : 0] : "");
        snprintf(next, sizeof next, "%s%s", up->base, fork ? g[t[i].last ? 3 : 2] : "");
        memcpy(me->base, next, sizeof me->base);
        me->indent = up->indent + fork;
        me->kids = t[i].n_children;
        me->seen = 0;
        add_node(m, a, &t[i], prefix, on_path(path, np, t[i].id), up->seen, up->kids);
    }
    free(lv);
}

static void
fill_branches(tui_menu *m, const struct app *a, tui_menu_msg *msg)
{
    store_tree_node *t = NULL;
    size_t n = 0, np;
    int64_t *path;
    rwkv_err err;

    if (a->busy && (a->w.job == TUI_JOB_OPEN || a->w.job == TUI_JOB_SWITCH)) {
        /* a->sid is still the session before it (0 at a start with --session) */
        tui_menu_say(msg, 0, "a session is being opened: its tree comes when it is open");
        return;
    }
    if (a->launch.no_db) {      /* (the turns are in no database: no tree) */
        tui_menu_say(msg, 0, "sessions are not being saved (--no-db): no branches to show");
        return;
    }
    if (a->st == NULL || a->sid == 0) {
        tui_menu_say(msg, 0, "nothing saved yet: the tree starts with the first message");
        return;
    }
    if (store_session_tree(a->st, a->sid, &t, &n, &err) != RWKV_OK) {
        tui_menu_say(msg, 1, "%s", err.msg);
        return;
    }
    /* a row is the start of its turn (node_text): the list gets the rows
    ** a long one's "whole" would keep under it, with nothing more to say */
    m->no_whole = 1;
    path = current_path(a, &np);
    add_tree(m, a, t, n, path, np);
    free(path);
    free(t);
    if (a->busy && (a->w.job == TUI_JOB_SUBMIT || a->w.job == TUI_JOB_REGEN ||
                    a->w.job == TUI_JOB_CONTINUE))
        tui_menu_say(msg, 0, "a reply is being written: its turns are marked when it ends");
}

void
tui_branches_follow(struct app *a, int64_t old_head, int64_t sel)
{
    if (a->menu.kind != TUI_MENU_BRANCHES)
        return;
    a->menu_sel_keep = 0;
    tui_menu_refill(a, sel == old_head ? a->head : sel);
}

/* The selection: the turn stepped to its sibling (a->menu_sel_keep, its
** position on the current path + 1), else the current turn. */
static void
select_current(tui_menu *m, const struct app *a)
{
    size_t np;
    int64_t *path = current_path(a, &np);
    size_t k = a->menu_sel_keep;

    if (path != NULL && k > 0 && k <= np)
        tui_menu_select_id(m, path[k - 1]);
    else if (!tui_menu_select_id(m, a->head))
        tui_menu_end(m);
    free(path);
}

/* ---- keys ------------------------------------------------------------------- */

void
tui_branches_step(struct app *a, int64_t turn, int dir)
{
    int64_t *up = NULL;
    size_t k = 0;
    rwkv_err err;

    if (a->st == NULL)
        return;
    /* after the step the sibling sits at the same depth of the new path */
    if (store_turn_path(a->st, turn, &up, &k, &err) != RWKV_OK)
        k = 0;
    free(up);
    if (a->busy && a->w.job == TUI_JOB_SIBLING) {   /* taken when this one ends */
        a->sib_pending += dir;
        a->sib_depth = k;
        return;
    }
    if (a->menu.kind == TUI_MENU_BRANCHES)
        a->menu_sel_keep = k;
    /* the menu stays; it is filled again when the switch is done */
    tui_session_job(a, TUI_JOB_SIBLING, turn, dir, NULL);
}

static void
sibling(struct app *a, const tui_menu_item *it, int key)
{
    if (it != NULL)
        tui_branches_step(a, it->id, key == TUI_MK_FKEY(KEY_LEFT) ? -1 : +1);
}

/* A reply of the current path, turn I of the transcript: shown there, its
** header at the top of the view -- the tree is the long chat's table of
** contents. */
static void
show_reply(struct app *a, int i)
{
    size_t row = tui_tr_header_row(&a->tr, i);

    if (row != (size_t)-1)
        tui_tr_show_top(&a->tr, row, a->tr_rows > 0 ? a->tr_rows : 1);
    a->tr.focus = i;                  /* the reply M-c and M-k take */
    tui_notice(a, 0, "the reply is in view (End: back to the end)");
    tui_menu_close(a);
}

/* Enter: edit your message on the current path, show a reply of it, else
** switch to the branch through the turn (down to its newest leaf). */
static void
enter(struct app *a, const tui_menu_item *it, int key)
{
    int64_t leaf;
    rwkv_err err;

    (void)key;
    if (it == NULL)
        return;
    if (it->data != NULL && it->data[0] == '*') {      /* on the current path */
        for (int i = 0; i < a->tr.nturns; i++) {
            tui_turn *t = &a->tr.turns[i];
            if (t->store_id != it->id)
                continue;
            if (t->role == TUI_TURN_ASSISTANT) {
                show_reply(a, i);
                return;
            }
            if (t->role != TUI_TURN_USER)
                continue;
            tui_edit_turn(a, i);
            if (a->edit_draft)
                tui_notice(a, 0, "edit and send: a new branch there; your draft comes back "
                                 "after it");
            else
                tui_notice(a, 0, "edit and send: the message starts a new branch there");
            tui_menu_close(a);
            return;
        }
        /* the start of this branch: nothing to switch to, edit or show --
        ** said, the menu stays (it closed without a word) */
        tui_notice(a, 0, "already on this branch (Enter on your message edits it; "
                         "Left/Right: its siblings)");
        return;
    }
    if (store_branch_leaf(a->st, it->id, &leaf, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        return;
    }
    if (tui_session_job(a, TUI_JOB_OPEN, a->sid, leaf, NULL) == 0)
        tui_menu_close(a);
}

/* C-d: say what deleting the turn's branch does, and ask. */
static void
prune_ask(struct app *a, const tui_menu_item *it, int key)
{
    store_prune p;
    rwkv_err err;
    char label[320];
    size_t below;

    (void)key;
    if (it == NULL || a->st == NULL)
        return;
    if (a->busy) {
        tui_notice(a, 1, "wait for the model to finish (Esc cancels it)");
        return;
    }
    if (store_turn_prune_plan(a->st, it->id, &p, &err) != RWKV_OK) {
        tui_notice(a, 1, "%s", err.msg);
        return;
    }
    below = p.n_turns - 1;
    if (p.has_head && p.head == 0) {
        /* the session's messages, as F2 and `sessions list` count them
        ** (the plan counts the greeting's turn too) */
        store_session ss;
        long long n = store_session_get(a->st, p.session, &ss, &err) == RWKV_OK
                          ? (long long)ss.n_turns : (long long)p.n_turns;
        snprintf(label, sizeof label, TR("delete the whole conversation (%lld turns)? the session "
                 "stays, empty (y/n) "), n);
    } else if (p.has_head && below == 0) {       /* a leaf: nothing below to count */
        /* (each question whole in 80 columns, "(y/n)" and all: the prompt
        ** line cuts the middle of a longer one, where the chat goes) */
        snprintf(label, sizeof label, TR("delete this turn? the chat moves to the %s (y/n) "),
                 p.head == p.parent ? TR("turn above") : TR("branch beside it"));
    } else if (p.has_head) {
        snprintf(label, sizeof label, TR("delete this turn and %zu below? the chat moves to the "
                 "%s (y/n) "), below, p.head == p.parent ? TR("turn above") :
                 TR("branch beside it"));
    } else if (below == 0) {
        snprintf(label, sizeof label, "%s", TR("delete this turn? (y/n) "));
    } else {
        snprintf(label, sizeof label, TR("delete this turn and %zu below? (y/n) "), below);
    }
    a->prompt_target = it->id;
    tui_prompt_open(a, TUI_PROMPT_PRUNE, label, "");
}

/* (a y/n question: nothing typed to keep) */
static int
accept_prune(struct app *a, const char *text)
{
    store_prune p;
    rwkv_err err;

    (void)text;
    if (a->busy) {
        tui_notice(a, 1, "wait for the model to finish (Esc cancels it)");
        return TUI_PROMPT_DONE;
    }
    /* said while a long branch goes (thousands of turns and their states) */
    if (store_turn_prune_plan(a->st, a->prompt_target, &p, &err) == RWKV_OK && p.n_turns > 1)
        tui_notice_now(a, TR_NOOP("deleting turn %lld and %zu below it..."),
                       (long long)a->prompt_target, p.n_turns - 1);
    else
        tui_notice_now(a, TR_NOOP("deleting turn %lld..."), (long long)a->prompt_target);
    if (store_turn_prune(a->st, a->prompt_target, &p, &err) != RWKV_OK) {
        tui_notice(a, 1, "deleting turn %lld: %s", (long long)a->prompt_target, err.msg);
        return TUI_PROMPT_DONE;
    }
    if (p.n_turns == 1)
        tui_notice(a, 0, "deleted 1 turn");
    else
        tui_notice(a, 0, "deleted %zu turns", p.n_turns);
    if (p.has_head) {
        /* the conversation changes: the session is opened at its new head */
        tui_menu_close(a);
        tui_session_job(a, TUI_JOB_OPEN, a->sid, -1, NULL);
        return TUI_PROMPT_DONE;
    }
    tui_session_rebuild(a);               /* sibling positions */
    a->menu_sel_keep = 0;
    tui_menu_refill(a, p.parent);
    return TUI_PROMPT_DONE;
}

const tui_prompt_class tui_prompt_prune = { TUI_PROMPT_PRUNE, 1, accept_prune, TUI_PHIST_NONE, 0 };

static const tui_menu_keydef branch_keys[] = {
    { TUI_MK_FKEY(KEY_LEFT), TUI_MK_FKEY(KEY_RIGHT), "Left/Right", TR_NOOP("sibling"),
      TR_NOOP("previous/next sibling of the selected turn"), sibling, 1 },
    { TUI_K_ENTER, 0, "Enter", TR_NOOP("edit/show/switch"),
      TR_NOOP("on your message in this branch: edit it (starts a branch); on a reply in this "
      "branch: show it in the transcript; elsewhere: switch to that branch"), enter, 1 },
    { CFG_KEY_CTRL('d'), TUI_MK_FKEY(KEY_DC), "C-d", TR_NOOP("delete"),
      TR_NOOP("delete the selected turn and every turn below it (asks first, saying where the chat "
      "goes; also Delete)"), prune_ask, 1 },
    { 0, 0, NULL, NULL, NULL, NULL, 0 }
};

const tui_menu_class tui_menu_branches_class = {
    TUI_MENU_BRANCHES, CFG_ACT_BRANCHES, TR_NOOP("Branches"), TR_NOOP("Branches: the whole tree (* = this branch)"),
    fill_branches, select_current, NULL, branch_keys, 0
};
