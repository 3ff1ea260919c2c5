/*
** yamlerr.c -- libcyaml log capture and one-line error messages.
**
** libcyaml reports an error as a message line followed by a backtrace,
** innermost first:
**     Load: Invalid INT value: 'purple'
**     Load: Backtrace:
**       in mapping field 'fg' (line: 3, column: 7)
**       in mapping field 'user' (line: 3, column: 3)
** We keep the message, the innermost line number and the two innermost
** field names.
*/
#include "yamlerr.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/io/fileio.h"
#include "text.h"

static void
log_fn(cyaml_log_t level, void *ctx, const char *fmt, va_list args)
{
    tui_yaml_log *log = ctx;
    int n;

    if (level < CYAML_LOG_ERROR || log->len + 1 >= sizeof log->text)
        return;
    n = vsnprintf(log->text + log->len, sizeof log->text - log->len, fmt, args);
    if (n > 0)
        log->len += (size_t)n < sizeof log->text - log->len ? (size_t)n
                                                            : sizeof log->text - log->len - 1;
}

void
tui_yaml_config(cyaml_config_t *cfg, tui_yaml_log *log)
{
    memset(cfg, 0, sizeof *cfg);
    log->len = 0;
    log->text[0] = '\0';
    cfg->log_fn = log_fn;
    cfg->log_ctx = log;
    cfg->mem_fn = cyaml_mem;
    cfg->log_level = CYAML_LOG_ERROR;
    cfg->flags = CYAML_CFG_DEFAULT;
}

/* Copy the line at P (up to '\n') into OUT. */
static void
copy_line(const char *p, char *out, size_t cap)
{
    size_t n = strcspn(p, "\n");
    if (n >= cap)
        n = cap - 1;
    memcpy(out, p, n);
    out[n] = '\0';
}

/* Line (1-based) of the first line at or after FROM whose first word is
** "KEY:" (also inside a flow mapping "{ KEY: ..."); 0 if none. */
static long
key_line(const char *text, const char *key, long from)
{
    size_t kl = strlen(key);
    long line = 1;

    for (const char *p = text; *p; line++) {
        const char *eol = p + strcspn(p, "\n");
        if (line >= from) {
            for (const char *k = p; k + kl < eol; k++) {
                if (strncmp(k, key, kl) == 0 && k[kl] == ':' &&
                    (k == p || k[-1] == ' ' || k[-1] == '{' || k[-1] == ',' || k[-1] == '\t'))
                    return line;
            }
        }
        p = *eol ? eol + 1 : eol;
    }
    return 0;
}

void
tui_yaml_message(const tui_yaml_log *log, const char *path, const char *text,
                 cyaml_err_t err, char *msg, size_t cap)
{
    char what[256] = "", field[64] = "", parent[64] = "";
    long line = 0;
    const char *p = log->text;

    while (*p) {
        const char *l = p;
        const char *q;
        p += strcspn(p, "\n");
        if (*p)
            p++;
        while (*l == ' ')
            l++;
        if (strncmp(l, "Load: ", 6) == 0) {
            l += 6;
            if (strncmp(l, "Backtrace:", 10) != 0 && what[0] == '\0')
                copy_line(l, what, sizeof what);
        } else if (strncmp(l, "in ", 3) == 0) {
            q = strstr(l, "field '");
            if (q != NULL && q < p) {
                char name[64];
                copy_line(q + 7, name, sizeof name);
                name[strcspn(name, "'")] = '\0';
                if (field[0] == '\0')
                    snprintf(field, sizeof field, "%s", name);
                else if (parent[0] == '\0')
                    snprintf(parent, sizeof parent, "%s", name);
            }
            q = strstr(l, "(line: ");
            if (q != NULL && q < p && line == 0)
                line = strtol(q + 7, NULL, 10);
        }
    }
    if (what[0] == '\0')
        snprintf(what, sizeof what, "%s", cyaml_strerror(err));
    if (strncmp(what, "Unexpected key: ", 16) == 0 && text != NULL) {
        /* the key's own line: first "KEY:" at or after the mapping's line */
        char key[64];
        long l = key_line(text, what + 16, line);
        tui_cut(key, sizeof key, what + 16, 60);
        if (l > 0)
            line = l;
        if (field[0])
            snprintf(what, sizeof what, "unknown field '%s' in '%s'", key, field);
        else
            snprintf(what, sizeof what, "unknown field '%s'", key);
        field[0] = parent[0] = '\0';
    }
    if (strncmp(what, "libyaml: ", 9) == 0)
        memmove(what, what + 9, strlen(what + 9) + 1);
    if (what[0])
        what[0] = (char)tolower((unsigned char)what[0]);
    {
        char where[32] = "";
        char fld[160] = "";
        if (line > 0)
            snprintf(where, sizeof where, ":%ld", line);
        if (field[0] && parent[0])
            snprintf(fld, sizeof fld, " field '%s' in '%s':", field, parent);
        else if (field[0])
            snprintf(fld, sizeof fld, " field '%s':", field);
        snprintf(msg, cap, "%s%s:%s %s", path, where, fld, what);
    }
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
