/*
** markdown.h -- the Markdown a model writes, made ready for a terminal
** (house style G12: no curses; tui/transcript.c wraps the result and
** tui/view.c draws it).
**
** What is understood, one line at a time:
**   ``` / ~~~ fences       code blocks (an unclosed one runs to the end, so a
**                          reply being streamed looks right), highlighted:
**                          keywords, strings, comments
**   # .. ###### heading    the text, styled as a heading
**   - * + / 1. 2) items    bullets become U+2022 (or '-' without UTF-8);
**                          wrapped lines hang under the item's text
**   **strong** __strong__  *em* _em_ (not inside words)  `code`
** Markers that are not closed on their line are shown as typed.  Anything
** else is text.  A reply that starts with a reasoning block ("<think>" up
** to "</think>", or to the end while it is not closed: a reply being
** streamed; G1 models' think mode) has it as lines of its own, kept as
** written (tags too, no Markdown), before the rest.  The source is never
** changed: the rendering is a new buffer plus one style byte per byte of
** it.
*/
#ifndef RWKV_TUI_MARKDOWN_H
#define RWKV_TUI_MARKDOWN_H

#include <stddef.h>

#include "text.h"

/* Style bits, one byte per byte of rendered text. */
#define TUI_MD_STRONG  1u
#define TUI_MD_EM      2u
#define TUI_MD_CODE    4u     /* `inline code` */
#define TUI_MD_HEADING 8u
#define TUI_MD_BLOCK   16u    /* inside a fenced code block */
#define TUI_MD_KEYWORD 32u    /* (in a block) */
#define TUI_MD_STRING  64u
#define TUI_MD_COMMENT 128u

enum tui_md_line { TUI_MD_TEXT, TUI_MD_HEAD, TUI_MD_ITEM, TUI_MD_CODELINE, TUI_MD_THINK };

/* One rendered line: bytes [off, off+len) of the rendered text. */
typedef struct tui_md_line_info {
    size_t off, len;
    int    kind;       /* enum tui_md_line */
    int    hang;       /* ITEM: columns of indent + bullet, for wrapped rows */
} tui_md_line_info;

typedef struct tui_md {
    tui_buf           text;     /* rendered UTF-8, lines joined by '\n' */
    unsigned char    *style;    /* owned, text.len bytes */
    size_t            style_cap;
    tui_md_line_info *lines;    /* owned */
    size_t            nlines, lines_cap;
} tui_md;

void tui_md_init(tui_md *m);
void tui_md_fini(tui_md *m);

/*
** Render N bytes of sanitised UTF-8 SRC into M (replacing what it held).
** UTF8: bullets may be U+2022.
*/
void tui_md_render(tui_md *m, const char *src, size_t n, int utf8);

/* Bytes of the reasoning block N bytes of SRC start with: from "<think"
** to the end of "</think>", all N when it is not closed; 0 when SRC does
** not start with "<think". */
size_t tui_md_think_len(const char *src, size_t n);

/* A fenced code block's content in the source: bytes [off, off+len), the
** lines between the fences (no fence, no final newline). */
typedef struct tui_md_block {
    size_t off, len;
} tui_md_block;

/*
** The fenced code blocks of N bytes of Markdown SRC, found with the same
** rules as tui_md_render (an unclosed block runs to the end).  Returns the
** count; *OUT is malloc'ed (free(); NULL when there are none).
*/
size_t tui_md_code_blocks(const char *src, size_t n, tui_md_block **out);

#endif
