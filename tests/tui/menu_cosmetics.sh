#!/usr/bin/env bash
# tests/tui/menu_cosmetics.sh -- the menus show what applies, whole: F2's key
# bar on an empty list leaves out the keys that act on a session; at 20x6 a
# key bar leaves out a hint that does not fit whole instead of cutting it
# ("Esc c"); F1 lists each menu's rows together ("State files: (none)" not
# between two "Sessions:" rows); a row with a "↓ N more below" mark ends in
# "…" before it instead of being drawn over; F8 cuts a long value with "…"
# and shows it whole under the list;
# a header's "< 2/2 >" cut by a narrow terminal ends in "…".
. "$(dirname "$0")/tmuxlib.sh"

mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"
printf 'greeting: "%s"\n' "$(printf 'word%.0s ' $(seq 30))end" > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"

# F1's rows, keys column only (continuation lines start with more spaces)
rows=$("$RWKV_TUI" --help-ui | grep -E '^  [^ ]' | sed -E 's/^  (.{1,26}[^ ]) {2,}.*/\1/')
menu_rows=$(printf '%s\n' "$rows" | grep -E '^(Sessions|State files):')
want_first=$(printf '%s\n' "$menu_rows" | sed -n 1p)
[ "$want_first" = "Sessions: type" ] && ok || fail "first Sessions row: '$want_first'"
# every Sessions row before the first State files row
last_sess=$(printf '%s\n' "$menu_rows" | grep -n '^Sessions:' | tail -1 | cut -d: -f1)
first_state=$(printf '%s\n' "$menu_rows" | grep -n '^State files:' | head -1 | cut -d: -f1)
[ "$last_sess" -lt "$first_state" ] && ok || fail "rows of the two menus mixed: $menu_rows"
[ "$(printf '%s\n' "$menu_rows" | sed -n "${first_state}p")" = "State files: (none)" ] && ok ||
    fail "State files: (none) is not the first of its menu: $menu_rows"

W=60 H=20 tui_start
# F2 on an empty database: only the keys that apply
keys F2
check "empty list" '\(empty\)'
check "import and Esc shown" 'C-o import +Esc close'
check_not "no keys for a session that is not there" 'C-r rename|C-d delete|C-y fork|Enter resume|C-t model'
keys Escape
check_not "F2 closed" '\(empty\)'

# F1 at 60 columns: the last row gives way to the "more below" mark
keys F1
check "F1 open" 'Help: every key'
check "the row before the mark ends in …" '… ↓ [0-9]+ more below │'
keys PageDown
check "... the first row before the \"more above\" mark too" '… ↑ [0-9]+ more above │'
keys Escape
check_not "F1 closed" 'Help: every key'

# F8: a long greeting cut with …
tmx resize-window -x 120 -y 40
check "120 columns" '^─{120}$'
keys F8
check "F8 open" 'greeting +word word'
check "the greeting cut with …" 'greeting +word( word)+ ?[a-z]*… +│'
# ... and shown whole under the list (its row there was cut at 80 too)
check "the whole greeting under the list" 'word word end\\n\\n +│'   # (as fed)
check_not "no ... cut" 'word \.\.\.'
keys Escape
check_not "F8 closed" 'greeting +word word'

# 20x6: whole hints only
tmx resize-window -x 20 -y 6
check "20x6: redrawn" '^─{20}$'
keys F2
check "20x6: F2 open" 'Sessions'
check "20x6: Esc close whole" '│ Esc close +│'
check_not "20x6: nothing cut mid-word" 'Esc c │|F1 more  Esc c'
keys Escape
tui_resize 120 40
tui_quit

# a reply's "< 2/2 >" that does not fit beside a long role name ends in "…"
# ("< 2/" read as another count)
W=80 H=20 tui_start --bot AssistantLongName --max-tokens 5
type_text "hi"
send
keys C-r
check "regenerated: two siblings" 'AssistantLongName  < 2/2 >'
wait_idle
tmx resize-window -x 22 -y 12
check "22 columns" '^─{22}$'
check "the sibling count cut with …" '^AssistantLongName  < …'
check_not "no count cut short" '< 2/?$'
tui_quit
tui_finish
