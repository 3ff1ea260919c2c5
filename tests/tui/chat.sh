#!/usr/bin/env bash
# tests/tui/chat.sh -- send a message with --demo and see it answered; F1
# help lists the keys; Esc cancels a long reply (kept, marked interrupted;
# F2 will not delete the session it is written to);
# the DEMO label; quit cleanly.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 40 --seed 3
check "demo label in the status line" 'DEMO MODEL \(random weights\)'
check "footer lists keys" 'F1 help.*F2 sessions'
check "sidebar shows max tokens from the command line" 'max-tokens +40'

type_text "Hello there, model"
keys Enter
check "user turn shown" '^You'
check "message in the transcript" 'Hello there, model'
check "reply header" '^RWKV'
wait_idle || fail "reply did not finish"
check "decode speed in the status line" 'decode [0-9.]+ tok/s'
# the reply rows have text under the RWKV header
if screen | awk '/^RWKV/{getline; print; exit}' | grep -Eq '^  [^ ]'; then ok; else fail "reply text missing"; fi
check_not "no streaming mark after the end" '^RWKV.*\.\.\.'

# F9: per-turn stats on demand
keys F9
check "stats shown" '\(prefill [0-9]+ tok/s, decode [^)]*\) +40 tok'
keys F9

# F1 help lists every bound key and the editing keys
keys F1
check "help opens" 'Help: every key'
for k in 'F2 +sessions' 'F3 +state files' 'F6 +branches' 'C-r +regenerate' 'M-e +edit' 'F10 +quit'; do
    check "help lists $k" "$k"
done
keys Escape
check "help closes" 'F1 help.*F2 sessions'
check_not "help gone" 'Help: every key'

# Multi-line input: C-j inserts a newline, Enter sends both lines
type_text "line one"
keys C-j
type_text "line two"
check "two-line input box" '^  line two'
keys Enter
check "multi-line message sent" '^  line one'
wait_idle

# Esc cancels a long reply, which is kept and marked interrupted
keys Tab
for i in 1 2 3 4 5 6; do keys Down; done
keys Enter C-u
type_text "1000000"
keys Enter Tab
check "max tokens raised" 'max-tokens +1000000'
type_text "go on forever"
keys Enter
check "generating" 'generating' 5
# let it run past a screenful (4000 tokens) so that scrollback has rows
check "generating on" 'generating ([4-9][0-9]{3}|[0-9]{5,}) tok' 60
# F2 C-d on the session being written: refused, as F6's delete is (it was
# deleted under the reply, which went on streaming into nothing)
keys F2
check "sessions menu while streaming" 'Enter resume'
keys C-d
check "deleting the open session while it streams: refused" 'wait for the model to finish'
check_not "no question asked" 'delete .*\(y/n\)' 1
keys Escape
check_not "menu closed" 'Enter resume'
keys Escape
check "cancelled reply marked at its end" '^  \[interrupted\]' 10
wait_idle || fail "still busy after cancel"
check "the footer says it was interrupted" 'reply interrupted: kept as far as it went'
check_not "no stale 'cancelling...'" 'cancelling\.\.\.' 2
check "still responsive after cancel" 'F1 help'

# scrollback: the long reply fills more than a screen; PgUp shows the rows
# below as a count, End (empty input) goes back to the end
keys PPage
check "scrolled back" 'more below \(End\)'
keys NPage
check_not "PgDn back to the end" 'more below'
keys PPage
check "scrolled back again" 'more below \(End\)'
keys End
check_not "back at the end" 'more below'

# history: Up on an empty box recalls the last message, Down the draft
keys Up
check "history recalls the last message" '^> go on forever'
keys Down
check "history back to the draft" '^> Type a message'

# bracketed paste: newlines are inserted, nothing is sent
tmx set-buffer "$(printf 'pasted one\npasted two')"
tmx paste-buffer -p
check "pasted first line" '^> pasted one'
check "pasted second line" '^  pasted two'
check_not "paste not sent" '^  pasted one'
keys C-u Up C-k C-u
tui_quit

# $EDITOR: C-x writes the message in an editor, the result lands in the box
cat > "$TMP/ed.sh" <<'SH'
#!/bin/sh
printf 'written in the editor\n' > "$1"
SH
chmod +x "$TMP/ed.sh"
TUI_ENV="EDITOR=$TMP/ed.sh VISUAL=" tui_start --max-tokens 5
keys C-x
check "editor text in the input box" '^> written in the editor'
keys C-u
tui_quit
# ... cleaned as a paste is: no escape codes or controls, ill-formed UTF-8
# as U+FFFD (they went raw into the box and into the stored message)
cat > "$TMP/ed.sh" <<'SH'
#!/bin/sh
printf 'edited \377 bad \033[31mred\033[0m \001ctl end\n' > "$1"
SH
TUI_ENV="EDITOR=$TMP/ed.sh VISUAL=" tui_start --max-tokens 5
keys C-x
check "editor text cleaned in the box" '^> edited � bad red ctl end *$'
send
t=$(sqlite3 "$DB" "select hex(text) from turns where role = 1 order by id desc limit 1" 2>&1)
[ "$t" = "$(printf 'edited \357\277\275 bad red ctl end' | od -An -tx1 | tr -d ' \n' |
             tr a-f A-F)" ] && ok || fail "stored message not clean: $t"
tui_quit
tui_finish
