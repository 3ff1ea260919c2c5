/*
** theme.c -- role table, YAML theme loading (a libcyaml schema), lookup by
** name.  See theme.h.  A file is parsed into a temporary theme that
** replaces the caller's only when every field is valid (STYLE G4); every
** problem of a refused one is listed at once (walk_map, yamlerr.h).
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

/* ---- colour names ---------------------------------------------------------- */

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

/*
** A background the theme sets apart from the terminal's own (the dark
** theme's status bar, grey 236 on a dark screen) must stay apart at 8
** colours, where the nearest colour of a dark grey is black: the bar
** melted into the screen (TERM=linux).  There is no other dark colour, so
** such a bar is drawn the other way round -- 7 on a dark screen, 0 on a
** light one -- its foreground following (the fg == bg rule in
** theme_map_style).  "Apart" is the line the 16-colour mapping draws
** between black and grey 8 (map_few): a grey closer to the screen than
** that (the dark theme's menus, 235, inside their borders) stays as it
** was.  BG: what C was mapped to.
*/
#define THEME_APART_L 0x30
static int
bar_apart(int c, int bg, int ncolors, int light_bg)
{
    int l;

    if (c < 0 || ncolors >= 16)
        return bg;
    l = lightness(theme_color_rgb(c));
    if (!light_bg && bg == 0 && l >= THEME_APART_L)
        return 7;
    if (light_bg && bg == 7 && l <= 0xFF - THEME_APART_L)
        return 0;
    return bg;
}

void
theme_map_style(const theme_style *s, int ncolors, int light_bg, int *fg, int *bg,
                unsigned *attrs)
{
    int bg_l = light_bg ? 255 : 0;

    *attrs = 0;
    *bg = map_one(s->bg, ncolors, 0, 0, attrs);
    *bg = bar_apart(s->bg, *bg, ncolors, light_bg);
    if (s->bg >= 0)    /* what the terminal shows at 8/16 colours, else the theme's */
        bg_l = lightness(theme_color_rgb(ncolors < 88 && *bg >= 0 ? *bg : s->bg));
    *fg = map_one(s->fg, ncolors, 1, bg_l, attrs);
    /* two colours the theme keeps apart must not merge (grey on grey), at
    ** any colour count: at 256, #3a3a3a and #3b3b3b are both grey 237, and
    ** 21 and #0000ff are one blue */
    if (*fg >= 0 && *fg == *bg && s->fg != s->bg) {
        *fg = bg_l < 0x80 ? 7 : 0;    /* (the background as it is shown) */
        *attrs &= ~(unsigned)THEME_DIM;
    }
}

/* ---- the file: a libcyaml schema ------------------------------------------
**
**   root mapping:  name description -> strings
**                  roles -> mapping of role name -> mapping of
**                  fg bg -> a colour (theme_parse_color)
**                  bold underline reverse dim italic -> true or false
** The schema below is the one description of a theme file.  libcyaml
** loads a file by it; when it refuses one (it stops at the first problem)
** or a value means nothing (style_set), a walk of libyaml's events led by
** the same tables lists every problem (walk_map, yamlerr.h): a user with
** three typos learns of all three at once.  The theme is used only when
** there is none, so a bad file never leaves the UI half-coloured.
*/

typedef struct style_y {
    /* NULL when absent (libcyaml zero-fills).  The flags are strings, not
    ** libcyaml bools: those took any word but false/no/off as true ("bold:
    ** banana" was bold), so style_set reads them */
    char *fg, *bg, *bold, *underline, *reverse, *dim, *italic;
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

#define STR_FIELD(key, type, member, min, max)                                 \
    CYAML_FIELD_STRING_PTR(key, CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, type, member, min, max)
/* "roles:" or "user:" with nothing after it: NULL, as not given */
#define MAP_FIELD(key, type, member, fields)                                   \
    CYAML_FIELD_MAPPING_PTR(key, CYAML_FLAG_POINTER_NULL | CYAML_FLAG_OPTIONAL, type, member, fields)

/* the two colours first, then the flags in flag_bit's order (style_set) */
static const cyaml_schema_field_t style_fields[] = {
    STR_FIELD("fg", style_y, fg, 1, 32),
    STR_FIELD("bg", style_y, bg, 1, 32),
    STR_FIELD("bold", style_y, bold, 0, 32),
    STR_FIELD("underline", style_y, underline, 0, 32),
    STR_FIELD("reverse", style_y, reverse, 0, 32),
    STR_FIELD("dim", style_y, dim, 0, 32),
    STR_FIELD("italic", style_y, italic, 0, 32),
    CYAML_FIELD_END
};
static const unsigned flag_bit[] = { THEME_BOLD, THEME_UNDERLINE, THEME_REVERSE, THEME_DIM,
                                     THEME_ITALIC };

/* in the order of the roles (theme_of reads role I at role_fields[I]) */
static const cyaml_schema_field_t role_fields[] = {
#define THEME_FIELD_(e, k, f, b, a) MAP_FIELD(k, roles_y, e, style_fields),
    THEME_ROLES(THEME_FIELD_)
#undef THEME_FIELD_
    CYAML_FIELD_END
};

static const cyaml_schema_field_t theme_fields[] = {
    STR_FIELD("name", theme_y, name, 0, sizeof ((theme *)0)->name - 1),
    STR_FIELD("description", theme_y, description, 0, 1024),
    MAP_FIELD("roles", theme_y, roles, role_fields),
    CYAML_FIELD_END
};

/* a document of nothing ("---" alone): NULL, all defaults */
static const cyaml_schema_value_t theme_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER_NULL, theme_y, theme_fields),
};

static const cyaml_config_t cyaml_cfg = {
    .log_fn = NULL,                 /* walk_map says what is wrong, and where */
    .mem_fn = cyaml_mem,
    .log_level = CYAML_LOG_ERROR,
    .flags = CYAML_CFG_NO_ALIAS,    /* as walk_map, which follows none */
};

#define CUT(v) tui_cut((char[48]){ 0 }, 48, (v), 40)

/* A style flag as written: 1 true, 0 false, -1 anything else.  YAML 1.2's
** words, as the config's on/off are words of their own. */
static int
flag_of(const char *v)
{
    if (strcmp(v, "false") == 0 || strcmp(v, "False") == 0 || strcmp(v, "FALSE") == 0)
        return 0;
    if (strcmp(v, "true") == 0 || strcmp(v, "True") == 0 || strcmp(v, "TRUE") == 0)
        return 1;
    return -1;
}

/* Field K of style_fields is V: into *S and NULL, or what is wrong with V
** (in WHY, CAP bytes).  What a value means, for theme_of and walk_map. */
static const char *
style_set(theme_style *s, size_t k, const char *v, char *why, size_t cap)
{
    int c;

    if (k < 2) {
        if ((c = theme_parse_color(v)) == -2) {
            snprintf(why, cap, "unknown colour '%s' (a name like 'cyan', a number 0-255 or #rrggbb)",
                     CUT(v));
            return why;
        }
        *(k == 0 ? &s->fg : &s->bg) = c;
        return NULL;
    }
    if ((c = flag_of(v)) < 0) {
        snprintf(why, cap, "'%s' is not true or false", CUT(v));
        return why;
    }
    s->attrs = c ? s->attrs | flag_bit[k - 2] : s->attrs & ~flag_bit[k - 2];
    return NULL;
}

/* The member of the struct at BASE that field F of its schema loads. */
#define MEMBER(type, base, f) (*(type *const *)((const char *)(base) + (f).data_offset))

/* The theme libcyaml loaded (NULL: an empty document) into *T: 0, or -1
** when a value means nothing (walk_map then says where). */
static int
theme_of(const theme_y *ty, theme *t)
{
    char why[160];

    theme_default(t);
    if (ty == NULL)
        return 0;
    if (ty->name)
        snprintf(t->name, sizeof t->name, "%s", ty->name);
    for (int i = 0; ty->roles != NULL && i < THEME_ROLE_COUNT; i++) {
        const style_y *s = MEMBER(style_y, ty->roles, role_fields[i]);
        if (s == NULL)
            continue;
        /* a role given in the file: absent colours are the terminal's */
        t->role[i].fg = t->role[i].bg = -1;
        t->role[i].attrs = 0;
        for (size_t k = 0; style_fields[k].key != NULL; k++) {
            const char *v = MEMBER(char, s, style_fields[k]);
            if (v != NULL && style_set(&t->role[i], k, v, why, sizeof why) != NULL)
                return -1;
        }
    }
    return 0;
}

/* ---- every problem of a refused file ---------------------------------------- */

#define WALK_MAX_FIELDS 64
_Static_assert(THEME_ROLE_COUNT < WALK_MAX_FIELDS, "walk_map: more roles than it counts");

/* The keys of FIELDS into NAMES (WALK_MAX_FIELDS); their number. */
static size_t
schema_keys(const cyaml_schema_field_t *fields, const char **names)
{
    size_t n = 0;

    while (n < WALK_MAX_FIELDS && fields[n].key != NULL) {
        names[n] = fields[n].key;
        n++;
    }
    return n;
}

/* The string V of field F (index K of FIELDS, named at KM) in IN (" in
** 'role'", or ""): what style_set or the schema's length says of it. */
static void
walk_string(tui_yaml_loader *l, const yaml_mark_t *km, const cyaml_schema_field_t *fields,
            size_t k, const char *in, const char *v)
{
    theme_style scratch = { -1, -1, 0 };
    char why[160];

    if (fields == style_fields) {
        if (style_set(&scratch, k, v, why, sizeof why) != NULL)
            tui_yaml_report(l, km, "field '%s'%s: %s", fields[k].key, in, why);
    } else if (strlen(v) > fields[k].value.string.max) {
        tui_yaml_report(l, &l->ev.start_mark, "field '%s'%s: longer than %u bytes", fields[k].key,
                        in, (unsigned)fields[k].value.string.max);
    }
}

/* The node at the current event, the value of field NAME (in PARENT; both
** NULL at the root), against the schema's FIELDS: every problem reported. */
static void
walk_map(tui_yaml_loader *l, const cyaml_schema_field_t *fields, const char *name,
         const char *parent)
{
    const char *names[WALK_MAX_FIELDS];
    unsigned char seen[WALK_MAX_FIELDS] = { 0 };
    size_t n = schema_keys(fields, names);
    char in[80] = "", what[80] = "", key[64];
    yaml_mark_t km;

    if (name != NULL)
        snprintf(in, sizeof in, " in '%s'", name);
    /* "name, description and roles", "fg, bg, bold, ..." */
    for (size_t i = 0; i < n && i <= 3; i++)
        snprintf(what + strlen(what), sizeof what - strlen(what), "%s%s",
                 i == 0 ? "" : i + 1 == n && i < 3 ? " and " : ", ", i < 3 ? names[i] : "...");
    if (!tui_yaml_mapping(l, name, parent, what))
        return;
    while (tui_yaml_key(l, name, "a field name", key, sizeof key, &km)) {
        char hint[80];
        const char *v;
        size_t k = 0;

        while (k < n && strcmp(key, names[k]) != 0)
            k++;
        if (k == n) {
            tui_yaml_suggest(key, names, n, hint, sizeof hint);
            tui_yaml_report(l, &km, "unknown field '%s'%s%s", CUT(key), in, hint);
            if (!tui_yaml_skip(l))
                return;
            continue;
        }
        if (seen[k]++)
            tui_yaml_report(l, &km, "field '%s'%s given twice", key, in);
        if (fields[k].value.type == CYAML_MAPPING)
            walk_map(l, fields[k].value.mapping.fields, names[k], name);
        else if ((v = tui_yaml_scalar(l, key, name)) != NULL)
            walk_string(l, &km, fields, k, in, v);
    }
}

/* Every problem of the file PATH (TEXT, LEN bytes) that libcyaml refused
** with E (or whose values theme_of refused: CYAML_OK) into MSG. */
static void
diagnose(const char *path, const char *text, size_t len, cyaml_err_t e, char *msg, size_t cap)
{
    tui_yaml_loader l;

    if (tui_yaml_open(&l, path, text, len, msg, cap) != 0)
        return;
    l.lines_only = 1;          /* "t.yaml:3: ...", as theme problems always were */
    /* stream start, document start (none: an empty file) */
    if (tui_yaml_next(&l) && tui_yaml_next(&l) && l.ev.type == YAML_DOCUMENT_START_EVENT &&
        tui_yaml_next(&l))
        walk_map(&l, theme_fields, NULL, NULL);
    if (tui_yaml_close(&l) == 0)     /* a refusal the walk does not know of */
        snprintf(msg, cap, "%s: not a theme libcyaml can load: %s", path,
                 e != CYAML_OK ? cyaml_strerror(e) : "a value it cannot place");
}

/* TEXT (LEN bytes, read from PATH) into *OUT, which changes only when it is
** valid; -1 with every problem in MSG. */
static int
theme_parse(const char *path, const char *text, size_t len, theme *out, char *msg,
            size_t msg_cap)
{
    theme_y *ty = NULL;
    theme tmp;
    cyaml_err_t e;
    int ok;

    e = cyaml_load_data((const uint8_t *)text, len, &cyaml_cfg, &theme_schema, (void **)&ty, NULL);
    ok = e == CYAML_OK && theme_of(ty, &tmp) == 0;
    if (ty != NULL)
        cyaml_free(&cyaml_cfg, &theme_schema, ty, 0);
    if (!ok) {
        diagnose(path, text, len, e, msg, msg_cap);
        return -1;
    }
    *out = tmp;
    return 0;
}

int
theme_load_file(const char *path, theme *out, char *msg, size_t msg_cap)
{
    size_t len;
    char *text = tui_read_file(path, THEME_MAX_BYTES, &len, msg, msg_cap);
    int rc;

    if (text == NULL) {
        /* one line: a path with a line break or a control code in it */
        for (char *c = msg; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = ' ';
        return -1;
    }
    rc = theme_parse(path, text, len, out, msg, msg_cap);
    free(text);
    if (rc != 0)
        return -1;
    /* (an output never replaces it: tui_replace_ask) */
    snprintf(out->path, sizeof out->path, "%s", path);
    return 0;
}

/* The shipped theme NAME built into the binary, or NULL. */
static const struct theme_builtin *
builtin_find(const char *name)
{
    for (const struct theme_builtin *b = theme_builtin; b->name != NULL; b++)
        if (strcmp(b->name, name) == 0)
            return b;
    return NULL;
}

static int
exists(const char *p)
{
    return access(p, R_OK) == 0;
}

void
theme_user_dir(char *buf, size_t cap)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");

    /* a relative one is ignored (the XDG rule, as for the data, state and
    ** cache folders): else the themes changed with the current folder */
    if (xdg && xdg[0] == '/')
        snprintf(buf, cap, "%s/rwkv-tui/themes", xdg);
    else if (home && *home)
        snprintf(buf, cap, "%s/.config/rwkv-tui/themes", home);
    else if (cap > 0)
        buf[0] = '\0';
}

/* Candidate directories for named themes, in lookup order; *USER: how many
** of them are the user's (0 or 1, first). */
static int
theme_dirs(char dirs[][THEME_PATH_MAX], int max, int *user)
{
    int n = 0;
    char exe[THEME_PATH_MAX];
    ssize_t k;

    if (n < max) {
        theme_user_dir(dirs[n], THEME_PATH_MAX);
        n += dirs[n][0] != '\0';
    }
    *user = n;
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
    const struct theme_builtin *b;
    size_t nl;
    int n, user;

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
    /* the user's folder first (a file there overrides a shipped theme of
    ** its name), then the shipped themes built in, so that a binary copied
    ** anywhere has them, then the folders of themes installed beside it */
    n = theme_dirs(dirs, 8, &user);
    for (int i = 0; i < n; i++) {
        if (i == user && (b = builtin_find(name_or_path)) != NULL) {
            snprintf(path, sizeof path, "%.64s.yaml (built in)", name_or_path);
            if (theme_parse(path, b->text, b->len, out, msg, msg_cap) != 0) {
                theme_default(out);
                return -1;
            }
            return 0;
        }
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
    /* every place looked in, and the names there are */
    snprintf(msg, msg_cap, "theme '%s' not found (looked in", name_or_path);
    for (int i = 0; i < n; i++)
        snprintf(msg + strlen(msg), msg_cap - strlen(msg), "%s %s", i ? "," : "", dirs[i]);
    snprintf(msg + strlen(msg), msg_cap - strlen(msg), "; built in:");
    for (b = theme_builtin; b->name != NULL; b++)
        snprintf(msg + strlen(msg), msg_cap - strlen(msg), "%s %s", b == theme_builtin ? "" : ",",
                 b->name);
    snprintf(msg + strlen(msg), msg_cap - strlen(msg), ")");
    return -1;
}
