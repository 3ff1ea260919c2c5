#!/usr/bin/env bash
# tests/tui/theme.sh -- a broken theme gives a message naming the file, the
# line and the field, and the default theme is used; a broken config gives a
# message and the program still starts; NO_COLOR turns colours off.
. "$(dirname "$0")/tmuxlib.sh"

mkdir -p "$XDG_CONFIG_HOME/rwkv-tui/themes"
cat > "$XDG_CONFIG_HOME/rwkv-tui/themes/broken.yaml" <<'YAML'
name: broken
roles:
  status: { fg: black, bg: cyan }
  user:
    fg: purpel
YAML

tui_start --theme broken
check "broken theme: file, line, field" 'broken\.yaml:5: field .fg. in .user.: unknown'
check "broken theme: the bad value" "colour 'purpel'"
check "broken theme: default used" 'using the default theme'
check "still running" 'F1 help'
# status line coloured by the default theme (black on cyan): SGR 46 in the pane
if tmx capture-pane -p -e | head -1 | grep -q $'\e\[[0-9;]*46m\|\e\[46m'; then ok; else
    fail "default theme colours not applied"; tmx capture-pane -p -e | head -1 | od -c | head; fi
type_text "still works"
keys Enter
check "can chat after a theme error" '^RWKV'
wait_idle
tui_quit

cat > "$XDG_CONFIG_HOME/rwkv-tui/themes/syntax.yaml" <<'YAML'
roles:
  user: [1
YAML
tui_start --theme syntax
check "YAML syntax error reported with a line" 'syntax\.yaml:2'
tui_quit

tui_start --theme dark
check "dark theme loads" 'F1 help'
check_not "dark theme: no error" '^Error'
tui_quit

tui_start --theme nosuch
check "unknown theme named" "theme 'nosuch' not found"
tui_quit

# a broken config file: every problem with file:line:column, the valid
# settings kept, still starts
cat > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml" <<'YAML'
theme: dark
modle: /nowhere/model.pth
YAML
tui_start
check "bad config: line, column and field" 'config\.yaml:2:1: unknown field .modle.'
check "bad config: a suggestion" "did you mean|'model'\?\)"
check "bad config: still starts" 'F1 help'
# the valid 'theme: dark' was kept: the footer key in the dark theme's 81
if tmx capture-pane -p -e | grep -q $'\e\[[0-9;]*38;5;81m'; then ok; else
    fail "bad config: 'theme: dark' not kept"; fi
tui_quit

# one bad binding among good ones: each problem reported on its own line,
# the good bindings and the theme kept, two bindings of one key named
cat > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml" <<'YAML'
theme: light
keys:
  quit: F12
  help: Hyper-h
  regen: C-n
  sessions: F12
YAML
tui_start
check "bad key name reported" "config\.yaml:4:9: field 'help' in 'keys': unknown key"
check "bad key name shown" "'Hyper-h'"
check "conflict between two bindings reported" "config\\.yaml:6:13: field 'sessions' in 'keys'"
check "conflict between two bindings named" "bound to 'quit'"
# a key bound over another action's default wins (new gives C-n up): no error
check_not "a binding over a default is no error" "field 'regen' in 'keys'"
check "the good binding is kept" 'F12 quit'
check "the refused binding keeps its default" 'F2 sessions'
keys F12
check "the kept binding works" '^EXIT=0'

# a good config: its key bindings are used (quit on F12, shown in the footer)
cat > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml" <<'YAML'
theme: mono
keys:
  quit: F12
YAML
tui_start
check "config key shown in the footer" 'F12 quit'
keys F12
check "config key quits" '^EXIT=0'
rm -f "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"

# NO_COLOR: no colour SGR anywhere on the screen
TUI_ENV="NO_COLOR=1" tui_start
check "NO_COLOR: starts" 'F1 help'
if tmx capture-pane -p -e | grep -q $'\e\[[0-9;]*\(3[0-7]\|4[0-7]\|38;5\|48;5\)[;m]'; then
    fail "NO_COLOR: colours on screen"; else ok; fi
tui_quit

tui_finish
