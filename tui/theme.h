/*
** theme.h -- colour themes: one enum of roles (house style G11) that the
** YAML keys map to, and the loader (a libcyaml schema; a walk of libyaml
** events led by it lists a refused file's problems: yamlerr.h).  No curses here:
** tui/view.c turns a theme_style into colour pairs and attributes.
**
** File format (see themes/README and rwkv-tui-config(5)):
**     name: dark
**     roles:
**       user:      { fg: cyan, bold: true }
**       status:    { fg: black, bg: 250 }
** Colours: default, black, red, green, yellow, blue, magenta, cyan, white,
** bright_black .. bright_white, a number 0-255 (the xterm 256-colour
** palette) or "#rrggbb".  Roles left out keep the built-in default's style.
**
** A terminal has fewer colours than a theme may name: theme_map_style()
** picks the nearest colour it has (8, 16, 88, 256 or direct RGB), keeping
** hue for colours and lightness for greys (bold/dim on 8-colour terminals),
** so no role ends up black on black or a blue turns red.
*/
#ifndef RWKV_TUI_THEME_H
#define RWKV_TUI_THEME_H

#include <stddef.h>

#define THEME_MAX_BYTES (256u << 10)  /* a theme file larger than this is refused */
#define THEME_MSG 4096   /* message buffers: a config's problems, one per line */

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
    X(BORDER,           "border",            8, -1, 0)                         \
    X(HEADING,          "heading",          -1, -1, THEME_BOLD | THEME_UNDERLINE) \
    X(CODE,             "code",              3, -1, 0)                         \
    X(CODE_KEYWORD,     "code_keyword",      4, -1, THEME_BOLD)                \
    X(CODE_STRING,      "code_string",       2, -1, 0)                         \
    X(CODE_COMMENT,     "code_comment",      8, -1, 0)                         \
    X(THINK,            "think",             8, -1, THEME_DIM)

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

#define THEME_RGB_FLAG 0x1000000          /* colour value = flag | 0xRRGGBB */
#define THEME_RGB(r, g, b) (THEME_RGB_FLAG | ((r) << 16) | ((g) << 8) | (b))

typedef struct theme_style {
    int      fg, bg;      /* -1 = terminal default, 0-255, or THEME_RGB() */
    unsigned attrs;       /* THEME_BOLD | ... */
} theme_style;

typedef struct theme {
    char        name[64];
    theme_style role[THEME_ROLE_COUNT];
    char        path[4200];    /* the file read, "" = the built-in default */
} theme;

/* YAML key of ROLE ("user_header"). */
const char *theme_role_name(int role);
/* The built-in default theme. */
void theme_default(theme *t);
/* NO_COLOR and terminals without colours: every colour becomes the terminal
** default, attributes kept; a background of its own becomes reverse video
** (not the menu's panel background, so a selected row stands out). */
void theme_strip_colors(theme *t);

/*
** Load the theme file at PATH into *OUT.  The file is parsed into a
** temporary and *OUT is changed only when the whole file is valid (STYLE
** G4).  On error returns -1 and MSG (MSG_CAP bytes) holds every problem
** found (up to TUI_YAML_MAX_ERRORS, then how many more), one line each
** naming the file, the line and the field:
** "t.yaml:3: field 'fg' in 'user': unknown colour 'purpel' (...)".
*/
int theme_load_file(const char *path, theme *out, char *msg, size_t msg_cap);

/*
** Resolve NAME_OR_PATH (a path if it contains '/' or ends in ".yaml", else
** a theme name looked up in $XDG_CONFIG_HOME/rwkv-tui/themes, then among the
** shipped themes built into the binary, then in the themes/ folder next to
** the binary, ../share/rwkv-tui/themes and the system's share folders) and
** load it.  "default" found nowhere is the built-in default.  On failure
** *OUT is the built-in default, MSG says why (every folder looked in), and
** -1 is returned.
*/
int theme_load(const char *name_or_path, theme *out, char *msg, size_t msg_cap);

/* The shipped themes (the YAML files of themes/), built into the binary
** at build time (themes/themes2c.py): sorted by name, ended by a NULL name. */
struct theme_builtin {
    const char *name;      /* "mono" */
    size_t      len;
    const char *text;      /* the file's LEN bytes */
};
extern const struct theme_builtin theme_builtin[];

/* The user's themes folder into BUF: $XDG_CONFIG_HOME/rwkv-tui/themes, or
** ~/.config/rwkv-tui/themes; "" when neither variable is set. */
void theme_user_dir(char *buf, size_t cap);

/* Parse a colour name, number 0-255 or "#rrggbb"; -2 if invalid. */
int theme_parse_color(const char *s);

/* 0xRRGGBB of colour C (0-255: the xterm palette; THEME_RGB values as is). */
int theme_color_rgb(int c);

/* 1 if theme T is made for a light background (its normal text is dark). */
int theme_is_light(const theme *t);

/*
** What a terminal with NCOLORS colours draws for style S: *FG and *BG are
** colour numbers for init_pair (-1 = default; with NCOLORS >= 0x1000000, a
** direct-colour terminal, values >= 8 are 0xRRGGBB), *ATTRS the extra
** THEME_BOLD / THEME_DIM that stand in for lightness on 8-colour terminals.
** LIGHT_BG: the theme's background is light (theme_is_light).  NCOLORS < 8
** gives -1 / -1.  Foreground and background never map to the same colour
** unless the theme asks for it.
*/
void theme_map_style(const theme_style *s, int ncolors, int light_bg, int *fg, int *bg,
                     unsigned *attrs);

#endif
