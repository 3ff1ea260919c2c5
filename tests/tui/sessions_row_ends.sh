#!/usr/bin/env bash
# tests/tui/sessions_row_ends.sh -- at 80 columns with a session open, F2's
# other rows ended in "…" though nothing of them was cut: each was padded
# with blanks where the open row says "(open)", and the view cut the blanks
# with a "…" (tui/menu_sessions.c, add_session).  Now a row that is not the
# open one ends at its date.  (Titles of a length where the open row is cut
# and the others fit without the blanks.)
. "$(dirname "$0")/tmuxlib.sh"
# a model with a name of some length, as a user's (the demo model's "demo"
# left room for the blanks)
M=$TMP/rwkv-7-world-tiny-model.pth
"$RWKV_TUI" bench --shape demo --save "$M" >/dev/null 2>&1 || fail "bench --save"
for t in "first chat: one" "second chat two"; do
    printf 'hello %s\n' "$t" | "$RWKV_TUI" chat --model "$M" --db "$DB" --new "$t" --max-tokens 4 \
        >/dev/null 2>&1 || fail "chat $t"
done
hm=$(date +%m-%d)
NODEMO=1 W=80 tui_start --db "$DB" --max-tokens 4 --session 2 --model "$M"
check "session 2 open" "session: second chat"
keys F2
check "the open row listed" "#2 .* $hm"
check "the other row ends at its date" "#1 .* $hm [0-9]{2}:[0-9]{2} *│?$"
screen | grep -E "#1 .*…" && fail "the other row cut: $(screen | grep -E '#1 ')" || ok
keys Escape
tui_quit
tui_finish
