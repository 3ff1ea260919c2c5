#!/usr/bin/env bash
# tests/tui/sessions_prompt_refused.sh -- F2's budget (C-b) and rename (C-r)
# prompts follow the rule of every value prompt (prompt_refused.sh): a value
# refused keeps the prompt open holding the text, its label as it was, the
# reason in the dialog above; the correction goes into the prompt and Enter
# takes it, Esc gives up back to F2.  The budget prompt closed on a wrong
# size (what was typed next went to the message box); the rename prompt
# opened again empty under another label.
. "$(dirname "$0")/tmuxlib.sh"

# the footer (the last line) is prompt LABEL holding TEXT
# (polls 5 s: on a slow machine the footer lags the keys)
prompt_holds() {
    local i=0
    while [ $i -lt 50 ]; do
        screen | tail -1 | grep -Eq -- "^$2 *\$" && { ok; return; }
        sleep 0.1
        i=$((i + 1))
    done
    fail "$1: the footer is not /$2/: $(screen | tail -1)"
}
# title_is WANT: the saved title comes to be WANT within 5 s (the screen
# shows the typed title in the prompt before Enter is taken)
title_is() {
    local i=0
    while [ $i -lt 50 ]; do
        [ "$(sqlite3 "$DB" "select title from sessions")" = "$1" ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
user_turns() { sqlite3 "$DB" "select count(*) from turns where role=1"; }
LABEL='saved states: [0-9.]+ (kB|MB), no budget; budget \(500MB, 2GB, off\): '

tui_start --max-tokens 5 --seed 3
type_text "first words"
send
keys F2
check "sessions menu" ' Sessions '

# --- C-b: a wrong size, then its correction ----------------------------------
keys C-b
check "budget asked" "$LABEL"
type_text "lots"
keys Enter
check "lots refused" "budget: 'lots' is not a size \(500MB, 2GB, 1.5GiB, or off\)"
check "the dialog says what to do" 'correct it, then Enter  Esc gives up'
prompt_holds "budget: the prompt holds the text" "${LABEL}lots"
keys C-u
type_text "0"
prompt_holds "budget: the correction goes into the prompt" "${LABEL}0"
keys Enter
check "0 refused" "a budget of 0 bytes would drop every state: say 'off' for none"
prompt_holds "budget: the prompt holds 0" "${LABEL}0"
keys BSpace
type_text "2GB"
keys Enter
check "the corrected size applied" 'budget 2 GB: the saved states fit'
check_not "the dialog went" 'correct it, then Enter'
[ "$(sqlite3 "$DB" "select value from settings where key='state_budget'")" = 2000000000 ] && ok ||
    fail "the budget saved: $(sqlite3 "$DB" "select * from settings")"
# a wrong size, then Esc: back to F2, nothing set
keys C-b C-u
type_text "huge"
keys Enter
check "huge refused" "budget: 'huge' is not a size"
keys Escape
check_not "Esc: the dialog goes" 'correct it, then Enter'
check "Esc: back in F2" ' Sessions '
[ "$(sqlite3 "$DB" "select value from settings where key='state_budget'")" = 2000000000 ] && ok ||
    fail "after Esc: $(sqlite3 "$DB" "select * from settings")"

# --- C-r: an empty title, then its correction --------------------------------
keys C-r
check "rename asked" 'new title: first words'
keys C-u Enter
check "an empty title refused" 'a title cannot be empty: type one \(Esc keeps the old one\)'
check "the rename dialog" 'correct it, then Enter  Esc gives up'
prompt_holds "rename: the prompt keeps its label" 'new title:'
type_text "second name"
prompt_holds "rename: the title goes into the prompt" 'new title: second name'
keys Enter
check "renamed (F2 back)" 'second name'
title_is "second name" && ok ||
    fail "the title saved: $(sqlite3 "$DB" "select title from sessions")"
# blanks, then Esc: the old title kept
keys C-r C-u
type_text "   "
keys Enter
check "blanks refused" 'a title cannot be empty'
keys Escape
check "Esc: back in F2 (rename)" ' Sessions '
[ "$(sqlite3 "$DB" "select title from sessions")" = "second name" ] && ok ||
    fail "after Esc: $(sqlite3 "$DB" "select title from sessions")"
keys Escape
check_not "F2 closed" ' Sessions '
[ "$(user_turns)" = 1 ] && ok || fail "a correction was sent as a message: $(user_turns) user turns"
tui_quit
tui_finish
