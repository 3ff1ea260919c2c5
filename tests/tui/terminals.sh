#!/usr/bin/env bash
# tests/tui/terminals.sh -- the terminals users have: a C locale (no UTF-8:
# what curses cannot draw is a '?' per column, never blank or stray bytes),
# a wide character (CJK) is two '?', the two columns it takes on a
# terminal, so text laid out for one keeps its alignment), vt220 (no
# colours: the status bar still a bar, in reverse video) and
# NO_COLOR with a theme whose menu has a background (the selected row
# still stands out from the rest of the menu).
. "$(dirname "$0")/tmuxlib.sh"
SGR="python3 $(dirname "$0")/sgr.py"

# expect DESC TEXT PATTERN: the SGR state of TEXT matches PATTERN
expect() {
    local got
    got=$(tmx capture-pane -p -e | $SGR "$2")
    if printf '%s\n' "$got" | grep -Eq -- "$3"; then ok; else fail "$1: '$2' drawn $got, want /$3/"; fi
}

# ---- LANG=C: non-ASCII text as '?', one per column it takes (a CJK character two) ----
TUI_ENV="LANG=C LC_ALL=C" W=80 H=24 tui_start --max-tokens 5
type_text "h$(printf '\xc3\xa9')llo $(printf '\xe4\xbd\xa0\xe5\xa5\xbd') end"
check "C locale: the input box shows ? for what it cannot draw" '^> h\?llo \?\?\?\? end'
send
check "C locale: the message in the transcript" '^  h\?llo \?\?\?\? end'
check "C locale: the new session's notice" 'new session 1: h\?llo \?\?\?\? end'
screen | LC_ALL=C grep -q $'[\x80-\xff]' && fail "C locale: non-ASCII bytes on the screen" || ok
check "C locale: the sidebar's border in its column" '^  h\?llo \?\?\?\? end +x '
# two lines aligned for a terminal (two CJK characters are four columns):
# their bars stay in one column
tmx set-buffer "$(printf '\xe4\xbd\xa0\xe5\xa5\xbd| one\nabcd| two')"
tmx paste-buffer -p
send
check "C locale: the aligned lines" '^  abcd\| two'
[ "$(screen | grep -E '^  (\?+|abcd)\| (one|two)' | sed 's/|.*//' | awk '{ print length }' | sort -u)" = 6 ] &&
    ok || fail "C locale: the bars not in one column: $(screen | grep -E '\| (one|two)' | tr '\n' '/')"
tui_quit

# ---- vt220: no colours, the status bar in reverse video ----
TUI_ENV="TERM=vt220" W=80 H=24 tui_start
expect "vt220: the status line is a reverse bar" 'cpu fp32 |' 'rev=1'
expect "vt220: the demo label too, bold" 'DEMO MODEL' 'bold=1 .*rev=1'
tui_quit

# ---- NO_COLOR, dark theme (its menu has a background of its own) ----
TUI_ENV="TERM=xterm-256color NO_COLOR=1" W=80 H=24 tui_start --theme dark
expect "NO_COLOR: the demo label is in the bar (reverse)" 'DEMO MODEL' 'bold=1 .*rev=1'
keys F1
check "F1 open" 'Help: every key'
expect "NO_COLOR: the selected row is reversed" 'help: every key' 'rev=1'
expect "NO_COLOR: the other rows are not" 'sessions: resume' 'rev=0'
expect "NO_COLOR: the menu title is not" 'Help: every key' 'bold=1 .*rev=0'
keys Escape
tui_quit

tui_finish
