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

# a broken config file: message with line and field, defaults, still starts
cat > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml" <<'YAML'
theme: dark
modle: /nowhere/model.pth
YAML
tui_start
check "bad config: line and field" 'config\.yaml:2: unknown field .modle.'
check "bad config: still starts" 'F1 help'
tui_quit

cat > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml" <<'YAML'
theme: light
keys:
  quit: C-x
  help: Hyper-h
YAML
tui_start
check "bad key name reported" "config\.yaml:4: field 'help' in 'keys': unknown key"
check "bad key name shown" "'Hyper-h'"
tui_quit

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
