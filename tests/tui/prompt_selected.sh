#!/usr/bin/env bash
# tests/tui/prompt_selected.sh -- a prompt or the search line that opens
# holding text (C-f's kept query, F3 C-w's default path, F5 C-s's strategy,
# a sidebar value) shows it selected, in reverse video, as a browser's find
# bar does: a character typed replaces it (it was appended to: C-f, zzzz,
# Esc, C-f, "NUMBER 31" searched "zzzzNUMBER 31"); Right, End and Left keep
# it and move the cursor, typing then adds to it; Backspace removes it
# whole; Enter takes it as it is.  A prompt opened again after a refusal
# holds the text to correct, not selected.
. "$(dirname "$0")/tmuxlib.sh"
SGR="python3 $(dirname "$0")/sgr.py"
# the attributes of TEXT in the footer (the transcript highlights matches too)
st() { tmx capture-pane -p -e | tail -1 | $SGR "$1"; }
footer() { screen | tail -1; }
# Esc alone (a key right after it within the escape wait would make an
# Alt-key of it): wait until the search line has closed
close_search() { keys Escape; check_not "search closed" '^search: '; }
# foot_is WHAT RE: the footer comes to match RE within 5 s (a search runs
# after the key that starts it: on a slow machine the line lags the key)
foot_is() {
    local i=0
    while [ $i -lt 50 ]; do
        footer | grep -Eq -- "$2" && { ok; return; }
        sleep 0.1
        i=$((i + 1))
    done
    fail "$1: the footer is not /$2/: $(footer)"
}
selected() {
    local s
    sleep 0.3
    s=$(st "$2")
    case $s in *'rev=1'*) ok ;; *) fail "$1: '$2' not shown selected (reverse): $s" ;; esac
}
unselected() {
    local s
    sleep 0.3
    s=$(st "$2")
    case $s in *'rev=0'*) ok ;; *) fail "$1: '$2' shown selected: $s" ;; esac
}

tui_start --max-tokens 3 --seed 5
type_text "filler message NUMBER 31 here"
send

# --- C-f: the kept query, selected; typing replaces it ----------------------
keys C-f
check "search line" '^search: '
type_text "zzzz"
foot_is "the query typed" '^search: zzzz +no match'
close_search
keys C-f
foot_is "the kept query shown again" '^search: zzzz'
selected "the kept query" 'zzzz'
type_text "NUMBER 31"
foot_is "typing replaced it" '^search: NUMBER 31 +1/1'
check_not "not appended" 'zzzzNUMBER'
unselected "typed text" 'NUMBER 31'
close_search
# Right keeps it, the cursor at its end: typing adds
keys C-f
selected "kept again" 'NUMBER 31'
keys Right
unselected "Right: no longer selected" 'NUMBER 31'
type_text " here"
foot_is "Right: typing adds at the end" '^search: NUMBER 31 here +1/1'
close_search
# Left keeps it, the cursor at its start
keys C-f
keys Left
type_text "message "
foot_is "Left: typing adds at the start" '^search: message NUMBER 31 here +1/1'
close_search
# End keeps it; Backspace then edits one character
keys C-f End BSpace
foot_is "End, Backspace: one character" '^search: message NUMBER 31 her +1/1'
close_search
# Backspace on the selection removes it whole
keys C-f BSpace
foot_is "Backspace: the selection goes" '^search: +Enter/Down next'
close_search
# Enter searches it again
keys C-f
type_text "filler"
close_search
keys C-f Enter
foot_is "Enter: the kept query found" '^search: filler +1/1'
close_search

# --- F3 C-w: the default path, selected; a path typed replaces it -----------
keys F3
check "state menu" 'State files'
keys C-w
check "path prompt" 'save the current state as: .*\.pth'
selected "the default path" 'rwkv-tui/states'
type_text "$TMP/x.pth"
foot_is "the path typed replaced it" "^save the current state as: $TMP/x\\.pth *\$"
keys Enter
check "saved where typed" 'state saved to .*x\.pth'
[ -f "$TMP/x.pth" ] && ok || fail "no $TMP/x.pth"

# --- F5 C-s: the strategy in use, selected; Enter takes it as it is ---------
keys F5 C-s
check "strategy prompt" 'strategy: cpu fp32'
selected "the strategy in use" 'cpu fp32'
type_text "cpu bf16"
unselected "what is typed" 'cpu bf16'
foot_is "the strategy typed replaced it" '^strategy: cpu bf16 *$'
keys Enter
check "the new strategy loaded" 'demo \| cpu bf16' 60
# refused: opened again holding the text to correct, not selected
keys F5 C-s
check "strategy prompt again" 'strategy: cpu bf16'
type_text "cpu foo"
keys Enter
check "cpu foo refused" "invalid strategy 'cpu foo'"
unselected "the refused text" 'cpu foo'
type_text "x"
foot_is "typing after a refusal adds to it" '^strategy: cpu foox *$'
keys Escape
check "Esc: back in F5" ' Models'
keys Escape
check_not "F5 closed" ' Models ' 

# --- the sidebar's value prompt: the value in use, selected -----------------
keys Tab
check "sidebar focus" 'Enter +type a value'
keys Down Down Down Down Down Down     # ... max-tokens
keys Enter
check "value prompt" 'max-tokens \[1\.\.1000000\]: 3'
type_text "7"
foot_is "the value typed replaced it" 'max-tokens \[1\.\.1000000\]: 7 *$'
keys Enter
check "the value set" 'max-tokens +7 *$'
keys Tab
tui_quit
tui_finish
