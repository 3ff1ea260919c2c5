#!/usr/bin/env bash
# tests/cli/state_switch_sampling.sh -- /state FILE (and F3 in the client:
# the same runtime call, sess_switch_state) moves top_p, presence and
# frequency to the demo's values for a state file -- and says so, one line
# naming each value changed ("top_p 0.3 -> 0.2").  It used to change them
# without a word: replies sampled otherwise, the user none the wiser.  A
# value set by the user stays, and is not named; a switch that changes
# nothing says nothing.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI

if have_fixture models/tiny-7v0-fp32.pth 5 && have_fixture states/state-7v0-A.pth 5; then
    M=$(realpath "$FX/models/tiny-7v0-fp32.pth")
    S=$(realpath "$FX/states/state-7v0-A.pth")
    printf '/state %s\n' "$S" | "$T" chat --model "$M" --seed 1 >/dev/null 2>"$TMP/e1"
    [ $? = 0 ] && ok || fail "/state: $(cat "$TMP/e1")"
    grep -qx "sampling for a state file (the demo's): top_p 0.3 -> 0.2, presence 0.5 -> 0.3, frequency 0.5 -> 0.3" \
        "$TMP/e1" && ok || fail "the values changed not said: $(cat "$TMP/e1")"
    # top_p given: kept, not named
    printf '/state %s\n' "$S" | "$T" chat --model "$M" --seed 1 --top-p 0.9 >/dev/null 2>"$TMP/e2"
    grep -qx "sampling for a state file (the demo's): presence 0.5 -> 0.3, frequency 0.5 -> 0.3" \
        "$TMP/e2" && ok || fail "with --top-p: $(cat "$TMP/e2")"
    # all three given: nothing changes, nothing said
    printf '/state %s\n' "$S" | "$T" chat --model "$M" --seed 1 --top-p 0.9 --presence 0 \
        --frequency 0 >/dev/null 2>"$TMP/e3"
    grep -q '^sampling' "$TMP/e3" && fail "said with nothing changed: $(cat "$TMP/e3")" || ok
    # from one state file to another: already the state file's values
    printf '/state %s\n/state %s\n' "$S" "$S" | "$T" chat --model "$M" --seed 1 >/dev/null \
        2>"$TMP/e4"
    [ "$(grep -c '^sampling' "$TMP/e4")" = 1 ] && ok || fail "said twice: $(cat "$TMP/e4")"
fi
finish
