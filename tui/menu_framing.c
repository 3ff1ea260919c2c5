/*
** menu_framing.c -- F8 and the chat's framing in the full-screen client
** (storage/framing.h holds the value and its rules; the session runtime
** keeps it with each session):
**   - at launch: the config's keys (greeting, user, bot, think, stop, ban), then the
**     framing saved with the config's preset, then the command line's
**     options, each field from the last that sets it;
**   - the Framing menu (F8): one row per field showing its value; Enter
**     edits it in the one-line prompt (\n is a newline, stop strings are
**     separated by ","), "Defaults" puts the demo's back.  Another greeting
**     or other names on a conversation start a new session (the turns so far
**     were written with the old ones); the think mode, stop strings and bans
**     apply to the conversation in place;
**   - the think key (M-t) steps the think mode to the next one;
**   - presets: saving one (F4, C-s) saves the framing in use with it;
**     loading one that carries a framing uses it.
*/
#include "menus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../storage/framing.h"

enum { FR_GREETING = 1, FR_USER, FR_BOT, FR_STOP, FR_BAN, FR_DEFAULTS, FR_THINK };

/* The config's framing keys into F (they were checked when the config was
** read; a value that still fails is skipped with a line on stderr). */
static void
from_config(const tui_config *c, framing *f)
{
    rwkv_err err;
    char buf[CFG_PATH];

    if ((c->has_greeting && framing_set_greeting(f, c->greeting, &err) != RWKV_OK) ||
        framing_set_user(f, c->user, &err) != RWKV_OK ||
        framing_set_bot(f, c->bot, &err) != RWKV_OK ||
        framing_set_think(f, c->think, &err) != RWKV_OK)
        fprintf(stderr, PROG_NAME_TUI ": config: %s\n", err.msg);
    for (int i = 0; i < c->n_stop; i++) {
        snprintf(buf, sizeof buf, "%s", c->stop[i]);
        framing_unescape(buf, 0);
        if (framing_add_stop(f, buf, &err) != RWKV_OK)
            fprintf(stderr, PROG_NAME_TUI ": config: %s\n", err.msg);
    }
    if (c->ban[0] && framing_set_ban_text(f, c->ban, &err) != RWKV_OK)
        fprintf(stderr, PROG_NAME_TUI ": config: %s\n", err.msg);
}

int
tui_framing_launch(struct app *a, framing *out)
{
    framing p;
    rwkv_err err;
    int has = 0;

    from_config(&a->cfg, out);
    framing_init(&p);
    if (a->st && a->cfg.preset[0] &&
        store_preset_framing(a->st, a->cfg.preset, &p, &has, &err) == RWKV_OK && has &&
        framing_copy(out, &p, &err) != RWKV_OK)      /* a preset's framing is whole: its
                                                        think off and default stop too */
        fprintf(stderr, PROG_NAME_TUI ": preset '%s': %s\n", a->cfg.preset, err.msg);
    framing_fini(&p);
    if (a->launch.frame && framing_merge(out, a->launch.frame, FRAMING_ALL, &err) != RWKV_OK) {
        fprintf(stderr, PROG_NAME_TUI ": %s\n", err.msg);
        return 1;
    }
    return 0;
}

/* A one-line view of TEXT (escaped) into OUT: its row cuts it with "…",
** and the area under the list shows the selected one whole, or as much as
** its rows hold (a greeting of a few hundred characters: TUI_SHOWN_MAX). */
#define TUI_SHOWN_MAX 1024
static void
shown(const char *text, char *out, size_t cap)
{
    char esc[2 * TUI_SHOWN_MAX];      /* more than is shown: the cut says "…" */

    framing_escape(text, esc, sizeof esc, 0);
    tui_cut(out, cap, esc, TUI_SHOWN_MAX);
}

/* The think mode MODE as F8 shows it: its name and what it writes. */
static const char *
think_value(int mode)
{
    static const char *const shown[CHAT_THINK_COUNT] = {
        [CHAT_THINK_OFF]   = TR_NOOP("off"),
        [CHAT_THINK_ON]    = TR_NOOP("on (BOT: <think)"),
        [CHAT_THINK_SHORT] = TR_NOOP("short (MSG think a bit, BOT: <think)"),
        [CHAT_THINK_LONG]  = TR_NOOP("long (MSG think a lot, BOT: <think)"),
        [CHAT_THINK_SKIP]  = TR_NOOP("skip (BOT: <think>\\n</think: no reasoning)"),
    };
    return mode >= 0 && mode < CHAT_THINK_COUNT ? TR(shown[mode]) : "?";
}

static void
fill_framing(tui_menu *m, const struct app *a, tui_menu_msg *msg)
{
    const framing *f = sess_framing(a->sess);
    char *g = framing_greeting_fed(f);     /* as fed, as /framing shows it */
    char v[TUI_SHOWN_MAX + 64], t[CHAT_MAX_STOP * (2 * CHAT_MAX_STOP_LEN + 1) + 1];

    (void)msg;

    if (!f->greeting)
        snprintf(v, sizeof v, "%s", TR("(the demo's) "));
    else
        v[0] = '\0';
    if (g && g[0])
        shown(g, v + strlen(v), sizeof v - strlen(v));
    else
        snprintf(v, sizeof v, "%s", TR("(none)"));
    free(g);
    if (!sess_greeting_used(a->sess))     /* the runtime's rule, as /framing */
        snprintf(v, sizeof v, "%s", TR("(not fed: a state file is in use)"));
    tui_menu_add(m, TR("greeting"), v, NULL, FR_GREETING);
    tui_menu_add(m, TR("user name"), framing_user(f), NULL, FR_USER);
    tui_menu_add(m, TR("bot name"), framing_bot(f), NULL, FR_BOT);
    framing_stops_text(f, t, sizeof t);
    tui_menu_add(m, TR("stop"), f->n_stop ? t : TR("\\n\\n (the demo's)"), NULL, FR_STOP);
    framing_ban_text(f, t, sizeof t);
    tui_menu_add(m, TR("ban"), f->n_ban ? t : TR("(none)"), NULL, FR_BAN);
    tui_menu_add(m, TR("think"), think_value(framing_think(f)), NULL, FR_THINK);
    tui_menu_add(m, TR("Defaults"), TR("the demo's greeting, User / Assistant, think off, \\n\\n"), NULL,
                 FR_DEFAULTS);
    m->label_col = 1;                     /* the values in a column, as F2's details */
}

/* ERR, a framing value refused (storage's or the engine's line, English):
** said in the interface language (tui_tr_msg). */
static void
refused(struct app *a, const rwkv_err *err)
{
    char msg[2 * RWKV_ERR_MSG];

    tui_notice(a, 1, "framing: %s", tui_tr_msg(err->msg, msg, sizeof msg));
}

/* Use framing F; a notice says what happened (WHAT when it is given and
** the conversation is kept).  RWKV_OK, else the failure said: RWKV_EINVAL
** when the runtime refused a value of F (a banned id outside the model's
** vocabulary), -1 while a reply runs. */
static int
apply(struct app *a, const framing *f, const char *what)
{
    rwkv_err err;
    int left = 0, rc;

    if (a->busy) {
        tui_notice(a, 1, "wait for the reply to finish (Esc cancels it)");
        return -1;
    }
    if (!framing_same_prompt(f, sess_framing(a->sess)))
        tui_unsaved_saving(a);        /* leaving: its try may wait for a lock */
    if ((rc = sess_set_framing(a->sess, f, &left, &err)) != RWKV_OK) {
        refused(a, &err);
        return rc;
    }
    if (left) {
        tui_tr_clear(&a->tr);
        tui_edit_end(a, 0);
    }
    tui_session_sync(a);
    if (left)
        tui_notice(a, 0, "framing changed: the next message starts a new session (the "
                         "conversation so far used the old greeting or names)");
    else if (what)
        tui_notice(a, 0, "%s", what);     /* translated by the caller */
    else
        tui_notice(a, 0, "framing changed");
    return RWKV_OK;
}

/* The framing in use with think mode NAME; a notice says what happened. */
static void
set_think(struct app *a, const char *name)
{
    framing f;
    rwkv_err err;
    char what[192];

    framing_init(&f);
    if (framing_copy(&f, sess_framing(a->sess), &err) != RWKV_OK ||
        framing_set_think(&f, name, &err) != RWKV_OK) {
        refused(a, &err);
    } else {
        snprintf(what, sizeof what, TR("think: %s (from the next message on)"),
                 chat_think_name(framing_think(&f)));
        apply(a, &f, what);
    }
    framing_fini(&f);
}

void
tui_framing_next_think(struct app *a)
{
    if (a->sess == NULL) {
        tui_notice(a, 1, "no model loaded yet");
        return;
    }
    if (tui_session_swapping(a))
        return;
    set_think(a, chat_think_name((framing_think(sess_framing(a->sess)) + 1) % CHAT_THINK_COUNT));
}

static void
pick(struct app *a, const tui_menu_item *it, int key)
{
    const framing *f = sess_framing(a->sess);
    static const char *const labels[] = { "", TR_NOOP("greeting (\\n = newline, empty = none): "),
                                          TR_NOOP("user name (empty = User): "),
                                          TR_NOOP("bot name (empty = Assistant): "),
                                          TR_NOOP("stop strings (\\n escapes, ',' between): "),
                                          TR_NOOP("banned token ids (1,2,3): "), "",
                                          TR_NOOP("think (off, on, short, long, skip): ") };
    char init[FRAMING_MAX_BAN * 12 > 8192 ? 8192 : FRAMING_MAX_BAN * 12];
    char *g;

    (void)key;
    if (it == NULL)
        return;
    if (it->id == FR_DEFAULTS) {
        framing d;
        framing_init(&d);
        tui_menu_close(a);
        apply(a, &d, NULL);
        return;
    }
    init[0] = '\0';
    switch (it->id) {
    case FR_GREETING:
        if ((g = framing_greeting_text(f)) != NULL)
            framing_escape(g, init, sizeof init, 0);
        free(g);
        break;
    case FR_USER: snprintf(init, sizeof init, "%s", f->user); break;
    case FR_BOT:  snprintf(init, sizeof init, "%s", f->bot); break;
    case FR_STOP: framing_stops_text(f, init, sizeof init); break;
    case FR_BAN:  framing_ban_text(f, init, sizeof init); break;
    case FR_THINK: snprintf(init, sizeof init, "%s", chat_think_name(framing_think(f))); break;
    default: return;
    }
    a->prompt_target = it->id;          /* IT dies with the menu */
    tui_prompt_open(a, TUI_PROMPT_FRAMING, labels[a->prompt_target], init);
}

int
tui_framing_field_escapes(const struct app *a)
{
    return a->prompt_kind == TUI_PROMPT_FRAMING &&
           (a->prompt_target == FR_GREETING || a->prompt_target == FR_STOP);
}

/* A value that does not parse, or that the runtime refuses (a banned id
** outside the vocabulary), is said and the prompt stays open holding it
** (TUI_PROMPT_REFUSED); a change that could not be made now (a reply
** running, a write refused) keeps it for Enter again. */
static int
accept_field(struct app *a, const char *text)
{
    framing f;
    rwkv_err err;
    char *buf = strdup(text);
    int rc = RWKV_ENOMEM;

    framing_init(&f);
    if (buf == NULL || framing_copy(&f, sess_framing(a->sess), &err) != RWKV_OK) {
        free(buf);
        tui_notice(a, 1, "framing: out of memory");
        return TUI_PROMPT_DONE;
    }
    switch (a->prompt_target) {
    case FR_GREETING:
        framing_unescape(buf, 0);
        rc = framing_set_greeting(&f, buf, &err);
        break;
    case FR_USER: rc = framing_set_user(&f, buf, &err); break;
    case FR_BOT:  rc = framing_set_bot(&f, buf, &err); break;
    case FR_STOP: rc = framing_set_stops_text(&f, buf, &err); break;
    case FR_BAN:  rc = framing_set_ban_text(&f, buf, &err); break;
    case FR_THINK: rc = framing_set_think(&f, buf, &err); break;
    default: break;
    }
    if (rc != RWKV_OK) {
        refused(a, &err);
        rc = TUI_PROMPT_REFUSED;
    } else {
        rc = apply(a, &f, NULL);
        rc = rc == RWKV_OK ? TUI_PROMPT_DONE
             : rc == RWKV_EINVAL ? TUI_PROMPT_REFUSED : TUI_PROMPT_AGAIN;
    }
    framing_fini(&f);
    free(buf);
    return rc;
}

void
tui_framing_preset_save(struct app *a, const char *name)
{
    rwkv_err err;

    if (store_preset_set_framing(a->st, name, sess_framing(a->sess), &err) != RWKV_OK)
        tui_notice(a, 1, "preset '%s': the framing was not saved: %s", name, err.msg);
}

void
tui_framing_preset_load(struct app *a, const char *name)
{
    framing f;
    rwkv_err err;
    int has = 0;

    framing_init(&f);
    if (store_preset_framing(a->st, name, &f, &has, &err) != RWKV_OK)
        tui_notice(a, 1, "preset '%s': %s", name, err.msg);
    else if (has && !framing_equal(&f, sess_framing(a->sess)))
        apply(a, &f, NULL);
    framing_fini(&f);
}

static const tui_menu_keydef framing_keys[] = {
    { TUI_K_ENTER, 0, "Enter", TR_NOOP("edit"), TR_NOOP("edit the greeting, a role name, the think mode, the stop "
      "strings (\\n escapes, ',' between) or bans; a new greeting or names start a new session"),
      pick, 1 },
    { 0, 0, NULL, NULL, NULL, NULL, 0 }
};

const tui_menu_class tui_menu_framing_class = {
    TUI_MENU_FRAMING, CFG_ACT_FRAMING, TR_NOOP("Framing"), TR_NOOP("Framing of this session"), fill_framing, NULL,
    NULL, framing_keys, 1
};

const tui_prompt_class tui_prompt_framing = { TUI_PROMPT_FRAMING, 0, accept_field,
                                               TUI_PHIST_NONE, 1 };
