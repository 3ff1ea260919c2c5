#!/usr/bin/env bash
# tests/tui/esc_alt.sh -- Alt-[, Alt-O, Alt-P and Alt-] are ESC [, ESC O,
# ESC P and ESC ], the starts of escape sequences; a script that sends one
# and a key in one call (tmux send-keys M-[ g) delivers them within the
# 30 ms that tell a sequence from Alt-key.  Only bytes that make a whole
# sequence a terminal sends are read as one; else it is Alt-[ and then the
# key.  Before, ESC [ g was an unknown CSI, dropped with the g; ESC P g and
# ESC ] g strings read to a pause, dropped.  Bound in the config (M-[ the
# message log, M-O state files, M-P presets), each opens its menu and the g
# goes to the menu's search; unbound (M-]) the g is typed.  (A key the
# terminfo names still wins: under xterm-256color ESC O x is the keypad's
# Up, ka2, so M-O x there is that key.)  Real sequences
# sent the same way are still dropped (an unknown CSI with parameters, an
# OSC reply), and F1 as tmux sends it (ESC O P) still opens help.  Under
# TERM=screen and TERM=xterm-256color.
. "$(dirname "$0")/tmuxlib.sh"

raw() { tmx send-keys -H $(printf "$1" | od -An -tx1); }

cat >"$TMP/keys.yaml" <<'EOT'
keys:
  messages: "M-["
  states: "M-O"
  presets: "M-P"
EOT
for term in screen xterm-256color; do
    TUI_ENV="TERM=$term" W=100 H=24 tui_start --max-tokens 2 --seed 5 --config "$TMP/keys.yaml"
    for kt in "M-[ Messages" "M-O State files" "M-P Presets"; do
        k=${kt%% *} title=${kt#* }
        keys "$k" g
        check "$term: $k g: $k opens its menu" "$title"
        check "$term: $k g: the g is the menu's search" "$title .*search: g"
        keys Escape Escape
        check_not "$term: $k's menu closed" "$title"
    done
    keys M-] g
    check "$term: M-] g (unbound): the g typed" '^> g *$'
    keys C-u
    # the bytes of M-[ y as one write, as a terminal sends Alt-[ y
    raw '\033[y'
    check "$term: ESC [ y at once: M-[ opens its menu, y its search" "Messages .*search: y"
    keys Escape Escape
    check_not "$term: the log closed" "Messages"
    type_text "abc"
    raw '\033[99;5x\033]11;rgb:0/0/0\007\033O5Q'
    type_text "def"
    check "$term: sequences with parameters still dropped" '^> abcdef *$'
    raw '\033OP'
    check "$term: ESC O P is still F1" 'Help: every key'
    keys Escape
    check_not "$term: help closed" 'Help: every key'
    tui_quit
done
tui_finish
