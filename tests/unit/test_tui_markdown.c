/*
** test_tui_markdown.c -- Markdown in replies (tui/markdown.c) and its rows
** in the transcript (tui/transcript.c): markers taken out and turned into
** styles, headings, bullets with hanging rows, fenced code blocks with
** highlighting (also unclosed, while streaming), the readable maximum
** width on wide panes; a reply's reasoning block (<think>...</think>) kept
** as written on rows of its own, folded to one row and back, also while
** it streams.
*/
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "../../tui/markdown.h"
#include "../../tui/transcript.h"

/* The style of the first byte of WORD in the rendering, or -1. */
static int
style_of(const tui_md *m, const char *word)
{
    const char *p = strstr(m->text.p, word);
    return p ? m->style[p - m->text.p] : -1;
}

static int
rendered_is(tui_md *m, const char *src, const char *want)
{
    tui_md_render(m, src, strlen(src), 1);
    if (strcmp(m->text.p, want) != 0) {
        printf("     render(\"%s\") = \"%s\", want \"%s\"\n", src, m->text.p, want);
        return 0;
    }
    return 1;
}

static void
test_render(void)
{
    tui_md m;

    tui_md_init(&m);
    TEST_COND("plain text as is", rendered_is(&m, "just text", "just text"));
    TEST_COND("empty text: one empty line", rendered_is(&m, "", "") && m.nlines == 1);
    TEST_COND("strong markers out", rendered_is(&m, "a **bold** b", "a bold b"));
    TEST_COND("strong styled", style_of(&m, "bold") == TUI_MD_STRONG && m.style[m.text.len - 1] == 0);
    TEST_COND("em", rendered_is(&m, "an *it* x", "an it x") && style_of(&m, "it") == TUI_MD_EM);
    TEST_COND("_em_ at word edges", rendered_is(&m, "_it_ ok", "it ok") &&
                                    style_of(&m, "it") == TUI_MD_EM);
    TEST_COND("snake_case untouched", rendered_is(&m, "my_var_name", "my_var_name"));
    TEST_COND("2 * 3 * 4 untouched", rendered_is(&m, "2 * 3 * 4", "2 * 3 * 4"));
    TEST_COND("unclosed ** shown", rendered_is(&m, "a **b", "a **b"));
    TEST_COND("inline code", rendered_is(&m, "run `ls -l` now", "run ls -l now") &&
                             style_of(&m, "ls") == TUI_MD_CODE);
    TEST_COND("no emphasis inside code", rendered_is(&m, "`a*b*c`", "a*b*c"));
    TEST_COND("double backticks", rendered_is(&m, "``a`b``", "a`b"));
    TEST_COND("escape", rendered_is(&m, "\\*not em\\*", "*not em*"));
    TEST_COND("heading", rendered_is(&m, "## Title here\ntext", "Title here\ntext") &&
                         m.nlines == 2 && m.lines[0].kind == TUI_MD_HEAD &&
                         style_of(&m, "Title") == TUI_MD_HEADING && style_of(&m, "text") == 0);
    TEST_COND("#hashtag is text", rendered_is(&m, "#hashtag", "#hashtag") &&
                                  m.lines[0].kind == TUI_MD_TEXT);
    TEST_COND("bullets", rendered_is(&m, "- one\n* two\n  + three",
                                     "\xe2\x80\xa2 one\n\xe2\x80\xa2 two\n  \xe2\x80\xa2 three") &&
                         m.lines[0].kind == TUI_MD_ITEM && m.lines[0].hang == 2 &&
                         m.lines[2].hang == 4);
    tui_md_render(&m, "- one", 5, 0);
    TEST_COND("bullet without UTF-8", strcmp(m.text.p, "- one") == 0);
    TEST_COND("numbered item", rendered_is(&m, "12. twelve", "12. twelve") &&
                               m.lines[0].kind == TUI_MD_ITEM && m.lines[0].hang == 4);
    TEST_COND("item with emphasis", rendered_is(&m, "- **a** b", "\xe2\x80\xa2 a b") &&
                                    style_of(&m, "a b") == TUI_MD_STRONG);

    /* fenced code: fences hidden, lines kept verbatim, highlighted */
    TEST_COND("code block", rendered_is(&m, "see:\n```python\nif x == 'a': # c\n```\nend",
                                        "see:\nif x == 'a': # c\nend"));
    TEST_COND("code block lines", m.nlines == 3 && m.lines[1].kind == TUI_MD_CODELINE &&
                                  m.lines[2].kind == TUI_MD_TEXT);
    TEST_COND("keyword", style_of(&m, "if") == (TUI_MD_BLOCK | TUI_MD_KEYWORD));
    TEST_COND("identifier", style_of(&m, "x ==") == TUI_MD_BLOCK);
    TEST_COND("string", style_of(&m, "'a'") == (TUI_MD_BLOCK | TUI_MD_STRING));
    TEST_COND("# comment in python", style_of(&m, "# c") == (TUI_MD_BLOCK | TUI_MD_COMMENT));
    TEST_COND("no markdown in code", rendered_is(&m, "```\n**x** `y`\n```", "**x** `y`") &&
                                     style_of(&m, "**x") == TUI_MD_BLOCK);
    TEST_COND("C: #include is not a comment, // is",
              rendered_is(&m, "```c\n#include <x.h> // hi\n```", "#include <x.h> // hi") &&
              style_of(&m, "#include") == TUI_MD_BLOCK &&
              style_of(&m, "// hi") == (TUI_MD_BLOCK | TUI_MD_COMMENT));
    TEST_COND("unclosed fence (streaming): code to the end",
              rendered_is(&m, "```sh\necho hi\nls", "echo hi\nls") && m.nlines == 2 &&
              m.lines[1].kind == TUI_MD_CODELINE);
    TEST_COND("~~~ fence", rendered_is(&m, "~~~\na\n~~~", "a") && m.lines[0].kind == TUI_MD_CODELINE);
    TEST_COND("a ``` inside a line is no fence", rendered_is(&m, "x ```y``` z", "x y z"));
    TEST_COND("only a fence: one empty line", rendered_is(&m, "```", "") && m.nlines == 1);

    /* invariant: one style byte per byte, lines in order */
    {
        const char *src = "# H\n- a *b* `c`\n```\nq \"s\"\n```\n**x**";
        int ok = 1;
        tui_md_render(&m, src, strlen(src), 1);
        for (size_t i = 0; i < m.nlines; i++) {
            size_t end = m.lines[i].off + m.lines[i].len;
            if (end > m.text.len || (i + 1 < m.nlines && m.lines[i + 1].off != end + 1))
                ok = 0;
        }
        TEST_COND("lines cover the text", ok && m.style_cap >= m.text.len);
    }
    tui_md_fini(&m);
}

static void
test_rows(void)
{
    tui_transcript t;
    int a;
    char long_line[400];
    size_t n = 0;

    for (int i = 0; i < 60; i++)
        n += (size_t)snprintf(long_line + n, sizeof long_line - n, "word ");
    long_line[n - 1] = '\0';                         /* 299 columns of prose */

    tui_tr_init(&t);
    tui_tr_layout(&t, 200);                           /* text width 198 */
    a = tui_tr_add(&t, TUI_TURN_ASSISTANT, long_line, strlen(long_line));
    {
        int widest = 0;
        for (size_t r = 0; r < t.nrows; r++)
            if (t.rows[r].kind == TUI_ROW_TEXT &&
                tui_str_width(tui_tr_shown(&t.turns[a]) + t.rows[r].off, t.rows[r].len) > widest)
                widest = tui_str_width(tui_tr_shown(&t.turns[a]) + t.rows[r].off, t.rows[r].len);
        TEST_CONDF(widest <= TUI_TR_MAX_TEXT && widest > TUI_TR_MAX_TEXT - 6,
                   "wide pane: prose rows %d columns, want <= %d", widest, TUI_TR_MAX_TEXT);
    }
    tui_tr_clear(&t);

    /* a bullet's wrapped rows hang under its text */
    tui_tr_layout(&t, 22);                            /* text width 20 */
    a = tui_tr_add(&t, TUI_TURN_ASSISTANT, "- aaaa bbbb cccc dddd eeee", 26);
    TEST_CONDF(t.nrows == 4 && t.rows[1].indent == 0 && t.rows[2].indent == 2 &&
                   strncmp(tui_tr_shown(&t.turns[a]) + t.rows[2].off, "dddd eeee", 9) == 0,
               "rows %zu, indents %d %d", t.nrows, t.rows[1].indent, t.rows[2].indent);
    tui_tr_clear(&t);

    /* code rows: inset, marked, hard-wrapped at the pane */
    a = tui_tr_add(&t, TUI_TURN_ASSISTANT, "```\nxxxxxxxxxxxxxxxxxxxxxxxxx\n```", 33);
    TEST_CONDF(t.nrows == 4 && t.rows[1].code && t.rows[1].indent == TUI_TR_CODE_INSET &&
                   t.rows[1].len == 18 && t.rows[2].code && t.rows[2].len == 7,
               "code rows: %zu, len %zu/%zu", t.nrows, t.rows[1].len, t.rows[2].len);

    /* streaming: the fence closes later, the rows follow */
    tui_tr_clear(&t);
    a = tui_tr_add(&t, TUI_TURN_ASSISTANT, "", 0);
    tui_tr_append(&t, a, "```\ncode", 8);
    TEST_COND("streaming: open fence gives a code row", t.rows[1].code);
    tui_tr_append(&t, a, "\n```\n**done**", 13);
    TEST_COND("streaming: after the fence, prose",
              !t.rows[2].code && strcmp(tui_tr_shown(&t.turns[a]), "code\ndone") == 0 &&
              tui_tr_styles(&t.turns[a])[5] == TUI_MD_STRONG);
    /* the user's text is never rendered */
    a = tui_tr_add(&t, TUI_TURN_USER, "**as typed**", 12);
    TEST_COND("user text as typed", tui_tr_styles(&t.turns[a]) == NULL &&
                                    strcmp(tui_tr_shown(&t.turns[a]), "**as typed**") == 0);
    tui_tr_fini(&t);
}

static void
test_think(void)
{
    static const char src[] = "<think>\n**a** b\nc\n</think>\nThe *end*";
    tui_md m;
    tui_transcript t;
    int a;

    TEST_COND("think len", tui_md_think_len(src, strlen(src)) == 26 &&
                           tui_md_think_len("<think>\nopen", 12) == 12 &&
                           tui_md_think_len("x <think></think>", 17) == 0 &&
                           tui_md_think_len("<thin", 5) == 0);
    tui_md_init(&m);
    TEST_COND("think: as written, then Markdown",
              rendered_is(&m, src, "<think>\n**a** b\nc\n</think>\nThe end"));
    TEST_COND("think: line kinds", m.nlines == 5 && m.lines[0].kind == TUI_MD_THINK &&
                                   m.lines[3].kind == TUI_MD_THINK &&
                                   m.lines[4].kind == TUI_MD_TEXT && style_of(&m, "**a**") == 0);
    TEST_COND("think: answer on the same line",
              rendered_is(&m, "<think>x</think> y", "<think>x</think>\ny"));
    TEST_COND("think: nothing after", rendered_is(&m, "<think>x</think>\n", "<think>x</think>") &&
                                      m.nlines == 1);
    TEST_COND("think: only at the start", rendered_is(&m, "a <think>*b*</think>",
                                                      "a <think>b</think>"));
    tui_md_fini(&m);

    tui_tr_init(&t);
    tui_tr_layout(&t, 40);
    a = tui_tr_add(&t, TUI_TURN_ASSISTANT, " ", 1);
    tui_tr_append(&t, a, "<think>\none\ntwo", 15);
    TEST_CONDF(t.nrows == 5 && t.rows[1].think && t.rows[3].think && t.rows[3].len == 3,
               "streaming reasoning: %zu rows", t.nrows);
    tui_tr_set_fold(&t, 1);
    TEST_CONDF(t.nrows == 3 && t.rows[1].kind == TUI_ROW_FOLD && t.rows[1].think == 3 &&
                   tui_tr_row_of(&t, a, 9) == 1,
               "folded while streaming: %zu rows", t.nrows);
    tui_tr_append(&t, a, "\n</think>\nanswer", 16);
    TEST_CONDF(t.nrows == 4 && t.rows[1].think == 4 && t.rows[2].kind == TUI_ROW_TEXT &&
                   !t.rows[2].think,
               "folded, answered: %zu rows", t.nrows);
    tui_tr_set_fold(&t, 0);
    TEST_CONDF(t.nrows == 7 && t.rows[4].think && !t.rows[5].think, "unfolded: %zu rows", t.nrows);
    tui_tr_fini(&t);
}

/* Random inputs made of the characters Markdown cares about: the
 * rendering's invariants hold and nothing reads or writes out of bounds
 * (run under `make asan`).  A fixed seed: the same inputs every run. */
static void
test_random(void)
{
    static const char *const piece[] = { "*", "**", "_", "`", "``", "```", "~~~", "#", "## ",
                                         "- ", "1. ", "\\", "\n", " ", "a", "word",
                                         "\xf0\x9f\x91\xa8", "'", "\"", "//", "def " };
    tui_md m;
    unsigned seed = 12345;
    int bad = 0;

    tui_md_init(&m);
    for (int round = 0; round < 3000 && !bad; round++) {
        char src[256];
        size_t n = 0;
        int k = (int)(seed % 24);
        for (int j = 0; j < k; j++) {
            const char *p;
            seed = seed * 1103515245u + 12345u;
            p = piece[(seed >> 16) % (sizeof piece / sizeof piece[0])];
            if (n + strlen(p) >= sizeof src)
                break;
            memcpy(src + n, p, strlen(p));
            n += strlen(p);
        }
        seed = seed * 1103515245u + 12345u;
        tui_md_render(&m, src, n, (int)(seed & 1));
        if (m.nlines == 0 || m.text.len > 3 * n + 3 || strlen(m.text.p) != m.text.len)
            bad = 1;
        for (size_t i = 0; i < m.nlines && !bad; i++) {
            size_t end = m.lines[i].off + m.lines[i].len;
            if (end > m.text.len || (i + 1 < m.nlines && m.lines[i + 1].off != end + 1) ||
                memchr(m.text.p + m.lines[i].off, '\n', m.lines[i].len))
                bad = 1;
        }
        if (bad)
            printf("     bad rendering of \"%.*s\"\n", (int)n, src);
    }
    TEST_COND("random inputs keep the invariants", !bad);
    tui_md_fini(&m);
}

int
main(void)
{
    if (setlocale(LC_ALL, "C.UTF-8") == NULL)
        setlocale(LC_ALL, "en_US.UTF-8");
    test_render();
    test_rows();
    test_think();
    test_random();
    return TEST_REPORT();
}
