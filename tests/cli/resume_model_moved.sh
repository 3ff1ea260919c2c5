#!/usr/bin/env bash
# tests/cli/resume_model_moved.sh -- `--resume --model NEW` where NEW is the
# session's model moved (the same content: fingerprint and digest) records
# NEW as the session's model, with one line saying so, so that the next
# --resume finds it alone (the rule is the open's, below both front ends:
# tests/tui/resume_moved_gone.sh is the full-screen client's).  The session went on, but kept the
# old path: every later --resume failed without --model again.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
case $FX in /*) ;; *) FX=$PWD/$FX ;; esac   # (the test runs in $TMP)
cd "$TMP" || exit 1

model_of() {   # DB: the path of session 1's model
    sql_rows "$1" "select m.path from sessions s join models m on m.id=s.model_id where s.id=1"
}

if have_fixture models/tiny-7v0-fp32.pth 7; then
    mkdir m && cp "$FX/models/tiny-7v0-fp32.pth" m/a.pth
    printf 'one\n' | "$T" chat --model m/a.pth --db a.db --new t --max-tokens 3 --seed 1 \
        >/dev/null 2>err || fail "chat: $(cat err)"
    mv m/a.pth m/moved.pth
    n0=$(sql_rows a.db "select count(*) from turns")

    # --- 1. the line chat: --model NEW once, then --resume alone ---------------
    printf 'two\n' | "$T" chat --db a.db --resume --model m/moved.pth --max-tokens 3 \
        --seed 1 >out 2>err
    [ $? = 0 ] && [ "$(grep -c '^Assistant:' out)" = 1 ] && ok || fail "resume --model: $(cat err)"
    grep -q "session 1: its model is $TMP/m/moved.pth from now on" err && ok ||
        fail "no line saying the model's path: $(cat err)"
    [ "$(model_of a.db)" = "$TMP/m/moved.pth" ] && ok || fail "session 1's model: $(model_of a.db)"
    printf 'three\n' | "$T" chat --db a.db --resume --max-tokens 3 --seed 1 >out 2>err
    [ $? = 0 ] && [ "$(grep -c '^Assistant:' out)" = 1 ] && ok ||
        fail "a later --resume without --model: $(cat err)"
    grep -q "from now on" err && fail "said again: $(cat err)" || ok
    rows_are a.db "select count(*) from turns" "$((n0 + 4))" && rows_are a.db "select count(*) from sessions" 1 &&
        ok || fail "turns: $(sql_rows a.db 'select count(*) from turns') (want $((n0 + 4)), one session)"

    # --- 2. another model (another shape) is not the session's: refused --------
    expect_fail "another model" "session 1 was made with" \
        "$T" chat --db a.db --resume --model "$FX/models/tiny-6v0-fp32.pth"
fi
finish
