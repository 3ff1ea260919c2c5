#!/usr/bin/env bash
# tests/tui/footer.sh -- the footer at 80x24 and narrower keeps "F1 help"
# and "F10 quit" and drops the less needed hints first; the status line's
# speeds carry their unit and there is no decode speed before a decode; at
# 80 columns beside the demo label a running reply's "generating" shows.
. "$(dirname "$0")/tmuxlib.sh"

footer() { screen | tail -1; }
status() { screen | head -1; }

W=80 H=24 tui_start --max-tokens 4 --seed 3
check "80x24: started" 'F10 quit'
f=$(footer)
for k in 'F1 help' 'F10 quit' 'F2 sessions' 'F3 states' 'C-r regen'; do
    if printf '%s' "$f" | grep -q -- "$k"; then ok; else fail "80x24 footer lacks '$k': $f"; fi
done
if printf '%s' "$f" | grep -q 'F7 sidebar'; then fail "80x24: the least needed hint should go first: $f"; else ok; fi
if [ "${#f}" -le 80 ]; then ok; else fail "80x24: footer ${#f} columns"; fi
# hints keep their usual order: help first, quit last
if printf '%s' "$f" | grep -Eq '^F1 help .* F10 quit *$'; then ok; else fail "80x24 order: $f"; fi

# before any reply: the greeting's prefill speed with its unit, no decode
s=$(status)
if printf '%s' "$s" | grep -q 'decode'; then fail "decode speed before any decode: $s"; else ok; fi
tmx resize-window -x 160 -y 24
check "wide: prefill speed labelled" '^ DEMO.*prefill [0-9]+ tok/s +[0-9]+ MiB'
s=$(status)
if printf '%s' "$s" | grep -q 'decode'; then fail "wide: decode speed before any decode: $s"; else ok; fi

type_text "hello"
send
check "after a reply: decode speed labelled" '^ DEMO.*prefill [0-9]+ tok/s +decode [0-9.]+ tok/s'
tmx resize-window -x 80 -y 24
check "80x24 after a reply: decode speed" '^ DEMO.*decode [0-9.]+ tok/s'

# narrower: help and quit stay to the end (polled until the client has
# redrawn at the new size: tmux cuts the old footer at once)
fits() { printf '%s' "$f" | grep -q 'F1 help' && printf '%s' "$f" | grep -q 'F10 quit' && [ "${#f}" -le $1 ]; }
# (the reply's notice stays through a resize: a key clears it)
type_text "x"
keys BSpace
check "the notice cleared by a key" 'F1 help.*F10 quit'
for w in 40 24 20; do
    tmx resize-window -x $w -y 12
    for i in $(seq 100); do f=$(footer); fits $w && break; sleep 0.1; done
    if fits $w; then ok; else fail "${w} columns: footer '$f'"; fi
done
tui_resize 80 24
tui_quit

# 80x24 beside the demo label: a long reply's "generating" is in sight (it
# matters more than the labels), so wait_idle can see it end
TUI_ENV="TERM=screen" W=80 H=24 tui_start --max-tokens 150000 --seed 3
type_text "long one"
keys Enter
check "80x24: generating in the status line" '^ DEMO MODEL \(random weights\) +generating [0-9]+ tok\.\.\.' 20
# (seconds in a normal build; minutes under a sanitizer)
check_not "80x24: the long reply ends" '^ DEMO MODEL \(random weights\) +generating' 900
# (after it the session title has the room beside the demo label: the
# labels it repeats give way)
check "80x24: the title again after it" '^ DEMO MODEL \(random weights\) +long one \| [0-9]+ tok +decode'
check_not "80x24: no model label beside the demo label" '^ DEMO MODEL \(random weights\) +demo \|'
tui_quit

# a rebound quit key is what the footer keeps
mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"
printf 'keys:\n  quit: C-q\n  help: F12\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
W=40 H=12 tui_start
check "rebound keys kept at 40 columns" '^F12 help .*C-q quit'
keys C-q
check "C-q quits" '^EXIT=0'
tui_finish
