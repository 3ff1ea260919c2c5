#!/usr/bin/env bash
# tests/tui/state_name_none.sh -- F3 (tui/state_save.c, tui/menu_states.c):
# C-w's suggested file name keeps the letters of any script (a session
# titled 你好世界 saves as 你好世界.pth, not state-DATE.pth) while '/' and
# the like still become '-'; C-s on the "(none)" row says in one line why
# nothing is imported, rather than nothing at all.
. "$(dirname "$0")/tmuxlib.sh"
export XDG_DATA_HOME=$TMP/data
TUI_ENV="XDG_DATA_HOME='$XDG_DATA_HOME'"

printf 'hello\n' | "$RWKV_TUI" chat --demo --db "$DB" --new "你好世界" --max-tokens 4 >/dev/null 2>&1 ||
    fail "chat 你好世界"
printf 'hello\n' | "$RWKV_TUI" chat --demo --db "$DB" --new "a/b 世界" --max-tokens 4 >/dev/null 2>&1 ||
    fail "chat a/b"

tui_start --session 1 --max-tokens 4
keys F3 C-w
check "a CJK title kept in the name" '^save the current state as: .*/states/你好世界\.pth *$'
keys Escape
wait_for '^save the current state as:' 1 && keys Escape
tui_quit

tui_start --session 2 --max-tokens 4
keys F3 C-w
check "'/' and spaces: one '-'" '^save the current state as: .*/states/a-b-世界\.pth *$'
keys Escape
wait_for '^save the current state as:' 1 && keys Escape
# C-s on (none): a line saying why
keys F3
check "F3 open" 'State files'
keys Home C-s
check "C-s on (none): said" '\(none\) is no file: C-s imports the selected state file into the library'
keys Escape
tui_quit
tui_finish
