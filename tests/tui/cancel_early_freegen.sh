#!/usr/bin/env bash
# tests/tui/cancel_early_freegen.sh -- the client's free generation: Esc (or
# C-c) pressed after M-g's prompt or M-+ is sent but before the worker has
# begun the job stops it at its first step -- nothing is generated; M-+'s
# continuation says "generation stopped" (M-+ goes on), M-g's is cut in its
# prompt ("cancelled before it began": nothing to continue) -- and the next
# one is not touched by it: it runs to max-tokens.  (The worker cleared the
# cancel when it began the job, so such an Esc was lost and the generation
# ran to its end.)  gdb makes the instant (holdlib.sh); without gdb, or where
# it may not attach, the checks are skipped.  The demo model.
. "$(dirname "$0")/tmuxlib.sh"
. "$(dirname "$0")/holdlib.sh"

N_CHECKS=11
hold_gdb $N_CHECKS "the cancel before a free generation starts"

# the last transcript line starting with TEXT, as shown (the sidebar cut off)
line_of() { screen | grep -F -- "$1" | tail -1 | sed 's/│.*//; s/^ *//; s/ *$//'; }

tui_start --max-tokens 40 --seed 3
keys M-g
check "the prompt" 'generate from'
type_text "once"
send
check "a generation, uncut" 'free generation done'

# M-+, Esc before its job began: nothing more
if ! held M-+ Escape; then
    skip $((N_CHECKS - 2)) "gdb could not attach: $(hold_why)"
    tui_quit
    tui_finish
    exit
fi
check "a continuation cut before its job began: stopped" 'generation stopped; M-\+ continues it'
[ "$(line_of '(continued)')" = "(continued)" ] && ok ||
    fail "the cut continuation generated: '$(line_of '(continued)')'"

# the next M-+ runs whole: the cancel did not carry over
keys M-+
check "the next continuation runs to max-tokens" 'free generation done'
[ "$(line_of '(continued)')" != "(continued)" ] && ok || fail "the next continuation made nothing"

# M-g, Esc before its job began: cut in its prompt, nothing to continue
keys M-g
check "the prompt again" 'generate from'
type_text "twice"
held Enter Escape || fail "gdb could not attach a second time"
check "a generation cut before its job began: said" 'generation cancelled before it began'
[ "$(line_of 'free generation (not saved): twice')" = "free generation (not saved): twice" ] && ok ||
    fail "the cut generation generated: '$(line_of 'free generation (not saved): twice')'"
keys M-+
check "... nothing to continue" 'nothing to continue: M-g starts a free generation'
tui_quit
tui_finish
