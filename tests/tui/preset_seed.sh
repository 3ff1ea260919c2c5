#!/usr/bin/env bash
# tests/tui/preset_seed.sh -- F4's Enter loads a preset's sampling values
# but not its seed (as the config's `preset` does): the seed in use, random
# or given with --seed, goes on and the sidebar keeps showing it -- not the
# seed the preset was saved with (0 in the built-ins), which the chat would
# not be using.
. "$(dirname "$0")/tmuxlib.sh"

# the sidebar's seed row (its value as drawn)
seed_row() { screen | grep -oE '│ seed +[0-9…]+' | head -1; }

# ---- --seed given: it stays, in the sidebar and in the replies ----
tui_start --seed 12345 --max-tokens 5
check "the sidebar shows the seed given" '│ seed +12345 *$'
keys F4
check "F4 open" 'Presets'
type_text "state"
keys Enter
check "the built-in preset is loaded" "preset 'state' loaded"
check "its values are in the sidebar" '│ top-p +0\.2 *$'
check "the seed given stays in the sidebar" '│ seed +12345 *$'
type_text "after the preset"
send
# the reply's own seed comes from the chat's sequence of seed 12345: the
# same as the first reply of a run with --seed 12345 and no preset
got=$(sqlite3 "$DB" "select sampling from turns where role=2 order by id desc limit 1" | grep -oE 'seed=[0-9]+')
tui_quit
rm -f "$DB"
tui_start --seed 12345 --max-tokens 5 --top-p 0.2 --presence 0.3 --frequency 0.3
type_text "after the preset"
send
want=$(sqlite3 "$DB" "select sampling from turns where role=2 order by id desc limit 1" | grep -oE 'seed=[0-9]+')
[ -n "$want" ] && [ "$got" = "$want" ] && ok || fail "the reply after the preset has $got, want $want (--seed 12345's first)"
tui_quit

# ---- no --seed: the random seed shown before is the one shown after ----
rm -f "$DB"
tui_start --max-tokens 5
before=$(seed_row)
[ -n "$before" ] && ok || fail "no seed row in the sidebar"
keys F4
check "F4 open" 'Presets'
type_text "demo"
keys Enter
check "the built-in preset is loaded" "preset 'demo' loaded"
after=$(seed_row)
[ "$before" = "$after" ] && ok || fail "the seed shown changed on loading the preset: '$before' -> '$after'"
check_not "the preset's seed 0 is not shown" '│ seed +0 *$'
tui_quit
tui_finish
