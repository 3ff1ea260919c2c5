/*
** menu_branches.c -- F6: the turns of the conversation; step a turn to its
** previous/next sibling, or edit one of your messages (the next send
** starts a new branch there).
*/
#include "menus.h"

#include <stdio.h>
#include <string.h>

static void
fill_branches(tui_menu *m, const struct app *a, tui_menu_msg *msg)
{
    (void)msg;
    for (int i = 0; i < a->tr.nturns; i++) {
        const tui_turn *t = &a->tr.turns[i];
        char label[128], detail[64] = "";
        size_t len;

        if (t->store_id == 0 || (t->role != TUI_TURN_USER && t->role != TUI_TURN_ASSISTANT))
            continue;
        len = strcspn(t->text.p, "\n");
        if (len > 80) {
            len = 80;
            while (len > 0 && ((unsigned char)t->text.p[len] & 0xC0) == 0x80)
                len--;
        }
        snprintf(label, sizeof label, "%s %.*s", t->role == TUI_TURN_USER ? "You: " : "RWKV:",
                 (int)len, t->text.p);
        if (t->sib_count > 1)
            snprintf(detail, sizeof detail, "< %d/%d >", t->sib_index, t->sib_count);
        tui_menu_add(m, label, detail[0] ? detail : NULL, NULL, t->store_id);
    }
}

static void
select_last(tui_menu *m, const struct app *a)
{
    (void)a;
    tui_menu_end(m);
}

static void
sibling(struct app *a, const tui_menu_item *it, int key)
{
    if (it == NULL)
        return;
    /* the menu stays; it is filled again when the switch is done */
    a->menu_sel_keep = a->menu.sel;
    tui_session_job(a, TUI_JOB_SIBLING, it->id, key == TUI_MK_FKEY(KEY_LEFT) ? -1 : +1, NULL);
}

static void
edit_turn(struct app *a, const tui_menu_item *it, int key)
{
    (void)key;
    if (it == NULL)
        return;
    for (int i = 0; i < a->tr.nturns; i++) {
        tui_turn *t = &a->tr.turns[i];
        if (t->store_id != it->id)
            continue;
        if (t->role == TUI_TURN_USER) {
            a->fork_turn = t->store_id;
            a->fork_pending = 1;
            tui_input_set(&a->in, t->text.p);
            tui_menu_close(a);
            tui_notice(a, 0, "edit and send: the message starts a new branch there");
        } else {
            tui_menu_close(a);
        }
        return;
    }
}

static const tui_menu_keydef branch_keys[] = {
    { TUI_MK_FKEY(KEY_LEFT), TUI_MK_FKEY(KEY_RIGHT), "Left/Right", "sibling",
      "previous/next sibling of the selected turn", sibling },
    { TUI_K_ENTER, 0, "Enter", "edit/fork", "on your message: edit it (starts a branch)",
      edit_turn },
    { 0, 0, NULL, NULL, NULL, NULL }
};

const tui_menu_class tui_menu_branches_class = {
    TUI_MENU_BRANCHES, CFG_ACT_BRANCHES, "Branches", "Branches of this conversation",
    fill_branches, select_last, NULL, branch_keys
};
