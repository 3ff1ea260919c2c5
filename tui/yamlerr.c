/*
** yamlerr.c -- the YAML walk shared by the config file and themes (see
** yamlerr.h): every problem one "PATH:LINE:COLUMN: ..." line, and the
** reader that refuses what is not a regular file.
*/
#include "yamlerr.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/io/fileio.h"
#include "text.h"

int
tui_yaml_open(tui_yaml_loader *l, const char *path, const char *text, size_t len, char *msg,
              size_t cap)
{
    memset(l, 0, sizeof *l);
    l->path = path;
    l->msg = msg;
    l->cap = cap;
    if (cap)
        msg[0] = '\0';
    if (!yaml_parser_initialize(&l->p)) {
        snprintf(msg, cap, "%s: out of memory", path);
        return -1;
    }
    yaml_parser_set_input_string(&l->p, (const unsigned char *)text, len);
    return 0;
}

int
tui_yaml_close(tui_yaml_loader *l)
{
    if (l->full && l->cap > l->len)
        snprintf(l->msg + l->len, l->cap - l->len, "%s%s: %d more problems", l->len ? "\n" : "",
                 l->path, l->nerr - l->shown);
    if (l->have_ev)
        yaml_event_delete(&l->ev);
    l->have_ev = 0;
    yaml_parser_delete(&l->p);
    return l->nerr;
}

void
tui_yaml_report(tui_yaml_loader *l, const yaml_mark_t *m, const char *fmt, ...)
{
    char line[512];
    int k;
    va_list ap;

    l->nerr++;
    if (l->full)
        return;
    if (l->lines_only)
        k = snprintf(line, sizeof line, "%s:%lu: ", l->path, (unsigned long)m->line + 1);
    else
        k = snprintf(line, sizeof line, "%s:%lu:%lu: ", l->path, (unsigned long)m->line + 1,
                     (unsigned long)m->column + 1);
    va_start(ap, fmt);
    if (k > 0 && (size_t)k < sizeof line)
        vsnprintf(line + k, sizeof line - (size_t)k, fmt, ap);
    va_end(ap);
    /* one problem, one line: a quoted multi-line value (a YAML plain scalar
    ** may span lines) or a control character must not break it */
    for (char *c = line; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
    /* room for this line and a closing "(N more)" line */
    if (l->shown >= TUI_YAML_MAX_ERRORS || l->len + strlen(line) + 2 + 80 > l->cap) {
        l->full = 1;
        return;
    }
    l->len += (size_t)snprintf(l->msg + l->len, l->cap - l->len, "%s%s", l->len ? "\n" : "",
                               line);
    l->shown++;
}

/* 1 when M (a syntax error's place) is the end of the text, moved then to
** the end of its last line: libyaml notices a missing "]" only there, on
** the line after the last (a line the file does not have). */
static int
at_end_of_text(const tui_yaml_loader *l, yaml_mark_t *m)
{
    const unsigned char *s = l->p.input.string.start, *e = l->p.input.string.end;
    size_t line = 0, col = 0;

    if (s == NULL || m->index < (size_t)(e - s))
        return 0;
    while (e > s && (e[-1] == '\n' || e[-1] == '\r'))      /* the last line's end */
        e--;
    for (const unsigned char *c = s; c < e; c++) {
        if (*c == '\n') {
            line++;
            col = 0;
        } else if ((*c & 0xC0) != 0x80) {
            col++;
        }
    }
    m->line = line;
    m->column = col;
    return 1;
}

int
tui_yaml_next(tui_yaml_loader *l)
{
    if (l->have_ev)
        yaml_event_delete(&l->ev);
    l->have_ev = 0;
    if (l->failed)
        return 0;
    if (!yaml_parser_parse(&l->p, &l->ev)) {
        yaml_mark_t m = l->p.problem_mark;
        char from[48] = "";
        int at_end = at_end_of_text(l, &m);
        l->failed = 1;
        /* (at the end, where a context began -- an unclosed "[" -- is what
        ** the reader looks for) */
        if (at_end && l->p.context && l->p.context_mark.line != m.line)
            snprintf(from, sizeof from, " (begun on line %lu)",
                     (unsigned long)l->p.context_mark.line + 1);
        tui_yaml_report(l, &m, "YAML syntax error%s: %s%s%s%s",
                        at_end ? " at the end of the file" : "",
                        l->p.problem ? l->p.problem : "unreadable", l->p.context ? " " : "",
                        l->p.context ? l->p.context : "", from);
        return 0;
    }
    l->have_ev = 1;
    return 1;
}

const char *
tui_yaml_kind(yaml_event_type_t t)
{
    return t == YAML_MAPPING_START_EVENT ? "a mapping"
         : t == YAML_SEQUENCE_START_EVENT ? "a list"
         : t == YAML_ALIAS_EVENT ? "an alias" : "a string";
}

int
tui_yaml_skip(tui_yaml_loader *l)
{
    int depth = 0;

    do {
        yaml_event_type_t t = l->ev.type;
        if (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT)
            depth++;
        else if (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT)
            depth--;
        if (depth == 0)
            return 1;
    } while (tui_yaml_next(l));
    return 0;
}

const char *
tui_yaml_scalar(tui_yaml_loader *l, const char *field, const char *parent)
{
    /* a "\0" escape: the C string would end there, the rest dropped unsaid
    ** ("fine\0junk" read as the preset 'fine') */
    if (l->ev.type == YAML_SCALAR_EVENT &&
        memchr(l->ev.data.scalar.value, '\0', l->ev.data.scalar.length) != NULL) {
        tui_yaml_report(l, &l->ev.start_mark, "field '%s'%s%s%s: the value holds a NUL byte "
                        "(\\0), which no name, path or setting can hold", field,
                        parent ? " in '" : "", parent ? parent : "", parent ? "'" : "");
        return NULL;
    }
    if (l->ev.type == YAML_SCALAR_EVENT)
        return (const char *)l->ev.data.scalar.value;
    tui_yaml_report(l, &l->ev.start_mark, "field '%s'%s%s%s: expected a string, found %s", field,
                    parent ? " in '" : "", parent ? parent : "", parent ? "'" : "",
                    tui_yaml_kind(l->ev.type));
    tui_yaml_skip(l);
    return NULL;
}

int
tui_yaml_mapping(tui_yaml_loader *l, const char *field, const char *parent, const char *what)
{
    if (l->ev.type == YAML_MAPPING_START_EVENT)
        return 1;
    if (l->ev.type == YAML_SCALAR_EVENT && l->ev.data.scalar.length == 0)
        return 0;
    if (field == NULL)
        tui_yaml_report(l, &l->ev.start_mark, "expected a mapping of %s, found %s", what,
                        tui_yaml_kind(l->ev.type));
    else
        tui_yaml_report(l, &l->ev.start_mark, "field '%s'%s%s%s: expected a mapping of %s, found %s",
                        field, parent ? " in '" : "", parent ? parent : "", parent ? "'" : "", what,
                        tui_yaml_kind(l->ev.type));
    tui_yaml_skip(l);
    return 0;
}

int
tui_yaml_key(tui_yaml_loader *l, const char *field, const char *noun, char *key, size_t cap,
             yaml_mark_t *km)
{
    while (tui_yaml_next(l) && l->ev.type != YAML_MAPPING_END_EVENT) {
        *km = l->ev.start_mark;
        if (l->ev.type == YAML_SCALAR_EVENT) {
            snprintf(key, cap, "%s", (const char *)l->ev.data.scalar.value);
            return tui_yaml_next(l);
        }
        tui_yaml_report(l, km, "%s%s%sexpected %s, found %s", field ? "in '" : "",
                        field ? field : "", field ? "': " : "", noun, tui_yaml_kind(l->ev.type));
        if (!tui_yaml_skip(l) || !tui_yaml_next(l) || !tui_yaml_skip(l))
            return 0;
    }
    return 0;
}

/* Levenshtein distance, capped: for "did you mean" on unknown names. */
static int
edit_distance(const char *a, const char *b)
{
    int d[40][40];
    size_t n = strlen(a), m = strlen(b);

    if (n >= 40 || m >= 40)
        return 99;
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c)
                c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c)
                c = d[i][j - 1] + 1;
            d[i][j] = c;
        }
    return d[n][m];
}

void
tui_yaml_suggest(const char *bad, const char *const *names, size_t n, char *out, size_t cap)
{
    int best = 3;
    const char *pick = NULL;

    for (size_t i = 0; i < n; i++) {
        int d = edit_distance(bad, names[i]);
        if (d < best) {
            best = d;
            pick = names[i];
        }
    }
    /* else a name BAD begins with, or one that begins with BAD, the two
    ** alike in 3 or more letters ("regenerate" is the action "regen",
    ** "alt" is "alternatives"): the one alike in the most */
    for (size_t i = 0, most = 2; best == 3 && i < n; i++) {
        size_t lb = strlen(bad), ln = strlen(names[i]), k = lb < ln ? lb : ln;
        if (k > most && strncmp(bad, names[i], k) == 0) {
            most = k;
            pick = names[i];
        }
    }
    if (pick)
        snprintf(out, cap, " (did you mean '%s'?)", pick);
    else if (cap)
        out[0] = '\0';
}

char *
tui_read_file(const char *path, size_t max, size_t *len, char *msg, size_t cap)
{
    FILE *f;
    struct stat st;
    char *buf;
    size_t n;
    rwkv_err err;

    /* never fopen a FIFO or a device: that blocks (or reads forever) */
    if (rwkv_fopen_regular(path, &f, &err) != RWKV_OK) {
        snprintf(msg, cap, "%s", err.msg);
        return NULL;
    }
    if (fstat(fileno(f), &st) != 0) {
        snprintf(msg, cap, "%s: %s", path, strerror(errno));
        fclose(f);
        return NULL;
    }
    if ((unsigned long long)st.st_size > max) {
        snprintf(msg, cap, "%s: file is larger than %zu bytes", path, max);
        fclose(f);
        return NULL;
    }
    buf = tui_xmalloc((size_t)st.st_size + 1);
    n = fread(buf, 1, (size_t)st.st_size, f);
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}
