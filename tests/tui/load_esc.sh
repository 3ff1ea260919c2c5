#!/usr/bin/env bash
# tests/tui/load_esc.sh -- escape sequences that arrive while the model
# loads at startup (the keys typed then are read during the load and given
# back to curses after it) leave nothing in the input box, as they leave
# nothing typed later (esc_seqs.sh): an unknown CSI, an OSC reply, an
# unknown SS3 and the mouse reports a terminal sends -- X10 (ESC [ M and
# three bytes: under TERM=screen "ESC [ M" is the terminfo's kmous, so the
# three bytes were left as text) and SGR (ESC [ < ... M: under
# xterm-256color kmous is "ESC [ <", and "0;10;5M" was typed).  An arrow
# key among them still moves the cursor.
. "$(dirname "$0")/tmuxlib.sh"

raw() { tmx send-keys -H $(printf "$1" | od -An -tx1); }
V=$FX/rwkv_vocab_v20230424.txt
if ! "$RWKV_TUI" bench --shape 0.1b --save "$TMP/big.pth" --threads 2 >/dev/null 2>&1 || [ ! -e "$V" ]; then
    skip 8 "(8) no 0.1b model file or no World vocabulary"
    tui_finish
fi
# the load's percentage on screen ("" once the load is over)
pct() { screen | sed -n 's/.*loading \[.*\] *\([0-9]*\)% .*/\1/p' | head -1; }

for term in screen xterm-256color; do
    RUNS=$((RUNS + 1))
    tmx_fresh "env TERM=$term XDG_CONFIG_HOME='$XDG_CONFIG_HOME' XDG_STATE_HOME='$XDG_STATE_HOME' LANG=C.UTF-8 \
              '$RWKV_TUI' --model '$TMP/big.pth' --vocab '$V' --strategy 'cpu fp32' --db '$TMP/$term.db' \
              2>'$TMP/stderr.$RUNS'; echo EXIT=\$?; sleep 600"
    if ! wait_for 'loading|opening' 10; then
        skip 4 "(4) $term: the load ended before anything could be typed"
        continue
    fi
    type_text "abc"
    raw '\033[M !!\033[<0;10;5M\033[<0;10;5m\033[99;5x\033]11;rgb:0/0/0\033\\\033O5Q'
    type_text "dXf"
    keys Left
    raw '\033[M #!'
    keys BSpace
    type_text "e"
    tmx display -p x >/dev/null
    if [ -z "$(pct)" ]; then
        skip 4 "(4) $term: the load ended before the keys were all typed"
        tmx kill-server
        continue
    fi
    check "$term: the client is up after the load" 'F1 help' 60
    check "$term: only the text typed during the load in the box" '^> abcdef *$'
    check_not "$term: no report's bytes" '^> .*(!!|0;10|5M|rgb)' 1
    check_not "$term: still running" '^EXIT=' 1
    tmx kill-server
done
tui_finish
