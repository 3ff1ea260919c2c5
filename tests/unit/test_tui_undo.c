/*
** test_tui_undo.c -- undo in the message box (tui/input.c, C-_): every
** change keeps the text before it; characters inserted one after another
** are one step (a typed word, a paste), a break ends a step; kills, yanks,
** deletions and a text put in whole (an edit begun, a history entry) are
** steps of their own; sending forgets them; the steps kept are bounded.
** There was no undo: an accidental paste into a drafted message could only
** be cleared with the draft (C-u) or by hand.
*/
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "../../tui/input.h"

#define IS(in, s, c) (strcmp((in)->buf, (s)) == 0 && (in)->cur == (size_t)(c))

/* S typed one character at a time, as the box takes keys and pastes */
static void
type(tui_input *in, const char *s)
{
    for (; *s; s++)
        tui_input_insert(in, s, 1);
}

static void
test_steps(void)
{
    tui_input in;
    char *s;

    tui_input_init(&in);
    TEST_COND("nothing to undo", tui_input_undo(&in) == 0 && IS(&in, "", 0));
    type(&in, "hello");
    tui_input_undo_break(&in);        /* (the box: a typed blank) */
    type(&in, " world");
    TEST_COND("typed", IS(&in, "hello world", 11));
    TEST_COND("undo: the last word", tui_input_undo(&in) == 1 && IS(&in, "hello", 5));
    TEST_COND("undo: the first word", tui_input_undo(&in) == 1 && IS(&in, "", 0));
    TEST_COND("undo: nothing left", tui_input_undo(&in) == 0);

    /* a paste into a draft: one step, the draft stays */
    type(&in, "draft");
    tui_input_left(&in);
    tui_input_left(&in);
    type(&in, "PASTED\nTEXT");        /* moved: a step of its own */
    TEST_COND("pasted mid", IS(&in, "draPASTED\nTEXTft", 14));
    TEST_COND("undo the paste", tui_input_undo(&in) == 1 && IS(&in, "draft", 3));

    /* C-u, C-w, Backspace, Delete, C-y: each a step */
    tui_input_end(&in);
    tui_input_kill_all(&in);
    TEST_COND("C-u", IS(&in, "", 0));
    TEST_COND("undo C-u", tui_input_undo(&in) == 1 && IS(&in, "draft", 5));
    tui_input_backspace(&in);
    tui_input_backspace(&in);
    TEST_COND("two backspaces", IS(&in, "dra", 3));
    TEST_COND("undo one backspace", tui_input_undo(&in) == 1 && IS(&in, "draf", 4));
    tui_input_home(&in);
    tui_input_delete(&in);
    TEST_COND("delete", IS(&in, "raf", 0));
    TEST_COND("undo delete", tui_input_undo(&in) == 1 && IS(&in, "draf", 0));
    tui_input_end(&in);
    tui_input_kill_word(&in);
    tui_input_yank(&in);
    tui_input_yank(&in);
    TEST_COND("C-w, C-y C-y", IS(&in, "drafdraf", 8));
    TEST_COND("undo the second yank", tui_input_undo(&in) == 1 && IS(&in, "draf", 4));
    TEST_COND("undo the first yank", tui_input_undo(&in) == 1 && IS(&in, "", 0));
    TEST_COND("undo C-w", tui_input_undo(&in) == 1 && IS(&in, "draf", 4));

    /* a text put in whole (M-e's edit, a history entry): undo gives the
    ** text it replaced back */
    tui_input_set(&in, "the edited message");
    TEST_COND("undo a set", tui_input_undo(&in) == 1 && IS(&in, "draf", 4));

    /* keys that change nothing keep no step */
    tui_input_home(&in);
    tui_input_backspace(&in);
    tui_input_kill_word_prev(&in);
    tui_input_end(&in);
    tui_input_delete(&in);
    type(&in, "!");
    TEST_COND("undo after no-op keys: the typed one", tui_input_undo(&in) == 1 &&
              IS(&in, "draf", 4));

    /* sent: nothing to undo */
    type(&in, " more");
    s = tui_input_take(&in);
    TEST_COND("sent", s != NULL && strcmp(s, "draf more") == 0 && IS(&in, "", 0));
    free(s);
    TEST_COND("after sending: nothing to undo", tui_input_undo(&in) == 0 && IS(&in, "", 0));
    tui_input_fini(&in);
}

/* At most TUI_INPUT_UNDO steps: the oldest go; a selection typed over is
** one step with what replaced it */
static void
test_bounds(void)
{
    tui_input in;
    int n = 0;

    tui_input_init(&in);
    for (int i = 0; i < TUI_INPUT_UNDO + 20; i++) {
        type(&in, "w");
        tui_input_undo_break(&in);
    }
    while (tui_input_undo(&in))
        n++;
    TEST_CONDF(n == TUI_INPUT_UNDO, "%d steps undone", n);
    TEST_COND("the oldest went", in.len == 20);
    tui_input_set(&in, "selected");
    tui_input_select_all(&in);
    type(&in, "new");
    TEST_COND("typed over a selection", IS(&in, "new", 3));
    TEST_COND("undo: the selection's text back", tui_input_undo(&in) == 1 &&
              IS(&in, "selected", 8) && !in.sel);
    tui_input_fini(&in);
}

int
main(void)
{
    if (setlocale(LC_ALL, "C.UTF-8") == NULL)
        setlocale(LC_ALL, "en_US.UTF-8");
    test_steps();
    test_bounds();
    return TEST_REPORT();
}
