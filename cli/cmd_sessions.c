/*
** cmd_sessions.c -- `rwkv-tui sessions ...`: list, show, export, import,
** fork, rename, remove, search and vacuum the saved conversations
** (storage/store.h).
*/
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../core/io/fileio.h"
#include "../storage/framing.h"
#include "../storage/session.h"
#include "../storage/store.h"

/* Largest import file read (bytes): a 1000-turn export is a few MB; an
** export with states is kept under it (store_export_states_cap). */
#define SESSIONS_IMPORT_MAX ((size_t)STORE_IMPORT_MAX_BYTES)
/* Most search hits printed. */
#define SESSIONS_SEARCH_MAX 50
/* Width the list of matching sessions is wrapped at. */
#define SESSIONS_SEARCH_COLS 80

/* One `sessions` command line, parsed (the strings are borrowed from argv). */
struct sessions_args {
    const char **pos;     /* the command, then its positional arguments (owned array) */
    int         npos;
    int         help;     /* --help / -h, said once the line is checked */
    char       *words;    /* search: its words joined (owned), pos[1] then */
    const char *db, *format, *out, *title;   /* --db, --format, --out, --title */
    const char *vs;                          /* --vs */
    int         json;                        /* --json */
    int         states;                      /* --states (export, import) */
    int64_t     id, turn;   /* session ID and TURN, for the commands that take them */
    int64_t     vs_turn;    /* --vs, parsed */
    /* import: the file, read and checked before the database is opened
    ** (import_read), owned; in_what names it ("stdin" for "-") */
    char       *in_buf;
    size_t      in_len;
    const char *in_what;
    /* import: --vocab, and the World vocabulary its turns are checked with
    ** (import_world: opened once, for the check and the import; owned) */
    const char *vocab;
    tok        *world;
};

static void
usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " sessions [--db PATH] COMMAND\n\n"
            "Commands:\n"
            "  list [--json]                 saved sessions, the last chatted in first\n"
            "                                (a rename does not move one; --json: an\n"
            "                                array of id, title, model, state_file,\n"
            "                                strategy, framing, turns, head_turn,\n"
            "                                created, updated, created_ms, updated_ms);\n"
            "                                turns: the messages (user and assistant turns),\n"
            "                                the greeting not counted\n"
            "  show ID                       the current branch of session ID, with turn ids\n"
            "                                ([being written]: a reply another window is\n"
            "                                still writing; [interrupted]: one cut)\n"
            "  export ID [--format md|json] [--out FILE] [--states]\n"
            "                                Markdown of the current branch (default) or\n"
            "                                JSON of the whole tree (to stdout or FILE,\n"
            "                                '-' = stdout; never over the database, another\n"
            "                                SQLite file, or the session's model,\n"
            "                                vocabulary or state file; JSON for a FILE\n"
            "                                named *.json, unless --format); --states:\n"
            "                                JSON with the saved states (base64, a few MB\n"
            "                                each), so an import --states opens at once\n"
            "  import FILE [--vocab PATH] [--states]\n"
            "                                a JSON export, as a new session ('-' = stdin);\n"
            "                                a file refused creates no database; every\n"
            "                                turn's tokens must be its text, checked with\n"
            "                                the model's vocabulary (World: --vocab PATH,\n"
            "                                else the session's own, $RWKV_VOCAB, next to\n"
            "                                the model, the data folder); --states: take\n"
            "                                the saved states it carries, each checked\n"
            "                                (checksum, length, model; one that is not\n"
            "                                right is named and left out) -- only from a\n"
            "                                file you trust: a state is not checked\n"
            "                                against the text\n"
            "  fork ID TURN [--title T]      a new session with the turns up to TURN; at a\n"
            "                                user turn, up to before that message (as\n"
            "                                /fork); at a reply still being written, before\n"
            "                                its message\n"
            "  rename ID TITLE               change a session's title (not empty; one\n"
            "                                line: line breaks and tabs become spaces)\n"
            "  rm ID                         delete a session and its saved states\n"
            "  search TEXT...                the titles, and the messages (yours and the\n"
            "                                replies, on every branch; not the greeting),\n"
            "                                that hold every word of TEXT, all in the one\n"
            "                                title or the one message: anywhere, inside a\n"
            "                                word too (\"pyth\" finds \"Python\"), case ignored\n"
            "                                in every script, accents not (e does not find\n"
            "                                an accented e); \"a phrase\" in quotes is one\n"
            "                                word; words not quoted for the shell are one\n"
            "                                TEXT (search a b is search 'a b', both words).\n"
            "                                A line each: titles first (the session last\n"
            "                                updated first), then messages, newest first,\n"
            "                                as \"session ID (title): SNIPPET\" or \"session\n"
            "                                ID turn TURN (user|assistant) TITLE: SNIPPET\",\n"
            "                                the snippet the line of the match, the words\n"
            "                                in [ ]; at most 50, then, when more match, the\n"
            "                                id of every session with a match\n"
            "  vacuum                        give the space of deleted rows back to the\n"
            "                                file system (rm and deleting a branch do it\n"
            "                                themselves); prints the size before and after;\n"
            "                                stores a state an older version saved once\n"
            "                                when it has a twin (an old greeting's state)\n"
            "  state ID TURN [--vs TURN2] [--json]\n"
            "                                the saved state after TURN, per layer: L2 norms\n"
            "                                of the token shifts and the WKV state; --vs:\n"
            "                                how far it moved from TURN2's (|a-b|/|b|, and\n"
            "                                the cosine); no model needed\n"
            "  budget [SIZE|off]             a disk budget for the saved states of every\n"
            "                                session (500MB, 2GB, 1.5GiB): over it, other\n"
            "                                sessions' states go first, oldest first (their\n"
            "                                tokens rebuild them); no SIZE: the budget and\n"
            "                                the states' size; a bare number is bytes,\n"
            "                                refused under the smallest state (500B: bytes)\n\n"
            "Options:\n"
            "  --db PATH   session database (default $XDG_DATA_HOME/rwkv-tui/rwkv-tui.db);\n"
            "              only import creates it where no file is\n");
}

static int
parse_id(const char *what, const char *s, int64_t *out)
{
    long long v;

    if (cli_parse_ll(s, 1, INT64_MAX, &v) != 0) {
        cli_errorf("sessions: '%s' is not a %s id (a positive number)", s, what);
        return -1;
    }
    *out = v;
    return 0;
}

/* Unix milliseconds MS as local time "2024-05-01 12:30" (ISO: UTC ISO 8601,
** "2024-05-01T12:30:00Z"); "?" when it cannot be shown. */
static void
fmt_ms(int64_t ms, int iso, char *buf, size_t cap)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;

    if ((iso ? gmtime_r(&t, &tm) : localtime_r(&t, &tm)) == NULL ||
        strftime(buf, cap, iso ? "%Y-%m-%dT%H:%M:%SZ" : "%Y-%m-%d %H:%M", &tm) == 0)
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

/*
** Every text of a session that `list`, `show`, `search` and `vacuum` print
** (titles, turns, names, paths, snippets, the words searched for) goes out
** here: on a terminal by the display rule the client's transcript and F6
** use (cli_write_text: utf8_sanitize_for_terminal), so a title or a message
** reads the same in both; to a pipe or a file as saved (as git log and
** sqlite3 print text), so `show 3 > f` holds the conversation itself.
*/
static void
put_text(const char *text)
{
    cli_write_text(stdout, text, strlen(text));
}

/* TEXT as a JSON string holding its real content (cli_json_text: controls
** escaped, never raw). */
static void
put_json_str(const char *text)
{
    cli_json_text(stdout, text, strlen(text));
}

/* The framing of session ID into *F (initialised); 1 when it is not the
** default one (a damaged framing column reads as the default). */
static int
session_framing(store *st, int64_t id, framing *f)
{
    framing def;
    rwkv_err err;
    int other;

    framing_init(&def);
    if (store_session_framing(st, id, f, &err) != RWKV_OK)
        framing_fini(f);
    other = !framing_equal(f, &def);
    framing_fini(&def);
    return other;
}

/* `sessions list --json`: an array of objects, most recent first:
** id, title, model (path or null), state_file (path, library name or null),
** strategy, framing (null = the default one, else the object of
** storage/framing.h), turns, head_turn, created, updated (UTC ISO 8601) and
** created_ms, updated_ms (unix milliseconds). */
static int
do_list_json(store *st)
{
    store_session *v;
    size_t n;
    rwkv_err err;

    if (store_session_list(st, &v, &n, &err) != RWKV_OK)
        return cli_fail(&err);
    /* a damaged models or state-files table fails before any output, so
    ** what a script reads on exit 0 is a whole array */
    for (size_t i = 0; i < n; i++) {
        store_model mo;
        store_statefile sf;

        if (store_model_ref(st, v[i].model_id, &mo, &err) != RWKV_OK ||
            store_statefile_ref(st, v[i].state_file_id, &sf, &err) != RWKV_OK) {
            free(v);
            return cli_fail(&err);
        }
    }
    fputs(n ? "[\n" : "[]\n", stdout);
    for (size_t i = 0; i < n; i++) {
        store_model mo;
        store_statefile sf;
        char c[32], u[32];

        fmt_ms(v[i].created_ms, 1, c, sizeof c);
        fmt_ms(v[i].updated_ms, 1, u, sizeof u);
        printf("  {\"id\": %lld, \"title\": ", (long long)v[i].id);
        put_json_str(v[i].title);
        fputs(", \"model\": ", stdout);
        if (store_model_ref(st, v[i].model_id, &mo, &err) == RWKV_OK && mo.id != 0)
            put_json_str(mo.path);
        else
            fputs("null", stdout);
        fputs(", \"state_file\": ", stdout);
        if (store_statefile_ref(st, v[i].state_file_id, &sf, &err) == RWKV_OK && sf.id != 0)
            put_json_str(sf.path[0] ? sf.path : sf.name);
        else
            fputs("null", stdout);
        fputs(", \"strategy\": ", stdout);
        put_json_str(v[i].strategy);
        fputs(", \"framing\": ", stdout);
        {
            framing f;
            char *js = NULL;
            framing_init(&f);
            if (session_framing(st, v[i].id, &f) && (js = framing_encode(&f)) != NULL)
                fputs(js, stdout);
            else
                fputs("null", stdout);
            free(js);
            framing_fini(&f);
        }
        printf(", \"turns\": %lld, \"head_turn\": %lld, \"created\": \"%s\", "
               "\"updated\": \"%s\", \"created_ms\": %lld, \"updated_ms\": %lld}%s\n",
               (long long)v[i].n_turns, (long long)v[i].head_turn, c, u,
               (long long)v[i].created_ms, (long long)v[i].updated_ms, i + 1 < n ? "," : "");
    }
    if (n)
        fputs("]\n", stdout);
    free(v);
    return 0;
}

static int
do_list(store *st, const struct sessions_args *a)
{
    store_session *v;
    size_t n;
    rwkv_err err;

    if (a->json)
        return do_list_json(st);
    if (store_session_list(st, &v, &n, &err) != RWKV_OK)
        return cli_fail(&err);
    if (n == 0)
        printf("no saved sessions in %s\n", store_path(st));
    else
        printf("%6s  %-16s  %6s  %s\n", "ID", "UPDATED", "TURNS", "TITLE");
    for (size_t i = 0; i < n; i++) {
        char when[32];
        fmt_ms(v[i].updated_ms, 0, when, sizeof when);
        printf("%6lld  %-16s  %6lld  ", (long long)v[i].id, when, (long long)v[i].n_turns);
        put_text(v[i].title);
        putchar('\n');
    }
    free(v);
    return 0;
}

/* The framing lines of `sessions show`, when the session's is not the
** default one: greeting, names, stop strings, bans. */
static void
show_framing(store *st, int64_t id)
{
    framing f;
    char buf[CHAT_MAX_STOP * (2 * CHAT_MAX_STOP_LEN + 2) + 16];

    framing_init(&f);
    if (!session_framing(st, id, &f)) {
        framing_fini(&f);
        return;
    }
    fputs("framing: greeting ", stdout);
    if (f.greeting == NULL) {
        fputs("the default", stdout);
    } else if (f.greeting[0] == '\0') {
        fputs("none", stdout);
    } else {
        one_line(f.greeting, buf, 60);
        putchar('"');
        put_text(buf);
        printf("\" (%zu bytes)", strlen(f.greeting));
    }
    fputs("; user ", stdout);
    put_text(framing_user(&f));
    fputs(", bot ", stdout);
    put_text(framing_bot(&f));
    if (framing_think(&f) != CHAT_THINK_OFF)
        printf("; think %s", chat_think_name(framing_think(&f)));
    framing_stops_text(&f, buf, sizeof buf);
    fputs("; stop ", stdout);
    if (buf[0])
        put_text(buf);
    else
        fputs("the default (\\n\\n)", stdout);
    framing_ban_text(&f, buf, sizeof buf);
    if (buf[0]) {
        fputs("; ban ", stdout);
        fputs(buf, stdout);
    }
    putchar('\n');
    framing_fini(&f);
}

/* The mark of a reply not ended as it should: " [being written]" while
** another process writes it now (store_turn_writing: its writer alive; its
** row holds the text so far), " [interrupted]" when cut (a cancel, or its
** writer gone), "" otherwise.  A failed read of the writer is taken as cut,
** as a resume takes it. */
static const char *
interrupted_label(store *st, const store_turn *t)
{
    rwkv_err err;
    int writing = 0;

    if (!t->interrupted)
        return "";
    if (store_turn_writing(st, t->id, &writing, &err) == RWKV_OK && writing)
        return " [being written]";
    return " [interrupted]";
}

/* Damaged turns `sessions show` names on stderr; the others are counted. */
#define SHOW_DAMAGED_LINES 10

static int
do_show(store *st, const struct sessions_args *a)
{
    store_session ss;
    int64_t *path = NULL;
    size_t n = 0;
    store_usage use;
    int64_t on_branch = 0;
    char c[32], u[32], b1[32], b2[32];
    store_model m;
    store_statefile sf;
    rwkv_err err;
    int bad = 0, damaged = 0;

    if (store_session_get(st, a->id, &ss, &err) != RWKV_OK ||
        store_model_ref(st, ss.model_id, &m, &err) != RWKV_OK ||
        store_statefile_ref(st, ss.state_file_id, &sf, &err) != RWKV_OK ||
        store_session_usage(st, a->id, &use, &err) != RWKV_OK ||
        (ss.head_turn > 0 && store_turn_path(st, ss.head_turn, &path, &n, &err) != RWKV_OK) ||
        store_branch_messages(st, ss.head_turn, &on_branch, &err) != RWKV_OK) {
        free(path);
        return cli_fail(&err);
    }
    fmt_ms(ss.created_ms, 0, c, sizeof c);
    fmt_ms(ss.updated_ms, 0, u, sizeof u);
    printf("session %lld: ", (long long)ss.id);
    put_text(ss.title);
    putchar('\n');
    /* a fork is dated just below its source (listed under it, --resume
    ** opens the source): until chatted in, "updated" would come before
    ** "created" -- said only when later */
    printf("created %s%s%s; %lld turns in the tree, %lld on this branch%s\n", c,
           ss.updated_ms > ss.created_ms ? ", updated " : "",
           ss.updated_ms > ss.created_ms ? u : "", (long long)ss.n_turns, (long long)on_branch,
           (int64_t)n > on_branch ? " (and the greeting)" : "");
    if (m.id != 0) {
        fputs("model ", stdout);
        put_text(m.path);
        printf(" (v%s, fingerprint %016llx)\n", m.version, (unsigned long long)m.fingerprint);
        if (m.vocab[0]) {
            fputs("vocabulary ", stdout);
            put_text(m.vocab);
            putchar('\n');
        }
    }
    if (sf.id != 0) {
        fputs("state file ", stdout);
        put_text(sf.path[0] ? sf.path : sf.name);
        putchar('\n');
    }
    if (ss.strategy[0]) {
        fputs("strategy ", stdout);
        put_text(ss.strategy);
        putchar('\n');
    }
    show_framing(st, a->id);
    /* a state other sessions use too is not this one's alone: its own
    ** bytes (what an rm frees) and the shared ones, said apart, so the
    ** sessions' figures add up to the total (`sessions budget`) */
    store_size_str(use.own, b1, sizeof b1);
    if (use.sharing == 0)
        printf("saved states: %lld (%s)\n\n", (long long)use.states, b1);
    else
        printf("saved states: %lld (%s its own, %s shared with %lld other session%s)\n\n",
               (long long)use.states, b1, store_size_str(use.shared, b2, sizeof b2),
               (long long)use.sharing, use.sharing == 1 ? "" : "s");
    /* A damaged row is shown as far as it can be read and named on stderr;
    ** the rest of the branch is still printed (exit 1 at the end). */
    for (size_t i = 0; i < n; i++) {
        store_turn t;
        char why[200];
        if (store_turn_read(st, path[i], &t, why, sizeof why, &err) != RWKV_OK) {
            printf("#%lld [unreadable]\n\n", (long long)path[i]);
            cli_errorf("sessions show: turn %lld: %s", (long long)path[i], err.msg);
            bad++;
            continue;
        }
        printf("#%lld %s%s%s", (long long)t.id, store_role_name(t.role),
               t.has_snapshot ? " [state]" : "", interrupted_label(st, &t));
        if (t.n_children > 1)
            printf(" [%d branches]", t.n_children);
        if (why[0]) {
            printf(" [damaged]");
            /* a few named, the rest counted: an import of a file made
            ** without tokens is damaged at every turn (2,000 lines) */
            if (damaged++ < SHOW_DAMAGED_LINES)
                cli_errorf("sessions show: turn %lld is damaged in the database: %s",
                           (long long)t.id, why);
            bad++;
        }
        fputs(":\n", stdout);
        put_text(t.text);
        fputs("\n\n", stdout);
        store_turn_fini(&t);
    }
    free(path);
    if (damaged > SHOW_DAMAGED_LINES)
        cli_errorf("sessions show: and %d more damaged turns (%d in all; [damaged] marks each)",
                   damaged - SHOW_DAMAGED_LINES, damaged);
    return bad ? 1 : 0;
}

/* BUF to PATH (whole or not at all: rwkv_write_file, as every file written),
** or to stdout when PATH is NULL (a failed write to stdout is reported by
** cli_stdout_close).  0, or 1 with one line printed. */
static int
write_all(const char *path, const char *buf, size_t len)
{
    rwkv_err err;

    if (path == NULL) {
        cli_write(stdout, buf, len);
        return 0;
    }
    return rwkv_write_file(path, buf, len, 0644, 0, &err) == RWKV_OK ? 0 : cli_fail(&err);
}

/* OUT was written through a symlink (rwkv_output_target: the link kept):
** one line naming the file that changed, which the command line does not. */
static void
said_through_link(const char *out)
{
    char tgt[4096], *rp;

    if (rwkv_output_target(out, tgt, sizeof tgt) != 0 || strcmp(tgt, out) == 0)
        return;
    rp = realpath(tgt, NULL);
    cli_errorf("sessions export: written to %s (--out %s is a link to it)", rp ? rp : tgt, out);
    free(rp);
}

static int
do_export(store *st, const struct sessions_args *a)
{
    const char *format = a->format;
    /* "-" is stdout, as for every other file a command writes or reads */
    const char *out = a->out != NULL && strcmp(a->out, "-") == 0 ? NULL : a->out;
    enum store_format fmt;
    char *buf, note[RWKV_ERR_MSG];
    size_t len;
    int64_t left = 0;
    rwkv_err err;
    int rc;

    if (format == NULL)
        fmt = out != NULL ? store_format_for_name(out) : STORE_FMT_MD;
    else if (strcmp(format, "md") == 0 || strcmp(format, "markdown") == 0)
        fmt = STORE_FMT_MD;
    else if (strcmp(format, "json") == 0)
        fmt = STORE_FMT_JSON;
    else {
        cli_errorf("sessions export: --format '%s' is not md or json", format);
        return 2;
    }
    /* the one output rule, with the files the session names: its model,
    ** vocabulary and state file are never written over by an export */
    if (out != NULL && store_export_output_check(st, a->id, out, NULL, 0, &err) != RWKV_OK) {
        cli_errorf("sessions export: --out %s", err.msg);
        return 2;
    }
    if (a->states && fmt != STORE_FMT_JSON) {
        cli_errorf("sessions export: --states is for a JSON export (--format json)");
        return 2;
    }
    if (store_export_states_cap(st, a->id, fmt, a->states, STORE_IMPORT_MAX_BYTES, &buf, &len,
                                &left, note, sizeof note, &err) != RWKV_OK)
        return cli_fail(&err);
    rc = write_all(out, buf, len);
    free(buf);
    if (rc == 0 && out != NULL)
        said_through_link(out);
    if (rc == 0 && left > 0)    /* written, importable: said, not an error */
        cli_errorf("sessions export: %lld saved state%s left out: with %s the file would pass the "
                   "%llu GiB an import reads (a resume rebuilds %s from the tokens)", (long long)left,
                   left == 1 ? "" : "s", left == 1 ? "it" : "them",
                   (unsigned long long)(STORE_IMPORT_MAX_BYTES >> 30), left == 1 ? "it" : "them");
    if (rc == 0 && note[0]) {   /* written, but not all of it was readable */
        cli_errorf("sessions export: damaged rows exported in part: %s", note);
        rc = 1;
    }
    return rc;
}

/* The World vocabulary an import checks its turns with (store_import_vocab):
** found as every command finds it (cli/vocab.c: --vocab; the one the
** session names, which its resume takes, when that file is here; then
** $RWKV_VOCAB, next to the file's model, the data folder) -- never
** guessed -- and opened once. */
static int
import_world(void *ud, const char *model_path, const char *vocab_path, const struct tok **t,
             rwkv_err *err)
{
    struct sessions_args *a = ud;
    const char *given = a->vocab;
    char path[4096], why[1024];
    struct stat sb;

    if (given == NULL && vocab_path[0] == '/' && stat(vocab_path, &sb) == 0 && S_ISREG(sb.st_mode))
        given = vocab_path;
    if (a->world == NULL) {
        if (cli_vocab_lookup(given, model_path[0] ? model_path : NULL, path, sizeof path, why,
                             sizeof why) != 0)
            return rwkv_errf(err, RWKV_EIO, "its turns are checked with its model's World "
                             "vocabulary: give it with --vocab PATH (%s)", why);
        if (tok_open_world(path, &a->world, err) != RWKV_OK)
            return err->code;
    }
    *t = a->world;
    return RWKV_OK;
}

/* sessions import FILE: "-" reads stdin (as --prompt-file - and tokenize
** --file - do: `sessions export 3 --format json | ... | sessions import -`),
** named "stdin" in the messages.  Read and checked (store_import_check)
** before the database is opened: a missing file, or one that is no export,
** creates no database.  0, or the exit status after one line. */
static int
import_read(struct sessions_args *a)
{
    const char *file = a->pos[1];
    store_import_vocab v = { import_world, a };
    FILE *f = stdin;
    rwkv_err err;
    int rc;

    if (strcmp(file, "-") == 0) {
        file = "stdin";
    } else if (rwkv_fopen_stream(file, &f, &err) != RWKV_OK) {
        /* a regular file or a FIFO (`import <(cmd)`, as stdin may be a
        ** pipe): a device named by mistake must not hang the import
        ** (core/io/fileio.h), nor a FIFO no program writes */
        return cli_fail(&err);
    }
    a->in_what = file;
    rc = cli_read_stream(f, file, SESSIONS_IMPORT_MAX, "a session export", &a->in_buf, &a->in_len);
    if (f != stdin)
        fclose(f);
    if (rc != 0)
        return 1;
    if (store_import_check_ex(a->in_buf, a->in_len, file, &v, &err) != RWKV_OK)
        return cli_fail(&err);
    return 0;
}

static int
do_import(store *st, const struct sessions_args *a)
{
    store_import_vocab v = { import_world, (void *)a };
    store_import_info in;
    char note[sizeof in.note + 200];
    int64_t id;
    rwkv_err err;

    if (store_import_states(st, a->in_buf, a->in_len, a->in_what, &v, a->states, &in, &id,
                            &err) != RWKV_OK)
        return cli_fail(&err);
    if (in.taken > 0)
        printf("imported %s as session %lld with %lld saved states\n", a->in_what, (long long)id,
               (long long)in.taken);
    else
        printf("imported %s as session %lld\n", a->in_what, (long long)id);
    /* on stderr when the first open will replay: why (a line for each
    ** state not taken), and how not */
    store_import_note(&in, a->in_what, id, a->states, note, sizeof note);
    for (char *p = note, *nl; *p; p = nl ? nl + 1 : p + strlen(p)) {
        if ((nl = strchr(p, '\n')) != NULL)
            *nl = '\0';
        cli_errorf("%s", p);
    }
    return 0;
}

/* The last line of a cut search: how many sessions match and which, newest
** first, one sentence wrapped at SESSIONS_SEARCH_COLS (hundreds of ids on
** one line were unreadable; a short list stays the one line it was). */
static void
put_search_sessions(const int64_t *ids, size_t n)
{
    int col = printf("(the newest %d matches; %zu session%s match%s:", SESSIONS_SEARCH_MAX, n,
                     n == 1 ? "" : "s", n == 1 ? "es" : "");

    for (size_t i = 0; i < n; i++) {
        char id[24];
        int w = snprintf(id, sizeof id, "%lld", (long long)ids[i]);
        if (col + 1 + w + (i + 1 == n) > SESSIONS_SEARCH_COLS) {   /* the last one: and ")" */
            fputs("\n ", stdout);
            col = 1;
        } else {
            putchar(' ');
            col++;
        }
        fputs(id, stdout);
        col += w;
    }
    fputs(")\n", stdout);
}

static int
do_search(store *st, const struct sessions_args *a)
{
    const char *text = a->pos[1];
    store_hit *h;
    int64_t *ids = NULL;
    size_t n, ns = 0;
    rwkv_err err;
    char note[RWKV_ERR_MSG];

    if (store_search(st, text, SESSIONS_SEARCH_MAX + 1, &h, &n, &err) != RWKV_OK)
        return cli_fail(&err);
    if (store_file_note(st, note, sizeof note))   /* a damaged search index rebuilt */
        cli_errorf("%s", note);
    if (n > SESSIONS_SEARCH_MAX) {
        /* cut: the newest hits, then every session with one (a few long
        ** chats' hits hid the rest) */
        if (store_search_sessions(st, text, &ids, &ns, &err) != RWKV_OK) {
            free(h);
            return cli_fail(&err);
        }
        n = SESSIONS_SEARCH_MAX;
    }
    if (n == 0) {
        fputs("no matches for '", stdout);
        put_text(text);
        fputs("'\n", stdout);
    }
    for (size_t i = 0; i < n; i++) {
        char line[300];
        one_line(h[i].snippet, line, sizeof line);
        if (h[i].turn_id == 0) {
            printf("session %lld (title): ", (long long)h[i].session_id);
        } else {
            printf("session %lld turn %lld (%s) ", (long long)h[i].session_id,
                   (long long)h[i].turn_id, store_role_name(h[i].role));
            put_text(h[i].title);
            fputs(": ", stdout);
        }
        put_text(line);
        putchar('\n');
    }
    if (ids != NULL)
        put_search_sessions(ids, ns);
    free(ids);
    free(h);
    return 0;
}

/* sessions vacuum: the file's size before and after. */
static int
do_vacuum(store *st, const struct sessions_args *a)
{
    store_vacuum_info v;
    rwkv_err err;

    (void)a;
    if (store_vacuum(st, &v, &err) != RWKV_OK)
        return cli_fail(&err);
    put_text(store_path(st));
    printf(": %.1f MB -> %.1f MB (%lld free page%s given back)\n", (double)v.bytes_before / 1e6,
           (double)v.bytes_after / 1e6, (long long)v.free_pages, v.free_pages == 1 ? "" : "s");
    if (v.folded > 0) {
        char b[32];
        printf("(%lld saved state%s of an older version stored once with %s twin%s: %s given "
               "back)\n", (long long)v.folded, v.folded == 1 ? "" : "s",
               v.folded == 1 ? "its" : "their", v.folded == 1 ? "" : "s",
               store_size_str(v.folded_bytes, b, sizeof b));
    }
    if (v.full)
        printf("(a full VACUUM: the file was made without incremental auto-vacuum; it has it "
               "now)\n");
    if (v.busy)
        printf("(another process has the file open: the rest comes back when it closes)\n");
    if (v.fts_rebuilt)
        printf("(the search index was damaged: rebuilt from the messages, nothing lost)\n");
    return 0;
}

/* The message reply LIVE answers (its parent), 0 when it cannot be read. */
static int64_t
live_message(store *st, int64_t live)
{
    store_turn t;
    rwkv_err err;
    int64_t m;

    if (store_turn_get(st, live, &t, &err) != RWKV_OK)
        return 0;
    m = t.parent_id;
    store_turn_fini(&t);
    return m;
}

/* sessions fork: the fork rule of the session runtime (sess_fork_point): at
** a user turn, the new session ends before that message (to be written
** again); at or past a reply another window is still writing, before the
** message it answers (its text is not final yet), said in the one line. */
static int
do_fork(store *st, const struct sessions_args *a)
{
    int64_t nid, at = 0, live = 0, msg;
    rwkv_err err;

    if (sess_fork_point_ex(st, a->id, a->turn, &at, &live, &err) != RWKV_OK) {
        cli_errorf("forking session %lld: %s", (long long)a->id, err.msg);   /* as below */
        return 1;
    }
    msg = live != 0 ? live_message(st, live) : 0;
    if (at == 0 && live != 0) {
        cli_errorf("sessions fork: reply %lld is still being written in another window and its "
                   "message %lld is the first: nothing comes before it; fork once it is done",
                   (long long)live, (long long)msg);
        return 1;
    }
    if (at == 0) {
        cli_errorf("sessions fork: turn %lld is the first message: nothing comes before it",
                   (long long)a->turn);
        return 1;
    }
    if (store_session_fork(st, a->id, at, a->title, &nid, &err) != RWKV_OK) {
        cli_errorf("forking session %lld: %s", (long long)a->id, err.msg);   /* as the client */
        return 1;
    }
    if (live != 0) {
        char why[RWKV_ERR_MSG];
        sess_fork_live_why(st, live, why, sizeof why);   /* the one wording (F2's too) */
        printf("forked session %lld at turn %lld as session %lld (%s)\n", (long long)a->id,
               (long long)at, (long long)nid, why);
    } else if (at != a->turn)
        printf("forked session %lld before message %lld (at turn %lld) as session %lld\n",
               (long long)a->id, (long long)a->turn, (long long)at, (long long)nid);
    else
        printf("forked session %lld at turn %lld as session %lld\n", (long long)a->id,
               (long long)a->turn, (long long)nid);
    return 0;
}

static int
do_rename(store *st, const struct sessions_args *a)
{
    rwkv_err err;

    if (store_session_rename(st, a->id, a->pos[2], &err) != RWKV_OK) {
        cli_errorf("renaming session %lld: %s", (long long)a->id, err.msg);
        return 1;
    }
    printf("renamed session %lld\n", (long long)a->id);   /* as rm, fork and import confirm */
    return 0;
}

static int
do_rm(store *st, const struct sessions_args *a)
{
    rwkv_err err;
    char note[RWKV_ERR_MSG];

    if (store_session_delete(st, a->id, &err) != RWKV_OK) {
        cli_errorf("deleting session %lld: %s", (long long)a->id, err.msg);
        return 1;
    }
    if (store_file_note(st, note, sizeof note))   /* a damaged search index rebuilt */
        cli_errorf("%s", note);
    printf("deleted session %lld\n", (long long)a->id);
    return 0;
}

static int
do_budget(store *st, const struct sessions_args *a)
{
    return sessions_budget(st, a->npos > 1 ? a->pos[1] : NULL);
}

static int
do_state(store *st, const struct sessions_args *a)
{
    return sessions_state(st, a->id, a->turn, a->vs_turn, a->json);
}

/* The subcommands (house style G11), in the order the messages list them.
** NARGS positional arguments follow the name (ARGS spells them and the
** options for the usage line); the first NIDS of them are ids: the
** session, then a turn.  Only import creates a database that is not there. */
static const struct sessions_cmd {
    const char *name;
    int       (*run)(store *st, const struct sessions_args *a);
    int         nargs, nids;
    const char *args;
    int         nopt;    /* of the NARGS, how many may be left out (the last) */
    int         reads;   /* it only reads: a read-only database is read (open_db) */
    int         words;   /* the last argument is words: more arguments are more
                            of them, joined with spaces (search a b = 'a b') */
} sessions_cmds[] = {
    { "list", do_list, 0, 0, " [--json]", 0, 1, 0 },
    { "show", do_show, 1, 1, " ID", 0, 1, 0 },
    { "export", do_export, 1, 1, " ID [--format md|json] [--out FILE] [--states]", 0, 1, 0 },
    { "import", do_import, 1, 0, " FILE [--vocab PATH] [--states]", 0, 0, 0 },
    { "fork", do_fork, 2, 2, " ID TURN [--title T]", 0, 0, 0 },
    { "rename", do_rename, 2, 1, " ID TITLE", 0, 0, 0 },
    { "rm", do_rm, 1, 1, " ID", 0, 0, 0 },
    { "search", do_search, 1, 0, " TEXT...", 0, 1, 1 },
    { "vacuum", do_vacuum, 0, 0, "", 0, 0, 0 },
    { "state", do_state, 2, 2, " ID TURN [--vs TURN2] [--json]", 0, 1, 0 },
    { "budget", do_budget, 1, 0, " [SIZE|off]", 1, 1, 0 },
    { NULL, NULL, 0, 0, NULL, 0, 0, 0 },
};

/* The options, anywhere on the line, and the positional arguments into A
** (A->pos: room for ARGC; "--" ends the options; --help sets A->help: the
** line is checked before the help is printed).  CLI_ARGS_GO, or 2 after
** one line for an error. */
static int
parse_args(int argc, char **argv, struct sessions_args *a)
{
    int opts_done = 0;
    const struct cli_opt tab[] = {
        { "json", CLI_OPT_FLAG, &a->json, 0, 0 },
        { "db", CLI_OPT_PATH, &a->db, 0, 0 },
        { "format", CLI_OPT_STR, &a->format, 0, 0 },
        { "out", CLI_OPT_PATH, &a->out, 0, 0 },
        { "title", CLI_OPT_STR, &a->title, 0, 0 },
        { "vs", CLI_OPT_STR, &a->vs, 0, 0 },
        { "vocab", CLI_OPT_PATH, &a->vocab, 0, 0 },
        { "states", CLI_OPT_FLAG, &a->states, 0, 0 },
        { NULL, CLI_OPT_FLAG, NULL, 0, 0 },
    };

    for (int i = 1; i < argc;) {
        int r;
        if (!opts_done && strcmp(argv[i], "--") == 0) {
            opts_done = 1;
            i++;
            continue;
        }
        if (!opts_done) {
            if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
                a->help = 1;
                i++;
                continue;
            }
            if ((r = cli_take_opt(tab, argc, argv, &i)) != 0) {
                if (r < 0)
                    return 2;
                continue;
            }
            if (argv[i][0] == '-' && argv[i][1] == '-') {
                cli_errorf("sessions: unknown option '%s' (see '" PROG " sessions --help')",
                           argv[i]);
                return 2;
            }
        }
        a->pos[a->npos++] = argv[i++];
    }
    return CLI_ARGS_GO;
}

/* 1 after one line when option --NAME, given (GIVEN), is not one of C's: the
** options a command takes are those its usage line (the table's ARGS)
** names, so the usage and this check cannot disagree. */
/* The arguments from pos[K] on as one text, a space between each, into
** A->words (owned), which pos[K] then is.  0, or -1 after one line. */
static int
join_words(struct sessions_args *a, int k)
{
    size_t n = 1, o = 0;

    for (int i = k; i < a->npos; i++)
        n += strlen(a->pos[i]) + 1;
    if ((a->words = malloc(n)) == NULL) {
        cli_errorf("sessions: out of memory");
        return -1;
    }
    for (int i = k; i < a->npos; i++) {
        size_t m = strlen(a->pos[i]);
        if (i > k)
            a->words[o++] = ' ';
        memcpy(a->words + o, a->pos[i], m);
        o += m;
    }
    a->words[o] = '\0';
    a->pos[k] = a->words;
    a->npos = k + 1;
    return 0;
}

static int
foreign_option(const struct sessions_cmd *c, const char *name, int given)
{
    char opt[32], owners[128] = "";
    size_t n = 0;

    if (!given)
        return 0;
    snprintf(opt, sizeof opt, "--%s", name);
    if (strstr(c->args, opt) != NULL)
        return 0;
    for (const struct sessions_cmd *o = sessions_cmds; o->name != NULL; o++)
        if (strstr(o->args, opt) != NULL && n < sizeof owners)
            n += (size_t)snprintf(owners + n, sizeof owners - n, "%s'sessions %s'",
                                  n > 0 ? " and " : "", o->name);
    cli_errorf("sessions %s: %s is an option of %s%s", c->name, opt, owners,
               strcmp(name, "json") == 0 && c->run == do_export ? " (export: --format json)"
                                                                : "");
    return 1;
}

/* The table entry of A's command, its arguments checked and its ids parsed
** into A (a search's words joined into A->words); NULL after one line (exit
** status 2).  HELP: only what --help must not hide is checked -- the
** command is one, with no more arguments than it takes, no option of
** another command. */
static const struct sessions_cmd *
find_command(struct sessions_args *a, int help)
{
    const struct sessions_cmd *c;

    if (a->npos == 0 && help)
        return NULL;
    if (a->npos == 0) {
        cli_errorf("sessions: which command? (list, show, export, import, fork, rename, rm, search, "
                   "vacuum, state, budget)");
        return NULL;
    }
    for (c = sessions_cmds; c->name != NULL; c++)
        if (strcmp(a->pos[0], c->name) == 0)
            break;
    if (c->name == NULL) {
        cli_errorf("sessions: unknown command '%s' (see '" PROG " sessions --help')", a->pos[0]);
        return NULL;
    }
    if ((a->npos - 1 > c->nargs && !c->words) ||
        (a->npos - 1 < c->nargs - c->nopt && !help)) {
        cli_errorf("sessions %s: usage: " PROG " sessions %s%s", c->name, c->name, c->args);
        return NULL;
    }
    if (foreign_option(c, "json", a->json) || foreign_option(c, "vs", a->vs != NULL) ||
        foreign_option(c, "format", a->format != NULL) ||
        foreign_option(c, "out", a->out != NULL) || foreign_option(c, "title", a->title != NULL) ||
        foreign_option(c, "vocab", a->vocab != NULL) || foreign_option(c, "states", a->states))
        return NULL;
    if (help)
        return c;
    if (c->words && a->npos - 1 > c->nargs && join_words(a, c->nargs) != 0)
        return NULL;
    if (c->run == do_import && cli_path_arg("sessions import", a->pos[1]) < 0)
        return NULL;
    if ((c->nids >= 1 && parse_id("session", a->pos[1], &a->id) < 0) ||
        (c->nids >= 2 && parse_id("turn", a->pos[2], &a->turn) < 0))
        return NULL;
    /* an empty title or search is what was typed wrong: a usage error */
    /* (by the store's own rules: store_title_blank, store_search_blank) */
    if (c->run == do_rename && store_title_blank(a->pos[2])) {
        cli_errorf("sessions rename: a session title cannot be empty");
        return NULL;
    }
    if (a->title != NULL && store_title_blank(a->title)) {
        cli_errorf("sessions %s: --title: a session title cannot be empty", c->name);
        return NULL;
    }
    if (c->run == do_search && store_search_blank(a->pos[1])) {
        cli_errorf("sessions search: nothing to search for");
        return NULL;
    }
    if (a->vs != NULL && parse_id("turn", a->vs, &a->vs_turn) < 0)
        return NULL;
    return c;
}

/*
** A command other than import on a path where no file is: it creates
** nothing.  The exit status after one line (0 for `list` on the default
** database: no session saved yet, as a user who never chatted expects), or
** -1 to go on (a file is there, or the path cannot be told: store_open says).
*/
static int
no_database(const struct sessions_args *a)
{
    char def[STORE_PATH_MAX];
    const char *path = a->db;
    struct stat sb;
    rwkv_err err;

    if (path == NULL && store_default_path(def, sizeof def, &err) == RWKV_OK)
        path = def;
    if (path == NULL || path[0] == '\0' || stat(path, &sb) == 0 || errno != ENOENT)
        return -1;
    if (a->db == NULL && strcmp(a->pos[0], "list") == 0) {
        if (a->json)
            printf("[]\n");
        else
            printf("no saved sessions yet (no database at %s)\n", path);
        return 0;
    }
    cli_errorf("%s: no session database here (nothing created)", path);
    return 1;
}

/* Whether command C (its arguments A) only reads the database: `budget`
** with no size shows the budget, with one sets it. */
static int
reads_only(const struct sessions_cmd *c, const struct sessions_args *a)
{
    return c->reads && (c->run != do_budget || a->npos < 2);
}

/*
** The database for command C: a command that only reads opens one this
** process may not write read-only, creating and changing nothing
** (store.h, store_open_ex); one that writes is refused there with one
** line naming the file, why, and what still works -- `sessions` has no
** --no-db.
*/
static int
open_db(const struct sessions_cmd *c, const struct sessions_args *a, store **st, rwkv_err *err)
{
    char hint[200];
    store_open_opts o;

    memset(&o, 0, sizeof o);
    o.read_ok = reads_only(c, a);
    snprintf(hint, sizeof hint, "'sessions %s' changes it: make it writable, or use a writable "
             "--db (list, show, search, export and state read it as it is)", c->name);
    o.ro_hint = hint;
    return store_open_ex(a->db, &o, st, err);
}

/* The busy hook (store_set_busy_hook) of a command's database UD: a wait
** for another program's lock that lasts SAY_WAIT_MS is said once, up front,
** with its bound -- a write then waits at most that long before it fails
** with "database is locked" (another client's commit takes milliseconds,
** unsaid). */
#define SAY_WAIT_MS 100
static int
say_wait(void *ud, int waited_ms)
{
    static int said;
    const store *st = ud;

    if (waited_ms < SAY_WAIT_MS || said)
        return 0;
    said = 1;
    fprintf(stderr, "waiting up to %d s for the lock another program holds on %s\n",
            (store_busy_ms(st) + 999) / 1000, store_path(st));
    return 0;
}

int
cmd_sessions(int argc, char **argv)
{
    struct sessions_args a;
    const struct sessions_cmd *c;
    store *st;
    rwkv_err err;
    int rc;

    memset(&a, 0, sizeof a);
    if ((a.pos = calloc((size_t)argc, sizeof *a.pos)) == NULL) {
        cli_errorf("sessions: out of memory");
        return 1;
    }
    if ((rc = parse_args(argc, argv, &a)) != CLI_ARGS_GO)
        goto out;
    rc = 2;
    if ((c = find_command(&a, a.help)) == NULL && !(a.help && a.npos == 0))
        goto out;
    if (a.help) {                      /* `sessions prune --help`: the error above */
        usage(stdout);
        rc = cli_stdout_close(0);      /* `--help >/dev/full`: one line, 1 */
        goto out;
    }
    if (c->run != do_import && (rc = no_database(&a)) >= 0)
        goto out;
    if (c->run == do_import && (rc = import_read(&a)) != 0)
        goto out;
    if (open_db(c, &a, &st, &err) != RWKV_OK) {
        rc = cli_fail(&err);
        goto out;
    }
    store_set_busy_hook(st, say_wait, st);
    rc = c->run(st, &a);
    store_close(st);
    /* output that did not reach stdout (a full disk) is an error */
    rc = cli_stdout_close(rc);
out:
    free(a.in_buf);
    tok_close(a.world);
    free(a.words);
    free(a.pos);
    return rc;
}
