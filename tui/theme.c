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
    for (int i = 0; i < THEME_ROLE_COUNT; i++) {
        /* keep roles distinguishable without colour */
        if (t->role[i].bg >= 0 && t->role[i].attrs == 0)
            t->role[i].attrs = THEME_REVERSE;
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
    bool bold, underline, reverse, dim, italic;
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
    CYAML_FIELD_BOOL("bold", CYAML_FLAG_OPTIONAL, style_y, bold),
    CYAML_FIELD_BOOL("underline", CYAML_FLAG_OPTIONAL, style_y, underline),
    CYAML_FIELD_BOOL("reverse", CYAML_FLAG_OPTIONAL, style_y, reverse),
    CYAML_FIELD_BOOL("dim", CYAML_FLAG_OPTIONAL, style_y, dim),
    CYAML_FIELD_BOOL("italic", CYAML_FLAG_OPTIONAL, style_y, italic),
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

    for (size_t i = 0; i < NCOLORS; i++)
        if (strcmp(s, color_names[i].str) == 0)
            return (int)color_names[i].val;
    v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < 0 || v > 255)
        return -2;
    return (int)v;
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
                int c;
                if (v == NULL)
                    continue;
                c = theme_parse_color(v);
                if (c == -2) {
                    snprintf(msg, msg_cap,
                             "%s:%ld: field '%s' in '%s': unknown colour '%.40s' "
                             "(a name like 'cyan' or a number 0-255)",
                             path, find_line(text, role_table[i].key, f), f,
                             role_table[i].key, v);
                    goto out;
                }
                if (k == 0)
                    tmp.role[i].fg = (short)c;
                else
                    tmp.role[i].bg = (short)c;
            }
            tmp.role[i].attrs = (s->bold ? THEME_BOLD : 0) | (s->underline ? THEME_UNDERLINE : 0) |
                                (s->reverse ? THEME_REVERSE : 0) | (s->dim ? THEME_DIM : 0) |
                                (s->italic ? THEME_ITALIC : 0);
        }
    }
    *out = tmp;
    rc = 0;
out:
    if (ty)
        cyaml_free(&cfg, &theme_schema, ty, 0);
    free(text);
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
