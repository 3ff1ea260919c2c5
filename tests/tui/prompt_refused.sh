#!/usr/bin/env bash
# tests/tui/prompt_refused.sh -- one rule for every value prompt: a value it
# refuses (M-R's count, F8's ban list, F5's strategy, a sidebar value, a
# built-in preset's name in F4) keeps the prompt open holding the text typed,
# the reason in a dialog above it; what is typed next corrects it (it never
# lands in the message box to be sent), Enter tries the corrected text and
# Esc gives up (back to the menu it came from).
. "$(dirname "$0")/tmuxlib.sh"

# the footer (the last line) is prompt LABEL holding TEXT
prompt_holds() {
    if wait_for '.' 1 && screen | tail -1 | grep -Eq -- "^$2 *\$"; then ok; else
        fail "$1: the footer is not /$2/: $(screen | tail -1)"
    fi
}
user_turns() { sqlite3 "$DB" "select count(*) from turns where role=1"; }

tui_start --max-tokens 5 --seed 3
type_text "first words"
send
[ "$(user_turns)" = 1 ] && ok || fail "one user turn after the first message: $(user_turns)"

# --- M-R: a count out of range, then the user's retry -----------------------
keys M-R
check "M-R asks" 'alternatives \(1-16\): 3'
keys C-u
type_text "17"
keys Enter
check "17 refused" "alternatives: '17' is not a number from 1 to 16"
check "the dialog says what to do" 'correct it, then Enter  Esc gives up'
prompt_holds "M-R: the prompt holds the text" 'alternatives \(1-16\): 17'
keys C-u
type_text "2"
prompt_holds "M-R: the retry goes into the prompt" 'alternatives \(1-16\): 2'
keys Enter
check "the corrected count is used" '2 alternatives made, each a branch' 60
wait_idle
check_not "the dialog went" 'correct it, then Enter'
[ "$(user_turns)" = 1 ] && ok || fail "M-R's retry was sent as a message: $(user_turns) user turns"

# text, then Esc gives up: nothing made, nothing sent
keys M-R C-u
type_text "two"
keys Enter
check "text refused" "alternatives: 'two' is not a number from 1 to 16"
prompt_holds "M-R: the prompt holds 'two'" 'alternatives \(1-16\): two'
keys Escape
check_not "Esc: the dialog goes" 'correct it, then Enter'
screen | tail -1 | grep -q 'alternatives' && fail "Esc: the prompt is still open" || ok
[ "$(user_turns)" = 1 ] && ok || fail "after Esc: $(user_turns) user turns"

# --- F8: a ban list that does not parse, then one outside the vocabulary ----
keys F8
check "framing menu" ' Framing of this session'
keys Down Down Down Down
keys Enter
check "ban prompt" 'banned token ids \(1,2,3\):'
keys C-u
type_text "1,abc"
keys Enter
check "1,abc refused" "framing: ban: '1,abc' is not a comma-separated list of token ids"
prompt_holds "ban: the prompt holds the text" 'banned token ids \(1,2,3\): 1,abc'
keys C-u
type_text "1,300"
keys Enter
check "1,300 refused" 'banned token id 300 is outside the vocabulary'
prompt_holds "ban: the prompt holds 1,300" 'banned token ids \(1,2,3\): 1,300'
keys Escape
check "Esc: back in F8" ' Framing of this session'
check "the ban unchanged" 'ban +\(none\)'
keys Escape
check_not "F8 closed" ' Framing of this session'
# corrected: applied
keys F8 Down Down Down Down Enter C-u
type_text "1,xyz"
keys Enter
check "1,xyz refused" "'1,xyz' is not a comma-separated list"
keys BSpace BSpace BSpace
type_text "7"
prompt_holds "ban: edited in place" 'banned token ids \(1,2,3\): 1,7'
keys Enter
check "the corrected ban applied" 'framing changed'
keys F8
check "F8 shows the ban" 'ban +1,7'
keys Escape
check_not "F8 closed again" ' Framing of this session'

# --- F5 C-s: a strategy that does not parse ----------------------------------
keys F5
check "models menu" ' Models'
keys C-s
check "strategy prompt" 'strategy: '
keys C-u
type_text "cpu fp33"
keys Enter
check "cpu fp33 refused" "invalid strategy 'cpu fp33'"
prompt_holds "strategy: the prompt holds the text" 'strategy: cpu fp33'
keys Escape
check "Esc: back in F5" ' Models'
keys Escape
check_not "F5 closed" ' Models '

# --- the sidebar's value prompt ------------------------------------------------
keys Tab
check "sidebar focus" 'Enter +type a value'
keys Down Down Down Down Down Down     # temperature, top-p, top-k, presence, frequency, decay, max-tokens
keys Enter
check "value prompt" 'max-tokens \[1\.\.1000000\]'
keys C-u
type_text "0"
keys Enter
check "0 refused" 'out of range'
prompt_holds "max-tokens: the prompt holds 0" 'max-tokens \[1\.\.1000000\]: 0'
keys BSpace
type_text "7"
keys Enter
check "corrected value set" 'max-tokens +7 *$'
keys Tab

# --- F4 C-s: a built-in preset's name is refused at once ----------------------
for name in demo state; do
    keys F4
    check "presets ($name)" ' Presets '
    keys C-s
    check "preset name prompt ($name)" 'save preset as:'
    type_text "$name"
    keys Enter
    check "$name refused" "'$name' is a built-in preset and cannot be changed: choose another name"
    check_not "never asked to replace ($name)" 'Enter replaces it' 1
    prompt_holds "$name: the prompt holds the name" "save preset as: $name"
    keys C-u
    type_text "my$name"
    keys Enter
    check "another name saved ($name)" "preset 'my$name' saved"
done
[ "$(sqlite3 "$DB" "select count(*) from presets where name in ('mydemo','mystate')")" = 2 ] &&
    ok || fail "the presets were not saved"
# 'user' is no built-in: it is replaced after the question
keys F4 C-s
type_text "user"
keys Enter
check "user: asks first" 'preset exists: Enter replaces it'
keys Enter
check "user replaced" "preset 'user' saved"

[ "$(user_turns)" = 1 ] && ok || fail "at the end: $(user_turns) user turns"
tui_quit
tui_finish
