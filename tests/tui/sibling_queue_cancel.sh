#!/usr/bin/env bash
# tests/tui/sibling_queue_cancel.sh -- Esc stops the sibling steps queued
# behind the one running too: M-, pressed three times while the first step's
# job has not got anywhere, then Esc, leaves the chat one step back (that
# step needs no replay, so it goes on: the cancel rule, storage/session.h),
# not three (the two queued behind it ran after the Esc).  The next M-, is
# not touched by that Esc: it goes one step.  gdb makes the instant
# (holdlib.sh): the first step's worker is held where it begins while the UI
# thread alone takes the two queued steps and the Esc; without gdb, or where
# it may not attach, the checks are skipped.  The demo model; every reply
# keeps its saved state, so no step replays.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=9
hold_gdb $N_CHECKS "Esc during queued sibling steps"

# a message answered four times: four sibling replies, the 4th the head
printf 'hello there\n/regen 3\n' |
    "$RWKV_TUI" chat --demo --db "$DB" --new four --max-tokens 4 --seed 2 >/dev/null 2>&1 && ok ||
    fail "chat"
[ "$(sqlite3 "$DB" "select count(*) from turns where role=2" 2>/dev/null)" = 4 ] && ok ||
    fail "replies: $(sqlite3 "$DB" "select id, role from turns" 2>/dev/null | tr '\n' ' ')"

tui_start --max-tokens 4
keys F2
check "the sessions menu" 'four'
keys Enter
check "resumed on the 4th reply" '^RWKV  < 4/4 >' 30
wait_idle 100

# M-, starts a step; while its worker is held, M-, M-, (queued) and Esc
if ! held M-, "M-, M-, Escape"; then
    skip $((N_CHECKS - 5)) "gdb could not attach: $(hold_why)"
    tui_quit
    tui_finish
    exit
fi
check "the running step (no replay) went on" '^RWKV  < 3/4 >' 30
wait_idle 100
sleep 1     # (what the queued steps would take: a step without a replay is quick)
wait_idle 100
check_not "Esc dropped the steps queued behind it" '^RWKV  < [12]/4 >' 1
check "... the chat stays one step back" '^RWKV  < 3/4 >'
# the next step: not touched by that Esc
keys M-,
check "the next step goes through" '^RWKV  < 2/4 >' 30
wait_idle 100
tui_quit
tui_finish
