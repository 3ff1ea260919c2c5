#!/usr/bin/env bash
# tests/tui/long_error.sh -- nothing is cut without a way to read it: an
# error longer than the footer opens a dialog with the whole text wrapped
# (the box cleared whole: no transcript beside it), the next key closes it
# (Enter and Esc only close it; other keys also act, so typing goes on);
# the footer says "… (M-l: log)" and the log (M-l) has the message whole,
# wrapped at spaces, no row cut by the box.  A long notice that is not an
# error stays in the footer, cut with the same pointer to the log.
. "$(dirname "$0")/tmuxlib.sh"

# F5 Enter on a file that does not load, its name long: the load's long
# error ("... stays in use") in a notice (a strategy the load refuses keeps
# its prompt open instead, the error in the prompt's own dialog)
mkdir -p "$TMP/models"
printf 'not a checkpoint at all' > "$TMP/models/a-checkpoint-with-a-rather-long-name-that-will-not-load.pth"
W=80 H=24 TUI_ENV="RWKV_TUI_MODELS=$TMP/models" tui_start --max-tokens 3 --seed 5
type_text "BESIDETEXT BESIDETEXT BESIDETEXT BESIDETEXT BESIDETEXT BESIDETEXT BESIDETEXT"
send
keys F5
check "models menu" 'Models'
type_text "a-checkpoint"
keys Enter
check "error dialog" '│ +Error +│'
check "its text wrapped" "not a checkpoint"
check "the end of it shown" "stays in use"
check "how to close it" 'any key closes +M-l: all messages'
check "footer points to the log" '… \(M-l: log\)$'
if screen | grep 'Error' -A6 | grep -q 'BESIDETEXT'; then fail "transcript shows beside the dialog"; screen | sed 's/^/    | /'; else ok; fi
keys Enter
check_not "Enter closes the dialog" '│ +Error +│'
check "... and sends nothing" '^> Type a message'
check "footer back" 'F1 help'
keys M-l
check "log open" 'Messages'
# (where its rows break depends on the path's length; every word: below)
flat_has "the log has it (wrapped)" log_flat "not loaded: not a checkpoint"
# every word of it: the rows joined again (the continuation rows, indented,
# were as wide as the first and lost their end to the box; words were cut)
logtext=$(screen | sed -n '/Messages (newest first)/,/Esc close/p' | sed 's/^ *│ *//; s/ *│.*$//' |
          tr -s ' \n' '  ')
for part in "not a checkpoint" "demo stays in use"; do
    case $logtext in *"$part"*) ok ;; *) fail "log lacks: $part"; echo "    | $logtext" ;; esac
done
keys Escape
check_not "log closed" 'Messages \(newest first\)'

# 20x6: the dialog cannot hold it all: it says so
tui_resize 20 6
keys F5
check "20x6: models" 'Models'
type_text "a-checkpoint"
keys Enter
check "20x6: dialog" 'Error'
check "20x6: more in the log" '\(more in the log\)|more in the'
keys F1
check_not "20x6: a function key closes it" 'Error'
check "20x6: ... and acts" 'Help'
keys Escape
check_not "20x6: help closed" 'Help'
keys F5
check "20x6: models again" 'Models'
type_text "a-checkpoint"
keys Enter
check "20x6: dialog again" 'Error'
type_text "q"
check_not "20x6: a letter closes it" 'Error'
check "20x6: ... and is typed" '^> q'
keys BSpace
# a long notice that is not an error: cut in the footer, with the pointer
keys C-c
check "20x6: info cut with a pointer to the log" '… \(M-l: log\)'
check_not "20x6: no dialog for it" 'Error' 1
tui_resize 80 24
keys x
keys BSpace
tui_quit
tui_finish
