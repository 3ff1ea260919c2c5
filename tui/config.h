/*
** config.h -- the user's config file ($XDG_CONFIG_HOME/rwkv-tui/config.yaml,
** read with libyaml's events: yamlerr.h) and the key-binding table (house style G11): one row per
** action with its default key and the help text that F1 and the footer show.
**
**     model: /models/RWKV-x070-World-1.5B
**     strategy: cpu fp32
**     vocab: /models/rwkv_vocab_v20230424.txt
**     state_dir: ~/rwkv/states
**     preset: creative
**     theme: dark
**     db: ~/chats.db
**     clipboard: osc52        (or off: the copy keys do not write OSC 52)
**     language: auto          (or en, zh: the full-screen client's language)
**     history: on             (or off: the input history is not kept in a file)
**     model_dir: [~/models, /srv/rwkv]   # or one folder: F5 lists their checkpoints
**     greeting: ""                       # the chat's framing ("" = no greeting)
**     user: Bob
**     bot: Alice
**     think: on                          # off, on, short, long, skip
**     stop: ["\n\n"]                      # or one string; \n escapes as --stop
**     ban: 0,11                          # or a list of token ids
**     keys:
**       sessions: F2
**       quit: C-q
*/
#ifndef RWKV_TUI_CONFIG_H
#define RWKV_TUI_CONFIG_H

#include <stddef.h>

#include "i18n.h"

#define CFG_MAX_BYTES (256u << 10)   /* a config larger than this is refused */
#define CFG_PATH 1024                /* longest path/string value kept */
#define CFG_GREETING (64u << 10)    /* a greeting's bytes: framing.h's limit */
#define CFG_MAX_LIST 8               /* items of a list setting (model_dir, stop) */

/* Key codes independent of curses: plain characters are themselves. */
#define CFG_KEY_F(n)    (0x110000 + (n))      /* F1..F12 (beyond Unicode) */
#define CFG_KEY_CTRL(c) ((c) & 0x1f)          /* C-a .. C-z */
#define CFG_KEY_ALT(c)  (0x120000 | (c))      /* M-x: x a character below U+10000 */
#define CFG_KEY_ALT_END CFG_KEY_ALT(0x10000)  /* (0x130000: app.h's own codes start there) */
#define CFG_KEY_NONE    0                     /* an action with no key ("-"): its default was taken */

/* X(enum suffix, YAML key, default key, help) */
#define CFG_ACTIONS(X)                                                               \
    X(HELP,      "help",      CFG_KEY_F(1),          TR_NOOP("help: every key"))              \
    X(SESSIONS,  "sessions",  CFG_KEY_F(2),          TR_NOOP("sessions: resume, fork, rename, delete, search")) \
    X(STATES,    "states",    CFG_KEY_F(3),          TR_NOOP("state files: switch the start state")) \
    X(PRESETS,   "presets",   CFG_KEY_F(4),          TR_NOOP("presets: load or save sampling values")) \
    X(MODELS,    "models",    CFG_KEY_F(5),          TR_NOOP("models: switch model or strategy")) \
    X(BRANCHES,  "branches",  CFG_KEY_F(6),          TR_NOOP("branches: the whole turn tree (switch, edit, delete)")) \
    X(SIDEBAR,   "sidebar",   CFG_KEY_F(7),          TR_NOOP("show or hide the parameter sidebar")) \
    X(FRAMING,   "framing",   CFG_KEY_F(8),          TR_NOOP("framing: greeting, role names, think mode, stop strings, bans")) \
    X(THEMES,    "themes",    CFG_KEY_ALT('T'),      TR_NOOP("themes: switch the colour theme for this run (the shipped ones and yours)")) \
    X(LOG,       "messages",  CFG_KEY_ALT('l'),      TR_NOOP("messages: every notice and error, in full")) \
    X(PARAMS,    "params",    '\t',                  TR_NOOP("move focus to the sidebar and back")) \
    X(STATS,     "stats",     CFG_KEY_F(9),          TR_NOOP("show or hide per-turn stats"))  \
    X(QUIT,      "quit",      CFG_KEY_F(10),         TR_NOOP("quit"))                         \
    X(REGEN,     "regen",     CFG_KEY_CTRL('r'),     TR_NOOP("regenerate the last reply (a new branch)")) \
    X(ALTS,      "alternatives", CFG_KEY_ALT('R'),   TR_NOOP("alternatives: regenerate the last reply N times (asks N, 1-16), each a new branch")) \
    X(CONTINUE,  "continue",  CFG_KEY_ALT('r'),      TR_NOOP("continue the last reply where it stopped (max tokens, Esc, a crash), as if never cut")) \
    X(NEW,       "new",       CFG_KEY_CTRL('n'),     TR_NOOP("new session"))                  \
    X(PREV_SIB,  "prev_branch", CFG_KEY_ALT(','),    TR_NOOP("previous sibling of the last reply")) \
    X(NEXT_SIB,  "next_branch", CFG_KEY_ALT('.'),    TR_NOOP("next sibling of the last reply")) \
    X(EDIT_LAST, "edit_last", CFG_KEY_ALT('e'),      TR_NOOP("edit the last message (forks)")) \
    X(GEN,       "free_gen",  CFG_KEY_ALT('g'),      TR_NOOP("free generation from a prompt (not saved)")) \
    X(GEN_MORE,  "free_gen_more", CFG_KEY_ALT('+'),  TR_NOOP("continue the free generation")) \
    X(EDITOR,    "editor",    CFG_KEY_CTRL('x'),     TR_NOOP("write the message in $VISUAL or $EDITOR")) \
    X(REDRAW,    "redraw",    CFG_KEY_CTRL('l'),     TR_NOOP("redraw the screen")) \
    X(SEARCH,    "search",    CFG_KEY_CTRL('f'),     TR_NOOP("search the transcript (Enter/Down next, Up previous, Esc closes)")) \
    X(PREV_MSG,  "prev_message", CFG_KEY_ALT('p'),   TR_NOOP("previous message: its header to the top of the transcript (M-c, M-k then take that reply, or your message's)")) \
    X(NEXT_MSG,  "next_message", CFG_KEY_ALT('n'),   TR_NOOP("next message: its header to the top of the transcript")) \
    X(COPY,      "copy",      CFG_KEY_ALT('c'),      TR_NOOP("copy the reply (the last, or the one scrolled to) to the clipboard (OSC 52)")) \
    X(COPY_CODE, "copy_code", CFG_KEY_ALT('k'),      TR_NOOP("copy a code block of that reply (again: the next block)")) \
    X(MOUSE,     "mouse",     CFG_KEY_ALT('m'),      TR_NOOP("mouse reporting off/on (off: select text with the mouse)")) \
    X(THINK,     "think",     CFG_KEY_ALT('t'),      TR_NOOP("think mode of G1 models: off, on, short, long, skip (the next message on)")) \
    X(FOLD,      "fold_think", CFG_KEY_ALT('z'),     TR_NOOP("fold the reasoning of replies (<think>...</think>) to one line, or unfold"))

enum cfg_action {
#define CFG_ENUM_(e, k, d, h) CFG_ACT_##e,
    CFG_ACTIONS(CFG_ENUM_)
#undef CFG_ENUM_
    CFG_ACT_COUNT
};

/*
** The keys the client keeps for itself, never an action's: the message
** box's editing keys and the app's own.  X(enum suffix, key, the action it
** may be bound to as well (it does the same) or -1, what it does, F1's key
** column, F1's description).  This is the one list: app.c's key handling
** names these keys by their enum (CFG_FIX_KILL_ALL is C-u; C-m reaches it
** as TUI_K_ENTER), cfg_load refuses to bind any of them (cfg_fixed_key),
** saying what it does: "'C-u' clears the message box", and F1 (menu_help.c)
** lists each: its key column is the format's %s made the key's name, or the
** names of the keys of one row ("C-k/C-u/C-w": a key whose column and
** description are NULL is on the row of the one before it).
** Only keys cfg_key_parse can name are listed (Backspace's DEL, Alt-Enter
** and M-Backspace cannot be bound).
*/
#define CFG_FIXED_KEYS(X)                                                            \
    X(ENTER,      CFG_KEY_CTRL('m'), -1, "is Enter in terminals", TR_NOOP("Enter, %s"), \
      TR_NOOP("send the message (text right after it, as in a paste without markers: a new line)")) \
    X(NEWLINE,    CFG_KEY_CTRL('j'), -1, "is the message box's new line in terminals", \
      TR_NOOP("Alt-Enter, %s"), TR_NOOP("new line in the message"))                  \
    X(BACKSPACE,  CFG_KEY_CTRL('h'), -1, "is Backspace in terminals",                \
      TR_NOOP("Backspace/Delete, %s"),                                               \
      TR_NOOP("delete a whole character (Delete and C-d: the one after the cursor)")) \
    X(EOF_QUIT,   CFG_KEY_CTRL('d'), -1, "quits from an empty message box", NULL, NULL) \
    X(HOME,       CFG_KEY_CTRL('a'), -1, "moves to the start of the line in the message box", \
      TR_NOOP("Home/End, %s"), TR_NOOP("start/end of line (empty box: top/end of transcript)")) \
    X(END,        CFG_KEY_CTRL('e'), -1, "moves to the end of the line in the message box", \
      NULL, NULL)                                                                    \
    X(LEFT,       CFG_KEY_CTRL('b'), -1, "moves the message box's cursor left",       \
      TR_NOOP("Left/Right, %s"), TR_NOOP("move by character (C-f searches the transcript)")) \
    X(KILL_EOL,   CFG_KEY_CTRL('k'), -1, "deletes to the end of the line in the message box", \
      "%s", TR_NOOP("delete to end of line / all the text, every line / word before")) \
    X(KILL_ALL,   CFG_KEY_CTRL('u'), -1, "clears the message box", NULL, NULL)       \
    X(KILL_WORD,  CFG_KEY_CTRL('w'), -1, "deletes the word before the cursor in the message box", \
      NULL, NULL)                                                                    \
    X(YANK,       CFG_KEY_CTRL('y'), -1, "puts the text deleted last back in the message box", \
      "%s", TR_NOOP("put back the text deleted last (C-u, C-k, C-w, M-d, M-Backspace; deletes in a row add up)")) \
    X(UNDO,       CFG_KEY_CTRL('_'), -1, "undoes the last change in the message box", \
      TR_NOOP("%s (C-/)"),                                                           \
      TR_NOOP("undo the last change in the message box (a typed word, a paste, a deletion, an edit begun)")) \
    X(WORD_LEFT,  CFG_KEY_ALT('b'),  -1, "moves to the start of a word in the message box", \
      TR_NOOP("%s, C-Left/C-Right"),                                                 \
      TR_NOOP("move to the start / end of a word (CJK: a run of one script)")) \
    X(WORD_RIGHT, CFG_KEY_ALT('f'),  -1, "moves to the end of a word in the message box", \
      NULL, NULL)                                                                    \
    X(KILL_NEXT,  CFG_KEY_ALT('d'),  -1, "deletes to the end of a word in the message box", \
      TR_NOOP("%s / M-Backspace"), TR_NOOP("delete to the end / start of a word"))   \
    X(CANCEL,     CFG_KEY_CTRL('c'), -1, "stops a running reply", TR_NOOP("Esc, %s"), \
      TR_NOOP("cancel the running reply (kept, marked interrupted), the prefill (the message goes back to the box) or a replay (nothing changes)")) \
    X(SUSPEND,    CFG_KEY_CTRL('z'), -1, "suspends the client", "%s",                \
      TR_NOOP("suspend (the shell's fg resumes)"))                                   \
    X(QUIT,       CFG_KEY_CTRL('q'), CFG_ACT_QUIT, "quits", TR_NOOP("C-d (empty box), %s"), \
      TR_NOOP("quit"))

enum cfg_fixed_key {
#define CFG_FIX_ENUM_(e, k, a, w, hk, h) CFG_FIX_##e = (k),
    CFG_FIXED_KEYS(CFG_FIX_ENUM_)
#undef CFG_FIX_ENUM_
};

typedef struct tui_config {
    char model[CFG_PATH];      /* "" = not set */
    char strategy[CFG_PATH];
    char vocab[CFG_PATH];
    char state_dir[CFG_PATH];
    char preset[CFG_PATH];
    char theme[CFG_PATH];
    char db[CFG_PATH];
    char clipboard[CFG_PATH];  /* "osc52" or "" (copy keys write OSC 52), "off" */
    char language[CFG_PATH];   /* "auto" or "" (the environment), "en", "zh" (i18n.h) */
    char history[CFG_PATH];    /* "on" or "" (history.h), "off" */
    int  keys[CFG_ACT_COUNT];  /* key code per action, CFG_KEY_NONE: none */
    /* info lines of the load, one a line, no problems: "M-p: prev_branch
    ** (your config) replaces the default of prev_message, which now has no key" */
    char notes[1024];
    /* F5's folders of checkpoints (model_dir: one or a list) */
    char model_dir[CFG_MAX_LIST][CFG_PATH];
    int  n_model_dir;
    /* the chat's framing (storage/framing.h), each checked when read; the
    ** command line's options win.  "" = not set. */
    char greeting[CFG_GREETING + 1];   /* as --greeting and F8 take */
    int  has_greeting;         /* greeting: given ("" = no greeting) */
    char user[CFG_PATH], bot[CFG_PATH];
    char think[CFG_PATH];      /* a think mode's name */
    char stop[CFG_MAX_LIST][CFG_PATH];   /* as written: \n escapes */
    int  n_stop;
    char ban[CFG_PATH];        /* "1,2,3" */
    /* where the file set model, strategy and vocab: "FILE:LINE:COLUMN", ""
    ** when not by the file.  A model or vocabulary that cannot be opened,
    ** or a strategy this build cannot run, is found only when the client
    ** loads it (model_load.c): its error names this place. */
    char model_at[CFG_PATH + 48], strategy_at[CFG_PATH + 48], vocab_at[CFG_PATH + 48];
    char path[CFG_PATH + 64];  /* the file read, "" = none (an output never replaces it) */
} tui_config;

const char *cfg_action_name(int act);
const char *cfg_action_help(int act);
/* Defaults: empty strings, default keys. */
void cfg_defaults(tui_config *c);
/* The action bound to KEY, or -1. */
int  cfg_action_for_key(const tui_config *c, int key);

/* Parse "F2", "C-q", "Ctrl-q", "^Q" (C- takes a letter), "M-x", "Alt-x"
** (M- takes one printable character, ASCII or not -- "M-ü" -- below
** U+10000, not a space), "Tab", or one printable character (UTF-8: "q",
** "ü", " "), which is its code point; -1 if invalid.  A key that types a
** character (cfg_key_types) cannot be bound to an action: cfg_load refuses
** it. */
int  cfg_key_parse(const char *s);
/* 1 when KEY, a code of cfg_key_parse, types a character into the message
** box (a printable character without a modifier, the space included). */
int  cfg_key_types(int key);
/* What the fixed key KEY does ("clears the message box": CFG_FIXED_KEYS)
** when ACT may not be bound to it (-1: any action), else NULL. */
const char *cfg_fixed_key(int key, int act);
/* "F2", "C-q", "M-x", "M-ü", "Tab": into BUF (UTF-8). */
void cfg_key_name(int key, char *buf, size_t cap);

/* The default config path into BUF ("" if neither XDG_CONFIG_HOME nor HOME). */
void cfg_default_path(char *buf, size_t cap);

/*
** Load PATH (NULL = the default path, where a missing file is fine) into
** *OUT: the defaults, then every valid setting of the file.  A setting is
** checked on its own, so one bad key binding does not cost the model or
** the other bindings (after a YAML syntax error, the settings before it are
** kept).  A key the file binds beats another action's default key: that
** action loses it (CFG_KEY_NONE unless it has another), said in
** OUT->notes, not a problem.  Of two bindings of one key in the file the
** later one is refused and its action keeps its default, and so is a
** binding of a key that types a character ("q": the
** letter would never reach the message box) or of a key the client keeps
** (CFG_FIXED_KEYS: "sessions: C-u" would take C-u from the message box).
** The strategy's syntax is checked here (strat_parse); a bad one is left
** out.  Returns 0, or -1
** when anything was wrong: then MSG (MSG_CAP bytes; THEME_MSG is plenty)
** holds every problem, one line each, as
** "PATH:LINE:COLUMN: what" (at most 32, then "PATH: N more problems").
** An unreadable file: -1, *OUT the defaults, one line.
*/
int  cfg_load(const char *path, tui_config *out, char *msg, size_t msg_cap);

#endif
