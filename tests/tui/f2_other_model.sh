#!/usr/bin/env bash
# tests/tui/f2_other_model.sh -- F2's Enter on a session made with a model
# of another shape than the one loaded asks to load that model (as
# `--session N` would take it): n changes nothing; y loads it as F5 does
# and opens the session on it.  Its file replaced since (another model of
# the same size: told once it is loaded) or gone (told at once, no
# question) is said in one line, the model in use and its chat kept.
# Models written by the binary itself: A (RWKV-7 demo shape), B (RWKV-6).
. "$(dirname "$0")/tmuxlib.sh"
T=$RWKV_TUI
A=$TMP/a.pth
A2=$TMP/a2.pth
B=$TMP/b.pth

"$T" bench --save "$A" --shape demo --seed 1 >/dev/null 2>&1 && ok || fail "bench --save a"
"$T" bench --save "$A2" --shape demo --seed 2 >/dev/null 2>&1 && ok || fail "bench --save a2"
"$T" bench --save "$B" --shape demo-v6 --seed 1 >/dev/null 2>&1 && ok || fail "bench --save b"
printf 'alphamsg\n' | "$T" chat --model "$A" --db "$DB" --new alphatitle --max-tokens 4 --seed 1 \
    >/dev/null 2>&1 && ok || fail "chat with a"
before=$("$T" sessions --db "$DB" export 1 --format md)
Q="session 1 was made with $A \(RWKV-7.0, 2 layers\): load it and open the session\? \(y/n\)"

W=220 NODEMO=1 tui_start --db "$DB" --model "$B" --max-tokens 4 --seed 2
check "model b in use" 'b\.pth \| cpu'
type_text "betamsg"
send
keys F2
check "sessions menu" 'Sessions'
type_text "alphatitle"
keys Enter
check "asks to load the session's own model" "$Q"
check_not "nothing refused" 'not this model'
keys n
check_not "n: the question goes" 'load it and open'
check "n: model b kept" 'b\.pth \| cpu'
check "n: its chat kept" '^  betamsg'
keys Escape
keys F2
type_text "alphatitle"
keys Enter
check "asked again" "$Q"
keys y
check "y: the session's model loaded" 'a\.pth \| cpu fp32' 30
check "y: the session opened" '^  alphamsg' 30
wait_idle
check "y: its title on the status line" 'alphatitle'
check_not "y: b's chat left" '^  betamsg'
tui_quit
[ "$("$T" sessions --db "$DB" export 1 --format md)" = "$before" ] && ok ||
    fail "session 1 changed: $("$T" sessions --db "$DB" show 1)"

# the file replaced by another model of the same size: loaded, found not
# the session's (its fingerprint), said; b and its chat stay
cp "$A2" "$A"
W=220 NODEMO=1 tui_start --db "$DB" --model "$B" --max-tokens 4 --seed 2
type_text "gammamsg"
send
keys F2
type_text "alphatitle"
keys Enter
check "replaced file: asked" "$Q"
keys y
check "replaced file: one line" "holds another model than session 1 was made with" 30
check "replaced file: model b kept" 'b\.pth \| cpu'
check "replaced file: chat kept" '^  gammamsg'
# the file gone: said at once, no question
rm -f "$A"
keys F2
type_text "alphatitle"
keys Enter
check "gone: one line" "a\.pth: cannot open: No such file or directory"
check_not "gone: no question" 'load it and open'
keys Escape
check "gone: model b kept" 'b\.pth \| cpu'
check "gone: chat kept" '^  gammamsg'
tui_quit

# a session of the demo model (no file): asked by that name, y loads it
printf 'deltamsg\n' | "$T" chat --demo --db "$DB" --new deltatitle --max-tokens 4 --seed 1 \
    >/dev/null 2>&1 && ok || fail "chat with the demo model"
W=220 NODEMO=1 tui_start --db "$DB" --model "$B" --max-tokens 4 --seed 2
keys F2
type_text "deltatitle"
keys Enter
check "demo: asked" "session [0-9]+ was made with the demo model: load it and open the session\? \(y/n\)"
keys y
check "demo: loaded and opened" '^  deltamsg' 30
check_not "demo: b no longer in use" 'b\.pth \| cpu'
tui_quit
tui_finish
