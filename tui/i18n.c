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
