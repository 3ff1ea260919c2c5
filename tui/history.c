/*
** history.c -- the input history kept across runs.  See history.h.
*/
#include "history.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "../core/io/fileio.h"
#include "app.h"
#include "state_save.h"
#include "text.h"

#define HIST_MAGIC "rwkv-tui history 1"
/* the largest file read: every entry at its cap, every byte escaped, and
** the draft the whole box */
#define HIST_FILE_MAX                                                              \
    ((size_t)TUI_INPUT_HISTORY * (2 * TUI_HISTORY_ENTRY_MAX + 3) + 2 * TUI_INPUT_MAX + 64)

int
tui_history_path(char *buf, size_t cap)
{
    return tui_xdg_path(buf, cap, "XDG_STATE_HOME", ".local/state", "history");
}

int
tui_history_prompt_path(int which, char *buf, size_t cap)
{
    static const char *const leaf[TUI_PHIST_N] = {
        NULL, "history-generate", "history-files", "history-strategy", "history-search"
    };

    if (which <= TUI_PHIST_NONE || which >= TUI_PHIST_N)
        return -1;
    return tui_xdg_path(buf, cap, "XDG_STATE_HOME", ".local/state", leaf[which]);
}

/* Decode the escaped TEXT (N bytes) in place; its new length, or -1 for an
** unknown escape. */
static long
unescape(char *text, size_t n)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        char c = text[i];
        if (c == '\\') {
            c = ++i < n ? text[i] : '\0';
            if (c == 'n')
                c = '\n';
            else if (c == 'r')
                c = '\r';
            else if (c != '\\')
                return -1;
        }
        text[k++] = c;
    }
    text[k] = '\0';
    return (long)k;
}

/* Parse the file's DATA (LEN bytes, changed) into IN.  0, 1 (a draft), or
** -1 with ERR naming PATH and the line. */
static int
parse(tui_input *in, char *data, size_t len, const char *path, rwkv_err *err)
{
    size_t ml = strlen(HIST_MAGIC), line = 1;
    char *p = data, *end = data + len;
    int draft = 0;

    if (len < ml + 1 || memcmp(data, HIST_MAGIC, ml) != 0 || data[ml] != '\n')
        return rwkv_errf(err, RWKV_EFORMAT, "%s: not an rwkv-tui history file", path), -1;
    for (p += ml + 1; p < end; line++) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

        if (n < 2 || !strchr("sdc", p[0]) || p[0] == '\0' || p[1] != ' ' || draft ||
            memchr(p, '\0', n) != NULL || unescape(p + 2, n - 2) < 0)
            return rwkv_errf(err, RWKV_EFORMAT, "%s:%zu: damaged line", path, line + 1), -1;
        draft = p[0] == 'd';
        tui_input_remember_cut(in, p + 2, p[0] == 'c');
        p += n + 1;
    }
    return draft;
}

/* IN's history emptied. */
static void
forget(tui_input *in)
{
    for (size_t i = 0; i < in->nhist; i++)
        free(in->hist[i]);
    in->nhist = in->hpos = in->nnew = 0;
}

int
tui_history_load(tui_input *in, const char *path, rwkv_err *err)
{
    struct stat sb;
    char *data;
    size_t len;
    int rc;

    forget(in);
    if (stat(path, &sb) != 0 && errno == ENOENT)
        return 0;
    if (tui_session_read_file(path, HIST_FILE_MAX, &data, &len, err) != 0)
        return -1;
    rc = parse(in, data, len, path, err);
    free(data);
    if (rc < 0)
        forget(in);
    in->hpos = in->nhist;
    return rc;
}

/* S escaped (history.h) as one line of F after KIND, cut on a code point
** to TUI_HISTORY_ENTRY_MAX bytes when sent (the session keeps the whole
** message; kind 'c' says it was cut, now or before), to the box's
** TUI_INPUT_MAX when the draft (kept nowhere else: a 100 kB paste left
** unsent came back cut to 16 KiB). */
static void
put_entry(FILE *f, char kind, const char *s)
{
    size_t n = strlen(s), cap = kind == 'd' ? TUI_INPUT_MAX : TUI_HISTORY_ENTRY_MAX;

    if (n > cap) {
        n = cap;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
            n--;
        if (kind == 's')
            kind = 'c';
    }
    fputc(kind, f);
    fputc(' ', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\')
            fputs("\\\\", f);
        else if (s[i] == '\n')
            fputs("\\n", f);
        else if (s[i] == '\r')
            fputs("\\r", f);
        else
            fputc(s[i], f);
    }
    fputc('\n', f);
}

/* The folder above PATH, created when missing.  0 or -1 with ERR. */
static int
make_folder(const char *path, rwkv_err *err)
{
    char dir[1024];
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;

    if (n == 0 || n >= sizeof dir)
        return 0;
    memcpy(dir, path, n);
    dir[n] = '\0';
    if (tui_make_dirs(dir) != 0)
        return rwkv_errf(err, RWKV_EIO, "%s: cannot create the folder: %s", dir, strerror(errno)), -1;
    return 0;
}

int
tui_history_save(const tui_input *in, const char *draft, const char *path, rwkv_err *err)
{
    tui_input all;
    rwkv_err ignored;
    rwkv_atomic *at = NULL;
    FILE *f;
    int has_draft = 0, rc = -1;

    tui_input_init(&all);
    if (tui_history_load(&all, path, &ignored) < 0)       /* damaged: ours instead */
        for (size_t i = 0; i + in->nnew < in->nhist; i++)
            tui_input_remember_cut(&all, in->hist[i], tui_input_hist_cut(in, i));
    for (size_t i = in->nhist - in->nnew; i < in->nhist; i++)
        tui_input_remember(&all, in->hist[i]);
    if (draft != NULL) {          /* marked only when added: a repeat needs no mark */
        const char *last = all.nhist ? all.hist[all.nhist - 1] : NULL;
        tui_input_remember(&all, draft);
        has_draft = all.nhist > 0 && all.hist[all.nhist - 1] != last;
    }
    if (make_folder(path, err) != 0 ||
        rwkv_atomic_create(path, 0600, RWKV_ATOMIC_SYNC, &at, err) != RWKV_OK ||
        (f = rwkv_atomic_stream(at, err)) == NULL)
        goto out;
    fputs(HIST_MAGIC "\n", f);
    for (size_t i = 0; i < all.nhist; i++)
        put_entry(f, has_draft && i + 1 == all.nhist ? 'd' : tui_input_hist_cut(&all, i) ? 'c' : 's',
                  all.hist[i]);
    rc = rwkv_atomic_commit(at, err) == RWKV_OK ? 0 : -1;
    at = NULL;
out:
    rwkv_atomic_abort(at);
    tui_input_fini(&all);
    return rc;
}

/* The length of the escape sequence at RAW (N bytes, RAW[0] ESC): a CSI
** up to its final byte, SS3 and its key, or ESC and one character. */
static size_t
escape_len(const char *raw, size_t n)
{
    size_t i = 2;

    if (n < 2)
        return n;
    if (raw[1] == '[') {
        while (i < n && !((unsigned char)raw[i] >= 0x40 && (unsigned char)raw[i] <= 0x7e))
            i++;
        return i < n ? i + 1 : n;
    }
    if (raw[1] == 'O')
        return n < 3 ? n : 3;
    return 2;
}

char *
tui_typeahead_text(const char *raw, size_t n)
{
    tui_buf keys, out;
    size_t i = 0, a = 0, b;
    char *text = NULL;

    tui_buf_init(&keys);
    tui_buf_init(&out);
    while (i < n) {
        unsigned char c = (unsigned char)raw[i];
        if (c == 0x1b) {
            i += escape_len(raw + i, n - i);
            continue;
        }
        if (c == 0x7f || c == 0x08) {             /* Backspace: the character before */
            if (keys.len > 0)
                keys.len = tui_char_prev(keys.p, keys.len);
        } else if (c == '\r' || c == '\n') {
            tui_buf_add(&keys, "\n", 1);
        } else if (c >= 0x20 || c == '\t') {
            tui_buf_add(&keys, raw + i, 1);
        }
        i++;
    }
    tui_sanitize(keys.p ? keys.p : "", keys.len, &out);
    b = out.len;
    while (a < b && (out.p[a] == '\n' || out.p[a] == ' '))
        a++;
    while (b > a && (out.p[b - 1] == '\n' || out.p[b - 1] == ' '))
        b--;
    if (b > a)
        text = tui_xstrndup(out.p + a, b - a);
    tui_buf_fini(&keys);
    tui_buf_fini(&out);
    return text;
}
