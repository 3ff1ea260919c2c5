#!/usr/bin/env bash
# tests/tui/theme_menu.sh -- M-T switches the colour theme while the client
# runs: a menu of the shipped themes and the user's themes folder (a file
# there over a shipped one of its name stands in that row), the one in use
# marked.  Enter uses the selected theme at once (the menu stays, to try
# another); a broken one changes nothing and says why, its first problem
# (the error dialog: the line is long; every problem in the log, M-l).  On an 8-colour terminal the theme is mapped to
# its 8 colours.  Before, the theme came only from --theme or the config.
. "$(dirname "$0")/tmuxlib.sh"

mkdir -p "$XDG_CONFIG_HOME/rwkv-tui/themes"
cat > "$XDG_CONFIG_HOME/rwkv-tui/themes/mine.yaml" <<'YAML'
name: mine
roles:
  footer_key: { fg: 201, bold: true }
YAML
cat > "$XDG_CONFIG_HOME/rwkv-tui/themes/broken.yaml" <<'YAML'
name: broken
roles:
  user:
    fg: purpel
  status: { fg: nocolour }
YAML

# wait_sgr DESC SGR: the pane comes to hold the colour sequence SGR (dark:
# the status bar's background 236; mine: the footer keys' 201)
wait_sgr() {
    local i
    for i in $(seq 50); do tmx capture-pane -p -e | grep -q "$2" && { ok; return; }; sleep 0.1; done
    fail "$1: no '$2' on the screen: $(tmx capture-pane -p -e | head -n 1 | od -c | head -3)"
}

tui_start
keys M-T
check "M-T: the themes menu" 'Colour themes'
check "the shipped themes" 'dark +built in'
check "... the default in use" 'default +built in \(in use\)'
check "the user's themes" 'mine +your themes folder'
check "a broken one marked" 'broken +damaged'
type_text "dark"
keys Enter
check "Enter: dark in use" "theme 'dark' in use for this run"
check "the menu stays, dark marked" 'dark +built in \(in use\)'
wait_sgr "the dark theme's status bar" $'\e\[[0-9;]*48;5;236m'
keys C-u
type_text "broken"
keys Enter
check "a broken theme: not used, its problems counted" "theme 'broken' not used \(2 problems: M-l lists them\)"
check "... the first one named by the file and the line" "broken\.yaml:4: field .fg. in .user."
check_not "... not the folder" "themes/broken\.yaml"
wait_sgr "the dark theme stays" $'\e\[[0-9;]*48;5;236m'
keys Escape
check "Esc closes the error's dialog: the menu is there" 'search: broken'
keys Escape
check_not "Esc closes the menu" 'Colour themes'
keys M-l
check "the log: every problem" 'nocolour'
keys Escape
keys M-T
type_text "mine"
keys Enter
check "mine in use" "theme 'mine' in use"
keys Escape
check_not "the menu closed" 'Colour themes'
wait_sgr "the user's theme: its footer keys" $'\e\[[0-9;]*38;5;201m'
tui_quit

# 8 colours: the theme's 256-colour values mapped to what the terminal has
# (mine's footer key, 201, is magenta there: SGR 35; the default's is cyan)
TUI_ENV="TERM=screen" tui_start
keys M-T
type_text "mine"
keys Enter
check "TERM=screen: mine in use" "theme 'mine' in use"
keys Escape
check_not "menu closed" 'Colour themes'
wait_sgr "TERM=screen: the footer key in magenta" $'\e\[[0-9;]*35m'
if tmx capture-pane -p -e | grep -q $'\e\[[0-9;]*38;5;'; then
    fail "TERM=screen: 256-colour codes drawn"
else ok; fi
tui_quit
tui_finish
