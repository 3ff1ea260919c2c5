#!/usr/bin/env bash
# tests/tui/history_cut.sh -- a message longer than the history keeps
# (16 KiB: its session has it whole).  After a restart Up brought back its
# first 16 KiB, cut mid-word, with no sign of it, and Enter sent that part.
# Now the history file marks such an entry ("c TEXT") and Up says it is
# only the start of the message; an entry kept whole says nothing.
. "$(dirname "$0")/tmuxlib.sh"

HF=$XDG_STATE_HOME/rwkv-tui/history
python3 -c 'import sys; sys.stdout.write("long " + "word " * 4000 + "END")' >"$TMP/long"
tui_start --max-tokens 2 --seed 3
type_text 'a short one'
send
tmx load-buffer "$TMP/long"
tmx paste-buffer -p
check "the long paste in the box" 'word word'
send
type_text 'the last one'
send
tui_quit
grep -q '^c long word' "$HF" && ok || fail "the cut entry is not marked: $(cut -c1-40 "$HF")"
grep -qx 's a short one' "$HF" && ok || fail "a whole entry: $(cut -c1-40 "$HF")"

tui_start --max-tokens 2 --seed 3
keys Up
check "Up: the last message" '^> the last one'
check_not "... whole: no word of a cut" 'only the first 16 KiB' 1
keys C-u Up
check "Up again: the long one, cut" 'this history entry is only the first 16 KiB of the message'
check_not "... its end is not there" 'END' 1
keys C-u Up              # (Up in the long one walks its rows)
check "Up again: the short one" '^> a short one'
check_not "... whole: the notice goes with the next key" 'only the first 16 KiB' 3
keys C-u
tui_quit
grep -q '^c long word' "$HF" && ok || fail "saved again: the mark kept: $(cut -c1-40 "$HF")"
tui_finish
