#!/usr/bin/env bash
# tests/tui/grapheme.sh -- grapheme clusters on a terminal that draws an
# emoji ZWJ sequence and a flag as one 2-column glyph (tmux 3.3+): the
# input cursor, the sidebar border and the text after them stay where they
# belong, and Backspace/Left take a whole cluster.
. "$(dirname "$0")/tmuxlib.sh"

FAM=$(printf '\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7')   # man ZWJ woman ZWJ girl
JP=$(printf '\xf0\x9f\x87\xaf\xf0\x9f\x87\xb5')                                         # flag: J P
THUMB=$(printf '\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd')                                      # thumbs up, skin tone
THUMB_SHOWN=$(printf '\xf0\x9f\x91\x8d')   # drawn without the tone: terminals disagree on its width

cursor_x() { tmx display -p '#{cursor_x}'; }
# cursor_at X: poll (10 s) until the cursor is at column X; x is the last seen
cursor_at() {
    local i
    for i in $(seq 100); do x=$(cursor_x); [ "$x" = "$1" ] && return 0; sleep 0.1; done
    return 1
}

# tmux must join the sequence itself for the test to mean anything (wait
# until the printf has run: the cursor leaves column 0)
tmx_fresh "printf 'A$FAM'; sleep 30"
for i in $(seq 50); do [ "$(cursor_x)" != 0 ] && break; sleep 0.1; done
if [ "$(cursor_x)" != 3 ]; then
    echo "this tmux does not draw ZWJ sequences as one glyph: skipping"
    tmx kill-server
    echo "0 passed, 0 failed"
    exit 0
fi

tui_start --max-tokens 3 --seed 1
# input box: "> " then A(1) family(2) B(1) flag(2) C(1) thumb(2) = column 2+9
type_text "A${FAM}B${JP}C${THUMB}"
if cursor_at 11; then ok; else fail "cursor after the clusters at column $x, want 11"; screen | tail -3; fi
keys Left
if cursor_at 9; then ok; else fail "Left over the skin-toned emoji: column $x, want 9"; fi
keys BSpace
check "Backspace deletes the whole character C" "> A${FAM}B${JP}${THUMB_SHOWN}"
keys BSpace
check "Backspace deletes the whole flag" "> A${FAM}B${THUMB_SHOWN}"
keys Left BSpace
check "Left and Backspace take the whole family" "> AB${THUMB_SHOWN} *$"
keys C-u C-k
type_text "A${FAM}B${JP}C"
send
type_text "AxxBxxC"
send
# both messages are 7 columns: the sidebar border follows at the same column
pad() { screen | grep -E -- "^  $1 +│" | head -1 | sed -E "s/^  $1( +)│.*/\1/" | tr -d '\n' | wc -c; }
p1=$(pad "A${FAM}B${JP}C")
p2=$(pad "AxxBxxC")
if [ "$p1" -gt 0 ] && [ "$p1" = "$p2" ]; then ok; else
    fail "sidebar border after the emoji row: $p1 spaces, after ASCII: $p2"; screen | head -12; fi
# every row's border at the same column: the sidebar is one straight line
cols=$(screen | head -20 | python3 -c '
import sys, unicodedata
def w(s):
    n = 0
    # count like tmux: a flag pair or a ZWJ sequence is 2
    i = 0
    while i < len(s):
        c = s[i]
        if 0x1F1E6 <= ord(c) <= 0x1F1FF and i + 1 < len(s) and 0x1F1E6 <= ord(s[i+1]) <= 0x1F1FF:
            n += 2; i += 2; continue
        if c == "\u200d":
            i += 2; continue
        if unicodedata.combining(c) or 0x1F3FB <= ord(c) <= 0x1F3FF:
            i += 1; continue
        n += 2 if unicodedata.east_asian_width(c) in "WF" else 1
        i += 1
    return n
print(" ".join(sorted({str(w(l[:l.index("│")])) for l in sys.stdin.read().split("\n")[1:] if "│" in l})))')
if [ "$(echo $cols | wc -w)" = 1 ]; then ok; else fail "sidebar border at columns: $cols"; screen | head -12; fi
tui_quit
tui_finish
