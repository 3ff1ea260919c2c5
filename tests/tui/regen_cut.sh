#!/usr/bin/env bash
# tests/tui/regen_cut.sh -- the client: a regeneration (C-r) cancelled
# before its first token changes nothing, with --no-db as with a database:
# "cancelled before the reply started", the reply it had stays on the
# screen and in the chat (M-r continues that reply, not an empty one).
#
# A person lands that Esc/C-c in a window of microseconds (between the
# worker starting the regeneration and its first token), so gdb makes the
# window (holdlib.sh): the worker is held where the reply begins (chat_run)
# while the UI thread alone runs and takes C-c, then everything goes on.
# Without gdb, or where it may not attach (ptrace not allowed), the checks
# are skipped, and tests/cli/chat_regen_cut.sh still covers the runtime's
# rule through the line chat.  The tiny RWKV-7 fixture model (the demo model without the
# fixtures), greedy.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CASE=6
BYTE="--model $FX/models/tiny-7v0-fp32.pth"
[ -e "$FX/models/tiny-7v0-fp32.pth" ] || [ -n "${CI:-}" ] || BYTE=--demo
have_fixture models/tiny-7v0-fp32.pth 0 || true
hold_gdb $((2 * N_CASE + 1)) "the regeneration cut at once"

# the text of the last reply on the screen, and its header
reply_text() { screen | grep -A1 '^RWKV ' | tail -1 | sed 's/│.*//; s/ *$//'; }
reply_head() { screen | grep '^RWKV ' | tail -1 | sed 's/│.*//; s/ *$//'; }

# run_case LABEL ARGS...: a reply, C-r cut at once, M-r; sets OLD (the
# reply) and NEW (after M-r); 1 when gdb could not drive it (skipped)
run_case() {
    local label=$1
    shift
    NODEMO=1 W=80 H=24 tui_start $BYTE "$@" --max-tokens 8 --seed 3 --temperature 0 \
        --stop QQQQQQ --ban 10,13
    type_text hello
    send
    OLD=$(reply_text)
    if ! held C-r C-c chat_run sess_cancel; then
        skip $N_CASE "$label: gdb could not attach: $(hold_why)"
        return 1
    fi
    check "$label: said" 'cancelled before the reply started'
    [ "$(reply_text)" = "$OLD" ] && ok || fail "$label: the reply was '$OLD', now '$(reply_text)'"
    case $(reply_head) in *interrupted*) fail "$label: an empty reply: $(reply_head)" ;; *) ok ;; esac
    keys M-r
    wait_idle
    NEW=$(reply_text)
    case $NEW in "$OLD"?*) ok ;; *) fail "$label: M-r continued to '$NEW' (the reply was '$OLD')" ;; esac
    case $(reply_head) in *"16 tok"*) ok ;; *) fail "$label: after M-r: $(reply_head)" ;; esac
    tui_quit
    return 0
}

if run_case "--no-db" --no-db; then
    old1=$OLD new1=$NEW
    if run_case "saved"; then
        [ "$OLD|$NEW" = "$old1|$new1" ] && ok ||
            fail "saved and --no-db differ: '$old1' '$new1' / '$OLD' '$NEW'"
    else
        skip 1 "no comparison"
    fi
else
    skip $((N_CASE + 1)) "gdb could not attach"
fi
tui_finish
