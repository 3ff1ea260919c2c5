/*
** test_doc_examples.c -- what rwkv-tui-config(5) shows is what the loaders
** do (tui/config.c, tui/theme.c):
**   - its EXAMPLE config file loads with no problem, and its settings are
**     taken (the model, the theme, the framing, the two key bindings);
**   - the theme in its THEMES section loads;
**   - every line of its EXAMPLE MESSAGES is, word for word, what the
**     loader says for a file that makes it (the file below, at the line
**     and column the example gives).
** The page is read from the source tree (man/, beside tests/), so an edit
** of it is checked by the next run.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness.h"
#include "../../tui/config.h"
#include "../../tui/theme.h"

/* The page as text: the source tree's man/rwkv-tui-config.5 (tests/unit/
** is two levels below it; __FILE__ holds that path as compiled). */
static char *
read_page(void)
{
    char path[1024];
    const char *f = __FILE__, *at = strstr(f, "tests/unit/");
    unsigned char *p;
    size_t n;

    snprintf(path, sizeof path, "%.*sman/rwkv-tui-config.5", at ? (int)(at - f) : 0, f);
    if ((p = test_slurp(path, &n)) != NULL)
        p[n] = '\0';
    return (char *)p;
}

/* The roff escapes the page uses, undone in place: \e \- \& \(dq \(:u. */
static void
unroff(char *s)
{
    static const struct { const char *esc, *text; } tab[] = {
        { "\\e", "\\" }, { "\\-", "-" }, { "\\&", "" }, { "\\(dq", "\"" },
        { "\\(:u", "\xc3\xbc" },
    };
    char *o = s;

    while (*s) {
        size_t k;
        for (k = 0; k < sizeof tab / sizeof tab[0]; k++)
            if (strncmp(s, tab[k].esc, strlen(tab[k].esc)) == 0)
                break;
        if (k == sizeof tab / sizeof tab[0]) {
            *o++ = *s++;
            continue;
        }
        s += strlen(tab[k].esc);
        for (const char *t = tab[k].text; *t; t++)   /* never longer than the escape */
            *o++ = *t;
    }
    *o = '\0';
}

/* The first .nf ... .fi block after the line HEAD (".SH EXAMPLE"), unroffed
** (malloc'ed), or NULL. */
static char *
block_after(const char *page, const char *head)
{
    const char *h = strstr(page, head), *a, *b;
    char *out;

    if (h == NULL || (a = strstr(h, "\n.nf\n")) == NULL || (b = strstr(a + 5, "\n.fi\n")) == NULL)
        return NULL;
    a += 5;
    if ((out = malloc((size_t)(b - a) + 2)) == NULL)
        return NULL;
    memcpy(out, a, (size_t)(b - a));
    out[b - a] = '\n';
    out[b - a + 1] = '\0';
    unroff(out);
    return out;
}

static void
write_file(const char *name, const char *text)
{
    FILE *f = fopen(name, "w");

    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

static void
test_example_config(const char *page)
{
    char *ex = block_after(page, "\n.SH EXAMPLE\n"), msg[THEME_MSG];
    tui_config c;
    int rc;

    TEST_COND("the page has an EXAMPLE config", ex != NULL);
    if (ex == NULL)
        return;
    write_file("example.yaml", ex);
    rc = cfg_load("example.yaml", &c, msg, sizeof msg);
    TEST_CONDF(rc == 0 && msg[0] == '\0', "the EXAMPLE config: %s", msg);
    TEST_CONDF(strstr(c.model, "RWKV-x070-World-1.5B") != NULL && strcmp(c.theme, "dark") == 0,
               "EXAMPLE model '%s' theme '%s'", c.model, c.theme);
    TEST_CONDF(c.keys[CFG_ACT_QUIT] == CFG_KEY_CTRL('q') &&
               c.keys[CFG_ACT_SESSIONS] == CFG_KEY_F(12), "EXAMPLE keys: quit %d sessions %d",
               c.keys[CFG_ACT_QUIT], c.keys[CFG_ACT_SESSIONS]);
    free(ex);
}

static void
test_example_theme(const char *page)
{
    char *ex = block_after(page, "\n.SH THEMES\n"), msg[THEME_MSG];
    theme th;

    TEST_COND("the page has an example theme", ex != NULL && strstr(ex, "roles:") != NULL);
    if (ex == NULL)
        return;
    write_file("example-theme.yaml", ex);
    TEST_CONDF(theme_load("./example-theme.yaml", &th, msg, sizeof msg) == 0,
               "the THEMES example: %s", msg);
    free(ex);
}

/* a stop string one byte too long */
#define X65 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"

/*
** For each line of EXAMPLE MESSAGES (its file name first), a file that
** makes it: the loader must say that line, word for word (what the client
** adds after a theme's problems, "; using the default theme", aside).
*/
static const struct {
    const char *file;     /* as the example names it */
    const char *text;
} makers[] = {
    { "themes/mine.yaml", "name: mine\nroles:\n  status: { fg: black }\n  user:\n    fg: purpel\n" },
    { "themes/mine.yaml", "name: mine\nroles:\n  status: { fg: black }\n  user: { fg: cyan }\n"
                          "  info: { fg: blue }\n  error: { fg: red }\n  assistent: { fg: red }\n" },
    { "config.yaml", "theme: dark\nmodle: m\n" },
    { "config.yaml", "theme: dark\ndb: x.db\nclipboard: off\ntemperature: 0.7\n" },
    { "config.yaml", "theme: dark\ndb: x.db\nuser: Bo:b\n" },
    { "config.yaml", "theme: dark\ndb: x.db\nclipboard: off\nlanguage: en\nhistory: on\n"
                     "user: Bob\nbot: Alice\nban: [1, x]\n" },
    { "config.yaml", "theme: dark\ndb: x.db\nclipboard: off\nlanguage: en\nhistory: on\n"
                     "user: Bob\nbot: Alice\nkeys:\n  regenerate: C-r\n" },
    { "config.yaml", "theme: dark\nstrategy: cpu fp23\n" },
    { "config.yaml", "theme: dark\ndb: x.db\nclipboard: off\nkeys:\n  help: Hyper-h\n" },
    { "config.yaml", "theme: dark\ndb: x.db\nclipboard: off\nlanguage: en\nkeys:\n  quit: q\n" },
    { "config.yaml", "theme: dark\ndb: x.db\nclipboard: off\nlanguage: en\nhistory: on\n"
                     "user: Bob\nbot: Alice\nstop: [\"\\n\\n\",\"" X65 "\"]\n" },
    /* (two bindings of one key: a binding onto a default key is no problem) */
    { "config.yaml", "theme: dark\ndb: x.db\nclipboard: off\nlanguage: en\nkeys:\n  new: F12\n"
                     "  regen: F12\n" },
    { "config.yaml", "keys:\n  sessions: C-u\n" },
    { "config.yaml", "theme: dark\ndb: x.db\nuser: \"\"\n" },
};

static void
test_example_messages(const char *page)
{
    char *ex = block_after(page, "\n.SH EXAMPLE MESSAGES\n"), *line, *save = NULL;
    char want[1024], msg[THEME_MSG];
    size_t k = 0, n;

    TEST_COND("the page has EXAMPLE MESSAGES", ex != NULL);
    if (ex == NULL)
        return;
    /* one message a line, a continuation indented two blanks */
    want[0] = '\0';
    for (line = strtok_r(ex, "\n", &save);; line = strtok_r(NULL, "\n", &save)) {
        if (line != NULL && strncmp(line, "  ", 2) == 0) {
            n = strlen(want);
            snprintf(want + n, sizeof want - n, " %s", line + 2);
            continue;
        }
        if (want[0] != '\0') {
            const char *colon = strchr(want, ':');
            char file[64], *end;
            int rc;

            TEST_CONDF(k < sizeof makers / sizeof makers[0], "no file makes '%s'", want);
            if (k >= sizeof makers / sizeof makers[0] || colon == NULL)
                break;
            snprintf(file, sizeof file, "%.*s", (int)(colon - want), want);
            TEST_CONDF(strcmp(file, makers[k].file) == 0, "message %zu names %s, not %s", k + 1,
                       file, makers[k].file);
            write_file(makers[k].file, makers[k].text);
            msg[0] = '\0';
            if (strncmp(file, "themes/", 7) == 0) {
                theme th;
                rc = theme_load(makers[k].file, &th, msg, sizeof msg);
                /* the client's words after a theme's problems */
                if ((end = strstr(want, "; using the default theme")) != NULL && end[25] == '\0')
                    *end = '\0';
            } else {
                tui_config c;
                rc = cfg_load(makers[k].file, &c, msg, sizeof msg);
            }
            TEST_CONDF(rc != 0 && strcmp(msg, want) == 0, "EXAMPLE MESSAGES %zu:\n  page:   %s\n"
                       "  loader: %s", k + 1, want, msg);
            k++;
        }
        if (line == NULL)
            break;
        snprintf(want, sizeof want, "%s", line);
    }
    TEST_CONDF(k == sizeof makers / sizeof makers[0], "%zu messages on the page, %zu files here", k,
               sizeof makers / sizeof makers[0]);
    free(ex);
}

int
main(void)
{
    char *page = read_page();

    TEST_COND("man/rwkv-tui-config.5 read", page != NULL);
    if (page == NULL || test_tmpdir("rwkv-doc-examples") == NULL)
        return TEST_REPORT();
    /* (relative names, as the examples give them) */
    if (chdir(test_tmp_dir()) != 0 || mkdir("themes", 0700) != 0) {
        printf("cannot work in %s: %s\n", test_tmp_dir(), strerror(errno));
        return 1;
    }
    test_example_config(page);
    test_example_theme(page);
    test_example_messages(page);
    free(page);
    test_tmpdir_remove();
    return TEST_REPORT();
}
