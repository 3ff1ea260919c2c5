#!/usr/bin/env bash
# tests/cli/resume_state_gone.sh -- a session started from a state file
# (--state, F3) goes on once that file is gone, where the turn it continues
# from has its saved state: its start is needed only to go back there (a
# replay from the start, the first reply again, a new chat), and that says
# so in one line naming the file.  A resume of such a session, and of one
# exported and imported with --states (whose --help says it "opens at
# once"), failed at launch: "starts from the state file 'x.pth', which is
# not on disk" (exit 1), its saved states unused.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
case $FX in /*) ;; *) FX=$PWD/$FX ;; esac   # (the test runs in $TMP)
cd "$TMP" || exit 1

if have_fixture models/tiny-7v0-fp32.pth 12 && have_fixture states/state-7v0-A.pth 12; then
    M="--model $FX/models/tiny-7v0-fp32.pth"
    mkdir st && cp "$FX/states/state-7v0-A.pth" st/mystate.pth
    # shellcheck disable=SC2086
    printf 'one\ntwo\n' | "$T" chat $M --db a.db --new t --state st/mystate.pth --max-tokens 3 \
        --seed 1 >/dev/null 2>err || fail "chat: $(cat err)"
    "$T" sessions --db a.db export 1 --format json --states --out x.json 2>err ||
        fail "export: $(cat err)"
    rm st/mystate.pth
    n0=$(sql_rows a.db "select count(*) from turns")

    # --- 1. the line chat's --resume goes on from the saved state --------------
    printf 'three\n' | "$T" chat --db a.db --resume --max-tokens 3 --seed 1 >out 2>err
    [ $? = 0 ] && ok || fail "resume with the state file gone: $(cat err)"
    [ "$(grep -c '^Assistant:' out)" = 1 ] && ok || fail "no reply after the resume: $(cat out err)"
    grep -q 'replayed' err && fail "the resume replayed: $(cat err)" || ok
    rows_are a.db "select count(*) from turns" "$((n0 + 2))" && ok ||
        fail "the exchange was not saved in session 1: $(sql_rows a.db 'select count(*) from turns')"
    rows_are a.db "select count(*) from sessions" 1 && ok || fail "another session was made"

    # --- 2. imported with --states: opens at once, also with its file gone ------
    "$T" sessions --db b.db import x.json --states >/dev/null 2>err || fail "import: $(cat err)"
    printf 'three\n' | "$T" chat --db b.db --resume --max-tokens 3 --seed 1 >out 2>err
    [ $? = 0 ] && [ "$(grep -c '^Assistant:' out)" = 1 ] && ok ||
        fail "resume of the import: $(cat err)"

    # --- 3. going back to the start needs it: one line naming the file ---------
    # (a new session of one exchange: its first reply again needs the start)
    cp "$FX/states/state-7v0-A.pth" st/mystate.pth
    # shellcheck disable=SC2086
    printf 'one\n' | "$T" chat $M --db c.db --new t --state st/mystate.pth --max-tokens 3 \
        --seed 1 >/dev/null 2>err || fail "chat: $(cat err)"
    rm st/mystate.pth
    printf '/regen\n' | "$T" chat --db c.db --resume --max-tokens 3 --seed 1 >out 2>err
    grep -q "mystate.pth (not on disk): this session starts from it" err && ok ||
        fail "/regen of the first reply: $(cat err)"
    [ "$(grep -c 'mystate.pth' err)" = 1 ] && ok || fail "not one line: $(cat err)"
    [ "$(grep -c '^Assistant:' out)" = 0 ] && ok || fail "a reply from another start: $(cat out)"
    printf '/reset\n' | "$T" chat --db c.db --resume --max-tokens 3 >out 2>err
    grep -q "mystate.pth (not on disk): this session starts from it" err && ok ||
        fail "/reset: $(cat err)"
    # a free generation (+gen, +qa) starts from the start too: never from a
    # blank stand-in for the file
    for g in '+gen Once upon' '+qa hello'; do
        printf '%s\n' "$g" | "$T" chat --db c.db --resume --max-tokens 3 --seed 1 >out 2>err
        grep -q "mystate.pth (not on disk): this session starts from it" err && ok ||
            fail "$g with the file gone: $(cat out err)"
    done
    # a copy given with --state is the file again: the first reply again works
    cp "$FX/states/state-7v0-A.pth" elsewhere.pth
    printf '/regen\n' | "$T" chat --db c.db --resume --state elsewhere.pth --max-tokens 3 \
        --seed 1 >out 2>err
    [ $? = 0 ] && [ "$(grep -c '^Assistant:' out)" = 1 ] && ok ||
        fail "/regen with a copy: $(cat out err)"
    # its path holding another state (not gone: replaced) is still refused
    cp "$FX/states/state-7v0-A.pth" st/mystate.pth
    # shellcheck disable=SC2086
    printf 'one\n' | "$T" chat $M --db d.db --new t --state st/mystate.pth --max-tokens 3 \
        --seed 1 >/dev/null 2>err || fail "chat: $(cat err)"
    cp "$FX/states/state-6v0-A.pth" st/mystate.pth
    expect_fail "another state at its path" "holds another state than session 1" \
        "$T" chat --db d.db --resume
fi
finish
