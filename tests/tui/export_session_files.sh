#!/usr/bin/env bash
# tests/tui/export_session_files.sh -- F2's C-e never writes over the files
# the exported session names (its model, its state file), as `sessions
# export --out` does not: an export of a session made with another model
# wrote Markdown over that model's checkpoint.
. "$(dirname "$0")/tmuxlib.sh"

if have_fixture models/tiny-7v0-fp32.pth 5 && have_fixture states/state-7v0-A.pth 5; then
    cp "$FX/models/tiny-7v0-fp32.pth" "$TMP/m.pth"
    cp "$FX/states/state-7v0-A.pth" "$TMP/s.pth"
    chmod u+w "$TMP/m.pth" "$TMP/s.pth"
    cp "$TMP/m.pth" "$TMP/m.orig"
    printf 'hi\n' | "$RWKV_TUI" chat --model "$TMP/m.pth" --state "$TMP/s.pth" --db "$DB" --new other \
        --seed 1 --max-tokens 3 >/dev/null 2>&1
    tui_start --max-tokens 6 --seed 2
    type_text "apples are red"
    send
    keys F2
    check "sessions menu" ' Sessions '
    check "the other model's session listed" 'other'
    keys Down C-e C-u                # session 1, the other model's: the second row
    type_text "$TMP/m.pth"
    keys Enter
    check "its model refused" 'm\.pth is the model of session 1: not written over'
    cmp -s "$TMP/m.pth" "$TMP/m.orig" && ok || fail "m.pth written over"
    keys C-u
    type_text "$TMP/s.pth"
    keys Enter
    check "its state file refused" 'is the state file of session 1'
    keys Escape
fi
tui_finish
