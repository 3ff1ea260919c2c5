#!/usr/bin/env bash
# tests/tui/hup_typeahead.sh -- the terminal closes while the model loads:
# the message typed meanwhile is the history's draft, as at Ctrl-C
# (chat_user.sh).  The kernel empties a hung-up terminal's input before
# SIGHUP arrives, so the keys still queued there were lost; the client now
# reads them as they come during the load.  And what is typed during a load
# that ends normally is still read as keys, in order.
. "$(dirname "$0")/tmuxlib.sh"

V=$FX/rwkv_vocab_v20230424.txt
if ! "$RWKV_TUI" bench --shape 0.1b --save "$TMP/big.pth" --threads 2 >/dev/null 2>&1 || [ ! -e "$V" ]; then
    skip 5 "(5) no 0.1b model file or no World vocabulary"
    tui_finish
fi
hist=$XDG_STATE_HOME/rwkv-tui/history
start() {   # start DB: the client on the big model, its pid in $pid
    RUNS=$((RUNS + 1))
    tmx_fresh "env XDG_CONFIG_HOME='$XDG_CONFIG_HOME' XDG_STATE_HOME='$XDG_STATE_HOME' LANG=C.UTF-8 \
              '$RWKV_TUI' --model '$TMP/big.pth' --vocab '$V' --strategy 'cpu fp32' --db '$1' \
              2>'$TMP/stderr.$RUNS'; echo EXIT=\$?; sleep 600"
    pid=
    wait_for 'loading|opening' 10 || return 1
    pid=$(pgrep -P "$(tmx display -p '#{pane_pid}')" | head -1)
    [ -n "$pid" ]
}
gone() { ! kill -0 "$pid" 2>/dev/null; }

# the load's percentage on screen ("" once the load is over)
pct() { screen | sed -n 's/.*loading \[.*\] *\([0-9]*\)% .*/\1/p' | head -1; }
moved() { local p; p=$(pct); [ "$p" != "$1" ]; }

# the terminal closes (the tmux server goes: its pty hangs up) mid-load,
# after the client has drawn the progress twice since the keys arrived (so
# it ran while they were there), the model not loaded yet
rm -f "$hist"
if start "$TMP/a.db"; then
    type_text "typed before the hangup"
    keys Enter
    # (tmux answers display after it has written the keys to the terminal)
    tmx display -p x >/dev/null
    p0=$(pct)
    poll moved "$p0"
    p1=$(pct)
    poll moved "$p1"
    p2=$(pct)
    tmx kill-server
    poll gone && ok || fail "the client still runs after the hangup"
    if [ -z "$p1" ] || [ -z "$p2" ] || ! grep -q 'interrupted while loading' "$TMP/stderr.$RUNS"; then
        skip 2 "(2) the load ended before the hangup"
    else
        grep -qx 'd typed before the hangup' "$hist" 2>/dev/null && ok ||
            fail "the message typed while loading is not the history's draft: $(cat "$hist" 2>&1)"
        grep -q 'interrupted while loading .*what you typed is kept' "$TMP/stderr.$RUNS" && ok ||
            fail "not said: $(cat "$TMP/stderr.$RUNS")"
    fi
else
    skip 3 "(3) the load ended before it could be interrupted"
fi

# a load that ends: what was typed meanwhile is read as keys, in order
# (Enter during the load arrives as the box's new line: the terminal turns
# it into one before raw mode)
rm -f "$hist"
if start "$TMP/b.db"; then
    type_text "typed during the load"
    keys Enter
    type_text "and more"
    # an arrow key's escape sequence: decoded as before, never typed as
    # text (the sequence tmux sends before the client's keypad mode is on
    # is not the terminfo one: dropped, as it always was)
    keys Left
    type_text "X"
    check "the first line typed during the load" '^> typed during the load *$' 60
    check "the second line, after it" '^  and mor(Xe|eX) *$'
    # (gone before the temporary folder is: it writes the history at its end)
    tmx kill-server
    poll gone || fail "the client still runs after the hangup"
else
    skip 2 "(2) the load ended before anything could be typed"
fi
tui_finish
