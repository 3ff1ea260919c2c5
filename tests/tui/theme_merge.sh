#!/usr/bin/env bash
# tests/tui/theme_merge.sh -- a theme's foreground and background that
# differ in the file never merge into one colour on the screen, at 256
# colours too: #3a3a3a on #3b3b3b are both grey 237, 21 on #0000ff one blue
# (with COLORTERM=truecolor as well, where #rrggbb colours get palette
# slots of their own).  Colours read back with `capture-pane -e` (sgr.py)
# are palette numbers; a slot the client set (curses' initc: OSC 4, seen
# in the client's raw output through `pipe-pane`) is read as the colour it
# was set to, the others as xterm's palette -- so two numbers that show
# one colour (21 on a slot set to #0000ff, the truecolor case) merge.
. "$(dirname "$0")/tmuxlib.sh"
SGR="python3 $(dirname "$0")/sgr.py"

mkdir -p "$XDG_CONFIG_HOME/rwkv-tui/themes"
cat > "$XDG_CONFIG_HOME/rwkv-tui/themes/merge.yaml" <<'YAML'
name: merge
roles:
  status: { fg: "#3a3a3a", bg: "#3b3b3b" }
  user_header: { fg: 21, bg: "#0000ff" }
YAML
# the client started with its output copied to $TMP/raw from its first byte
REAL=$RWKV_TUI
cat > "$TMP/wrap.sh" <<EOF
#!/bin/sh
tmux -L '$SOCK' pipe-pane -O -t "\$TMUX_PANE" "cat >> '$TMP/raw'"
exec '$REAL' "\$@"
EOF
chmod +x "$TMP/wrap.sh"
RWKV_TUI=$TMP/wrap.sh

# apart DESC TEXT: TEXT is drawn in a foreground that is not its background
# (SGR 3N/9N/38;5;N, 4N/10N/48;5;N and 38;2/48;2 read as the colours shown)
apart() {
    local got
    got=$(tmx capture-pane -p -e | $SGR "$2")
    if python3 - "$got" "$TMP/raw" <<'PY'; then ok; else fail "$1: '$2' drawn $got"; fi
import re, sys
s = sys.argv[1]
raw = open(sys.argv[2], 'rb').read().decode('latin-1')
slots = {int(n): (int(r, 16), int(g, 16), int(b, 16)) for n, r, g, b in
         re.findall(r'\x1b\]4;(\d+);rgb:([0-9A-Fa-f]{2})/([0-9A-Fa-f]{2})/([0-9A-Fa-f]{2})', raw)}
BASE = [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205),
        (0, 205, 205), (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0),
        (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255)]
def palette(n):
    if n in slots:
        return slots[n]
    if n < 16:
        return BASE[n]
    if n < 232:
        lv = [0, 95, 135, 175, 215, 255]
        n -= 16
        return (lv[n // 36], lv[n // 6 % 6], lv[n % 6])
    g = 8 + 10 * (n - 232)
    return (g, g, g)
def rgb(v, base):
    p = v.split(';')
    if len(p) == 3:
        return palette(int(p[2]))
    if len(p) == 5:
        return tuple(int(x) for x in p[2:])
    n = int(p[0])
    if n == base + 9:
        return 'default'
    return palette(n - base if n < base + 10 else n - base - 60 + 8)
f = re.search(r'fg=([0-9;]+)', s)
b = re.search(r'bg=([0-9;]+)', s)
sys.exit(0 if f and b and rgb(f.group(1), 30) != rgb(b.group(1), 40) else 1)
PY
}
for ct in "" truecolor; do
    : > "$TMP/raw"
    W=100 H=24 TUI_ENV="COLORTERM=$ct TERM=xterm-256color" tui_start --theme merge --max-tokens 5
    type_text "hi"
    send
    check "the reply came (COLORTERM=$ct)" 'You'
    apart "status bar (COLORTERM=$ct)" 'state: none'
    apart "the user's header (COLORTERM=$ct)" 'You'
    tui_quit
done
# the truecolor case set slots (else it checked nothing of its own)
LC_ALL=C grep -qa $'\e\\]4;2[0-9][0-9];rgb:3[aA]/3[aA]/3[aA]' "$TMP/raw" && ok ||
    fail "truecolor: no palette slot set to #3a3a3a"
tui_finish
