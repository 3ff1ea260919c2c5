#!/usr/bin/env bash
# tests/tui/status_narrow_title.sh -- the status line short of room: its
# parts give way one at a time (tui/view.c status_left_fit), the title is
# cut once, with one ellipsis, and the token count stays.  A 60-character
# title at 42..50 columns showed "abcdefghija……", "… | …" or "| 190 …" (the
# title cut, then the line cut again); at 100 columns the state file's name
# went with the model and the strategy though "state: NAME |" fitted.
. "$(dirname "$0")/tmuxlib.sh"

TITLE=$(printf 'abcdefghij%.0s' 1 2 3 4 5 6)
mkdir -p "$TMP/states"
python3 "$(dirname "$0")/mkstate.py" "$TMP/states/st.safetensors" 2 7 13 && ok ||
    fail "python3 needed for the state file"
printf 'hi\n' | "$RWKV_TUI" chat --demo --db "$DB" --state "$TMP/states/st.safetensors" \
    --new "$TITLE" --max-tokens 4 --seed 1 >/dev/null 2>&1 && ok || fail "making the session"

row1() { screen_rows | head -1; }
# status_ok DESC: the status line ends with the token count, one ellipsis
# at most (polled: the redraw after a resize).  One check.
status_ok() {
    local i=0 r n
    while [ $i -lt 30 ]; do
        r=$(row1)
        n=$(printf '%s' "$r" | grep -o '…' | wc -l)
        if [[ $r =~ [0-9]+\ tok\ *$ ]] && [ "$n" -le 1 ]; then ok; return; fi
        sleep 0.1
        i=$((i + 1))
    done
    fail "$1: '$r'"
}

W=50 H=16 tui_start --resume
for w in 50 49 48 47 46 45 44 43 42; do
    tui_resize $w 16
    status_ok "$w columns"
done
tui_resize 100 16
check "100 columns: the state file named" '^ DEMO MODEL \(random weights\)  state: st\.safetensors \| abcdefghij'
r=$(row1)
[ "$(printf '%s' "$r" | grep -o '…' | wc -l)" -le 1 ] && ok || fail "100 columns: one ellipsis: '$r'"
tui_quit
tui_finish
