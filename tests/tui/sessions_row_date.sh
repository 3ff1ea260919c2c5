#!/usr/bin/env bash
# tests/tui/sessions_row_date.sh -- F2's rows show when a session was last
# written whole in a short form (this year's "12-06 21:15", tui/menu_sessions.c)
# rather than the long date cut ("2026-12-06 21:1…").
. "$(dirname "$0")/tmuxlib.sh"
printf 'hello\n' | "$RWKV_TUI" chat --demo --db "$DB" --new "a session with a rather long title to fill the row" --max-tokens 4 \
    >/dev/null 2>&1 || fail "chat"
hm=$(date +%m-%d)
W=80 tui_start --max-tokens 4
keys F2
check "the row's date and time whole" "#1 .* $hm [0-9]{2}:[0-9]{2}"
check_not "no date cut in a row" "[0-9]{2}:[0-9]…"
keys Escape
tui_quit
tui_finish
