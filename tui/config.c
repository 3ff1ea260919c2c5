/*
** config.c -- config file loading (libyaml events, every problem with its
** line and column) and key names.  See config.h.
*/
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yaml.h>

#include "../core/chat/params.h"
#include "../core/model/strategy.h"
#include "../core/text/utf8.h"
#include "../storage/framing.h"
#include "text.h"
#include "yamlerr.h"

_Static_assert(CFG_GREETING == FRAMING_MAX_GREETING, "the config's greeting is framing's");

static const struct {
    const char *name;
    int         def;
    const char *help;
} action_table[CFG_ACT_COUNT] = {
#define CFG_TAB_(e, k, d, h) { k, d, h },
    CFG_ACTIONS(CFG_TAB_)
#undef CFG_TAB_
};

const char *
cfg_action_name(int act)
{
    return act >= 0 && act < CFG_ACT_COUNT ? action_table[act].name : "?";
}

const char *
cfg_action_help(int act)
{
    return act >= 0 && act < CFG_ACT_COUNT ? action_table[act].help : "";
}

void
cfg_defaults(tui_config *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < CFG_ACT_COUNT; i++)
        c->keys[i] = action_table[i].def;
}

int
cfg_action_for_key(const tui_config *c, int key)
{
    for (int i = 0; i < CFG_ACT_COUNT; i++)
        if (c->keys[i] == key && key != CFG_KEY_NONE)
            return i;
    return -1;
}

/* The one character S holds (UTF-8), or -1 when S is not one whole
** character. */
static int
one_char(const char *s)
{
    uint32_t cp;
    size_t n = strlen(s);
    int r = n ? utf8_decode((const unsigned char *)s, n, &cp) : -1;

    return r > 0 && (size_t)r == n ? (int)cp : -1;
}

/* 1 when CP is a character that prints (no C0/C1 control, no DEL). */
static int
printable(int cp)
{
    return cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp < 0xa0);
}

int
cfg_key_types(int key)
{
    return key >= 0 && key < 0x110000 && printable(key);
}

int
cfg_key_parse(const char *s)
{
    size_t n = strlen(s);
    int cp = one_char(s);

    if (cp >= 0)
        return printable(cp) ? cp : -1;    /* types it: cfg_load refuses it */
    if (strcmp(s, "Tab") == 0 || strcmp(s, "tab") == 0)
        return '\t';
    if ((s[0] == 'F' || s[0] == 'f') && n >= 2 && n <= 3 && isdigit((unsigned char)s[1])) {
        char *end;
        long k = strtol(s + 1, &end, 10);
        if (*end == '\0' && k >= 1 && k <= 12)
            return CFG_KEY_F((int)k);
        return -1;
    }
    if (s[0] == '^' && n == 2 && isalpha((unsigned char)s[1]))
        return CFG_KEY_CTRL(tolower((unsigned char)s[1]));
    if (strncmp(s, "C-", 2) == 0 || strncmp(s, "Ctrl-", 5) == 0 ||
        strncmp(s, "ctrl-", 5) == 0) {
        const char *c = s[1] == '-' ? s + 2 : s + 5;
        if (strlen(c) == 1 && isalpha((unsigned char)c[0]))
            return CFG_KEY_CTRL(tolower((unsigned char)c[0]));
        if (strcmp(c, "_") == 0)
            return CFG_KEY_CTRL('_');    /* (the client keeps it: undo) */
        return -1;
    }
    if (strncmp(s, "M-", 2) == 0 || strncmp(s, "Alt-", 4) == 0 ||
        strncmp(s, "alt-", 4) == 0) {
        /* Alt and a character arrive as ESC and its UTF-8 (app.c cook_key) */
        int c = one_char(s[1] == '-' ? s + 2 : s + 4);
        if (c > 0x20 && c < 0x10000 && printable(c))
            return CFG_KEY_ALT(c);
        return -1;
    }
    return -1;
}

/* The character CP (UTF-8) into BUF after PREFIX. */
static void
char_name(const char *prefix, int cp, char *buf, size_t cap)
{
    unsigned char u[UTF8_MAX + 1];
    int n = cp >= 0x20 ? utf8_encode((uint32_t)cp, u) : 0;

    u[n > 0 ? n : 0] = '\0';
    snprintf(buf, cap, "%s%s", prefix, n > 0 ? (const char *)u : "?");
}

void
cfg_key_name(int key, char *buf, size_t cap)
{
    if (key == CFG_KEY_NONE)
        snprintf(buf, cap, "-");
    else if (key >= CFG_KEY_F(1) && key <= CFG_KEY_F(12))
        snprintf(buf, cap, "F%d", key - CFG_KEY_F(0));
    else if (key == '\t')
        snprintf(buf, cap, "Tab");
    else if (key == CFG_KEY_CTRL('_'))
        snprintf(buf, cap, "C-_");
    else if (key >= 1 && key < 0x20)
        snprintf(buf, cap, "C-%c", key + 'a' - 1);
    else if (key >= CFG_KEY_ALT(0) && key < CFG_KEY_ALT_END)
        char_name("M-", key - CFG_KEY_ALT(0), buf, cap);
    else if (cfg_key_types(key))
        char_name("", key, buf, cap);
    else
        snprintf(buf, cap, "?");
}

void
cfg_default_path(char *buf, size_t cap)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");

    if (xdg && xdg[0] == '/')                 /* relative: ignored (the XDG rule) */
        snprintf(buf, cap, "%s/rwkv-tui/config.yaml", xdg);
    else if (home && *home)
        snprintf(buf, cap, "%s/.config/rwkv-tui/config.yaml", home);
    else if (cap)
        buf[0] = '\0';
}

/* ---- loading -------------------------------------------------------------
**
** The file is read with libyaml's event parser rather than a libcyaml
** schema: libcyaml stops at the first problem and its error has no column,
** and a config with one bad key binding must still give the user the model
** and every other setting.  So each setting is checked on its own, every
** problem becomes one "PATH:LINE:COL: ..." line, and what is valid is kept.
**
**   root mapping:  model strategy vocab state_dir preset theme db  -> strings
**                  (strategy: its syntax checked, strat_parse; where model,
**                  strategy and vocab were set is kept, *_at)
**                  clipboard -> "osc52" (the default) or "off"
**                  language -> "auto" (the default), "en" or "zh"
**                  history -> "on" (the default) or "off"
**                  keys -> mapping of action name -> key name (never a key
**                  that types a character, cfg_key_types, nor one the
**                  client keeps, cfg_fixed_key)
**                  model_dir stop ban -> a string or a list of strings, each
**                  item checked on its own, in file order (load_list)
**                  greeting user bot think stop ban -> each checked by
**                  storage/framing.h's rules (an empty user or bot is
**                  refused, as --user "", and so is an empty think: the
**                  default is the key left out)
** A YAML syntax error ends the walk; the settings read before it are kept.
*/

/* a value of the file quoted in a problem: at most 40 bytes (tui_cut) */
#define CUT(v) tui_cut((char[48]){ 0 }, 48, (v), 40)

static const struct {
    const char *name;
    size_t      off;
} str_fields[] = {
    { "model", offsetof(tui_config, model) },       { "strategy", offsetof(tui_config, strategy) },
    { "vocab", offsetof(tui_config, vocab) },       { "state_dir", offsetof(tui_config, state_dir) },
    { "preset", offsetof(tui_config, preset) },     { "theme", offsetof(tui_config, theme) },
    { "db", offsetof(tui_config, db) },
    { "clipboard", offsetof(tui_config, clipboard) },
    { "language", offsetof(tui_config, language) },
    { "history", offsetof(tui_config, history) },
};
#define N_STR_FIELDS (sizeof str_fields / sizeof str_fields[0])

static const struct {
    int         key;
    int         act;         /* the action it may be bound to, or -1 */
    const char *what;
} fixed_table[] = {
#define CFG_FIX_TAB_(e, k, a, w, hk, h) { k, a, w },
    CFG_FIXED_KEYS(CFG_FIX_TAB_)
#undef CFG_FIX_TAB_
};

const char *
cfg_fixed_key(int key, int act)
{
    for (size_t i = 0; i < sizeof fixed_table / sizeof fixed_table[0]; i++)
        if (fixed_table[i].key == key)
            return act >= 0 && fixed_table[i].act == act ? NULL : fixed_table[i].what;
    return NULL;
}

/* the key names cfg_key_parse takes, for "unknown key" */
#define KEY_FORMS "F1-F12, Tab, C- with a letter, M- with any character: C-q, M-q, M-\xc3\xbc"

typedef struct binding {
    int         set;         /* the file binds this action */
    yaml_mark_t mark;        /* where its value is */
} binding;

/* What to bind instead of the character CODE for action ACT, into FIX:
** "M-q, C-q or an F-key", leaving out a key the client keeps ("u": not
** C-u, cfg_fixed_key). */
static void
typing_fix(int code, int act, char *fix, size_t cap)
{
    char alt[16] = "", ctl[8] = "";

    if (code > 0x20 && code < 0x10000 && cfg_fixed_key(CFG_KEY_ALT(code), act) == NULL)
        cfg_key_name(CFG_KEY_ALT(code), alt, sizeof alt);
    if (code < 0x80 && isalpha(code) && cfg_fixed_key(CFG_KEY_CTRL(code), act) == NULL)
        snprintf(ctl, sizeof ctl, "C-%c", tolower(code));
    if (alt[0] || ctl[0])
        snprintf(fix, cap, "%s%s%s or an F-key", alt, alt[0] && ctl[0] ? ", " : "", ctl);
    else
        snprintf(fix, cap, "an F-key, C-x or M-x");
}

static void
load_keys(tui_yaml_loader *l, tui_config *c, binding *bound)
{
    const char *names[CFG_ACT_COUNT];

    for (int i = 0; i < CFG_ACT_COUNT; i++)
        names[i] = action_table[i].name;
    if (l->ev.type == YAML_SCALAR_EVENT && l->ev.data.scalar.length == 0)
        return;                                 /* "keys:" with nothing after it */
    if (l->ev.type != YAML_MAPPING_START_EVENT) {
        tui_yaml_report(l, &l->ev.start_mark, "field 'keys': expected a mapping of action: key, found %s",
               tui_yaml_kind(l->ev.type));
        tui_yaml_skip(l);
        return;
    }
    while (tui_yaml_next(l) && l->ev.type != YAML_MAPPING_END_EVENT) {
        yaml_mark_t km = l->ev.start_mark;
        char name[64], hint[80];
        const char *v;
        int act = -1, code;

        if (l->ev.type != YAML_SCALAR_EVENT) {
            tui_yaml_report(l, &km, "in 'keys': expected an action name, found %s", tui_yaml_kind(l->ev.type));
            if (!tui_yaml_skip(l) || !tui_yaml_next(l) || !tui_yaml_skip(l))
                return;
            continue;
        }
        snprintf(name, sizeof name, "%s", (const char *)l->ev.data.scalar.value);
        for (int i = 0; i < CFG_ACT_COUNT; i++)
            if (strcmp(name, action_table[i].name) == 0)
                act = i;
        if (!tui_yaml_next(l))
            return;
        if (act < 0) {
            tui_yaml_suggest(name, names, CFG_ACT_COUNT, hint, sizeof hint);
            tui_yaml_report(l, &km, "in 'keys': unknown action '%s'%s", CUT(name), hint);
            if (!tui_yaml_skip(l))
                return;
            continue;
        }
        v = tui_yaml_scalar(l, name, "keys");
        if (v == NULL)
            continue;
        code = cfg_key_parse(v);
        if (code < 0) {
            const char *rest = strncmp(v, "M-", 2) == 0 ? v + 2
                             : strncmp(v, "Alt-", 4) == 0 || strncmp(v, "alt-", 4) == 0 ? v + 4
                                                                                        : NULL;
            tui_yaml_report(l, &l->ev.start_mark, "field '%s' in 'keys': unknown key '%s' (%s)", name,
                   CUT(v), rest && one_char(rest) >= 0x10000
                               ? "M- takes a character below U+10000" : KEY_FORMS);
            continue;
        }
        if (cfg_key_types(code)) {
            /* it would act, never be typed: "quit: q" ended the client at
            ** the first word with a q in it */
            char dn[32], fix[64];
            typing_fix(code, act, fix, sizeof fix);
            cfg_key_name(action_table[act].def, dn, sizeof dn);
            tui_yaml_report(l, &l->ev.start_mark,
                   "field '%s' in 'keys': '%s' types a character: bind %s; '%s' keeps %s", name,
                   CUT(v), fix, name, dn);
            continue;
        }
        if (cfg_fixed_key(code, act) != NULL) {
            /* the binding would never act (C-m arrives as Enter) or take
            ** the key from the message box or the app (C-u, C-z, C-c) */
            char dn[32];
            cfg_key_name(action_table[act].def, dn, sizeof dn);
            tui_yaml_report(l, &l->ev.start_mark,
                   "field '%s' in 'keys': '%s' %s: bind another C-x, M-x or an F-key; "
                   "'%s' keeps %s", name, CUT(v), cfg_fixed_key(code, act), name, dn);
            continue;
        }
        if (bound[act].set)
            tui_yaml_report(l, &km, "field '%s' in 'keys' given twice; the last one is used", name);
        c->keys[act] = code;
        bound[act].set = 1;
        bound[act].mark = l->ev.start_mark;
    }
}

/* The key the client keeps that also does ACT (quit: C-q), or 0. */
static int
fixed_key_of(int act)
{
    for (size_t i = 0; i < sizeof fixed_table / sizeof fixed_table[0]; i++)
        if (fixed_table[i].act == act)
            return fixed_table[i].key;
    return 0;
}

/*
** Two actions on one key, the one rule: a key the file binds beats the
** default key of an action the file does not bind (a release that adds a
** default key must not break a config): that action loses the key, said
** in an info line of OUT->notes, not a problem.  Of two bindings in the
** file the later one is refused, and its action keeps its default key
** (unless the file gave that key to another action: then none).
*/
static void
check_conflicts(tui_yaml_loader *l, tui_config *c, const binding *bound)
{
    int done[CFG_ACT_COUNT] = { 0 }, refused[CFG_ACT_COUNT] = { 0 };

    for (;;) {
        int i = -1;
        /* the next file binding in file order */
        for (int k = 0; k < CFG_ACT_COUNT; k++)
            if (bound[k].set && !done[k] && (i < 0 || bound[k].mark.index < bound[i].mark.index))
                i = k;
        if (i < 0)
            break;
        done[i] = 1;
        for (int j = 0; j < CFG_ACT_COUNT; j++) {
            char kn[32], dn[32];
            int  keep;
            if (j == i || c->keys[j] != c->keys[i] || (bound[j].set && !done[j]))
                continue;
            cfg_key_name(c->keys[i], kn, sizeof kn);
            if (!bound[j].set || refused[j]) {
                /* the file's binding wins over j's default */
                size_t o = strlen(c->notes);
                int fk = fixed_key_of(j);
                if (fk)
                    cfg_key_name(fk, dn, sizeof dn);
                snprintf(c->notes + o, sizeof c->notes - o,
                         "%s%s: %s (your config) replaces the default of %s, which %s%s", o ? "\n" : "",
                         kn, action_table[i].name, action_table[j].name, fk ? "keeps " : "now has no key",
                         fk ? dn : "");
                c->keys[j] = fk ? fk : CFG_KEY_NONE;      /* quit: C-q, in F1 and the footer */
                continue;
            }
            keep = action_table[i].def;
            for (int k = 0; k < CFG_ACT_COUNT; k++)
                if (k != i && bound[k].set && done[k] && !refused[k] && c->keys[k] == keep)
                    keep = fixed_key_of(i);   /* the file gave i's default away */
            cfg_key_name(keep, dn, sizeof dn);
            tui_yaml_report(l, &bound[i].mark, "field '%s' in 'keys': %s is already bound to '%s'; '%s' %s%s",
                   action_table[i].name, kn, action_table[j].name, action_table[i].name,
                   keep ? "keeps " : "now has no key", keep ? dn : "");
            c->keys[i] = keep;
            refused[i] = 1;
            break;
        }
    }
    /* a refused binding's default may be taken by another binding */
    for (int i = 0; i < CFG_ACT_COUNT; i++)
        for (int j = i + 1; j < CFG_ACT_COUNT; j++)
            if (c->keys[i] == c->keys[j] && c->keys[i] != CFG_KEY_NONE) {
                char kn[32];
                yaml_mark_t m = bound[i].set ? bound[i].mark : bound[j].mark;
                cfg_key_name(c->keys[i], kn, sizeof kn);
                tui_yaml_report(l, &m, "in 'keys': %s is bound to both '%s' and '%s'; '%s' wins", kn,
                       action_table[i].name, action_table[j].name, action_table[i].name);
            }
}

/* The settings besides str_fields and keys: lists and the framing. */
static const char *const extra_fields[] = { "model_dir", "greeting", "user", "bot", "think", "stop",
                                            "ban" };
#define N_EXTRA (sizeof extra_fields / sizeof extra_fields[0])

/*
** A list setting: a string, or a list of strings, each item handed to ITEM
** with its place in the file, in file order (an empty string alone is no
** item: "stop:" with nothing after it).  ITEM keeps the item or reports
** why not, so every problem is said at its own item, in order.
*/
typedef void (*item_fn)(tui_yaml_loader *l, const yaml_mark_t *m, const char *v, int listed,
                        tui_config *c);

/*
** Report framing's message MSG about setting KEY at M as "field 'KEY':
** ...": framing.h and chat_name_check begin their messages with what they
** check ("ban: ...", "user ' Bob': ..."), which the field already names --
** said once ("field 'user': no ':'...", not "field 'user': user: no ':'").
*/
static void
framing_report(tui_yaml_loader *l, const yaml_mark_t *m, const char *key, const char *msg)
{
    size_t n = strlen(key);

    if (strncmp(msg, key, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
        msg += n + 2;
    else if (strncmp(msg, key, n) == 0 && msg[n] == ' ' && msg[n + 1] == '\'')
        msg += n + 1;                    /* "user ' Bob': no blank..." */
    tui_yaml_report(l, m, "field '%s': %s", key, msg);
}

static void
load_list(tui_yaml_loader *l, const char *key, item_fn item, tui_config *c)
{
    const char *v;

    if (l->ev.type != YAML_SEQUENCE_START_EVENT) {
        if ((v = tui_yaml_scalar(l, key, NULL)) != NULL && v[0] != '\0')
            item(l, &l->ev.start_mark, v, 0, c);
        return;
    }
    while (tui_yaml_next(l) && l->ev.type != YAML_SEQUENCE_END_EVENT)
        if ((v = tui_yaml_scalar(l, key, NULL)) != NULL)
            item(l, &l->ev.start_mark, v, 1, c);
}

/* model_dir: a folder (a path up to CFG_PATH - 1 bytes), at most CFG_MAX_LIST */
static void
model_dir_item(tui_yaml_loader *l, const yaml_mark_t *m, const char *v, int listed, tui_config *c)
{
    (void)listed;
    if (c->n_model_dir == CFG_MAX_LIST)
        tui_yaml_report(l, m, "field 'model_dir': at most %d folders", CFG_MAX_LIST);
    else if (strlen(v) >= CFG_PATH)
        tui_yaml_report(l, m, "field 'model_dir': a path longer than %d bytes", CFG_PATH - 1);
    else
        snprintf(c->model_dir[c->n_model_dir++], CFG_PATH, "%s", v);
}

/* stop: one stop string as written (\n escapes), by framing.h's rules: at
** most CHAT_MAX_STOP of 1..CHAT_MAX_STOP_LEN bytes once unescaped */
static void
stop_item(tui_yaml_loader *l, const yaml_mark_t *m, const char *v, int listed, tui_config *c)
{
    framing f;
    rwkv_err err;
    char buf[CFG_PATH];
    int rc;

    framing_init(&f);
    for (int i = 0; i < c->n_stop; i++) {      /* the ones kept: the count */
        snprintf(buf, sizeof buf, "%s", c->stop[i]);
        framing_unescape(buf, 0);
        framing_add_stop(&f, buf, &err);
    }
    if (strlen(v) >= sizeof buf) {
        rc = framing_add_stop(&f, v, &err);   /* refused: too long, or one too many */
    } else {
        snprintf(buf, sizeof buf, "%s", v);
        framing_unescape(buf, 0);
        rc = framing_add_stop(&f, buf, &err);
    }
    (void)listed;
    if (rc != RWKV_OK)
        framing_report(l, m, "stop", err.msg);
    else
        snprintf(c->stop[c->n_stop++], CFG_PATH, "%s", v);
    framing_fini(&f);
}

/* ban: "1,2,3" or one id of a list (LISTED), joined into c->ban ("1,2,3");
** a list's item is said to be one ("the list item 'x'"), not a
** comma-separated list */
static void
ban_item(tui_yaml_loader *l, const yaml_mark_t *m, const char *v, int listed, tui_config *c)
{
    framing f;
    rwkv_err err;
    size_t have = strlen(c->ban);
    int rc = RWKV_OK;

    framing_init(&f);
    if (v[0] == '\0')
        tui_yaml_report(l, m, "field 'ban': an empty item (a token id expected)");
    else if ((rc = framing_set_ban_text(&f, v, &err)) == RWKV_EINVAL && listed && !strchr(v, ','))
        tui_yaml_report(l, m, "field 'ban': the list item '%s' is not a token id (a whole number, 0 or more)",
                        CUT(v));
    else if (rc != RWKV_OK)
        framing_report(l, m, "ban", err.msg);
    else if (have + 1 + strlen(v) >= CFG_PATH)
        tui_yaml_report(l, m, "field 'ban': the ids take more than %d bytes", CFG_PATH - 1);
    else
        snprintf(c->ban + have, CFG_PATH - have, "%s%s", have ? "," : "", v);
    framing_fini(&f);
}

/* Check the framing setting KEY of C (framing.h's rules) at mark M. */
static void
check_framing(tui_yaml_loader *l, const yaml_mark_t *m, const char *key, tui_config *c)
{
    framing f;
    rwkv_err err;
    int rc = RWKV_OK;

    framing_init(&f);
    if (strcmp(key, "greeting") == 0) {
        rc = framing_set_greeting(&f, c->greeting, &err);
    } else if (strcmp(key, "user") == 0 || strcmp(key, "bot") == 0) {
        char *v = key[0] == 'u' ? c->user : c->bot;
        /* "" too, as --user "" (the default: the key left out) */
        if ((rc = chat_name_check(key, v, &err)) != RWKV_OK)
            v[0] = '\0';
    } else if (strcmp(key, "think") == 0) {
        int mode;
        /* "" too, as a mode that is none of the five (framing_set_think
        ** takes "" for "no mode set": the default is the key left out) */
        if ((rc = chat_think_parse(c->think, &mode, &err)) != RWKV_OK)
            c->think[0] = '\0';
    }
    if (rc != RWKV_OK) {
        framing_report(l, m, key, err.msg);
        if (key[0] == 'g')
            c->has_greeting = 0;
    }
    framing_fini(&f);
}

static void
load_extra(tui_yaml_loader *l, const char *key, tui_config *c)
{
    yaml_mark_t m = l->ev.start_mark;
    char *dst;
    const char *v;

    /* the lists: each item checked, and kept or reported, on its own */
    if (strcmp(key, "model_dir") == 0) {
        c->n_model_dir = 0;
        load_list(l, key, model_dir_item, c);
        return;
    }
    if (strcmp(key, "stop") == 0) {
        c->n_stop = 0;
        load_list(l, key, stop_item, c);
        return;
    }
    if (strcmp(key, "ban") == 0) {
        c->ban[0] = '\0';
        load_list(l, key, ban_item, c);
        return;
    }
    dst = key[0] == 'g' ? c->greeting : key[0] == 'u' ? c->user : key[0] == 't' ? c->think
                                                                               : c->bot;
    if ((v = tui_yaml_scalar(l, key, NULL)) == NULL)
        return;
    if (key[0] == 'g') {     /* \n, \t, \\ as in --greeting, stop and F8 */
        char *g = strdup(v);
        size_t n = 0;
        if (g != NULL) {
            framing_unescape(g, 0);
            n = strlen(g);
        }
        if (g == NULL) {
            tui_yaml_report(l, &m, "field '%s': out of memory", key);
        } else if (n > FRAMING_MAX_GREETING) {
            tui_yaml_report(l, &m, "field '%s': %zu bytes (at most %u)", key, n,
                   FRAMING_MAX_GREETING);
        } else {
            memcpy(dst, g, n + 1);
            c->has_greeting = 1;
            check_framing(l, &m, key, c);
        }
        free(g);
        return;
    }
    if (strlen(v) >= CFG_PATH) {
        tui_yaml_report(l, &m, "field '%s': longer than %d bytes", key, CFG_PATH - 1);
        return;
    }
    snprintf(dst, CFG_PATH, "%s", v);
    check_framing(l, &m, key, c);
}

/* The string setting at OFF of C becomes V (the current event), and where
** the file set it is kept for the ones loaded later (config.h). */
static void
set_string(tui_yaml_loader *l, tui_config *c, size_t off, const char *v)
{
    char *at = off == offsetof(tui_config, model) ? c->model_at
             : off == offsetof(tui_config, strategy) ? c->strategy_at
             : off == offsetof(tui_config, vocab) ? c->vocab_at : NULL;

    snprintf((char *)c + off, CFG_PATH, "%s", v);
    if (at != NULL)
        snprintf(at, sizeof c->model_at, "%s:%lu:%lu", l->path,
                 (unsigned long)l->ev.start_mark.line + 1,
                 (unsigned long)l->ev.start_mark.column + 1);
}

/* For an unknown field KEY that names a sampling value ("temperature:",
** "top-p:") or all of them ("sampling:"): where such values go instead,
** into OUT ("" for any other key).  The config has none of its own: a
** preset holds them, and the config's 'preset' names the one a new chat
** starts with. */
static void
sampling_hint(const char *key, char *out, size_t cap)
{
    int i = strcmp(key, "sampling") == 0 ? 0 : params_find(key);

    if (i < 0)
        snprintf(out, cap, "%s", "");
    else if (strcmp(params_table[i].name, "seed") == 0)   /* no preset holds one */
        snprintf(out, cap, " (the seed is given with --seed N)");
    else
        snprintf(out, cap, " (sampling values are a preset's: F4, C-s saves the current "
                           "ones as one; then 'preset: NAME' here)");
}

int
cfg_load(const char *path, tui_config *out, char *msg, size_t msg_cap)
{
    char defpath[CFG_PATH + 64];
    tui_yaml_loader l;
    binding bound[CFG_ACT_COUNT];
    int seen[N_STR_FIELDS + 1 + N_EXTRA];
    const char *names[N_STR_FIELDS + 1 + N_EXTRA];
    char *text;
    size_t len;

    msg[0] = '\0';
    cfg_defaults(out);
    if (path == NULL) {
        cfg_default_path(defpath, sizeof defpath);
        if (defpath[0] == '\0' || access(defpath, F_OK) != 0)
            return 0;
        path = defpath;
    }
    text = tui_read_file(path, CFG_MAX_BYTES, &len, msg, msg_cap);
    if (text == NULL)
        return -1;
    snprintf(out->path, sizeof out->path, "%s", path);
    memset(bound, 0, sizeof bound);
    memset(seen, 0, sizeof seen);
    for (size_t i = 0; i < N_STR_FIELDS; i++)
        names[i] = str_fields[i].name;
    names[N_STR_FIELDS] = "keys";
    for (size_t i = 0; i < N_EXTRA; i++)
        names[N_STR_FIELDS + 1 + i] = extra_fields[i];
    if (tui_yaml_open(&l, path, text, len, msg, msg_cap) != 0) {
        free(text);
        return -1;
    }
    /* stream start, document start (none: an empty file) */
    if (tui_yaml_next(&l) && tui_yaml_next(&l) && l.ev.type == YAML_DOCUMENT_START_EVENT &&
        tui_yaml_next(&l)) {
        if (l.ev.type == YAML_SCALAR_EVENT && l.ev.data.scalar.length == 0) {
            /* an empty document ("---" alone or only comments) */
        } else if (l.ev.type != YAML_MAPPING_START_EVENT) {
            tui_yaml_report(&l, &l.ev.start_mark, "expected a mapping of settings (model: ..., keys: ...), found %s",
                   tui_yaml_kind(l.ev.type));
        } else {
            while (tui_yaml_next(&l) && l.ev.type != YAML_MAPPING_END_EVENT) {
                yaml_mark_t km = l.ev.start_mark;
                char key[64], hint[160];
                int f = -1;
                strat st;
                rwkv_err err;

                if (l.ev.type != YAML_SCALAR_EVENT) {
                    tui_yaml_report(&l, &km, "expected a setting name, found %s", tui_yaml_kind(l.ev.type));
                    if (!tui_yaml_skip(&l) || !tui_yaml_next(&l) || !tui_yaml_skip(&l))
                        break;
                    continue;
                }
                snprintf(key, sizeof key, "%s", (const char *)l.ev.data.scalar.value);
                for (size_t i = 0; i < N_STR_FIELDS + 1 + N_EXTRA; i++)
                    if (strcmp(key, names[i]) == 0)
                        f = (int)i;
                if (!tui_yaml_next(&l))
                    break;
                if (f < 0) {
                    sampling_hint(key, hint, sizeof hint);
                    if (hint[0] == '\0')
                        tui_yaml_suggest(key, names, N_STR_FIELDS + 1 + N_EXTRA, hint, sizeof hint);
                    tui_yaml_report(&l, &km, "unknown field '%s'%s", CUT(key), hint);
                    if (!tui_yaml_skip(&l))
                        break;
                    continue;
                }
                if (seen[f]++)
                    tui_yaml_report(&l, &km, "field '%s' given twice; the last one is used", key);
                if (f == (int)N_STR_FIELDS) {
                    load_keys(&l, out, bound);
                } else if (f > (int)N_STR_FIELDS) {
                    load_extra(&l, key, out);
                } else {
                    const char *v = tui_yaml_scalar(&l, key, NULL);
                    if (v && strlen(v) >= CFG_PATH)
                        tui_yaml_report(&l, &l.ev.start_mark, "field '%s': longer than %d bytes", key,
                               CFG_PATH - 1);
                    else if (v && str_fields[f].off == offsetof(tui_config, clipboard) &&
                             strcmp(v, "osc52") != 0 && strcmp(v, "off") != 0)
                        tui_yaml_report(&l, &l.ev.start_mark, "field 'clipboard': '%s' is not osc52 or off", CUT(v));
                    else if (v && str_fields[f].off == offsetof(tui_config, language) &&
                             strcmp(v, "auto") != 0 && strcmp(v, "en") != 0 && strcmp(v, "zh") != 0)
                        tui_yaml_report(&l, &l.ev.start_mark, "field 'language': '%s' is not auto, en or zh", CUT(v));
                    else if (v && str_fields[f].off == offsetof(tui_config, history) &&
                             strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
                        tui_yaml_report(&l, &l.ev.start_mark, "field 'history': '%s' is not on or off", CUT(v));
                    else if (v && str_fields[f].off == offsetof(tui_config, strategy) &&
                             strat_parse(v, &st, &err) != RWKV_OK)
                        tui_yaml_report(&l, &l.ev.start_mark, "field 'strategy': %s", err.msg);
                    else if (v)
                        set_string(&l, out, str_fields[f].off, v);
                }
            }
        }
    }
    check_conflicts(&l, out, bound);
    free(text);
    return tui_yaml_close(&l) ? -1 : 0;
}
