#!/usr/bin/env bash
# tests/tui/state_save.sh -- C-w in the state-files menu (F3): save the
# current state as a state file.  The prompt offers
# $XDG_DATA_HOME/rwkv-tui/states/NAME.pth (NAME from the session title), the
# folder is created, the file is listed in F3 and starts a session from
# there, it loads with `eval --state` (the same logits as a second save made
# from it: the reload is exact) and `chat --state`; a path in a missing
# folder is refused with its message and nothing is written (the prompt
# opens again holding the path); a typed name of an existing file is
# replaced only after a second Enter (Esc keeps it).
. "$(dirname "$0")/tmuxlib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
export XDG_DATA_HOME=$TMP/data
TUI_ENV="XDG_DATA_HOME='$XDG_DATA_HOME'"
SDIR=$XDG_DATA_HOME/rwkv-tui/states

tui_start --max-tokens 6 --seed 5
type_text "persona test"
send
keys F3
check "state menu" 'State files'
check "hint names C-w" 'C-w save the state'
keys C-w
check "path prompt with the default folder" "save the current state as: .*rwkv-tui/states/persona-test\\.pth"
keys Enter
check "saved notice" 'state saved to .*persona-test\.pth'
[ -f "$SDIR/persona-test.pth" ] && ok || fail "no file in $SDIR: $(ls -la "$SDIR" 2>&1)"
[ "$(stat -c %a "$SDIR")" = 700 ] && ok || fail "states folder mode $(stat -c %a "$SDIR")"
check "listed in F3" 'persona-test\.pth'
python3 "$HERE/../cli/ckpt_check.py" "$SDIR/persona-test.pth" >"$TMP/ck" 2>&1 && ok ||
    fail "ckpt_check: $(cat "$TMP/ck")"
# a second save gets a name not yet taken
keys C-w
check "second default name" "save the current state as: .*persona-test-2\\.pth"
keys C-u
type_text "$TMP/no/such/dir/x.pth"
keys Enter
check "missing folder refused" 'no/such/dir/x\.pth: '
[ ! -e "$TMP/no" ] && ok || fail "a folder was created for a path outside the default one"
# the path typed is kept for Enter again (prompt_retry.sh); Esc gives up
check "the prompt holds the path" '^save the current state as: .*no/such/dir/x\.pth *$' 2
keys Escape
check_not "Esc: the prompt goes" '^save the current state as:'
# a typed name of an existing file: asked first; Esc keeps it, a second
# Enter replaces it
check_overwrite "F3 C-w" "$SDIR/persona-test.pth" 'state saved to .*persona-test\.pth'
# the session database: never written over (a state file replaced it)
keys F3 C-w C-u
type_text "$DB"
keys Enter
check "the database: refused" 'is the session database: not written over'
[ "$(head -c 15 "$DB")" = "SQLite format 3" ] && ok || fail "F3 C-w wrote over the database"
check "... the name kept for Enter again" '^save the current state as: .*sessions\.db *$' 2
keys Escape
check_not "Esc: the prompt goes" '^save the current state as:'
# start from the saved state (F3 Enter, new session)
keys F3
type_text "persona-test.pth"
keys Enter
check "asks (a conversation exists)" 'New session from this state'
keys Enter
check "session from the saved state" 'state: persona-test\.pth'
tui_quit

# the file loads: eval and the line chat
"$RWKV_TUI" eval --demo --state "$SDIR/persona-test.pth" --tokens 10,20 --out "$TMP/a.bin" 2>"$TMP/e" && ok ||
    fail "eval --state: $(cat "$TMP/e")"
printf '/save %s\n' "$TMP/again.pth" | "$RWKV_TUI" chat --demo --state "$SDIR/persona-test.pth" \
    >/dev/null 2>"$TMP/e2"
cmp -s "$SDIR/persona-test.pth" "$TMP/again.pth" && ok ||
    fail "saved again after loading: another file ($(cat "$TMP/e2"))"
"$RWKV_TUI" eval --demo --state "$TMP/again.pth" --tokens 10,20 --out "$TMP/b.bin" 2>/dev/null
cmp -s "$TMP/a.bin" "$TMP/b.bin" && ok || fail "logits differ"

# busy: while the greeting/a reply runs, C-w says to wait (the chat is the
# worker's); checked with a reply too long to end first (a fixed pause and a
# skip when it had not started or had ended: under CI a skip fails the run)
tui_start --max-tokens 1000000 --seed 5
type_text "a long one"
keys Enter
check "generating" 'generating'
keys F3 C-w
check "busy: refused" 'wait for the model to finish'
keys Escape        # closes the menu
check_not "menu closed" 'State files'
keys Escape        # cancels the reply
check "reply cancelled" '\[interrupted\]' 20
wait_idle
sleep 0.3          # (an Esc read together with F10's sequence would be Alt-F10)
tui_quit
tui_finish
