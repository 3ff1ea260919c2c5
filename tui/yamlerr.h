/*
** yamlerr.h -- the YAML walk of the config file and themes: every problem
** one line naming the file, the line, the column and the field (shared by
** theme.c and config.c), and their file reader.
*/
#ifndef RWKV_TUI_YAMLERR_H
#define RWKV_TUI_YAMLERR_H

#include <stdarg.h>
#include <stddef.h>

#include <yaml.h>

/*
** A walk over libyaml's events that lists every problem it meets, one
** "PATH:LINE:COLUMN: ..." line each (a theme's: "PATH:LINE: ..."), up to TUI_YAML_MAX_ERRORS, then one
** "PATH: N more problems" line.  libcyaml stops at the first problem, and
** a user who fixes one typo should not have to run again to learn of the
** next; only a YAML syntax error ends the walk (libyaml reads no further,
** so it is the last problem listed).
*/
#define TUI_YAML_MAX_ERRORS 32    /* problems listed; more are counted */

typedef struct tui_yaml_loader {
    yaml_parser_t p;
    yaml_event_t  ev;       /* the current event (valid while have_ev) */
    int           have_ev;
    int           failed;   /* syntax error: no more events */
    const char   *path;
    char         *msg;      /* borrowed: the caller's buffer */
    size_t        cap, len;
    int           nerr;     /* problems found */
    int           shown;    /* lines written to msg */
    int           full;     /* msg has no room for more */
    int           lines_only;  /* "PATH:LINE: ...", no column (a theme's) */
} tui_yaml_loader;

/* Start walking TEXT (LEN bytes, borrowed until tui_yaml_close) of the
** file PATH; problems go to MSG (CAP bytes, emptied).  0, or -1 with MSG
** set (out of memory). */
int tui_yaml_open(tui_yaml_loader *l, const char *path, const char *text, size_t len,
                  char *msg, size_t cap);

/* Add "N more problems" to MSG when some were left out, and free the
** parser.  The number of problems found. */
int tui_yaml_close(tui_yaml_loader *l);

/* One problem at M, a printf FMT: one line in MSG (a control character in
** it, as a quoted multi-line value has, becomes a space). */
void tui_yaml_report(tui_yaml_loader *l, const yaml_mark_t *m, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Advance to the next event; 0 at a syntax error (reported once) or the
** end. */
int tui_yaml_next(tui_yaml_loader *l);

/* Skip the node that starts at the current event (a scalar, an alias or a
** whole mapping/sequence); on return the current event is its last.  0 at
** a syntax error. */
int tui_yaml_skip(tui_yaml_loader *l);

/* "a mapping", "a list", "an alias" or "a string", for event type T. */
const char *tui_yaml_kind(yaml_event_type_t t);

/* The current event as a string, or NULL (reported as "field 'FIELD' in
** 'PARENT': expected a string, found ...", PARENT may be NULL, and
** skipped) when it is not one -- or when it holds a NUL byte (a "\0"
** escape: reported too, never cut short there).  Borrowed until the next
** event. */
const char *tui_yaml_scalar(tui_yaml_loader *l, const char *field, const char *parent);

/* At a field's value (the current event): 1 when it is a mapping, to walk
** with tui_yaml_key; 0 when it is empty ("keys:" with nothing after it) or
** is not a mapping: reported as "field 'FIELD' in 'PARENT': expected a
** mapping of WHAT, found ..." (PARENT may be NULL; FIELD NULL at the
** document's root) and skipped. */
int tui_yaml_mapping(tui_yaml_loader *l, const char *field, const char *parent, const char *what);

/* The next key of the mapping being walked into KEY (CAP bytes) and its
** place into *KM, the current event then its value: 1, or 0 at the
** mapping's end or a syntax error.  A key that is not a string is
** reported ("in 'FIELD': expected NOUN, found ...", FIELD NULL at the
** root) and skipped with its value. */
int tui_yaml_key(tui_yaml_loader *l, const char *field, const char *noun, char *key, size_t cap,
                 yaml_mark_t *km);

/* " (did you mean 'x'?)" for the nearest of the N NAMES to BAD (an edit
** distance under 3; else one BAD begins with, or that begins with BAD, in
** 3 or more letters), else "", into OUT. */
void tui_yaml_suggest(const char *bad, const char *const *names, size_t n, char *out, size_t cap);

/* Read a whole file of at most MAX bytes (malloc'ed, NUL terminated, owned
** by caller) or NULL with MSG set. */
char *tui_read_file(const char *path, size_t max, size_t *len, char *msg, size_t cap);

#endif
