#!/usr/bin/env bash
# tests/cli/chat_regen_cut.sh -- the line chat: a /regen cancelled before
# its first token changes nothing, without a database as with one: the
# chat stays on the reply it had (the line says "nothing changed"), and
# /continue goes on from that reply, printed whole, not from an empty one.
# The cancel lands before the first token the way a user can make it: the
# terminal stopped (C-s) while /regen starts, so the chat blocks printing
# "Assistant:", then Ctrl-C and C-q.  That write is not lost to the signal
# (it used to fail with EINTR: "stdout: Interrupted system call", exit 1).
# In tmux, on a terminal: C-s/C-q flow control needs one.  The tiny RWKV-7
# fixture model (the demo model without the fixtures), greedy.
. "$(dirname "$0")/../tui/tmuxlib.sh"

BYTE="--model $FX/models/tiny-7v0-fp32.pth"
[ -e "$FX/models/tiny-7v0-fp32.pth" ] || [ -n "${CI:-}" ] || BYTE=--demo
have_fixture models/tiny-7v0-fp32.pth 0 || true

# the line after the one that is exactly LINE (the reply to it)
after() { screen | grep -A1 -x -- "$1" | sed -n 2p; }
# the prompt is back after LINE: the reply to it is complete
answered() { screen | grep -A3 -x -- "$1" | tail -n +2 | grep -qx 'User: *'; }

# run_case LABEL ARGS...: hello, a /regen cut at once, /continue, C-d;
# sets OLD (the reply to hello) and NEW (what /continue printed)
run_case() {
    local label=$1; shift
    tmx_fresh "env LANG=C.UTF-8 '$RWKV_TUI' chat $BYTE $* --seed 3 --temperature 0 \
               --max-tokens 6 --stop QQQQQQ --ban 10,13 2>&1; echo EXIT=\$?; sleep 600"
    wait_for '^User: *$' 60 || fail "$label: no prompt: $(screen | tail -3)"
    type_text hello
    keys Enter
    poll answered 'User: hello' || fail "$label: no reply to hello: $(screen | tail -3)"
    OLD=$(after 'User: hello')
    case $OLD in Assistant:?*) ok ;; *) fail "$label: the reply to hello: '$OLD'" ;; esac
    keys C-s
    type_text /regen
    keys Enter
    sleep 1     # the chat blocks writing "Assistant:" on the stopped terminal
    keys C-c
    keys C-q
    check "$label: a regeneration cut at once changed nothing" \
        '^\(cancelled before the reply started; nothing changed\)$'
    type_text /continue
    keys Enter
    poll answered 'User: /continue' || fail "$label: no reply to /continue: $(screen | tail -3)"
    NEW=$(after 'User: /continue')
    # the reply it had, printed whole, and more: not an empty reply continued
    case $NEW in "$OLD"?*) ok ;; *) fail "$label: /continue printed '$NEW', the reply was '$OLD'" ;; esac
    keys C-d
    check "$label: exit 0 (the write the signal hit went out)" '^EXIT=0$' 30
    check_not "$label: no stdout error" 'Interrupted system call' 1
}

run_case "unsaved"
old1=$OLD new1=$NEW
run_case "saved" --db "$TMP/c.db" --new cut
[ "$OLD|$NEW" = "$old1|$new1" ] && ok ||
    fail "saved and unsaved differ: '$old1' '$new1' / '$OLD' '$NEW'"
tmx kill-server 2>/dev/null
finish
