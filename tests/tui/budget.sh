#!/usr/bin/env bash
# tests/tui/budget.sh -- F2's C-b sets the disk budget of the saved states,
# as `sessions budget` does: asked with what the states take now, applied at
# once (states dropped, said in one line), shown in the menu's title; a
# wrong size or 0 is one line and changes nothing; "off" takes it away.
# The real binary in tmux, a real SQLite file.
. "$(dirname "$0")/tmuxlib.sh"
T=$RWKV_TUI
states() { sqlite3 "$DB" "select count(*) from snapshots" 2>/dev/null; }

for i in 1 2 3; do
    yes "message $i" | head -8 | "$T" chat --demo --db "$DB" --new "s$i" --max-tokens 4 --seed $i \
        >/dev/null 2>&1 || fail "chat s$i"
done
n0=$(states)
[ "${n0:-0}" -gt 6 ] && ok || fail "states saved by the chats: $n0"

tui_start --seed 4
keys F2
check "sessions menu, no budget in the title" 'Sessions  \(saved states: [0-9.]+ (kB|MB)\)'
screen > "$TMP/f2.txt"
keys C-b
check "asked with the size now" 'saved states: [0-9.]+ (kB|MB), no budget; budget \(500MB, 2GB, off\):'
type_text "lots"
keys Enter
check "a wrong size: one line" "budget: 'lots' is not a size \(500MB, 2GB, 1.5GiB, or off\)"
[ "$(states)" = "$n0" ] && ok || fail "a wrong size dropped states: $(states) of $n0"
keys C-u                # (a refused size keeps the prompt open, holding it)
type_text "0"
keys Enter
check "0 refused" "a budget of 0 bytes would drop every state: say 'off' for none"
keys C-u
type_text "100"
keys Enter
# (said in the refused prompt's dialog, which wraps it)
check "a bare number under one state: refused, said" "budget: '100' with no unit means bytes, less than one saved state"
check "... with the smallest state's size" "smallest takes [0-9.]+ (kB|MB)\)"
[ "$(states)" = "$n0" ] && ok || fail "a bare 100 dropped states: $(states) of $n0"
keys C-u
# a unit does not make it safe: 1kB (for 1GB?) would drop every state too
type_text "1kB"
keys Enter
check "under one state with a unit: refused" "budget: '1kB' is less than one saved state"
[ "$(states)" = "$n0" ] && ok || fail "1kB dropped states: $(states) of $n0"
keys C-u
type_text "100kB"
keys Enter
check "applied and said" 'budget 100 kB: dropped [0-9]+ saved states? \([0-9.]+ (kB|MB); rebuilt from the turns'"'"' tokens'
check "the title shows the budget" 'Sessions  \(saved states: [0-9.]+ (kB|MB) of 100 kB\)'
n1=$(states)
# (no session is being written: 100 kB, one state, takes even the sessions'
# last states but one, which replay rebuilds)
[ "$n1" -lt "$n0" ] && ok || fail "states after the budget: $n1 of $n0"
out=$("$T" sessions --db "$DB" budget 2>&1)
case $out in *"budget: 100 kB") ok ;; *) fail "the CLI sees another budget: $out" ;; esac
keys C-b
check "asked with the budget now" 'saved states: [0-9.]+ (kB|MB) of 100 kB; budget'
type_text "off"
keys Enter
check "off" 'budget: none \(the retention policy alone decides\)'
check "the title without a budget" 'Sessions  \(saved states: [0-9.]+ (kB|MB)\)'
out=$("$T" sessions --db "$DB" budget 2>&1)
case $out in *"budget: none"*) ok ;; *) fail "the CLI after off: $out" ;; esac
keys C-b
keys Enter
check "empty: unchanged" 'budget unchanged'
keys Escape
tui_quit
tui_finish
