/*
** i18n.h -- the full-screen client's interface language (English or
** Simplified Chinese).  The English text in the code is the message id;
** po/zh_CN.po holds the Chinese, turned at build time into a sorted table
** (po/po2c.py -> $(BUILD)/gen/i18n_zh.c) that tui_tr() searches.
**
**   TR("text")       the text in the interface language (a printf format
**                    stays one: GCC checks the caller's arguments against
**                    the English, and po2c.py that the Chinese has the same
**                    conversions in the same order)
**   TR_NOOP("text")  marks a string in a static initializer; the code that
**                    shows it passes it through tui_tr()
**
** tui_notice() and tui_menu_say() translate their format themselves, and
** tui_prompt_open() its label (it
** counts as marked, as xgettext's --keyword does), so their callers pass
** the English literal.
**
** Only what the full-screen client shows is translated: the line chat,
** --help, --help-ui, the man pages and everything written to files or the
** database stay English (they never call tui_tr, and the language is only
** chosen by tui_run).  po/po2c.py --check (tests/cli/i18n.sh) finds marked
** strings without a translation and translations nothing uses.
*/
#ifndef RWKV_TUI_I18N_H
#define RWKV_TUI_I18N_H

#include <stddef.h>

#define TR(s)      tui_tr(s)
#define TR_NOOP(s) (s)

enum tui_lang { TUI_LANG_EN, TUI_LANG_ZH };

/* One catalog entry: the English and its translation (static strings). */
typedef struct tui_tr_pair {
    const char *id, *str;
} tui_tr_pair;

/* The generated table, sorted by id (strcmp order). */
extern const tui_tr_pair tui_tr_zh[];
extern const size_t tui_tr_zh_n;

/* MSGID in the interface language: the translation (static), or MSGID
** itself (borrowed) when English is chosen or it has none. */
const char *tui_tr(const char *msgid)
#if defined(__GNUC__)
    __attribute__((format_arg(1)))
#endif
    ;

/*
** MSG, a line made below tui/ (an rwkv_err of storage or the engine, English
** by design: G3), in the interface language: its translation when MSG is a
** catalog entry, else the translation of the catalog format that prints
** MSG (the one whose fixed text explains the most of it), the arguments
** put back in -- the first one too when it is a catalog entry (the "user
** name" of "user name: ...").  The translation into OUT (CAP bytes); MSG
** (borrowed) when English is chosen or no format matches.
*/
const char *tui_tr_msg(const char *msg, char *out, size_t cap);

/*
** The language SETTING (the config's "language": "auto" or "" for the
** environment, "en", "zh") asks for, given whether the ctype locale is
** UTF-8 (UTF8: without it CJK cannot be drawn, so English).  "auto" reads
** the environment as gettext does: the first of LANGUAGE (a colon list:
** its first entry that names English or Simplified Chinese decides),
** LC_ALL, LC_MESSAGES, LANG that is set and not empty.  zh_CN, zh_SG, zh
** and zh_Hans (any encoding or modifier; "-" for "_" too) are Chinese;
** anything else, Traditional (zh_TW, zh_HK, zh_Hant) included, English.
*/
int  tui_lang_pick(const char *setting, int utf8);
/* Set once at start-up, before any other thread runs (then read-only). */
void tui_lang_set(int lang);
int  tui_lang(void);

#endif
