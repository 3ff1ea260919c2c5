#!/usr/bin/env bash
# tests/tui/popup_cancel.sh -- the error dialog (an error too long for the
# footer) is closed by C-c as by Esc, and closing it never cancels the
# reply running behind it.  Esc and C-c are twins everywhere (F1: "Esc,
# C-c"), but here Esc only closed the dialog while C-c closed it and also
# stopped the reply: a user dismissing "a reply is still running (Esc
# cancels it); your text is kept" with C-c lost the rest of the reply.
. "$(dirname "$0")/tmuxlib.sh"

NODEMO=1 W=40 H=20 tui_start --demo --no-db --max-tokens 1000000 --seed 6
# dismiss KEY: a long reply running, Enter with text opens the dialog, KEY
# closes it; the reply goes on.  Four checks.
dismiss() {
    type_text "go"
    keys Enter
    check "$1: generating" 'generating' 10
    type_text "more"
    keys Enter
    check "$1: the error dialog" 'any key closes' 5
    keys "$1"
    check_not "$1: the dialog closed" 'any key closes'
    sleep 0.5
    if screen | head -1 | grep -q 'generating' && ! screen | grep -q 'reply interrupted'; then ok; else
        fail "$1: the reply was cancelled: $(screen | head -1) / $(screen | tail -1)"
    fi
    keys C-u
}
dismiss Escape
keys Escape               # now the reply is stopped, on purpose
check "Esc (no dialog) stops it" 'reply interrupted' 10
wait_idle
dismiss C-c
keys C-c
check "C-c (no dialog) stops it" 'reply interrupted' 10
wait_idle
sleep 0.3
tui_quit
tui_finish
