#!/usr/bin/env bash
# tests/tui/paste_esc.sh -- pasted text that holds escape sequences (text
# copied from a terminal with its colours, a log with a title string) goes
# in as the text a terminal shows: every control sequence is dropped whole
# -- a CSI (ESC [ 31 m; ESC [ x too), an SS3 (ESC O A), an OSC up to its
# BEL, a DCS up to its ST -- and no character of the text around them is
# lost or added.  An ESC that starts no sequence is dropped alone and what
# follows it is text: ESC x pastes "x", a cut CSI (ESC [ 12 ; and a
# non-ASCII letter) pastes "[12;é".  The same reader serves a bracketed
# paste (tmux paste-buffer -p) and a paste without markers (paste-buffer:
# the keys of a terminal without bracketed paste).  Before, the byte after
# such an ESC went, and an SS3's or an OSC's rest stayed as text ("Aup",
# "0;my title").  At 80x24 on TERM=screen.
. "$(dirname "$0")/tmuxlib.sh"

user_turns() { sqlite3 "$DB" "select replace(text, char(10), '|') from turns where role = 1 order by id" 2>&1; }

printf '%s' $'red \e[31mRED\e[0m plain\narrow \eOAup \e[1;5Cright\ntitle \e]0;my title\adone\nalt \ex kept \e[x gone\ncut \e[12;\xc3\xa9 end\ndcs \eP1$r0m\e\\ok' >"$TMP/buf"
want='red RED plain|arrow up right|title done|alt x kept  gone|cut [12;é end|dcs ok'

for how in -p ""; do
    name=${how:-plain}
    name=${name/-p/bracketed}
    TUI_ENV="TERM=screen" W=80 H=24 tui_start --max-tokens 2 --seed 3
    tmx load-buffer "$TMP/buf"
    tmx paste-buffer $how
    check "$name: the first line in the box" '^> red RED plain *$'
    check "$name: the last line in the box" '^  dcs ok *$'
    check "$name: an ESC before a letter: the letter kept" '^  alt x kept  gone *$'
    check_not "$name: the client still runs" '^EXIT=' 1
    send
    t=$(user_turns | tail -1)
    [ "$t" = "$want" ] && ok || fail "$name: stored '$t', want '$want'"
    tui_quit
done
tui_finish
