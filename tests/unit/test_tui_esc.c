/*
** test_tui_esc.c -- the escape-sequence scanner (tui_esc_feed, input.h)
** that the key reader uses for typed keys, pastes and the keys typed during
** a load: where a sequence ends, which bytes are none (Alt-key and the keys
** after it, or a paste's text), and where it needs more bytes.
*/
#include <string.h>

#include "../harness.h"
#include "../../tui/input.h"

/* Feed S (the bytes after an ESC) to a scanner: the length of the whole
** sequence when it ends at its last byte, 0 when some byte made it none,
** -1 when it still wants more; a sequence ended early counts as none. */
static int
scan(const char *s, int typed)
{
    tui_esc e;
    size_t n = strlen(s);

    tui_esc_start(&e, typed);
    for (size_t i = 0; i < n; i++) {
        int r = tui_esc_feed(&e, (unsigned char)s[i]);
        if (r == TUI_ESC_NONE)
            return 0;
        if (r == TUI_ESC_DONE)
            return i + 1 == n ? (int)n : 0;
    }
    return -1;
}

#define SEQ(s, typed, want) TEST_CONDF(scan(s, typed) == (want), \
    "%s %s: %d, want %d", typed ? "typed" : "pasted", #s, scan(s, typed), want)

static void
test_esc_typed(void)
{
    /* keys and reports a terminal sends */
    SEQ("[A", 1, 2);
    SEQ("OP", 1, 2);
    SEQ("[1;2A", 1, 5);
    SEQ("[21~", 1, 4);
    SEQ("[200~", 1, 5);
    SEQ("[201~", 1, 5);
    SEQ("[[A", 1, 3);                  /* the Linux console's F1 */
    SEQ("[[E", 1, 3);
    SEQ("[99;5x", 1, 6);               /* unknown, with parameters: whole */
    SEQ("[?1;2c", 1, 6);
    SEQ("[<0;10;5M", 1, 9);            /* SGR mouse */
    SEQ("[M !!", 1, 5);                /* X10 mouse: three bytes after */
    SEQ("[M\xff\xfe\xfd", 1, 5);       /* (coordinates past 0x7f) */
    SEQ("[M !", 1, -1);
    SEQ("[I", 1, 2);                   /* focus in/out */
    SEQ("[O", 1, 2);
    SEQ("[Z", 1, 2);                   /* back-tab */
    SEQ("O5Q", 1, 3);
    SEQ("[2 q", 1, 4);                 /* an intermediate byte */
    SEQ("]11;rgb:0/0/0\a", 1, 14);
    SEQ("]11;rgb:0/0/0\x1b\\", 1, 15);
    SEQ("P1$r0m\x1b\\", 1, 8);
    SEQ("_x\a", 1, 3);
    /* Alt-[ (Alt-O, Alt-P, Alt-]) and a key: none */
    SEQ("[x", 1, 0);
    SEQ("[g", 1, 0);
    SEQ("Ox", 1, 0);
    SEQ("Oz", 1, 0);
    SEQ("[[x", 1, 0);
    SEQ("[\x7f", 1, 0);
    SEQ("[\xc3", 1, 0);                /* a UTF-8 letter's first byte */
    SEQ("[\r", 1, 0);
    SEQ("[1;\x1b", 1, 0);              /* cut by the next key's ESC */
    SEQ("[1 2m", 1, 0);                /* a parameter after an intermediate */
    SEQ("O q", 1, 0);
    SEQ("]x\x1bx", 1, 0);              /* an ESC in a string that is no ST */
    SEQ("x", 1, 0);
    SEQ("\x1b", 1, 0);
    /* more needed: a pause then makes them none (the reader's) */
    SEQ("[", 1, -1);
    SEQ("[12;", 1, -1);
    SEQ("O", 1, -1);
    SEQ("P", 1, -1);
    SEQ("Px", 1, -1);
    SEQ("]0;title", 1, -1);
    SEQ("]0;title\x1b", 1, -1);
    SEQ("[[", 1, -1);
}

static void
test_esc_pasted(void)
{
    /* in a paste every well-formed sequence is one */
    SEQ("[x", 0, 2);
    SEQ("Ox", 0, 2);
    SEQ("[31m", 0, 4);
    SEQ("[38;2;255;255;255;48;2;0;0;0m", 0, 29);
    SEQ("[M", 0, 2);                   /* no mouse report in a paste */
    SEQ("]0;my title\a", 0, 12);
    SEQ("P1$r0m\x1b\\", 0, 8);
    /* none: the ESC dropped alone, the bytes text */
    SEQ("x", 0, 0);
    SEQ("[12;\xc3", 0, 0);
    SEQ("]0;t\x1b[", 0, 0);            /* a string cut by the end marker */
    SEQ("[[x", 0, 0);
    SEQ("[", 0, -1);
}

int
main(void)
{
    test_esc_typed();
    test_esc_pasted();
    return TEST_REPORT();
}
