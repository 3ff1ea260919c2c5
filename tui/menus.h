/*
** menus.h -- one description per menu, the way tmux describes its window
** modes and htop its panel classes: a menu is a tui_menu_class (title, the
** action that opens it, how it is filled, its keys), defined in its own
** file (menu_help.c, menu_log.c, menu_sessions.c, menu_branches.c,
** menu_states.c, menu_presets.c, menu_models.c, menu_framing.c,
** menu_themes.c) and registered in menus.c's
** table.  Opening, keys, the hint line and the F1 help are lookups in that
** table; nothing else lists the menu kinds.
**
** The one-line prompts (rename, delete, a file path, a value) are described
** the same way: a tui_prompt_class per kind, with what Enter does.
**
** Internal to tui/ (UI thread only).
*/
#ifndef RWKV_TUI_MENUS_H
#define RWKV_TUI_MENUS_H

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include "app.h"

#include <ncursesw/curses.h>   /* the KEY_ codes of the key tables */

/* A key in a menu's table: a character or control code as read, or a
** curses key (KEY_LEFT, KEY_DC) wrapped in TUI_MK_FKEY. */
#define TUI_MK_FKEY(k) (0x140000 | (k))

/* What a fill wants said in the footer (posted by menus.c after the fill). */
typedef struct tui_menu_msg {
    int  set, is_err;
    char text[TUI_NOTICE];
} tui_menu_msg;

/* printf into MSG (the last one wins). */
void tui_menu_say(tui_menu_msg *msg, int is_err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

enum { TUI_MK_ITEM = 1, TUI_MK_LIST = 2, TUI_MK_DB = 4 };

typedef struct tui_menu_keydef {
    int         key, key2;  /* codes (TUI_MK_FKEY for curses keys); key2 0 = none */
    const char *name;       /* as shown: "C-r", "Left/Right" */
    const char *hint;       /* in the box's bottom line, NULL = in F1 only */
    const char *help;       /* in F1 */
    /* IT: the selected item (NULL when nothing matches); KEY: which code */
    void      (*act)(struct app *a, const tui_menu_item *it, int key);
    int         item;       /* TUI_MK_ITEM: acts on the selected item, so its
                               hint shows only while one is selected (not on
                               "(empty)"); TUI_MK_LIST: acts on the list's
                               entries, its hint only while there are some
                               (those the search hides count); 0: always;
                               | TUI_MK_DB: it writes to the session
                               database, its hint not without one
                               (--no-db) */
} tui_menu_keydef;

typedef struct tui_menu_class {
    int         kind;       /* enum tui_menu_kind */
    int         action;     /* the CFG_ACT_* that opens it, -1 = none */
    const char *name;       /* in F1: "Sessions" */
    const char *title;      /* the box's title */
    /* Add the items (the menu is empty); reads the app, changes nothing else. */
    void      (*fill)(tui_menu *m, const struct app *a, tui_menu_msg *msg);
    /* After the fill: where the selection starts (NULL = the first item). */
    void      (*select)(tui_menu *m, const struct app *a);
    /* The search text changed (NULL = tui_menu_set_filter); a search that
    ** failed says so in MSG (the footer), as a fill does. */
    void      (*filter)(tui_menu *m, const struct app *a, const char *text, tui_menu_msg *msg);
    const tui_menu_keydef *keys;   /* ends with a NULL name */
    int         reads_chat; /* the fill or the keys read a->chat or the framing:
                               not opened while a job may swap them
                               (tui_session_swapping) */
} tui_menu_class;

extern const tui_menu_class tui_menu_help_class, tui_menu_log_class,
    tui_menu_sessions_class, tui_menu_branches_class, tui_menu_states_class,
    tui_menu_state_ask_class, tui_menu_presets_class, tui_menu_models_class,
    tui_menu_framing_class, tui_menu_themes_class;

/* The registered classes (menus.c), NULL-terminated, in F1 order. */
extern const tui_menu_class *const tui_menu_classes[];

/* The open menu filled again (after an import, a delete), with the same
** search text; the selection goes to item ID when it is there. */
/* The F1 help's rows (menu_help.c): the configurable actions with CFG's
** keys, the fixed editing keys, every menu's keys; and the same list with
** the default keys by tui_help_keys (app.h). */
void tui_help_rows(const tui_config *cfg, int local, tui_help_row_fn fn, void *ud);
void tui_menu_refill(struct app *a, int64_t id);

/* ---- prompts ---------------------------------------------------------------- */

/*
** What an accept answers.  AGAIN: it failed after the typing (a write the
** database or the file system refused, a file that would not import) and
** said why in an error notice; tui_prompt_accept then opens the same prompt
** again holding TEXT, with its label, so Enter tries again and Esc gives up,
** the error in sight above it meanwhile (view.c) -- the typed text is never
** lost to a failure it did not cause.  Not when the accept opened a prompt
** itself (a "file exists" question) or nothing but blanks was typed.
*/
/*
** REFUSED: the text typed is not a value this prompt takes (a count out of
** range, a list that does not parse, a name that cannot be used) and the
** accept said why in an error notice, doing nothing else.  The one rule of
** every value prompt: tui_prompt_accept keeps it open holding TEXT, with
** its label, the reason in sight above it (view.c), for the user to correct
** -- a refused value never closes the prompt (what is typed next would go
** to the message box and be sent) and never loses the text.
*/
enum { TUI_PROMPT_DONE = 0, TUI_PROMPT_AGAIN = 1, TUI_PROMPT_REFUSED = 2 };
/* a->prompt_retry: the prompt open again after a failure (AGAIN: Enter
** tries again) or a refused value (REFUSED: the text is to be corrected) */
enum { TUI_RETRY_FAILED = 1, TUI_RETRY_REFUSED = 2 };

typedef struct tui_prompt_class {
    int   kind;             /* enum tui_prompt_kind */
    int   yesno;            /* y accepts, n cancels (a confirmation) */
    /* Enter (or y): TEXT is what was typed.  TUI_PROMPT_DONE, _AGAIN or
    ** _REFUSED (a value prompt's check: say why, change nothing). */
    int  (*accept)(struct app *a, const char *text);
    int   hist;             /* enum tui_phist: the history Up/Down step
                               through, what Enter adds to (NONE: none) */
    int   leaves_menu;      /* opened from a menu (the menu stays open under
                               it: Esc goes back there, tui_prompt_cancel):
                               Enter closes it first, its action being done
                               in the chat (F3's C-w, F4's and F5's C-s, F8's
                               fields); 0: Enter goes back to it (F2, F6) */
} tui_prompt_class;

/* The prompts the menus own (menu_*.c); menus.c registers them. */
extern const tui_prompt_class tui_prompt_rename, tui_prompt_delete, tui_prompt_preset_save,
    tui_prompt_strategy, tui_prompt_prune, tui_prompt_export, tui_prompt_import,
    tui_prompt_framing, tui_prompt_budget, tui_prompt_other_model;
/* The quit question's and its export's (quit.c). */
extern const tui_prompt_class tui_prompt_unsaved, tui_prompt_unsaved_export;

/* ---- file names (the state-files and models menus) ---------------------------- */

int    tui_has_suffix(const char *s, const char *suf);
/* A typed path: leading blanks skipped, "~/" as $HOME/.  -1 when empty. */
int    tui_expand_path(const char *in, char *out, size_t cap);
int    tui_cmp_names(const void *x, const void *y);   /* qsort of char * */
/* Before writing PATH (typed as TEXT in prompt KIND): 1 when it is an
** existing file not confirmed yet -- the prompt is opened again asking,
** and a second Enter on the same name replaces it (returns 0).  1 too,
** after a notice, when PATH is the session database, one of its files,
** another SQLite database or the model, vocabulary or state file in use:
** never written over (sess_output_check, store_output_check).
** A name confirmed stays so while its prompt is tried again (a write that
** failed after the second Enter: the next Enter retries without asking);
** tui_replace_forget, called by each prompt that writes as it opens: a new
** prompt asks again. */
int    tui_replace_ask(struct app *a, int kind, const char *path, const char *text);
/* The same for NAME, known to exist (WHAT: "preset"). */
int    tui_replace_ask_name(struct app *a, int kind, const char *name, const char *text,
                            const char *what);
void   tui_replace_forget(void);
/* 1 when PATH is a regular file we may read (what the loaders accept: not
** a folder, a FIFO, a device or a dangling link). */
int    tui_file_usable(const char *path);
/* The checkpoint-like files (.pth, .safetensors) of DIR that are usable
** (tui_file_usable), sorted by name:
** *N names, owned by the caller (tui_free_names).  NULL when DIR cannot be
** read. */
char **tui_dir_names(const char *dir, size_t *n);
/* The same for the names ending in one of EXT (NULL-terminated), without
** that ending where STRIP. */
char **tui_dir_names_ext(const char *dir, const char *const *ext, int strip, size_t *n);
void   tui_free_names(char **v, size_t n);
/* tui_dir_names of the folder a user named (GIVEN: the config, an
** environment variable; "~/" is $HOME's), the path used in DIR (CAP bytes):
** the one rule of F3 and F5 for such a folder.  One that cannot be read (not
** there, a file, not ours) is named in MSG with the reason -- "model folder
** DIR: why" (STATES 0, F5), "state folder DIR: why" (STATES 1, F3) --
** unless MSG is NULL.  NULL then, or when GIVEN is blank. */
char **tui_folder_names(const char *given, int states, char *dir, size_t cap, size_t *n,
                        tui_menu_msg *msg);
/* The folders the user named held nothing of their kind: DIRS (N paths as
** used, "" for one not named) and what each gave, FOUND (-1: not read, said
** by tui_folder_names).  When none gave anything and MSG says nothing yet,
** MSG names the empty ones -- "no models (.pth, .safetensors) in DIR"
** (STATES 0, F5), "no state files ..." (STATES 1, F3), "in A, B or C" --
** and 1 is returned; else 0. */
int    tui_folder_none(tui_menu_msg *msg, int states, const char *const *dirs, const long *found,
                       int n);

#endif
