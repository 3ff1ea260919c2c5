#!/usr/bin/env bash
# tests/tui/state_in_use.sh -- F3 Enter on the state in use ("(in use)")
# asked "New session from this state / Replay this conversation under it"
# as if it were another; now it says that state is in use, in one line, and
# nothing changes -- as F5 says of the model in use (tui/menu_states.c).
# "(none)" when no state file is used, a file, and a library row.
. "$(dirname "$0")/tmuxlib.sh"

mkdir -p "$TMP/states" "$XDG_CONFIG_HOME/rwkv-tui"
python3 "$(dirname "$0")/mkstate.py" "$TMP/states/mid.safetensors" 2 7 13 ||
    { echo "python3 needed"; echo "0 passed, 1 failed"; exit 1; }
printf 'state_dir: %s\n' "$TMP/states" > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
q() { sqlite3 "$1" "$2" 2>/dev/null; }

tui_start --max-tokens 3 --seed 2
type_text "hello"
send
sessions=$(q "$DB" 'select count(*) from sessions')
keys F3
check "state menu" 'State files'
check "(none) in use" '\(none\) +\(in use\) no state file'
keys Enter                          # (none) is the first row, selected
check "(none): said in use" 'no state file is in use already: nothing to switch to'
check_not "no question" 'New session from this state|Replay this conversation'
check "the menu stays" 'State files'
keys Escape
check_not "menu closed" 'State files'
check "still the conversation" '^  hello'
[ "$(q "$DB" 'select count(*) from sessions')" = "$sessions" ] && ok ||
    fail "a session was made: $(q "$DB" 'select count(*) from sessions') (was $sessions)"

# a file: switch to it (new session), then Enter on it again
keys F3
type_text "mid.s"
keys Enter
check "asked for another state" 'New session from this state'
keys Enter
check "switched" 'state: mid'
wait_idle
type_text "again"
send
keys F3
type_text "mid.s"
check "the file in use" 'mid\.safetensors +\(in use\)'
keys Enter
check "the file: said in use" 'mid\.safetensors is the state file in use: nothing to switch to'
check_not "no question (file)" 'New session from this state|Replay this conversation'
keys Escape Escape
check_not "menu closed (file)" 'State files'

# a library row: imported, switched to, then Enter on it again
keys F3
type_text "mid.s"
keys C-s
check "imported" 'library, imported'
keys Enter
check "asked for the library row" 'New session from this state'
keys Enter
wait_idle
keys F3
type_text "imported"
check "the row in use" '\(in use\) library, imported'
keys Enter
check "the row: said in use" 'mid.* is the state file in use: nothing to switch to'
check_not "no question (row)" 'New session from this state|Replay this conversation'
keys Escape Escape
tui_quit
tui_finish
