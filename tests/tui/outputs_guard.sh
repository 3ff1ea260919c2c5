#!/usr/bin/env bash
# tests/tui/outputs_guard.sh -- the full-screen client's writes follow the
# one rule of every output (store_output_check, sess_output_check): with no
# session database (--no-db), F3's C-w still refuses an SQLite database
# (it wrote a state file over one: no database was open to compare with),
# and with one, the state file the conversation starts from; the path is
# kept for Enter again and nothing is written; nor the client's config and
# theme files.
. "$(dirname "$0")/tmuxlib.sh"
export XDG_DATA_HOME=$TMP/data
TUI_ENV="XDG_DATA_HOME='$XDG_DATA_HOME'"
SDIR=$XDG_DATA_HOME/rwkv-tui/states

python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("create table t(x)"); c.commit()' \
    "$TMP/other.db"
sum=$(cksum <"$TMP/other.db")

NODEMO=1 tui_start --demo --no-db --max-tokens 4 --seed 3
type_text "hello"
send
check "a reply" "^RWKV +[0-9]+ tok"
wait_idle
keys F3 C-w C-u
type_text "$TMP/other.db"
keys Enter
check "an SQLite database: refused" 'other\.db is an SQLite database: not written over'
[ "$(cksum <"$TMP/other.db")" = "$sum" ] && ok || fail "F3 C-w wrote over an SQLite database"
check "... the name kept for Enter again" '^save the current state as: .*other\.db *$' 2
keys Escape
wait_for '^save the current state as:' 1 && keys Escape   # the first Esc may only dismiss the notice
check_not "Esc: the prompt goes" '^save the current state as:'

# the state file in use: saved, started from, then refused as an output
keys F3 C-w C-u
type_text "$SDIR/s1.pth"
keys Enter
check "saved" 'state saved to .*s1\.pth'
ssum=$(cksum <"$SDIR/s1.pth")
keys F3
type_text "s1.pth"
keys Enter
check "asks (a conversation exists)" 'New session from this state'
keys Enter
check "started from it" 'state: s1\.pth'
keys F3 C-w C-u
type_text "$SDIR/s1.pth"
keys Enter
check "the state file in use: refused" 's1\.pth is the state file in'   # the notice wraps
[ "$(cksum <"$SDIR/s1.pth")" = "$ssum" ] && ok || fail "F3 C-w wrote over the state file in use"
check "... the name kept for Enter again" '^save the current state as: .*s1\.pth *$' 2
keys Escape
wait_for '^save the current state as:' 1 && keys Escape   # the first Esc may only dismiss the notice
check_not "Esc: the prompt goes" '^save the current state as:'
tui_quit

# the client's own config and theme files: never written over (an export
# over config.yaml asked "exists: Enter replaces it" and wrote markdown there)
printf 'theme: %s/mine.yaml\n' "$TMP" >"$TMP/conf.yaml"
printf 'name: mine\n' >"$TMP/mine.yaml"
csum=$(cksum <"$TMP/conf.yaml")
tsum=$(cksum <"$TMP/mine.yaml")
tui_start --config "$TMP/conf.yaml" --max-tokens 4 --seed 3
type_text "hello"
send
keys F3 C-w C-u
type_text "$TMP/conf.yaml"
keys Enter
check "the config file: the name kept for Enter again" '^save the current state as: .*conf\.yaml *$' 2
keys Escape
wait_for '^save the current state as:' 1 && keys Escape
keys M-l
check "the config file: refused" 'conf\.yaml is the config file in'
keys Escape
keys F3 C-w C-u
type_text "$TMP/mine.yaml"
keys Enter
check "the theme file: the name kept for Enter again" '^save the current state as: .*mine\.yaml *$' 2
keys Escape
wait_for '^save the current state as:' 1 && keys Escape
keys M-l
check "the theme file: refused" 'mine\.yaml is the theme file in'
keys Escape
[ "$(cksum <"$TMP/conf.yaml")" = "$csum" ] && [ "$(cksum <"$TMP/mine.yaml")" = "$tsum" ] && ok ||
    fail "the config or theme file was written over"
tui_quit
tui_finish
