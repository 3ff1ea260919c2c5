/*
** i18n.c -- the interface language and the catalog lookup (i18n.h).
**
** The one chosen language is a module variable, not a member of struct
** app (house style G7): it is set once by tui_run before the screen and
** the worker thread start, and read-only afterwards, and the strings it
** applies to sit in static tables (menu classes, the config's action list)
** and in helpers that have no app at hand, as a locale would be.
*/
#include "i18n.h"

#include <stdlib.h>
#include <string.h>

static int lang = TUI_LANG_EN;

static int
cmp_pair(const void *key, const void *elem)
{
    return strcmp(key, ((const tui_tr_pair *)elem)->id);
}

const char *
tui_tr(const char *msgid)
{
    const tui_tr_pair *p;

    if (lang != TUI_LANG_ZH || msgid == NULL || msgid[0] == '\0')
        return msgid;
    p = bsearch(msgid, tui_tr_zh, tui_tr_zh_n, sizeof tui_tr_zh[0], cmp_pair);
    return p ? p->str : msgid;
}

/* A locale or language name's language: TUI_LANG_ZH for Simplified
** Chinese, TUI_LANG_EN for English, -1 for any other.  "zh_CN.UTF-8",
** "zh-Hans-CN", "zh@x" and "en_GB" are read by their parts before the
** encoding and modifier. */
static int
lang_of(const char *name, size_t n)
{
    char buf[32], *p;
    const char *rest;

    if (n >= sizeof buf)
        return -1;
    memcpy(buf, name, n);
    buf[n] = '\0';
    buf[strcspn(buf, ".@")] = '\0';
    for (p = buf; *p; p++)
        if (*p == '-')
            *p = '_';
    if (strcmp(buf, "C") == 0 || strcmp(buf, "POSIX") == 0 || strcmp(buf, "en") == 0 ||
        strncmp(buf, "en_", 3) == 0)
        return TUI_LANG_EN;
    if (strncmp(buf, "zh", 2) != 0)
        return -1;
    rest = buf + 2;
    if (*rest == '\0' || strcmp(rest, "_CN") == 0 || strcmp(rest, "_SG") == 0 ||
        strcmp(rest, "_Hans") == 0 || strncmp(rest, "_Hans_", 6) == 0)
        return TUI_LANG_ZH;
    return -1;
}

/* LANGUAGE's list: the first entry we have (English or Simplified
** Chinese) decides; none: English (gettext shows the message ids). */
static int
lang_list(const char *list)
{
    while (*list) {
        size_t n = strcspn(list, ":");
        int l = n ? lang_of(list, n) : -1;
        if (l >= 0)
            return l;
        list += n + (list[n] == ':');
    }
    return TUI_LANG_EN;
}

int
tui_lang_pick(const char *setting, int utf8)
{
    static const char *const vars[] = { "LC_ALL", "LC_MESSAGES", "LANG" };
    const char *v;

    if (!utf8 || (setting && strcmp(setting, "en") == 0))
        return TUI_LANG_EN;
    if (setting && strcmp(setting, "zh") == 0)
        return TUI_LANG_ZH;
    if ((v = getenv("LANGUAGE")) != NULL && v[0] != '\0')
        return lang_list(v);
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if ((v = getenv(vars[i])) != NULL && v[0] != '\0')
            return lang_of(v, strlen(v)) == TUI_LANG_ZH ? TUI_LANG_ZH : TUI_LANG_EN;
    return TUI_LANG_EN;
}

void
tui_lang_set(int l)
{
    lang = l == TUI_LANG_ZH ? TUI_LANG_ZH : TUI_LANG_EN;
}

int
tui_lang(void)
{
    return lang;
}

/* ---- a formatted message back to its catalog format ---------------------- */

#define TR_MSG_ARGS 8

struct tr_match {
    const char *arg[TR_MSG_ARGS];   /* into the message */
    size_t      len[TR_MSG_ARGS];
    int         n;
};

/* The length of the conversion at F ("%s", "%.80s", "%zu": flags, width,
** precision, length), its type in *TYPE; 0 if F holds none. */
static size_t
conv_len(const char *f, char *type)
{
    size_t i = 1;

    while (f[i] && strchr("-+ #0'", f[i]))
        i++;
    while ((f[i] >= '0' && f[i] <= '9') || f[i] == '.' || f[i] == '*')
        i++;
    while (f[i] && strchr("hljztL", f[i]))
        i++;
    if (f[i] == '\0' || !strchr("diouxXeEfFgGaAcsp", f[i]))
        return 0;
    *type = f[i];
    return i + 1;
}

/* 1 when S is what the printf format F prints for some arguments, each
** argument's text into M (a number's: digits, sign, point; a string's:
** anything, the shortest that lets the rest match). */
static int
fmt_match(const char *f, const char *s, struct tr_match *m)
{
    char type;
    size_t c;

    while (*f && !(f[0] == '%' && f[1] != '%')) {
        if (f[0] == '%')
            f++;                      /* %%: one '%' */
        if (*s++ != *f++)
            return 0;
    }
    if (*f == '\0')
        return *s == '\0';
    if ((c = conv_len(f, &type)) == 0 || m->n == TR_MSG_ARGS)
        return 0;
    for (size_t k = type == 's' || type == 'c' ? 0 : 1; k <= strlen(s); k++) {
        if (type != 's' && type != 'c' && !strchr("0123456789-+.xXabcdefABCDEF", s[k - 1]))
            break;
        m->arg[m->n] = s;
        m->len[m->n] = k;
        m->n++;
        if (fmt_match(f + c, s + k, m))
            return 1;
        m->n--;
    }
    return 0;
}

/* The bytes of F outside its conversions: how much of a message a match
** explains (the best match explains the most). */
static size_t
fmt_literal(const char *f)
{
    size_t n = 0;
    char type;

    for (size_t c; *f;) {
        if (f[0] == '%' && f[1] != '%' && (c = conv_len(f, &type)) > 0) {
            f += c;
        } else {
            f += f[0] == '%' ? 2 : 1;
            n++;
        }
    }
    return n;
}

const char *
tui_tr_msg(const char *msg, char *out, size_t cap)
{
    const tui_tr_pair *best = NULL;
    struct tr_match m, bm = { .n = 0 };
    size_t best_lit = 0, o = 0;
    int argi = 0;
    char type;

    if (lang != TUI_LANG_ZH || msg == NULL || cap == 0 || tui_tr(msg) != msg)
        return tui_tr(msg);
    for (size_t i = 0; i < tui_tr_zh_n; i++) {
        const char *id = tui_tr_zh[i].id;
        size_t lit;
        if (!strchr(id, '%') || (lit = fmt_literal(id)) <= best_lit)
            continue;
        m.n = 0;
        if (fmt_match(id, msg, &m)) {
            best = &tui_tr_zh[i];
            best_lit = lit;
            bm = m;
        }
    }
    if (best == NULL)
        return msg;
    for (const char *f = best->str; *f && o + 1 < cap;) {
        size_t c;
        if (f[0] == '%' && f[1] != '%' && (c = conv_len(f, &type)) > 0 && argi < bm.n) {
            /* the argument a message starts with names what it is about
            ** (storage's and the engine's "user name: ..."): that too */
            char word[128];
            const char *a = bm.arg[argi];
            size_t n = bm.len[argi];
            if (a == msg && n < sizeof word) {
                memcpy(word, a, n);
                word[n] = '\0';
                if (tui_tr(word) != word) {
                    a = tui_tr(word);
                    n = strlen(a);
                }
            }
            n = n < cap - 1 - o ? n : cap - 1 - o;
            memcpy(out + o, a, n);
            o += n;
            argi++;
            f += c;
        } else {
            out[o++] = *f;
            f += f[0] == '%' ? 2 : 1;
        }
    }
    if (o + 1 >= cap) {
        /* cut: no character left half there */
        size_t l = o;
        while (l > 0 && ((unsigned char)out[l - 1] & 0xc0) == 0x80)
            l--;
        if (l > 0 && (unsigned char)out[l - 1] >= 0xc0) {
            unsigned char c = (unsigned char)out[l - 1];
            size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
            if (o - (l - 1) < need)
                o = l - 1;
        }
    }
    out[o] = '\0';
    return out;
}
