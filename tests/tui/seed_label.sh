#!/usr/bin/env bash
# tests/tui/seed_label.sh -- a 64-bit seed in the 24-column sidebar: the
# label stays whole and the value is cut in the middle with an ellipsis
# ("..." without a UTF-8 locale); the selected row's whole value shows
# below the sidebar's keys and Enter types it in full; short values are
# untouched.  At 80x24 on TERM=screen.
. "$(dirname "$0")/tmuxlib.sh"

TUI_ENV="TERM=screen" W=80 H=24 tui_start --seed 12345678901234567890
check "label whole, value cut in the middle" '│ seed 12345678…34567890 *$'
check "short values untouched" '│ max-tokens +1000 *$'
check_not "the whole value is not in the sidebar yet" '│ 12345678901234567890'
# the selected seed: its whole value under the keys
keys Tab Down Down Down Down Down Down Down Down Down
check "selected: the whole value below" '│ 12345678901234567890 *$'
keys Enter
check "Enter types the whole value" 'seed \[0\.\.18446744073709551615\]: 12345678901234567890'
keys C-u
type_text "18446744073709551615"
keys Enter
check "the largest seed, cut" '│ seed 18446744…09551615 *$'
check "and whole below" '│ 18446744073709551615 *$'
# a short seed needs no cut, and no line below
keys Enter C-u
type_text "42"
keys Enter
check "a short seed whole" '│ seed +42 *$'
check_not "no whole-value line" '│ 18446744073709551615'
keys Tab
tui_quit

# without a UTF-8 locale the ellipsis is three dots
TUI_ENV="TERM=screen LANG=C LC_ALL=C" W=80 H=24 tui_start --seed 12345678901234567890
check "ASCII: three dots" ' seed 1234567\.\.\.4567890 *$'
tui_quit
tui_finish
