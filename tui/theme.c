/*
** theme.c -- role table, YAML theme loading (libcyaml), lookup by name.
** See theme.h.  A file is parsed into a temporary theme that replaces the
** caller's only when every field is valid (STYLE G4).
*/
#include "theme.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cyaml/cyaml.h>

#include "text.h"
#include "yamlerr.h"

#define THEME_PATH_MAX 4096

static const struct {
    const char *key;
    theme_style def;
} role_table[THEME_ROLE_COUNT] = {
#define THEME_TAB_(e, k, f, b, a) { k, { f, b, a } },
    THEME_ROLES(THEME_TAB_)
#undef THEME_TAB_
};

const char *
theme_role_name(int role)
{
    return role >= 0 && role < THEME_ROLE_COUNT ? role_table[role].key : "?";
}

void
theme_default(theme *t)
{
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "default");
    for (int i = 0; i < THEME_ROLE_COUNT; i++)
        t->role[i] = role_table[i].def;
}

void
theme_strip_colors(theme *t)
{
    int panel = t->role[THEME_ROLE_MENU].bg;

    for (int i = 0; i < THEME_ROLE_COUNT; i++) {
        /* a background of its own (the status bar, a selected row) is
        ** reverse video; the menu's background is the panel's, and what
        ** is drawn on it in that background stays plain, so the selected
        ** row still stands out */
        if (t->role[i].bg >= 0 && t->role[i].bg != panel)
            t->role[i].attrs |= THEME_REVERSE;
        t->role[i].fg = t->role[i].bg = -1;
    }
}

/* ---- the libcyaml schema ------------------------------------------------ */

#define NCOLORS (sizeof color_names / sizeof color_names[0])

static const struct {
    const char *str;
    int         val;
} color_names[] = {
    { "default", -1 },       { "black", 0 },         { "red", 1 },
    { "green", 2 },          { "yellow", 3 },        { "blue", 4 },
    { "magenta", 5 },        { "cyan", 6 },          { "white", 7 },
    { "bright_black", 8 },   { "gray", 8 },          { "grey", 8 },
    { "bright_red", 9 },     { "bright_green", 10 }, { "bright_yellow", 11 },
    { "bright_blue", 12 },   { "bright_magenta", 13 }, { "bright_cyan", 14 },
    { "bright_white", 15 },
};

typedef struct style_y {
    char *fg, *bg;      /* NULL when absent (libcyaml zero-fills) */
    /* the flags as written: libcyaml's bool took any word but false/no/off
    ** as true ("bold: banana" was bold), so they are checked here (flag_of) */
    char *bold, *underline, *reverse, *dim, *italic;
} style_y;

typedef struct roles_y {
#define THEME_MEMBER_(e, k, f, b, a) style_y *e;
    THEME_ROLES(THEME_MEMBER_)
#undef THEME_MEMBER_
} roles_y;

typedef struct theme_y {
    char    *name;
    char    *description;
    roles_y *roles;
} theme_y;


static const cyaml_schema_field_t style_fields[] = {
    CYAML_FIELD_STRING_PTR("fg", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, style_y, fg, 1, 32),
    CYAML_FIELD_STRING_PTR("bg", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, style_y, bg, 1, 32),
    CYAML_FIELD_STRING_PTR("bold", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, style_y, bold, 0, 32),
    CYAML_FIELD_STRING_PTR("underline", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, style_y, underline,
                           0, 32),
    CYAML_FIELD_STRING_PTR("reverse", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, style_y, reverse,
                           0, 32),
    CYAML_FIELD_STRING_PTR("dim", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, style_y, dim, 0, 32),
    CYAML_FIELD_STRING_PTR("italic", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, style_y, italic,
                           0, 32),
    CYAML_FIELD_END
};

static const cyaml_schema_field_t role_fields[] = {
#define THEME_FIELD_(e, k, f, b, a)                                            \
    CYAML_FIELD_MAPPING_PTR(k, CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,       \
                            roles_y, e, style_fields),
    THEME_ROLES(THEME_FIELD_)
#undef THEME_FIELD_
    CYAML_FIELD_END
};

static const cyaml_schema_field_t theme_fields[] = {
    CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
                           theme_y, name, 0, 63),
    CYAML_FIELD_STRING_PTR("description", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
                           theme_y, description, 0, 1024),
    CYAML_FIELD_MAPPING_PTR("roles", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
                            theme_y, roles, role_fields),
    CYAML_FIELD_END
};

static const cyaml_schema_value_t theme_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, theme_y, theme_fields),
};

int
theme_parse_color(const char *s)
{
    char *end;
    long v;

    if (s[0] == '#') {              /* "#rrggbb" */
        if (strlen(s) != 7 || strspn(s + 1, "0123456789abcdefABCDEF") != 6)
            return -2;
        return THEME_RGB_FLAG | (int)strtol(s + 1, NULL, 16);
    }
    for (size_t i = 0; i < NCOLORS; i++)
        if (strcmp(s, color_names[i].str) == 0)
            return (int)color_names[i].val;
    v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < 0 || v > 255)
        return -2;
    return (int)v;
}

/* ---- colours on terminals with fewer of them ------------------------------ */

/* xterm's default RGB for the 16 ANSI colours */
static const unsigned char ansi16[16][3] = {
    { 0, 0, 0 },       { 205, 0, 0 },     { 0, 205, 0 },     { 205, 205, 0 },
    { 0, 0, 238 },     { 205, 0, 205 },   { 0, 205, 205 },   { 229, 229, 229 },
    { 127, 127, 127 }, { 255, 0, 0 },     { 0, 255, 0 },     { 255, 255, 0 },
    { 92, 92, 255 },   { 255, 0, 255 },   { 0, 255, 255 },   { 255, 255, 255 },
};
static const unsigned char cube6[6] = { 0, 95, 135, 175, 215, 255 };       /* 16-231 */
static const unsigned char cube4[4] = { 0, 139, 205, 255 };                /* 88: 16-79 */
static const unsigned char grey88[8] = { 46, 92, 115, 139, 162, 185, 208, 231 };

/* A colour with max-min channel spread below this is a grey: mapped by
 * lightness, not hue (xterm's 256 greys have spread 0; 110, a pale blue,
 * has 80). */
#define THEME_GREY_SPREAD 0x30
/* At 16 colours a hue maps to its bright variant from this lightness on. */
#define THEME_BRIGHT_L 150

int
theme_color_rgb(int c)
{
    if (c & THEME_RGB_FLAG)
        return c & 0xFFFFFF;
    if (c < 0)
        return 0;
    if (c < 16)
        return ansi16[c][0] << 16 | ansi16[c][1] << 8 | ansi16[c][2];
    if (c < 232) {
        c -= 16;
        return cube6[c / 36] << 16 | cube6[c / 6 % 6] << 8 | cube6[c % 6];
    }
    c = 8 + 10 * (c - 232);
    return c << 16 | c << 8 | c;
}

static int
rgb_r(int rgb) { return rgb >> 16 & 255; }
static int
rgb_g(int rgb) { return rgb >> 8 & 255; }
static int
rgb_b(int rgb) { return rgb & 255; }

static int
max3(int a, int b, int c) { return a > b ? (a > c ? a : c) : (b > c ? b : c); }
static int
min3(int a, int b, int c) { return a < b ? (a < c ? a : c) : (b < c ? b : c); }

/* HSL lightness 0-255 */
static int
lightness(int rgb)
{
    int r = rgb_r(rgb), g = rgb_g(rgb), b = rgb_b(rgb);
    return (max3(r, g, b) + min3(r, g, b)) / 2;
}

static int
is_grey(int rgb)
{
    int r = rgb_r(rgb), g = rgb_g(rgb), b = rgb_b(rgb);
    return max3(r, g, b) - min3(r, g, b) < THEME_GREY_SPREAD;
}

/* ANSI colour 1-6 of the hue of RGB (not a grey): the nearest of red,
 * yellow, green, cyan, blue, magenta at 0, 60, ... 300 degrees. */
static int
hue_ansi(int rgb)
{
    static const int sector_color[6] = { 1, 3, 2, 6, 4, 5 };
    int r = rgb_r(rgb), g = rgb_g(rgb), b = rgb_b(rgb);
    int mx = max3(r, g, b), d = mx - min3(r, g, b);
    double h;

    if (mx == r)
        h = 60.0 * (g - b) / d;
    else if (mx == g)
        h = 120.0 + 60.0 * (b - r) / d;
    else
        h = 240.0 + 60.0 * (r - g) / d;
    if (h < 0)
        h += 360.0;
    return sector_color[(int)(h / 60.0 + 0.5) % 6];
}

static int
dist2(int a, int b)
{
    int dr = rgb_r(a) - rgb_r(b), dg = rgb_g(a) - rgb_g(b), db = rgb_b(a) - rgb_b(b);
    return dr * dr + dg * dg + db * db;
}

/* The nearest of palette entries FROM..TO-1 (RGB distance). */
static int
nearest(int rgb, int from, int to, int n88)
{
    int best = from, bd = 1 << 30;

    for (int c = from; c < to; c++) {
        int p;
        if (!n88 || c < 16) {
            p = theme_color_rgb(c);
        } else if (c < 80) {
            int k = c - 16;
            p = cube4[k / 16] << 16 | cube4[k / 4 % 4] << 8 | cube4[k % 4];
        } else {
            int v = grey88[c - 80];
            p = v << 16 | v << 8 | v;
        }
        int d = dist2(rgb, p);
        if (d < bd) {
            bd = d;
            best = c;
        }
    }
    return best;
}

int
theme_is_light(const theme *t)
{
    int fg = t->role[THEME_ROLE_NORMAL].fg;

    return fg >= 0 && lightness(theme_color_rgb(fg)) < 0x80;
}

/* Colour C at NCOLORS < 88 colours (8 or 16).  FG: a foreground over a
 * background of lightness BG_L, which may get THEME_BOLD/THEME_DIM in
 * *ATTRS when it is a grey on an 8-colour terminal. */
static int
map_few(int c, int ncolors, int fg, int bg_l, unsigned *attrs)
{
    int rgb, l;

    if (!(c & THEME_RGB_FLAG)) {
        if (c < 8 || (ncolors >= 16 && c < 16))
            return c;
        if (ncolors == 8 && c >= 9 && c < 16) {
            if (fg)                  /* a bright ANSI colour: bold, as of old */
                *attrs |= THEME_BOLD;
            return c - 8;
        }
        /* 8 (bright black) at 8 colours and 16-255: by hue or lightness */
    }
    rgb = theme_color_rgb(c);
    l = lightness(rgb);
    if (!is_grey(rgb)) {
        int h = hue_ansi(rgb);
        return ncolors >= 16 && l >= THEME_BRIGHT_L ? h + 8 : h;
    }
    if (ncolors >= 16)
        return l < 0x30 ? 0 : l < 0x98 ? 8 : l < 0xE8 ? 7 : 15;
    if (!fg)
        return l < 0x80 ? 0 : 7;
    if (bg_l < 0x80) {               /* light text on a dark background */
        if (l < 0x40)
            return 0;
        if (l < 0xC0)
            *attrs |= THEME_DIM;
        else if (l >= 0xE8)          /* 255, bright white: bold white */
            *attrs |= THEME_BOLD;
        return 7;
    }
    if (l >= 0xE0)                   /* dark text on a light background */
        return 7;
    if (l >= 0x40)
        *attrs |= THEME_DIM;
    return 0;
}

static int
map_one(int c, int ncolors, int fg, int bg_l, unsigned *attrs)
{
    if (c < 0 || ncolors < 8)
        return -1;
    if (ncolors >= 0x1000000) {      /* direct colour: 0-7 are the palette */
        int rgb;
        if (!(c & THEME_RGB_FLAG) && c < 8)
            return c;
        rgb = theme_color_rgb(c);
        return rgb < 8 ? 0 : rgb;     /* (0-7 would be read as the palette) */
    }
    if (ncolors >= 256)
        return c & THEME_RGB_FLAG ? nearest(c & 0xFFFFFF, 16, 256, 0) : c;
    if (ncolors >= 88)
        return c < 16 ? c : nearest(theme_color_rgb(c), 16, 88, 1);
    return map_few(c, ncolors >= 16 ? 16 : 8, fg, bg_l, attrs);
}

void
theme_map_style(const theme_style *s, int ncolors, int light_bg, int *fg, int *bg,
                unsigned *attrs)
{
    int bg_l = light_bg ? 255 : 0;

    *attrs = 0;
    *bg = map_one(s->bg, ncolors, 0, 0, attrs);
    if (s->bg >= 0)    /* what the terminal shows at 8/16 colours, else the theme's */
        bg_l = lightness(theme_color_rgb(ncolors < 88 && *bg >= 0 ? *bg : s->bg));
    *fg = map_one(s->fg, ncolors, 1, bg_l, attrs);
    /* two colours the theme keeps apart must not merge (grey on grey) */
    if (*fg >= 0 && *fg == *bg && s->fg != s->bg && ncolors < 88) {
        *fg = lightness(theme_color_rgb(*bg)) < 0x80 ? 7 : 0;
        *attrs &= ~(unsigned)THEME_DIM;
    }
}

/* 1-based line of the first "KEY:" at or after the line of "ROLE:". */
static long
find_line(const char *text, const char *role, const char *key)
{
    long line = 1, role_line = 0;
    const char *p = text;
    size_t rl = strlen(role), kl = strlen(key);

    while (*p) {
        const char *l = p;
        while (*l == ' ' || *l == '\t' || *l == '{')
            l++;
        if (role_line == 0 && strncmp(l, role, rl) == 0 && l[rl] == ':')
            role_line = line;
        if (role_line) {
            const char *k = strstr(p, key);
            const char *eol = p + strcspn(p, "\n");
            while (k && k < eol) {
                if (k[kl] == ':' && (k == p || k[-1] == ' ' || k[-1] == '{' || k[-1] == ','))
                    return line;
                k = strstr(k + 1, key);
            }
        }
        p += strcspn(p, "\n");
        if (*p)
            p++;
        line++;
    }
    return role_line;
}

/* A style flag as written (NULL: not given): 1 true, 0 false or not
** given, -1 anything else.  YAML 1.2's words, as the config's on/off are
** words of their own. */
static int
flag_of(const char *v)
{
    if (v == NULL || strcmp(v, "false") == 0 || strcmp(v, "False") == 0 || strcmp(v, "FALSE") == 0)
        return 0;
    if (strcmp(v, "true") == 0 || strcmp(v, "True") == 0 || strcmp(v, "TRUE") == 0)
        return 1;
    return -1;
}

int
theme_load_file(const char *path, theme *out, char *msg, size_t msg_cap)
{
    cyaml_config_t cfg;
    tui_yaml_log log;
    theme_y *ty = NULL;
    theme tmp;
    size_t len;
    char *text = tui_read_file(path, THEME_MAX_BYTES, &len, msg, msg_cap);
    cyaml_err_t e;
    int rc = -1;

    if (text == NULL)
        return -1;
    tui_yaml_config(&cfg, &log);
    e = cyaml_load_data((const uint8_t *)text, len, &cfg, &theme_schema, (void **)&ty, NULL);
    if (e != CYAML_OK) {
        tui_yaml_message(&log, path, text, e, msg, msg_cap);
        goto out;
    }
    theme_default(&tmp);
    if (ty == NULL) {                /* an empty document: all defaults */
        rc = 0;
        *out = tmp;
        goto out;
    }
    if (ty->name)
        snprintf(tmp.name, sizeof tmp.name, "%s", ty->name);
    if (ty->roles) {
        style_y *const r[THEME_ROLE_COUNT] = {
#define THEME_PTR_(e2, k, f, b, a) ty->roles->e2,
            THEME_ROLES(THEME_PTR_)
#undef THEME_PTR_
        };
        for (int i = 0; i < THEME_ROLE_COUNT; i++) {
            const style_y *s = r[i];
            if (s == NULL)
                continue;
            /* a role given in the file: absent colours are the terminal's */
            tmp.role[i].fg = tmp.role[i].bg = -1;
            for (int k = 0; k < 2; k++) {
                const char *v = k == 0 ? s->fg : s->bg;
                const char *f = k == 0 ? "fg" : "bg";
                char cut[48];
                int c;
                if (v == NULL)
                    continue;
                c = theme_parse_color(v);
                if (c == -2) {
                    snprintf(msg, msg_cap,
                             "%s:%ld: field '%s' in '%s': unknown colour '%s' "
                             "(a name like 'cyan', a number 0-255 or #rrggbb)",
                             path, find_line(text, role_table[i].key, f), f,
                             role_table[i].key, tui_cut(cut, sizeof cut, v, 40));
                    goto out;
                }
                if (k == 0)
                    tmp.role[i].fg = c;
                else
                    tmp.role[i].bg = c;
            }
            tmp.role[i].attrs = 0;
            for (int k = 0; k < 5; k++) {
                static const char *const fname[5] = { "bold", "underline", "reverse", "dim", "italic" };
                static const unsigned fbit[5] = { THEME_BOLD, THEME_UNDERLINE, THEME_REVERSE,
                                                  THEME_DIM, THEME_ITALIC };
                const char *v = k == 0 ? s->bold : k == 1 ? s->underline : k == 2 ? s->reverse
                              : k == 3 ? s->dim : s->italic;
                char cut[48];
                int f = flag_of(v);
                if (f < 0) {
                    snprintf(msg, msg_cap, "%s:%ld: field '%s' in '%s': '%s' is not true or false",
                             path, find_line(text, role_table[i].key, fname[k]), fname[k],
                             role_table[i].key, tui_cut(cut, sizeof cut, v, 40));
                    goto out;
                }
                tmp.role[i].attrs |= f ? fbit[k] : 0;
            }
        }
    }
    *out = tmp;
    rc = 0;
out:
    if (rc == 0)      /* (an output never replaces it: tui_replace_ask) */
        snprintf(out->path, sizeof out->path, "%s", path);
    if (ty)
        cyaml_free(&cfg, &theme_schema, ty, 0);
    free(text);
    if (rc != 0)              /* one line: no quoted line break or control code */
        for (char *c = msg; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = ' ';
    return rc;
}

static int
exists(const char *p)
{
    return access(p, R_OK) == 0;
}

/* Candidate directories for named themes, in lookup order. */
static int
theme_dirs(char dirs[][THEME_PATH_MAX], int max)
{
    int n = 0;
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    char exe[THEME_PATH_MAX];
    ssize_t k;

    if (xdg && *xdg && n < max)
        snprintf(dirs[n++], THEME_PATH_MAX, "%s/rwkv-tui/themes", xdg);
    else if (home && *home && n < max)
        snprintf(dirs[n++], THEME_PATH_MAX, "%s/.config/rwkv-tui/themes", home);
    k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k > 0) {
        char *slash;
        exe[k] = '\0';
        slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        if (n < max)
            snprintf(dirs[n++], THEME_PATH_MAX, "%.4000s/themes", exe);
        if (n < max)
            snprintf(dirs[n++], THEME_PATH_MAX, "%.4000s/../themes", exe);
        if (n < max)
            snprintf(dirs[n++], THEME_PATH_MAX, "%.4000s/../share/rwkv-tui/themes", exe);
    }
    if (n < max)
        snprintf(dirs[n++], THEME_PATH_MAX, "/usr/local/share/rwkv-tui/themes");
    if (n < max)
        snprintf(dirs[n++], THEME_PATH_MAX, "/usr/share/rwkv-tui/themes");
    return n;
}

int
theme_load(const char *name_or_path, theme *out, char *msg, size_t msg_cap)
{
    char dirs[8][THEME_PATH_MAX];
    char path[THEME_PATH_MAX + 80];
    size_t nl;
    int n;

    msg[0] = '\0';
    theme_default(out);
    if (name_or_path == NULL || *name_or_path == '\0')
        name_or_path = "default";
    nl = strlen(name_or_path);
    if (strchr(name_or_path, '/') || (nl > 5 && strcmp(name_or_path + nl - 5, ".yaml") == 0)) {
        if (theme_load_file(name_or_path, out, msg, msg_cap) != 0) {
            theme_default(out);
            return -1;
        }
        return 0;
    }
    n = theme_dirs(dirs, 8);
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%.4000s/%.64s.yaml", dirs[i], name_or_path);
        if (exists(path)) {
            if (theme_load_file(path, out, msg, msg_cap) != 0) {
                theme_default(out);
                return -1;
            }
            return 0;
        }
    }
    if (strcmp(name_or_path, "default") == 0)
        return 0;
    snprintf(msg, msg_cap, "theme '%s' not found (looked in %s and the shipped themes)",
             name_or_path, dirs[0]);
    return -1;
}
