/*
** test_i18n.c -- the interface language (tui/i18n.h): which language the
** config setting and the environment choose (gettext's order: LANGUAGE,
** LC_ALL, LC_MESSAGES, LANG), the catalog lookup, and the generated
** table's order (bsearch needs it sorted, po2c.py sorts it).
*/
#include "../harness.h"
#include "../../tui/i18n.h"

#include <stdlib.h>
#include <string.h>

static const char *const vars[] = { "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG" };

/* The environment as VALS (NULL = unset), in vars' order. */
static void
env4(const char *language, const char *lc_all, const char *lc_messages, const char *lang)
{
    const char *vals[] = { language, lc_all, lc_messages, lang };

    for (int i = 0; i < 4; i++) {
        if (vals[i])
            setenv(vars[i], vals[i], 1);
        else
            unsetenv(vars[i]);
    }
}

static void
test_pick(void)
{
    static const struct {
        const char *language, *lc_all, *lc_messages, *lang, *setting;
        int utf8, want;
    } cases[] = {
        { NULL, NULL, NULL, NULL, "auto", 1, TUI_LANG_EN },
        { "zh_CN", "C.UTF-8", NULL, "C.UTF-8", "auto", 1, TUI_LANG_ZH },
        { "zh_CN", "C.UTF-8", NULL, "C.UTF-8", "", 1, TUI_LANG_ZH },
        { "zh_CN", "C.UTF-8", NULL, "C.UTF-8", "auto", 0, TUI_LANG_EN },  /* no UTF-8: no CJK */
        { "zh_CN", NULL, NULL, NULL, "en", 1, TUI_LANG_EN },              /* the config wins */
        { NULL, NULL, NULL, "en_US.UTF-8", "zh", 1, TUI_LANG_ZH },
        { NULL, NULL, NULL, "en_US.UTF-8", "zh", 0, TUI_LANG_EN },
        { "zh_SG", NULL, NULL, NULL, "auto", 1, TUI_LANG_ZH },
        { "zh", NULL, NULL, NULL, "auto", 1, TUI_LANG_ZH },
        { "zh_Hans", NULL, NULL, NULL, "auto", 1, TUI_LANG_ZH },
        { "zh-Hans-CN", NULL, NULL, NULL, "auto", 1, TUI_LANG_ZH },
        { "zh_TW", NULL, NULL, NULL, "auto", 1, TUI_LANG_EN },
        { "zh_HK:zh_TW", NULL, NULL, NULL, "auto", 1, TUI_LANG_EN },
        { "zh_Hant", NULL, NULL, NULL, "auto", 1, TUI_LANG_EN },
        { "zh_TW:zh_CN", NULL, NULL, NULL, "auto", 1, TUI_LANG_ZH },      /* a list: first we have */
        { "fr:en:zh_CN", NULL, NULL, NULL, "auto", 1, TUI_LANG_EN },
        { "de", NULL, NULL, "zh_CN.UTF-8", "auto", 1, TUI_LANG_EN },      /* LANGUAGE decides */
        { "", NULL, NULL, "zh_CN.UTF-8", "auto", 1, TUI_LANG_ZH },        /* empty: not set */
        { NULL, "zh_CN.UTF-8", NULL, "en_US.UTF-8", "auto", 1, TUI_LANG_ZH },
        { NULL, "en_US.UTF-8", "zh_CN.UTF-8", NULL, "auto", 1, TUI_LANG_EN },  /* LC_ALL first */
        { NULL, "", "zh_CN.UTF-8", "en_US.UTF-8", "auto", 1, TUI_LANG_ZH },
        { NULL, NULL, NULL, "zh_CN.GB18030@euro", "auto", 1, TUI_LANG_ZH },
        { NULL, NULL, NULL, "zh_TW.UTF-8", "auto", 1, TUI_LANG_EN },
        { NULL, NULL, NULL, "zhx_CN", "auto", 1, TUI_LANG_EN },
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        env4(cases[i].language, cases[i].lc_all, cases[i].lc_messages, cases[i].lang);
        int got = tui_lang_pick(cases[i].setting, cases[i].utf8);
        TEST_CONDF(got == cases[i].want, "case %zu (LANGUAGE=%s LC_ALL=%s LANG=%s setting=%s utf8=%d): "
                   "got %d, want %d", i, cases[i].language ? cases[i].language : "-",
                   cases[i].lc_all ? cases[i].lc_all : "-", cases[i].lang ? cases[i].lang : "-",
                   cases[i].setting, cases[i].utf8, got, cases[i].want);
    }
}

static void
test_lookup(void)
{
    const char *s;

    tui_lang_set(TUI_LANG_EN);
    TEST_COND("English: the id itself", strcmp(tui_tr("help"), "help") == 0);
    tui_lang_set(TUI_LANG_ZH);
    TEST_COND("Chinese: the footer's help", strcmp(tui_tr("help"), "\xe5\xb8\xae\xe5\x8a\xa9") == 0);
    s = "no such message id";
    TEST_COND("Chinese, no entry: the id itself", tui_tr(s) == s);
    TEST_COND("an empty id stays empty", strcmp(tui_tr(""), "") == 0);
    TEST_COND("NULL stays NULL", tui_tr(NULL) == NULL);
    /* every id is found (the table is sorted as bsearch needs) */
    for (size_t i = 0; i < tui_tr_zh_n; i++)
        TEST_CONDF(tui_tr(tui_tr_zh[i].id) == tui_tr_zh[i].str, "entry %zu not found: %s", i,
                   tui_tr_zh[i].id);
    for (size_t i = 1; i < tui_tr_zh_n; i++)
        TEST_CONDF(strcmp(tui_tr_zh[i - 1].id, tui_tr_zh[i].id) < 0, "not sorted at %zu", i);
    TEST_COND("the catalog has the chrome", tui_tr_zh_n > 200);
    tui_lang_set(TUI_LANG_EN);
}

/* tui_tr_msg: a line made below tui/ (F8's refusals: storage/framing.c's,
** the engine's role-name check) through the catalog format it was printed
** from, its arguments put back in. */
static void
test_msg(void)
{
    char out[512];
    const char *ban = "ban: 'abc' is not a comma-separated list of token ids", *s;

    tui_lang_set(TUI_LANG_EN);
    TEST_COND("English: the line itself", tui_tr_msg(ban, out, sizeof out) == ban);
    tui_lang_set(TUI_LANG_ZH);
    s = tui_tr_msg(ban, out, sizeof out);
    TEST_CONDF(strcmp(s, "\xe7\xa6\x81\xe7\x94\xa8 token\xef\xbc\x9a'abc' \xe4\xb8\x8d\xe6\x98\xaf"
                         "\xe7\x94\xa8\xe9\x80\x97\xe5\x8f\xb7\xe5\x88\x86\xe9\x9a\x94\xe7\x9a\x84 "
                         "token id \xe5\x88\x97\xe8\xa1\xa8") == 0, "ban: %s", s);
    s = tui_tr_msg("user name: no ':', newline or control character in a role name", out, sizeof out);
    TEST_CONDF(strncmp(s, "\xe7\x94\xa8\xe6\x88\xb7\xe5\x90\x8d\xef\xbc\x9a", 12) == 0 &&
                   strstr(s, "role name") == NULL, "the role name's line, its what too: %s", s);
    s = tui_tr_msg("stop: a stop string must have 1..32 bytes", out, sizeof out);
    TEST_CONDF(strstr(s, "1..32") != NULL && strstr(s, "must have") == NULL, "a number kept: %s", s);
    s = "nothing the catalog knows: 42";
    TEST_COND("no format matches: the line itself", tui_tr_msg(s, out, sizeof out) == s);
    TEST_COND("a whole entry: its translation",
              strcmp(tui_tr_msg("framing changed", out, sizeof out), tui_tr("framing changed")) == 0 &&
                  strcmp(tui_tr("framing changed"), "framing changed") != 0);
    s = tui_tr_msg(ban, out, 8);
    TEST_COND("cut to the buffer", strlen(s) < 8);
    tui_lang_set(TUI_LANG_EN);
}

int
main(void)
{
    test_pick();
    test_lookup();
    test_msg();
    return TEST_REPORT();
}
