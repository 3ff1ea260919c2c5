#!/usr/bin/env bash
# tests/tui/sessions_row_ends.sh -- F2 at 80 columns with a real model's long
# file name: every row keeps its date and time, the open one its "(open)",
# and the model's name (last but the state file) is what the box cuts; the
# area under the list shows the selected row whole.  The date came after the
# model and was cut with it (tui/menu_sessions.c, add_session).  A row that
# is not the open one has blanks where that one says "(open)", so the models
# line up; none ends in blanks cut with a "…".
. "$(dirname "$0")/tmuxlib.sh"
# a model named as released ones are
M=$TMP/RWKV-x070-World-1.5B-v3-20250127-ctx4096.pth
"$RWKV_TUI" bench --shape demo --save "$M" >/dev/null 2>&1 || fail "bench --save"
for t in "first chat: one" "second chat two"; do
    printf 'hello %s\n' "$t" | "$RWKV_TUI" chat --model "$M" --db "$DB" --new "$t" --max-tokens 4 \
        >/dev/null 2>&1 || fail "chat $t"
done
hm=$(date +%m-%d)
NODEMO=1 W=80 tui_start --db "$DB" --max-tokens 4 --session 2 --model "$M"
check "session 2 open" "session: second chat"
keys F2
check "the open row: its date and (open)" "#2  $hm [0-9]{2}:[0-9]{2}  \(open\)  RWKV-x070"
check "the other row: its date" "#1  $hm [0-9]{2}:[0-9]{2} +RWKV-x070"
check "the model's name is what is cut" "#1  .*RWKV-x070-World[^ ]*…  │$"
col() { screen | grep -E "$1" | head -1 | awk '{ print index($0, "RWKV-x070") }'; }
c1=$(col '#1  ') c2=$(col '#2  ')
[ -n "$c1" ] && [ "$c1" = "$c2" ] && ok || fail "the models do not line up: columns '$c1' and '$c2'"
# the selected row (the open one) whole under the list, "(open)" and all
check "whole: (open)" "^ │  second chat two  2 turns  #2  $hm [0-9:]+  \(open\) +│\$"
check "whole: the model's whole name" "^ │ +RWKV-x070-World-1\.5B-v3-20250127-ctx4096\.pth +│\$"
keys Escape
tui_quit
tui_finish
