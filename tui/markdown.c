/*
** markdown.c -- Markdown of model replies rendered for the terminal.  See
** markdown.h.  A line-by-line pass (fences, headings, list items) and an
** inline pass per line (code spans, strong, emphasis, backslash escapes).
**
** Invariants: m->style has one byte per byte of m->text; lines[] cover the
** text in order, separated by exactly one '\n' that belongs to no line.
*/
#include "markdown.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MD_MAX_LIST_INDENT 12   /* deeper leading spaces are plain text */
#define MD_LANG_MAX 16          /* bytes of a fence's language kept */

void
tui_md_init(tui_md *m)
{
    memset(m, 0, sizeof *m);
    tui_buf_init(&m->text);
}

void
tui_md_fini(tui_md *m)
{
    tui_buf_fini(&m->text);
    free(m->style);
    free(m->lines);
    memset(m, 0, sizeof *m);
}

static void
emit(tui_md *m, const char *s, size_t n, unsigned st)
{
    size_t old = m->text.len;

    if (n == 0)
        return;
    tui_buf_add(&m->text, s, n);
    if (m->text.len > m->style_cap) {
        m->style_cap = m->text.len * 2 + 64;
        m->style = tui_xrealloc(m->style, m->style_cap);
    }
    memset(m->style + old, (int)(st & 0xFF), n);
}

/* Start a rendered line of KIND: the '\n' before it, then its record. */
static tui_md_line_info *
begin_line(tui_md *m, int kind)
{
    tui_md_line_info *l;

    if (m->nlines > 0)
        emit(m, "\n", 1, 0);
    m->lines = tui_xgrow(m->lines, &m->lines_cap, m->nlines, sizeof *m->lines, 16);
    l = &m->lines[m->nlines++];
    l->off = m->text.len;
    l->len = 0;
    l->kind = kind;
    l->hang = 0;
    return l;
}

static void
end_line(tui_md *m)
{
    tui_md_line_info *l = &m->lines[m->nlines - 1];
    l->len = m->text.len - l->off;
}

static int
is_word(char c)
{
    return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

/* The closing run of N marker characters C for an opening at S[from..]:
** preceded by a non-space, not followed by more C (for '_': nor by a word
** character).  Returns its offset or SIZE_MAX. */
static size_t
find_close(const char *s, size_t n, size_t from, char c, size_t run)
{
    for (size_t j = from + 1; j + run <= n; j++) {
        size_t k = 0;
        while (j + k < n && s[j + k] == c)
            k++;
        if (k == 0)
            continue;
        if (k == run && s[j - 1] != ' ' && s[j - 1] != '\t' &&
            (c != '_' || j + k == n || !is_word(s[j + k])))
            return j;
        j += k - 1;
    }
    return SIZE_MAX;
}

/* Inline Markdown of one line: code spans, **strong**, *em*, \escapes. */
static void
inline_md(tui_md *m, const char *s, size_t n, unsigned base)
{
    size_t close_strong = SIZE_MAX, close_em = SIZE_MAX;
    unsigned st = base;
    size_t i = 0;

    while (i < n) {
        char c = s[i];

        if (c == '\\' && i + 1 < n && strchr("\\`*_#[]()-+.!>~", s[i + 1]) && s[i + 1]) {
            emit(m, s + i + 1, 1, st);
            i += 2;
            continue;
        }
        if (c == '`') {
            size_t k = 0, j;
            while (i + k < n && s[i + k] == '`')
                k++;
            for (j = i + k; j < n; j++) {
                size_t r = 0;
                while (j + r < n && s[j + r] == '`')
                    r++;
                if (r == k)
                    break;
                j += r ? r - 1 : 0;
            }
            if (j < n) {
                emit(m, s + i + k, j - (i + k), st | TUI_MD_CODE);
                i = j + k;
            } else {
                emit(m, s + i, k, st);
                i += k;
            }
            continue;
        }
        if (c == '*' || c == '_') {
            size_t run = i + 1 < n && s[i + 1] == c ? 2 : 1;
            unsigned flag = run == 2 ? TUI_MD_STRONG : TUI_MD_EM;
            size_t *close = run == 2 ? &close_strong : &close_em;

            if (*close == i) {                         /* the closing run */
                st &= ~flag;
                *close = SIZE_MAX;
                i += run;
                continue;
            }
            if (!(st & flag) && i + run < n && s[i + run] != ' ' && s[i + run] != '\t' &&
                (c != '_' || i == 0 || !is_word(s[i - 1]))) {
                size_t j = find_close(s, n, i + run, c, run);
                if (j != SIZE_MAX && j > i + run) {
                    st |= flag;
                    *close = j;
                    i += run;
                    continue;
                }
            }
            emit(m, s + i, run, st);
            i += run;
            continue;
        }
        emit(m, s + i, 1, st);
        i++;
    }
}

static int
is_keyword(const char *w, size_t n)
{
    static const char *const kw[] = {
        "if", "else", "elif", "for", "while", "do", "return", "break", "continue", "switch",
        "case", "default", "def", "class", "function", "fn", "let", "var", "const", "static",
        "struct", "enum", "import", "from", "as", "in", "is", "not", "and", "or", "try",
        "except", "catch", "finally", "raise", "throw", "new", "delete", "true", "false",
        "True", "False", "None", "null", "nil", "void", "int", "char", "float", "double",
        "long", "unsigned", "bool", "auto", "pub", "use", "mod", "impl", "self", "this",
        "async", "await", "yield", "lambda", "with", "package", "func", "type", "interface",
        "then", "fi", "done", "esac", "local", "export", "typedef", "sizeof", "goto", "match",
    };

    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
        if (strlen(kw[i]) == n && memcmp(kw[i], w, n) == 0)
            return 1;
    return 0;
}

/* One line of a code block with simple highlighting.  HASH: '#' starts a
** comment (shell, Python, YAML, ... or no language given). */
static void
code_line(tui_md *m, const char *s, size_t n, int hash)
{
    const unsigned b = TUI_MD_BLOCK;
    size_t i = 0;

    while (i < n) {
        char c = s[i];
        if (c == '"' || c == '\'') {
            size_t j = i + 1;
            while (j < n && s[j] != c) {
                if (s[j] == '\\' && j + 1 < n)
                    j++;
                j++;
            }
            if (j < n)
                j++;
            emit(m, s + i, j - i, b | TUI_MD_STRING);
            i = j;
            continue;
        }
        if ((c == '/' && i + 1 < n && s[i + 1] == '/') ||
            (c == '#' && hash && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t'))) {
            emit(m, s + i, n - i, b | TUI_MD_COMMENT);
            return;
        }
        if (isalpha((unsigned char)c) || c == '_') {
            size_t j = i;
            while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '_'))
                j++;
            emit(m, s + i, j - i, b | (is_keyword(s + i, j - i) ? TUI_MD_KEYWORD : 0));
            i = j;
            continue;
        }
        emit(m, s + i, 1, b);
        i++;
    }
}

/* A fence at S: returns its length (3+) and sets *CH, else 0. */
static size_t
fence(const char *s, size_t n, char *ch)
{
    size_t i = 0, k = 0;

    while (i < n && i < 3 && s[i] == ' ')
        i++;
    if (i >= n || (s[i] != '`' && s[i] != '~'))
        return 0;
    while (i + k < n && s[i + k] == s[i])
        k++;
    if (k < 3)
        return 0;
    *ch = s[i];
    return i + k;
}

/* The line L (LL bytes) opens a fenced block: the fence's length, *CH its
** character; else 0.  A ``` fence with a backtick after it is inline code. */
static size_t
open_fence(const char *l, size_t ll, char *ch)
{
    size_t k = fence(l, ll, ch);

    return k && (*ch == '~' || !memchr(l + k, '`', ll - k)) ? k : 0;
}

/* The line closes a block opened by FLEN characters FCH: a fence of the
** same character, at least as long, nothing after it but blanks (a CR
** too: a saved CRLF text, as M-k reads it). */
static int
close_fence(const char *l, size_t ll, char fch, size_t flen)
{
    char ch;
    size_t k = fence(l, ll, &ch), r = k;

    while (r < ll && (l[r] == ' ' || l[r] == '\t' || l[r] == '\r'))
        r++;
    return k && ch == fch && k >= flen && r == ll;
}

static int
hash_lang(const char *lang)
{
    static const char *const h[] = { "", "sh", "bash", "shell", "zsh", "console", "python",
                                      "py", "ruby", "rb", "yaml", "yml", "toml", "perl",
                                      "r", "make", "makefile", "dockerfile", "conf", "ini" };

    for (size_t i = 0; i < sizeof h / sizeof h[0]; i++)
        if (strcmp(lang, h[i]) == 0)
            return 1;
    return 0;
}

size_t
tui_md_think_len(const char *src, size_t n)
{
    static const char open[] = "<think", close[] = "</think>";
    const size_t no = sizeof open - 1, nc = sizeof close - 1;

    if (n < no || memcmp(src, open, no) != 0)
        return 0;
    for (size_t i = no; i + nc <= n; i++)
        if (memcmp(src + i, close, nc) == 0)
            return i + nc;
    return n;
}

/* The N bytes of a reasoning block at SRC, as written, one THINK line per
** line. */
static void
think_lines(tui_md *m, const char *src, size_t n)
{
    size_t i = 0;

    for (;;) {
        size_t e = i;
        while (e < n && src[e] != '\n')
            e++;
        begin_line(m, TUI_MD_THINK);
        emit(m, src + i, e - i, 0);
        end_line(m);
        if (e >= n)
            break;
        i = e + 1;
    }
}

void
tui_md_render(tui_md *m, const char *src, size_t n, int utf8)
{
    size_t i = 0, think = tui_md_think_len(src, n);
    int in_code = 0, hash = 0;
    char fch = 0;
    size_t flen = 0;

    tui_buf_clear(&m->text);
    tui_buf_add(&m->text, "", 0);
    m->nlines = 0;
    if (think > 0) {
        /* the reasoning, then the answer from its first visible character */
        think_lines(m, src, think);
        while (think < n && (src[think] == ' ' || src[think] == '\n'))
            think++;
        if (think == n)
            return;
        src += think;
        n -= think;
    }
    for (;;) {
        size_t e = i, k;
        const char *l;
        size_t ll;
        char ch;

        while (e < n && src[e] != '\n')
            e++;
        l = src + i;
        ll = e - i;
        k = in_code ? 0 : open_fence(l, ll, &ch);
        if (in_code) {
            if (close_fence(l, ll, fch, flen)) {
                in_code = 0;                     /* closing fence: not shown */
            } else {
                begin_line(m, TUI_MD_CODELINE);
                code_line(m, l, ll, hash);
                end_line(m);
            }
        } else if (k) {
            char lang[MD_LANG_MAX];
            size_t a = k, z;
            while (a < ll && l[a] == ' ')
                a++;
            for (z = 0; a + z < ll && z + 1 < sizeof lang && !isspace((unsigned char)l[a + z]); z++)
                lang[z] = (char)tolower((unsigned char)l[a + z]);
            lang[z] = '\0';
            in_code = 1;
            fch = ch;
            flen = k;
            hash = hash_lang(lang);
        } else {
            size_t h = 0, sp = 0, mk = 0;
            while (h < ll && h < 7 && l[h] == '#')
                h++;
            while (sp < ll && sp <= MD_MAX_LIST_INDENT && l[sp] == ' ')
                sp++;
            if (sp < ll && sp <= MD_MAX_LIST_INDENT) {
                if ((l[sp] == '-' || l[sp] == '*' || l[sp] == '+') && sp + 1 < ll && l[sp + 1] == ' ')
                    mk = 1;
                else {
                    size_t d = sp;
                    while (d < ll && d - sp < 9 && isdigit((unsigned char)l[d]))
                        d++;
                    if (d > sp && d + 1 < ll && (l[d] == '.' || l[d] == ')') && l[d + 1] == ' ')
                        mk = d + 1 - sp;
                }
            }
            if (h >= 1 && h <= 6 && (h == ll || l[h] == ' ')) {
                while (h < ll && l[h] == ' ')
                    h++;
                begin_line(m, TUI_MD_HEAD);
                inline_md(m, l + h, ll - h, TUI_MD_HEADING);
                end_line(m);
            } else if (mk) {
                tui_md_line_info *li = begin_line(m, TUI_MD_ITEM);
                size_t rest = sp + mk + 1;
                emit(m, l, sp, 0);
                if (mk == 1 && utf8)
                    emit(m, "\xe2\x80\xa2", 3, 0);      /* U+2022 bullet */
                else if (mk == 1)
                    emit(m, "-", 1, 0);
                else
                    emit(m, l + sp, mk, 0);
                emit(m, " ", 1, 0);
                li->hang = (int)(sp + mk + 1);
                while (rest < ll && l[rest] == ' ')
                    rest++;
                inline_md(m, l + rest, ll - rest, 0);
                end_line(m);
            } else {
                begin_line(m, TUI_MD_TEXT);
                inline_md(m, l, ll, 0);
                end_line(m);
            }
        }
        if (e >= n)
            break;
        i = e + 1;
    }
    if (m->nlines == 0) {           /* only a fence: still one (empty) line */
        begin_line(m, TUI_MD_TEXT);
        end_line(m);
    }
}

size_t
tui_md_code_blocks(const char *src, size_t n, tui_md_block **out)
{
    tui_md_block *b = NULL;
    size_t nb = 0, cap = 0, i = 0, flen = 0;
    int in_code = 0;
    char fch = 0;

    for (;;) {
        size_t e = i;
        while (e < n && src[e] != '\n')
            e++;
        if (in_code && close_fence(src + i, e - i, fch, flen)) {
            in_code = 0;
            b[nb - 1].len = i > b[nb - 1].off ? i - 1 - b[nb - 1].off : 0;
            if (b[nb - 1].len > 0 && src[b[nb - 1].off + b[nb - 1].len - 1] == '\r')
                b[nb - 1].len--;        /* a CRLF block: its last line break whole */
        } else if (!in_code && (flen = open_fence(src + i, e - i, &fch)) > 0) {
            in_code = 1;
            b = tui_xgrow(b, &cap, nb, sizeof *b, 4);
            b[nb].off = e < n ? e + 1 : e;
            b[nb].len = 0;
            nb++;
        }
        if (e >= n)
            break;
        i = e + 1;
    }
    if (in_code)                 /* unclosed: runs to the end */
        b[nb - 1].len = n > b[nb - 1].off ? n - b[nb - 1].off : 0;
    *out = b;
    return nb;
}
