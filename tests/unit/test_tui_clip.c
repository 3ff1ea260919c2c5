/*
** test_tui_clip.c -- OSC 52 (tui/clip.c): base64 against the RFC 4648
** test vectors, the sequence's bytes, tmux's passthrough wrapping, and the
** fenced code blocks the copy key takes (tui_md_code_blocks).
*/
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "../../tui/clip.h"
#include "../../tui/markdown.h"

static int
b64_is(const char *in, const char *want)
{
    tui_buf b;
    int r;

    tui_buf_init(&b);
    tui_base64(&b, in, strlen(in));
    r = b.p && strcmp(b.p, want) == 0;
    tui_buf_fini(&b);
    return r;
}

static void
test_osc52(void)
{
    tui_buf b;
    const char *plain = "\033]52;c;aGk=\a";

    /* RFC 4648 section 10 */
    TEST_COND("base64 ''", b64_is("", ""));
    TEST_COND("base64 f", b64_is("f", "Zg=="));
    TEST_COND("base64 fo", b64_is("fo", "Zm8="));
    TEST_COND("base64 foo", b64_is("foo", "Zm9v"));
    TEST_COND("base64 foob", b64_is("foob", "Zm9vYg=="));
    TEST_COND("base64 fooba", b64_is("fooba", "Zm9vYmE="));
    TEST_COND("base64 foobar", b64_is("foobar", "Zm9vYmFy"));
    TEST_COND("base64 high bytes", b64_is("\xff\xfe\xe4\xb8\xad", "//7kuK0="));

    tui_buf_init(&b);
    tui_clip_osc52(&b, "hi", 2, 0);
    TEST_COND("OSC 52 sequence", b.len == strlen(plain) && memcmp(b.p, plain, b.len) == 0);
    tui_buf_clear(&b);
    tui_clip_osc52(&b, "hi", 2, 1);
    TEST_COND("in tmux: plain, then passthrough with ESC doubled",
              b.p && strcmp(b.p, "\033]52;c;aGk=\a\033Ptmux;\033\033]52;c;aGk=\a\033\\") == 0);
    tui_buf_fini(&b);
}

static void
test_blocks(void)
{
    const char *md = "text\n```c\nint x;\nint y;\n```\nmid ```inline``` here\n"
                     "~~~~\nA\n~~~\nstill\n~~~~\n```\nunclosed\n";
    tui_md_block *bl;
    size_t n = tui_md_code_blocks(md, strlen(md), &bl);

    TEST_CONDF(n == 3, "3 blocks (got %zu)", n);
    if (n == 3) {
        TEST_COND("block 1: between the fences",
                  bl[0].len == 13 && memcmp(md + bl[0].off, "int x;\nint y;", 13) == 0);
        TEST_COND("block 2: a shorter fence does not close it",
                  bl[1].len == 11 && memcmp(md + bl[1].off, "A\n~~~\nstill", 11) == 0);
        TEST_COND("block 3: unclosed runs to the end",
                  bl[2].len == 9 && memcmp(md + bl[2].off, "unclosed\n", 9) == 0);
    }
    free(bl);
    n = tui_md_code_blocks("no code", 7, &bl);
    TEST_COND("none", n == 0);
    free(bl);
    n = tui_md_code_blocks("```\n```", 7, &bl);
    TEST_COND("an empty block", n == 1 && bl[0].len == 0);
    free(bl);
}

int
main(void)
{
    test_osc52();
    test_blocks();
    return TEST_REPORT();
}
