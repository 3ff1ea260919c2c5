#!/usr/bin/env bash
# tests/tui/raw_input.sh -- bytes a terminal really sends: a paste (or a
# Latin-1 terminal's typing) with ill-formed UTF-8 keeps everything, each
# bad sequence shown as U+FFFD (curses' get_wch dropped the rest of the
# paste silently); Esc followed at once by an Alt key (bytes ESC ESC x, an
# Esc storm) is Esc, then Alt-x -- the letter is not typed into the box; a
# paste over the message limit keeps whole characters and says what it cut.
. "$(dirname "$0")/tmuxlib.sh"

W=80 H=24 tui_start --max-tokens 3 --seed 5
paste_bytes() { printf "$1" >"$TMP/paste"; tmx load-buffer "$TMP/paste"; tmx paste-buffer -p; }

paste_bytes 'bad \xff\xfe mid \xe4\xb8 cut \xf0\x9f\x98 end\nSECOND LINE'
check "text after an ill-formed byte is kept" '^> bad �� mid � cut � end'
check "the next line of the paste too" '^  SECOND LINE'
send
check "sent whole" 'SECOND LINE'
check "the message box is empty again" '^> Type a message'

# a lone lead byte at the very end of a paste, then typing goes on
paste_bytes 'x\xe4\xb8'
type_text "y"
check "a sequence cut short, then a typed key" '^> x�y'
keys C-u

# Esc and an Alt key in one read: Esc, then Alt-k (M-k: copy a code block)
keys Escape M-k
check "Esc then M-k acts as M-k" 'has no code block'
check_not "and types nothing" '^> k' 2
keys Escape Escape Escape M-m
check "an Esc storm, then M-m" 'mouse reporting off'
check_not "nothing typed" '^> m' 2
keys M-m

# a paste over the message limit (1 MiB): whole characters kept, the cut said
python3 -c "import sys; sys.stdout.write(('abcdefghi ' * 99 + 'abcdefgé\n') * 1049 + 'x' * 576)" \
    >"$TMP/big"
[ "$(wc -c <"$TMP/big")" = $((1048576 + 1000)) ] && ok || fail "big paste: $(wc -c <"$TMP/big") bytes"
tmx load-buffer "$TMP/big"
tmx paste-buffer -p
check "the cut is said, in characters" 'the paste was too long: its last 999 characters were dropped' 60
keys M-l
check "in the log too" 'the paste was too long'
keys Escape
keys C-u
tui_quit
tui_finish
