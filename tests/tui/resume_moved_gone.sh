#!/usr/bin/env bash
# tests/tui/resume_moved_gone.sh -- the full-screen client's --resume, as
# the line chat's (the rules are the open's, below both front ends;
# tests/cli/resume_state_gone.sh and resume_model_moved.sh):
#   - a session started from a state file no longer on disk opens from its
#     saved states (it failed: "... which is not on disk", exit 1); the bar
#     names the file "(not on disk)";
#   - --model NEW, the session's model moved, is recorded as its model: the
#     next --resume needs no --model (it kept the old path).
. "$(dirname "$0")/tmuxlib.sh"
case $FX in /*) ;; *) FX=$PWD/$FX ;; esac

if have_fixture models/tiny-7v0-fp32.pth 7 && have_fixture states/state-7v0-A.pth 7; then
    mkdir -p "$TMP/m" "$TMP/st"
    cp "$FX/models/tiny-7v0-fp32.pth" "$TMP/m/a.pth"
    cp "$FX/states/state-7v0-A.pth" "$TMP/st/mystate.pth"
    printf 'hello there\n' | "$RWKV_TUI" chat --model "$TMP/m/a.pth" --db "$DB" --new t \
        --state "$TMP/st/mystate.pth" --max-tokens 3 --seed 1 >/dev/null 2>"$TMP/err" ||
        fail "chat: $(cat "$TMP/err")"
    rm "$TMP/st/mystate.pth"
    mv "$TMP/m/a.pth" "$TMP/m/moved.pth"
    path_of() {
        sql_rows "$DB" "select m.path from sessions s join models m on m.id=s.model_id where s.id=1"
    }

    NODEMO=1 tui_start --db "$DB" --resume --model "$TMP/m/moved.pth"
    check "the session opens with its state file gone" 'hello there'
    check "the bar names the file, not on disk" 'mystate\.pth \(not on disk\)'
    [ "$(path_of)" = "$TMP/m/moved.pth" ] && ok || fail "session 1's model: $(path_of)"
    tui_quit
    NODEMO=1 tui_start --db "$DB" --resume
    check "--resume alone: the moved model, the session" 'hello there'
    check_not "it runs" 'EXIT=' 2
    tui_quit
fi
tui_finish
