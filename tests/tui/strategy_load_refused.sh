#!/usr/bin/env bash
# tests/tui/strategy_load_refused.sh -- F5 C-s: a strategy that parses but
# that the load refuses (a GPU that is not there: device 7) keeps the
# prompt open holding the text, the reason in a dialog above it, as a
# strategy that does not parse does (prompt_refused.sh): what is typed next
# corrects it and never goes to the message box to be sent.
. "$(dirname "$0")/tmuxlib.sh"

prompt_holds() {
    if wait_for '.' 1 && screen | tail -1 | grep -Eq -- "^$2 *\$"; then ok; else
        fail "$1: the footer is not /$2/: $(screen | tail -1)"
    fi
}
turns() { sqlite3 "$DB" "select count(*) from turns" 2>/dev/null || echo 0; }

tui_start --max-tokens 3 --seed 5
keys F5
check "models menu" ' Models'
keys C-s
check "strategy prompt" 'strategy: '
keys C-u
type_text "cuda:7 fp16"
keys Enter
check "the load refused it" 'demo: not loaded: ' 60
check "in the prompt's dialog" 'correct it, then Enter  Esc gives up'
prompt_holds "the prompt holds the text" 'strategy: cuda:7 fp16'
check "the model in use stays" 'demo \| cpu fp32'
# typed next: into the prompt, not the message box
type_text " -> cpu"
prompt_holds "typing goes on in the prompt" 'strategy: cuda:7 fp16 -> cpu'
keys C-u
type_text "cpu fp32i4 *99 -> cpu"
prompt_holds "a new strategy typed in the prompt" 'strategy: cpu fp32i4 \*99 -> cpu'
check_not "nothing in the message box" '^> cpu fp32i4' 1
keys Escape
check "Esc: back in F5" ' Models'
keys Escape
check_not "F5 closed" ' Models ' 
[ "$(turns)" = 0 ] && ok || fail "a message was sent: $(turns) turns saved"
check "the box is empty" '^> Type a message'
# a strategy that loads: applied, the prompt closed
keys F5 C-s C-u
type_text "cpu bf16"
keys Enter
check "a strategy that loads is applied" 'demo \| cpu bf16' 60
check_not "no dialog" 'correct it, then Enter' 1
tui_quit
tui_finish
