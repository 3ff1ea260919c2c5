#!/usr/bin/env bash
# tests/tui/nodb_keys.sh -- without a session database (--no-db) the menus'
# key bars leave out the keys that cannot act: F2 offered "C-o import",
# which answered "no session database (--no-db): nothing to import into";
# F4's "C-s save current" and F3's "C-s import into the library" the same
# (as F2's bar leaves out the session keys on an empty list:
# tests/tui/menu_cosmetics.sh).  The keys still say why when pressed.
. "$(dirname "$0")/tmuxlib.sh"

NODEMO=1 W=80 H=24 tui_start --demo --no-db --max-tokens 3 --seed 3
keys F2
check "F2 says why it is empty" 'no session database \(--no-db\)'
check "Esc close on the bar" '│ +Esc close +│'
check_not "no import on the bar" 'C-o import'
check_not "no search offered on an empty list" 'type to search'
keys C-o
check "C-o still says why" 'nothing to import into'
keys Escape
wait_for ' Sessions ' 1 && keys Escape
check_not "F2 closed" ' Sessions '

keys F4
check "F4 says why it is empty" 'no presets to load or save'
check_not "no save on the bar" 'C-s save current'
keys Escape
wait_for ' Presets ' 1 && keys Escape
check_not "F4 closed" ' Presets '
tui_quit

# with a database: the same bars offer them
W=80 H=24 tui_start --max-tokens 3 --seed 3
keys F2
check "F2: import offered" 'C-o import'
keys Escape
keys F4
check "F4: save offered" 'C-s save current'
keys Escape
tui_quit
tui_finish
