#!/usr/bin/env bash
# tests/tui/continue.sh -- M-r continues the last reply (sess_continue) on the
# real binary under tmux: a reply cut at max tokens grows in place, the
# database holding ONE reply row with the text of an uncut run (same seed);
# kill -9 during a continuation keeps the old reply plus what streamed,
# marked interrupted, and after --resume it goes on again; a refusal is one
# line that changes nothing.
. "$(dirname "$0")/tmuxlib.sh"

T=$RWKV_TUI
q() { sqlite3 "$1" "$2" 2>/dev/null; }
tui_pid() { pgrep -P "$(tmx display-message -p '#{pane_pid}')" | head -1; }
# wait until SQL on $DB prints something matching PATTERN (N tenths of a second)
db_wait() {
    local i
    for i in $(seq "${3:-300}"); do
        q "$DB" "$1" | grep -Eq -- "$2" && return 0
        sleep 0.1
    done
    return 1
}

# the uncut reply: 10 tokens, seed 3 (a database of its own)
DB0=$DB
DB=$TMP/u.db
tui_start --max-tokens 10 --seed 3
type_text "hello"
send
uncut=$(q "$DB" "select hex(text) || ' ' || hex(tokens) from turns where role=2")
[ -n "$uncut" ] && ok || fail "uncut reply not saved"
tui_quit
DB=$DB0

# --- cut at 5 tokens, M-r: 5 more in the same row -----------------------------------
tui_start --max-tokens 5 --seed 3
type_text "hello"
send
[ "$(q "$DB" "select length(tokens) from turns where role=2")" = 20 ] && ok || fail "cut reply: $(q "$DB" 'select length(tokens) from turns')"
keys M-r
db_wait "select length(tokens) || interrupted from turns where role=2" '^400$' &&
    ok || fail "continued reply not saved: $(q "$DB" 'select id, role, interrupted, length(tokens) from turns')"
wait_idle
[ "$(q "$DB" "select count(*) from turns where role=2")" = 1 ] && ok || fail "reply rows: $(q "$DB" 'select id, role from turns')"
[ "$(q "$DB" "select hex(text) || ' ' || hex(tokens) from turns where role=2")" = "$uncut" ] &&
    ok || fail "continued reply differs from the uncut one"
check "the longer reply's stats" '10 tok'
check "max tokens: the key is named" 'max tokens: M-r continues it'
tui_quit

# --- kill -9 during a continuation: nothing lost, continuable again --------------------
before=$(q "$DB" "select hex(tokens) from turns where role=2")
tui_start --resume --max-tokens 1000000
keys M-r
db_wait "select interrupted || ':' || length(tokens) from turns where role=2" '^1:([1-9][0-9]{3,})$' &&
    ok || fail "continuation not streaming to the database: $(q "$DB" 'select interrupted, length(tokens) from turns where role=2')"
pid=$(tui_pid)
[ -n "$pid" ] && kill -9 "$pid" && ok || fail "no process to kill"
wait_for 'EXIT=137' 10 && ok || fail "not killed: $(screen | tail -3)"
[ "$(q "$DB" "select count(*) from turns where role=2")" = 1 ] && ok || fail "reply rows after kill -9"
after=$(q "$DB" "select hex(tokens) from turns where role=2")
case $after in "$before"?*) ok ;; *) fail "kill -9: the old reply is not kept whole" ;; esac
[ "$(q "$DB" "select interrupted from turns where role=2")" = 1 ] && ok || fail "not marked interrupted"
n0=$(q "$DB" "select length(tokens) from turns where role=2")
tui_start --resume --max-tokens 3
check "interrupted reply shown" 'interrupted'
keys M-r
db_wait "select interrupted || ':' || length(tokens) from turns where role=2" "^0:$((n0 + 12))\$" &&
    ok || fail "continued again after the resume: $(q "$DB" 'select interrupted, length(tokens) from turns where role=2') (was $n0)"
case $(q "$DB" "select hex(tokens) from turns where role=2") in "$after"?*) ok ;; *) fail "resumed continuation lost tokens" ;; esac
wait_idle
check_not "no longer marked interrupted" 'interrupted'

# --- refused: one line, nothing changed ----------------------------------------------
keys C-n
check "new session" 'new session'
keys M-r
check "nothing to continue" 'no reply to continue'
tui_quit
tui_finish
