#!/usr/bin/env bash
# tests/tui/paste_plain.sh -- a paste from a terminal without bracketed paste
# (GNU screen, the Linux console) comes as keys, each newline a CR.  Text
# right after an Enter (within a few ms: no person types that fast) makes
# it a paste: its Enters are new lines, nothing is sent until Enter is
# pressed, and the message goes whole (one user turn), as the same block
# pasted with markers would; its last newline too stays in the box.  An
# Enter with nothing after it, or with a control key, a function key or
# Tab after it (a script's "text Enter C-f"), still sends.  In the search
# line, a menu's search and a prompt the paste stays one line.  send-keys -l
# writes the text in one write, without markers: an unbracketed paste.
. "$(dirname "$0")/tmuxlib.sh"

# the user turns stored, in order, each as one line (newlines as |)
user_turns() { sqlite3 "$DB" "select replace(text, char(10), '|') from turns where role = 1 order by id" 2>&1; }
# raw TEXT: TEXT's bytes (printf escapes allowed) to the client as they are
raw() { tmx send-keys -H $(printf "$1" | od -An -tx1); }
nothing_sent() { sleep 0.5; check_not "$1" '^You'; }

TUI_ENV="TERM=screen" W=80 H=24 tui_start --max-tokens 3 --seed 3
# a three-line paste: three lines in the box, nothing sent
type_text $'line one\rline two\rline three'
check "paste: first line in the box" '^> line one *$'
check "paste: second line" '^  line two *$'
check "paste: third line" '^  line three *$'
nothing_sent "paste: nothing sent"
check_not "paste: no 'still running' notice" 'still running' 1
send
check "sent: the box empty" '^> Type a message'
check "sent whole: first line" '^  line one'
check "sent whole: third line" '^  line three'
n=$(screen | grep -c '^You')
[ "$n" = 1 ] && ok || fail "one user turn expected on screen, $n"
t=$(user_turns)
[ "$t" = "line one|line two|line three" ] && ok || fail "stored user turns: '$t'"

# a paste ending in a newline: kept in the box too (the message goes when
# Enter is pressed), as a bracketed paste's would
keys C-n
check_not "new session" '^You' 5
type_text $'alpha\rbeta\r'
check "trailing newline: both lines in the box" '^  beta *$'
nothing_sent "trailing newline: nothing sent"
send
check "sent: the box empty" '^> Type a message'
check "sent: alpha" '^  alpha'
check "sent: beta" '^  beta'
t=$(user_turns | tail -1)
[ "$t" = "alpha|beta" ] && ok || fail "stored: '$t'"

# a tab-indented line and a blank line: the tab a space, the blank line
# joined when sent (the rule for any pasted message)
keys C-n
check_not "new session" '^You' 5
type_text $'code:\r\tindented\r\rend'
check "tab after Enter: text (a space)" '^   indented *$'
check "the line after the blank one" '^  end *$'
nothing_sent "indented paste: nothing sent"
send
check "blank lines joined: the note" 'blank lines joined'
t=$(user_turns | tail -1)
[ "$t" = "code:| indented|end" ] && ok || fail "stored: '$t'"

# typed text and Enter still sends; so does "text" Enter in one send-keys
keys C-n
check_not "new session" '^You' 5
type_text "typed message"
keys Enter
check "typed + Enter: sent" '^  typed message'
wait_idle
keys "quick one" Enter
check "one send-keys: sent" '^  quick one'
wait_idle

# Enter followed at once by a control key, a function key or Tab: the
# Enter sends and the key acts
type_text "then search"
keys Enter C-f
check "Enter C-f: sent" '^  then search'
check "Enter C-f: the search line opened" '^search: '
keys Escape
check_not "search closed" '^search: '
wait_idle
type_text "then help"
keys Enter F1
check "Enter F1: help opened" 'Help: every key'
keys Escape
check_not "help closed" 'Help: every key'
check "Enter F1: sent" '^  then help'
wait_idle
type_text "then sidebar"
keys Enter Tab
check "Enter Tab: sent" '^  then sidebar'
check "Enter Tab: the sidebar has the focus" 'Enter +type a value'
keys Tab
wait_idle

# the search line and a menu's search: one line, Enter no action
keys C-f
check "search line" '^search: '
type_text $'then\rsearch'
check "search: the paste on one line" '^search: then search'
keys Escape
check_not "search closed" '^search: '
check "the message box got nothing" '^> Type a message'
keys F2
check "sessions menu" 'Enter resume'
type_text $'quick\rone'
check "menu search: one line" 'search: quick one'
check "the menu still open" 'Enter resume'
keys Escape
check_not "menu closed" 'Enter resume'
# a prompt: one line (a space between the lines), not accepted
keys F4 C-s
check "preset name prompt" 'save preset as: '
type_text $'my\rpreset'
check "prompt: one line, still open" 'save preset as: my preset'
keys Escape
check_not "prompt closed" 'save preset as'
check "Esc: back in F4, the menu it came from" 'Enter load'
keys Escape
check_not "F4 closed" 'Enter load'
check_not "nothing saved" "preset '.*' saved" 1
# controls in a paste are dropped (C1 too: U+0085), with markers or without
raw 'del\rx\001y\302\205z'
check "controls dropped: the box" '^  xyz *$'
raw '\033[200~\rb\001r\302\205k\033[201~'
send
t=$(user_turns | tail -1)
[ "$t" = "del|xyz|brk" ] && ok || fail "stored: '$(printf '%s' "$t" | od -c | head -3)'"
# CR LF (text copied from Windows) is one newline, with markers or without:
# no blank lines between the lines, in the box or stored
keys C-n
check_not "new session" '^You' 5
raw 'win one\r\nwin two\r\nwin three'
check "CR LF: the lines in the box" '^  win two *$'
l=$(screen | grep -A1 '^> win one' | tail -1)
case "$l" in "  win two"*) ok ;; *) fail "CR LF: a blank line after the first: '$l'" ;; esac
nothing_sent "CR LF: nothing sent"
send
t=$(user_turns | tail -1)
[ "$t" = "win one|win two|win three" ] && ok || fail "CR LF stored: '$t'"
raw '\033[200~mark one\r\nmark two\033[201~'
send
t=$(user_turns | tail -1)
[ "$t" = "mark one|mark two" ] && ok || fail "CR LF bracketed, stored: '$t'"
# a terminal in newline mode sends CR LF for Enter: one Enter, sent, and
# no stray newline left in the box
# (the box was empty before and after: the database says when it was sent)
raw 'newline mode\r\n'
for i in $(seq 100); do t=$(user_turns | tail -1); [ "$t" = "newline mode" ] && break; sleep 0.1; done
[ "$t" = "newline mode" ] && ok || fail "CR LF Enter, stored: '$t'"
wait_idle
check "CR LF Enter: the box empty" '^> Type a message'
tui_quit

# typing ahead while a reply runs: a paste stays in the box, whole
tui_start --max-tokens 1000000 --seed 3
type_text "go on"
keys Enter
check "generating" 'generating' 10
type_text $'ahead one\rahead two'
check "while generating: the paste in the box" '^  ahead two *$'
check "its first line too" '^> ahead one *$'
check_not "no 'still running' notice" 'still running' 1
keys Escape
wait_idle
check "cancelled: the paste still in the box" '^> ahead one *$'
keys Enter
check "sent after the reply: the box empty" '^> Type a message'
keys Escape
wait_idle
# whole, as one turn (the database: the long reply may have scrolled the
# message off the screen already)
t=$(user_turns | tail -1)
[ "$t" = "ahead one|ahead two" ] && ok || fail "stored: '$t'"
tui_quit

# an ESC inside pasted junk that starts no sequence is dropped alone, the x
# after it text; the paste goes on (it ended, and the C-q after it quit the
# client)
tui_start --max-tokens 8 --seed 3
printf 'first\nsecond \033x third \021 fourth' > "$TMP/junk"
tmx load-buffer "$TMP/junk"
tmx paste-buffer
check "junk: the paste goes on after its ESC" '^  second x third +fourth'
check "junk: first line" '^> first'
check_not "junk: the client did not quit" '^EXIT=' 1
tui_quit
tui_finish
