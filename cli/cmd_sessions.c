/*
** cmd_sessions.c -- `rwkv-tui sessions ...`: list, show, export, import,
** fork, rename, remove and search the saved conversations (storage/store.h).
*/
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../storage/store.h"

/* Largest import file read (bytes): a 1000-turn export is a few MB. */
#define SESSIONS_IMPORT_MAX (1ull << 30)
/* Most search hits printed. */
#define SESSIONS_SEARCH_MAX 50

static void
usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " sessions [--db PATH] COMMAND\n\n"
            "Commands:\n"
            "  list                          saved sessions, most recent first\n"
            "  show ID                       the current branch of session ID, with turn ids\n"
            "  export ID [--format md|json] [--out FILE]\n"
            "                                Markdown of the current branch (default) or\n"
            "                                JSON of the whole tree (to stdout or FILE)\n"
            "  import FILE                   a JSON export, as a new session\n"
            "  fork ID TURN [--title T]      a new session with the turns up to TURN\n"
            "  rename ID TITLE               change a session's title\n"
            "  rm ID                         delete a session and its saved states\n"
            "  search TEXT                   full-text search over all messages: every word\n"
            "                                must appear, as a word or its start\n\n"
            "Options:\n"
            "  --db PATH   session database (default $XDG_DATA_HOME/rwkv-tui/rwkv-tui.db)\n");
}

static int
parse_id(const char *what, const char *s, int64_t *out)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v <= 0) {
        cli_errorf("sessions: '%s' is not a %s id (a positive number)", s, what);
        return -1;
    }
    *out = v;
    return 0;
}

static void
fmt_time(int64_t ms, char *buf, size_t cap)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;

    if (localtime_r(&t, &tm) == NULL || strftime(buf, cap, "%Y-%m-%d %H:%M", &tm) == 0)
        snprintf(buf, cap, "?");
}

/* First line of TEXT, at most MAX bytes (not cutting a UTF-8 sequence). */
static void
one_line(const char *text, char *buf, size_t max)
{
    size_t n = 0;

    while (text[n] && text[n] != '\n' && n + 1 < max)
        n++;
    while (n > 0 && n < strlen(text) && ((unsigned char)text[n] & 0xC0) == 0x80)
        n--;
    memcpy(buf, text, n);
    buf[n] = '\0';
}

static int
do_list(store *st)
{
    store_session *v;
    size_t n;
    rwkv_err err;

    if (store_session_list(st, &v, &n, &err) != RWKV_OK)
        return cli_fail(&err);
    if (n == 0)
        printf("no saved sessions in %s\n", store_path(st));
    else
        printf("%6s  %-16s  %6s  %s\n", "ID", "UPDATED", "TURNS", "TITLE");
    for (size_t i = 0; i < n; i++) {
        char when[32];
        fmt_time(v[i].updated_ms, when, sizeof when);
        printf("%6lld  %-16s  %6lld  %s\n", (long long)v[i].id, when, (long long)v[i].n_turns,
               v[i].title);
    }
    free(v);
    return 0;
}

static int
do_show(store *st, int64_t id)
{
    store_session ss;
    int64_t *path = NULL;
    size_t n = 0;
    uint64_t bytes = 0;
    int64_t nsnap = 0;
    char c[32], u[32];
    rwkv_err err;

    if (store_session_get(st, id, &ss, &err) != RWKV_OK ||
        store_snapshot_usage(st, id, &bytes, &nsnap, &err) != RWKV_OK ||
        (ss.head_turn > 0 && store_turn_path(st, ss.head_turn, &path, &n, &err) != RWKV_OK))
        return cli_fail(&err);
    fmt_time(ss.created_ms, c, sizeof c);
    fmt_time(ss.updated_ms, u, sizeof u);
    printf("session %lld: %s\n", (long long)ss.id, ss.title);
    printf("created %s, updated %s; %lld turns in the tree, %zu on this branch\n", c, u,
           (long long)ss.n_turns, n);
    if (ss.model_id > 0) {
        store_model m;
        if (store_model_get(st, ss.model_id, &m, &err) == RWKV_OK)
            printf("model %s (v%s, fingerprint %016llx)\n", m.path, m.version,
                   (unsigned long long)m.fingerprint);
    }
    if (ss.strategy[0])
        printf("strategy %s\n", ss.strategy);
    printf("saved states: %lld (%.1f MB)\n\n", (long long)nsnap, (double)bytes / 1e6);
    for (size_t i = 0; i < n; i++) {
        store_turn t;
        if (store_turn_get(st, path[i], &t, &err) != RWKV_OK) {
            free(path);
            return cli_fail(&err);
        }
        printf("#%lld %s%s%s", (long long)t.id, store_role_name(t.role),
               t.has_snapshot ? " [state]" : "", t.interrupted ? " [interrupted]" : "");
        if (t.n_children > 1)
            printf(" [%d branches]", t.n_children);
        printf(":\n%s\n\n", t.text);
        store_turn_fini(&t);
    }
    free(path);
    return 0;
}

static int
write_all(const char *path, const char *buf, size_t len)
{
    FILE *f = path ? fopen(path, "wb") : stdout;

    if (f == NULL) {
        cli_errorf("%s: cannot write: %s", path, strerror(errno));
        return 1;
    }
    if (fwrite(buf, 1, len, f) != len || (path ? fclose(f) : fflush(f)) != 0) {
        cli_errorf("%s: write failed: %s", path ? path : "stdout", strerror(errno));
        if (path)
            fclose(f);
        return 1;
    }
    return 0;
}

static int
do_export(store *st, int64_t id, const char *format, const char *out)
{
    enum store_format fmt;
    char *buf;
    size_t len;
    rwkv_err err;
    int rc;

    if (format == NULL || strcmp(format, "md") == 0 || strcmp(format, "markdown") == 0)
        fmt = STORE_FMT_MD;
    else if (strcmp(format, "json") == 0)
        fmt = STORE_FMT_JSON;
    else {
        cli_errorf("sessions export: --format '%s' is not md or json", format);
        return 2;
    }
    if (store_export(st, id, fmt, &buf, &len, &err) != RWKV_OK)
        return cli_fail(&err);
    rc = write_all(out, buf, len);
    free(buf);
    return rc;
}

static int
do_import(store *st, const char *file)
{
    FILE *f = fopen(file, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0, r;
    int64_t id;
    rwkv_err err;

    if (f == NULL) {
        cli_errorf("%s: cannot read: %s", file, strerror(errno));
        return 1;
    }
    do {
        if (len + 65536 > cap) {
            char *t;
            if (cap > SESSIONS_IMPORT_MAX) {
                cli_errorf("%s: larger than %llu bytes, not a session export", file,
                           (unsigned long long)SESSIONS_IMPORT_MAX);
                free(buf);
                fclose(f);
                return 1;
            }
            cap = cap ? cap * 2 : 1 << 20;
            if ((t = realloc(buf, cap)) == NULL) {
                cli_errorf("%s: out of memory", file);
                free(buf);
                fclose(f);
                return 1;
            }
            buf = t;
        }
        r = fread(buf + len, 1, cap - len, f);
        len += r;
    } while (r > 0);
    if (ferror(f)) {
        cli_errorf("%s: read error: %s", file, strerror(errno));
        free(buf);
        fclose(f);
        return 1;
    }
    fclose(f);
    if (store_import(st, buf ? buf : "", len, file, &id, &err) != RWKV_OK) {
        free(buf);
        return cli_fail(&err);
    }
    free(buf);
    printf("imported %s as session %lld\n", file, (long long)id);
    return 0;
}

static int
do_search(store *st, const char *text)
{
    store_hit *h;
    size_t n;
    rwkv_err err;

    if (store_search(st, text, SESSIONS_SEARCH_MAX, &h, &n, &err) != RWKV_OK)
        return cli_fail(&err);
    if (n == 0)
        printf("no matches for '%s'\n", text);
    for (size_t i = 0; i < n; i++) {
        char line[300];
        one_line(h[i].snippet, line, sizeof line);
        printf("session %lld turn %lld (%s) %s: %s\n", (long long)h[i].session_id,
               (long long)h[i].turn_id, store_role_name(h[i].role), h[i].title, line);
    }
    free(h);
    return 0;
}

int
cmd_sessions(int argc, char **argv)
{
    const char *db = NULL, *format = NULL, *out = NULL, *title = NULL;
    const char *pos[4];
    int npos = 0, rc, opts_done = 0;
    store *st;
    rwkv_err err;
    int64_t id = 0, turn = 0;

    for (int i = 1; i < argc;) {
        int r;
        if (!opts_done && strcmp(argv[i], "--") == 0) {
            opts_done = 1;
            i++;
            continue;
        }
        if (opts_done)
            goto positional;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if ((r = cli_take(argc, argv, &i, "db", &db)) != 0 ||
            (r = cli_take(argc, argv, &i, "format", &format)) != 0 ||
            (r = cli_take(argc, argv, &i, "out", &out)) != 0 ||
            (r = cli_take(argc, argv, &i, "title", &title)) != 0) {
            if (r < 0)
                return 2;
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1] == '-') {
            cli_errorf("sessions: unknown option '%s' (see '" PROG " sessions --help')", argv[i]);
            return 2;
        }
    positional:
        if (npos == 4) {
            cli_errorf("sessions: too many arguments ('%s')", argv[i]);
            return 2;
        }
        pos[npos++] = argv[i++];
    }
    if (npos == 0) {
        cli_errorf("sessions: which command? (list, show, export, import, fork, rename, rm, search)");
        return 2;
    }
    static const struct {
        const char *name;
        int         nargs;   /* positional arguments after the command */
        const char *args;
    } cmds[] = {
        { "list", 0, "" }, { "show", 1, " ID" }, { "export", 1, " ID" }, { "import", 1, " FILE" },
        { "fork", 2, " ID TURN" }, { "rename", 2, " ID TITLE" }, { "rm", 1, " ID" },
        { "search", 1, " TEXT" },
    };
    size_t k;
    for (k = 0; k < sizeof cmds / sizeof cmds[0]; k++)
        if (strcmp(pos[0], cmds[k].name) == 0)
            break;
    if (k == sizeof cmds / sizeof cmds[0]) {
        cli_errorf("sessions: unknown command '%s' (see '" PROG " sessions --help')", pos[0]);
        return 2;
    }
    if (npos - 1 != cmds[k].nargs) {
        cli_errorf("sessions %s: usage: " PROG " sessions %s%s", cmds[k].name, cmds[k].name,
                   cmds[k].args);
        return 2;
    }
    if ((strcmp(pos[0], "show") == 0 || strcmp(pos[0], "export") == 0 || strcmp(pos[0], "fork") == 0 ||
         strcmp(pos[0], "rename") == 0 || strcmp(pos[0], "rm") == 0) &&
        parse_id("session", pos[1], &id) < 0)
        return 2;
    if (strcmp(pos[0], "fork") == 0 && parse_id("turn", pos[2], &turn) < 0)
        return 2;

    if (store_open(db, &st, &err) != RWKV_OK)
        return cli_fail(&err);
    if (strcmp(pos[0], "list") == 0) {
        rc = do_list(st);
    } else if (strcmp(pos[0], "show") == 0) {
        rc = do_show(st, id);
    } else if (strcmp(pos[0], "export") == 0) {
        rc = do_export(st, id, format, out);
    } else if (strcmp(pos[0], "import") == 0) {
        rc = do_import(st, pos[1]);
    } else if (strcmp(pos[0], "fork") == 0) {
        int64_t nid;
        rc = store_session_fork(st, id, turn, title, &nid, &err) != RWKV_OK ? cli_fail(&err) : 0;
        if (rc == 0)
            printf("forked session %lld at turn %lld as session %lld\n", (long long)id, (long long)turn,
                   (long long)nid);
    } else if (strcmp(pos[0], "rename") == 0) {
        rc = store_session_rename(st, id, pos[2], &err) != RWKV_OK ? cli_fail(&err) : 0;
    } else if (strcmp(pos[0], "rm") == 0) {
        rc = store_session_delete(st, id, &err) != RWKV_OK ? cli_fail(&err) : 0;
        if (rc == 0)
            printf("deleted session %lld\n", (long long)id);
    } else {
        rc = do_search(st, pos[1]);
    }
    store_close(st);
    return rc;
}
