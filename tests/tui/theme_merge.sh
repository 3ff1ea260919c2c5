#!/usr/bin/env bash
# tests/tui/theme_merge.sh -- a theme's foreground and background that
# differ in the file never merge into one colour on the screen, at 256
# colours too: #3a3a3a on #3b3b3b are both grey 237, 21 on #0000ff one blue
# (with COLORTERM=truecolor as well, where #rrggbb colours get palette
# slots of their own).  Colours read back with `capture-pane -e` (sgr.py).
. "$(dirname "$0")/tmuxlib.sh"
SGR="python3 $(dirname "$0")/sgr.py"

mkdir -p "$XDG_CONFIG_HOME/rwkv-tui/themes"
cat > "$XDG_CONFIG_HOME/rwkv-tui/themes/merge.yaml" <<'YAML'
name: merge
roles:
  status: { fg: "#3a3a3a", bg: "#3b3b3b" }
  user_header: { fg: 21, bg: "#0000ff" }
YAML
# apart DESC TEXT: TEXT is drawn in a foreground that is not its background
# (SGR 3N/9N/38;5;N and 4N/10N/48;5;N read as palette numbers)
apart() {
    local got
    got=$(tmx capture-pane -p -e | $SGR "$2")
    if python3 - "$got" <<'PY'; then ok; else fail "$1: '$2' drawn $got"; fi
import re, sys
s = sys.argv[1]
def num(v, base):
    p = v.split(';')
    if len(p) == 3:
        return int(p[2])
    n = int(p[0])
    return n - base if n < base + 10 else n - base - 60 + 8
f = re.search(r'fg=([0-9;]+)', s)
b = re.search(r'bg=([0-9;]+)', s)
sys.exit(0 if f and b and num(f.group(1), 30) != num(b.group(1), 40) else 1)
PY
}
for ct in "" truecolor; do
    W=100 H=24 TUI_ENV="COLORTERM=$ct TERM=xterm-256color" tui_start --theme merge --max-tokens 5
    type_text "hi"
    send
    check "the reply came (COLORTERM=$ct)" 'You'
    apart "status bar (COLORTERM=$ct)" 'state: none'
    apart "the user's header (COLORTERM=$ct)" 'You'
    tui_quit
done
tui_finish
