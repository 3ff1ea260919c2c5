#!/usr/bin/env bash
# tests/tui/paste_keys.sh -- pasted text only ever inserts text.  Escape
# sequences (F10 quits, F1 opens help, arrows), control keys and a lone ESC
# inside a paste are dropped, never acted on (ESC x: the ESC dropped, the x
# text, paste_esc.sh): in a paste without
# markers (a terminal without bracketed paste: GNU screen, the Linux
# console), in a bracketed one (a nested start marker; an end marker early
# in the pasted text, with more text in the same write), and in a paste that
# a slow link delivers in parts a few hundred ms apart (a part may begin
# with an escape sequence or end right after a newline: nothing is sent
# half-way).  Keys typed on their own still act, right after a paste too.
# At 80x24 on TERM=screen (kf1=\EOP, kf10=\E[21~, kcuu1=\EOA, kbs=^?); the
# bytes go raw (send-keys -H), as a terminal writes them.
. "$(dirname "$0")/tmuxlib.sh"

# raw TEXT: TEXT's bytes (printf escapes allowed) to the client as they are
raw() { tmx send-keys -H $(printf "$1" | od -An -tx1); }
user_turns() { sqlite3 "$DB" "select replace(text, char(10), '|') from turns where role = 1 order by id" 2>&1; }
nothing_sent() { sleep 0.5; check_not "$1" '^You'; }
# unharmed DESC: the client still runs and no pasted F1 opened help
unharmed() {
    check_not "$1: the client still runs" '^EXIT=' 1
    check_not "$1: no help opened" 'Help: every key' 1
}
# sent_is DESC WANT: nothing went before Enter; then it sends WANT, whole
sent_is() {
    local t
    nothing_sent "$1: nothing sent"
    send
    t=$(user_turns | tail -1)
    [ "$t" = "$2" ] && ok || fail "$1, stored: '$t'"
}
# each part in a client of its own (one that a pasted key quit fails alone)
start() { TUI_ENV="TERM=screen" W=80 H=24 tui_start --max-tokens 3 --seed 3; }

start

# --- a paste without markers: F10, F1, arrows (SS3 and CSI), DEL, C-q and a
# lone ESC at its end are dropped with their sequences; ESC x keeps the x
raw 'one\rtwo \033[21~three \033OPfour \033OA\033[Afive \033x six\177 seven\021 eight\033'
check "plain: first line" '^> one *$'
check "plain: the keys dropped, the text kept" '^  two three four five x six seven eight *$'
unharmed "plain"
sent_is "plain" "one|two three four five x six seven eight"

# --- a bracketed paste: a nested start marker and F10 dropped; an end marker
# inside the text, with more in the same write: the rest is still the paste
# (F10, F1 dropped, its newline a newline, its own end marker dropped)
tui_quit
start
raw '\033[200~alpha \033[200~beta \033[21~gamma\033[201~\033[21~ delta\033OP\r\033[21~epsilon\033[201~'
check "bracketed: first line" '^> alpha beta gamma delta *$'
check "bracketed: the rest after an early end marker" '^  epsilon *$'
unharmed "bracketed"
sent_is "bracketed" "alpha beta gamma delta|epsilon"
# an Enter alone right after the end marker still sends
raw '\033[200~zeta\033[201~\r'
for i in $(seq 100); do t=$(user_turns | tail -1); [ "$t" = "zeta" ] && break; sleep 0.1; done
[ "$t" = "zeta" ] && ok || fail "end marker + Enter: stored '$t'"
wait_idle

# --- a slow link: a plain paste in three parts 300 ms apart; the second
# begins with F10, the first and the last end right after a newline
tui_quit
start
raw 'part one\rpart two\r'
sleep 0.3
raw '\033[21~ three\r'
sleep 0.3
raw 'four\r'
check "parts: the last one in the box" '^  four *$'
check "parts: the second" '^   three *$'
check "parts: the first" '^> part one *$'
unharmed "parts"
sent_is "parts" "part one|part two| three|four"

# --- keys typed on their own act, right after a paste too: F1 200 ms after
# one opens help; typing 40 ms apart (a fast typist, key repeat) is typing,
# its Enter sends
tui_quit
start
raw 'x\ry'
sleep 0.2
keys F1
check "F1 typed after a paste: help" 'Help: every key'
keys Escape
check_not "help closed" 'Help: every key'
check "the paste still in the box" '^  y *$'
sent_is "x|y" "x|y"
sleep 1.2
for k in q u i c k Enter; do keys "$k"; sleep 0.04; done
for k in t w o Enter; do keys "$k"; sleep 0.04; done
for i in $(seq 100); do t=$(user_turns | tail -2 | tr '\n' ' '); [ "$t" = "quick two " ] && break; sleep 0.1; done
[ "$t" = "quick two " ] && ok || fail "typed 40 ms apart: two messages expected, stored: '$t'"
wait_idle
tui_quit
tui_finish
