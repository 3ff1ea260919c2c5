#!/usr/bin/env bash
# tests/tui/quit_question_cut.sh -- the question a quit asks when a failed
# save kept exchanges out ("1 exchange is not saved: r retry, e export, q
# quit anyway, Esc back (REASON)") is shown whole above the footer when the
# footer cuts it: at 80 columns its reason was cut ("(…/sessions.db: …")
# and at 40 its keys ("1 exchange is not saved: r retry, e ex…"), with the
# log out of reach while it is open.
. "$(dirname "$0")/tmuxlib.sh"

printf '#!/bin/sh\nulimit -f 3000\nexec "%s" "$@"\n' "$RWKV_TUI" >"$TMP/limited"
chmod +x "$TMP/limited"
W=80 H=24 RWKV_TUI=$TMP/limited tui_start --seed 1 --max-tokens 6
type_text "kept out"
send
check "the save failed" 'file-size limit'
keys F10
check "F10: asked" '1 exchange is not saved: r retry'
# the reason's end is on the screen (the footer cuts it at 80 columns)
check "80 columns: the question's reason whole" 'file-size limit.*\)'
check "80 columns: the keys whole" 'q quit anyway, Esc back'
tui_resize 40 14
check "40 columns: q quit anyway in sight" 'q quit'
check "40 columns: Esc back in sight" 'Esc back'
keys q
wait_for '^EXIT=1' 20 && ok || fail "q: no exit 1: $(screen | tail -3)"
tui_finish
