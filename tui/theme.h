/*
** theme.h -- colour themes: one enum of roles (house style G11) that the
** YAML keys map to, and the loader (libcyaml schema).  No curses here:
** tui/app.c turns a tui_style into colour pairs and attributes.
**
** File format (see themes/README and rwkv-tui-config(5)):
**     name: dark
**     roles:
**       user:      { fg: cyan, bold: true }
**       status:    { fg: black, bg: 250 }
** Colours: default, black, red, green, yellow, blue, magenta, cyan, white,
** bright_black .. bright_white, or a number 0-255.  Roles left out keep the
** built-in default's style.
*/
#ifndef RWKV_TUI_THEME_H
#define RWKV_TUI_THEME_H

#include <stddef.h>

#define THEME_MAX_BYTES (256u << 10)  /* a theme file larger than this is refused */
#define THEME_MSG 512

/* X(enum suffix, YAML key, fg, bg, attrs) -- the built-in default theme. */
#define THEME_ROLES(X)                                                         \
    X(NORMAL,           "normal",           -1, -1, 0)                         \
    X(USER,             "user",             -1, -1, 0)                         \
    X(ASSISTANT,        "assistant",        -1, -1, 0)                         \
    X(USER_HEADER,      "user_header",       6, -1, THEME_BOLD)                \
    X(ASSISTANT_HEADER, "assistant_header",  2, -1, THEME_BOLD)                \
    X(INFO,             "info",              4, -1, 0)                         \
    X(ERROR,            "error",             1, -1, THEME_BOLD)                \
    X(INTERRUPTED,      "interrupted",       3, -1, 0)                         \
    X(STATS,            "stats",             8, -1, 0)                         \
    X(INPUT,            "input",            -1, -1, 0)                         \
    X(INPUT_BORDER,     "input_border",      8, -1, 0)                         \
    X(SIDEBAR,          "sidebar",          -1, -1, 0)                         \
    X(SIDEBAR_TITLE,    "sidebar_title",    -1, -1, THEME_BOLD)                \
    X(SIDEBAR_LABEL,    "sidebar_label",     8, -1, 0)                         \
    X(SIDEBAR_VALUE,    "sidebar_value",    -1, -1, THEME_BOLD)                \
    X(SIDEBAR_SELECTED, "sidebar_selected", -1, -1, THEME_REVERSE)             \
    X(STATUS,           "status",            0,  6, 0)                         \
    X(STATUS_DEMO,      "status_demo",      15,  1, THEME_BOLD)                \
    X(FOOTER,           "footer",           -1, -1, 0)                         \
    X(FOOTER_KEY,       "footer_key",        6, -1, THEME_BOLD)                \
    X(MENU,             "menu",             -1, -1, 0)                         \
    X(MENU_TITLE,       "menu_title",       -1, -1, THEME_BOLD)                \
    X(MENU_SELECTED,    "menu_selected",    -1, -1, THEME_REVERSE)             \
    X(MENU_DETAIL,      "menu_detail",       8, -1, 0)                         \
    X(BORDER,           "border",            8, -1, 0)

#define THEME_BOLD      1u
#define THEME_UNDERLINE 2u
#define THEME_REVERSE   4u
#define THEME_DIM       8u
#define THEME_ITALIC    16u

enum theme_role {
#define THEME_ENUM_(e, k, f, b, a) THEME_ROLE_##e,
    THEME_ROLES(THEME_ENUM_)
#undef THEME_ENUM_
    THEME_ROLE_COUNT
};

typedef struct theme_style {
    short    fg, bg;      /* -1 = terminal default, 0-255 */
    unsigned attrs;       /* THEME_BOLD | ... */
} theme_style;

typedef struct theme {
    char        name[64];
    theme_style role[THEME_ROLE_COUNT];
} theme;

/* YAML key of ROLE ("user_header"). */
const char *theme_role_name(int role);
/* The built-in default theme. */
void theme_default(theme *t);
/* NO_COLOR: every colour becomes the terminal default, attributes kept. */
void theme_strip_colors(theme *t);

/*
** Load the theme file at PATH into *OUT.  The file is parsed into a
** temporary and *OUT is changed only on success (STYLE G4).  On error
** returns -1 and MSG (MSG_CAP bytes) holds one line naming the file, the
** line and the field: "t.yaml:3: field 'fg' in 'user': invalid value 'purple'".
*/
int theme_load_file(const char *path, theme *out, char *msg, size_t msg_cap);

/*
** Resolve NAME_OR_PATH (a path if it contains '/' or ends in ".yaml", else
** a theme name looked up in $XDG_CONFIG_HOME/rwkv-tui/themes, then the
** themes/ folder next to the binary or in ../share/rwkv-tui/themes) and load
** it.  "default" not found as a file is the built-in default.  On failure
** *OUT is the built-in default, MSG says why, and -1 is returned.
*/
int theme_load(const char *name_or_path, theme *out, char *msg, size_t msg_cap);

/* Parse a colour name or number; -2 if invalid. */
int theme_parse_color(const char *s);

#endif
