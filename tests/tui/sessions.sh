#!/usr/bin/env bash
# tests/tui/sessions.sh -- every turn is saved; quit, restart with the same
# --db, resume from the sessions menu and see the transcript; continue the
# resumed chat; rename, search, fork and delete sessions.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 12 --seed 4
# an empty database: F2's key bar names only the keys that do something
# (no C-t: no model's sessions to step through)
keys F2
check "empty list" '│  \(empty\) +│'
check "empty: import and close in the key bar" '│ C-o import  Esc close +│'
check_not "empty: no C-t model" 'C-t model'
keys Escape
check_not "closed" '\(empty\)'
type_text "first session message"
send
check "session created on the first turn" 'session: first session'
tui_quit

tui_start --seed 4
check "a fresh start is a new session" 'session: new'
check "default max tokens before resuming" 'max-tokens +1000'
check_not "old transcript not shown before resuming" 'first session message'
keys F2
check "sessions menu" ' Sessions '
check "saved session listed" 'first session message +[0-9]+ turns'
keys Enter
check "resumed: user turn" '^  first session message'
check "resumed: reply" '^RWKV'
check "resumed notice" "resumed 'first session message'"
check "status shows the session" 'session: first session'
check "the session's sampling values come back" 'max-tokens +12'

# the resumed conversation continues
type_text "second message"
send
check "reply after resume" '^  second message'
n=$(screen | grep -c '^RWKV')
if [ "$n" = 2 ]; then ok; else fail "want 2 replies on screen, got $n"; fi

# rename
keys F2
check "menu again" ' Sessions '
keys C-r
check "rename prompt" 'new title:'
keys C-u
type_text "Renamed chat"
keys Enter
check "renamed in the menu" 'Renamed chat +[0-9]+ turns'
# search: no match, then back
type_text "zzz"
check "search filters" 'no match'
keys BSpace BSpace BSpace
check "search cleared" 'Renamed chat +[0-9]+ turns'
# full-text search finds a session by what was said in it
type_text "message"
check "found by content" 'Renamed chat +[0-9]+ turns'
keys BSpace BSpace BSpace BSpace BSpace BSpace BSpace
check "filter cleared" 'Renamed chat +[0-9]+ turns'
check_not "filter text gone" 'search: '
# ... by the start of a word too ("mess" is in no title)
type_text "mess"
check "found by a prefix of a word" 'Renamed chat +[0-9]+ turns'
keys BSpace BSpace BSpace BSpace
# quotes and FTS5 operators in the search are text: no error, no crash
type_text '"NEAR( -*'
check "FTS syntax is text" 'no match'
check_not "no search error" 'syntax error|fts5'
keys BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace
check "cleared again" 'Renamed chat +[0-9]+ turns'
# fork the session as a new one
keys C-y
check "fork loaded" 'session: Renamed chat \(fork\)'
check "fork has the transcript" '^  second message'
keys F2
check "two sessions" 'Renamed chat \(fork\)'
check "original still there" 'Renamed chat +[0-9]+ turns  '
# delete the fork (selected: it is the open, most recent one)
keys C-d
check "delete asks" "delete 'Renamed chat \(fork\)'\? \(y/n\)"
keys y
check "deleted notice" 'session deleted'
check_not "fork gone" 'Renamed chat \(fork\)'
keys Escape
tui_quit

# restart: the renamed session has both exchanges
tui_start --max-tokens 12
keys F2
check "after restart" 'Renamed chat'
keys Enter
check "turn 1 back" '^  first session message'
check "turn 2 back" '^  second message'
tui_quit

# quit in the middle of a reply: the partial reply is kept, marked interrupted
# (seeded: a random reply could end at the stop string before F10)
tui_start --max-tokens 1000000 --seed 4
type_text "never ending"
keys Enter
check "generating" 'generating' 5
sleep 0.3
keys F10
check "quit while generating exits cleanly" '^EXIT=0'
tui_start
keys F2
type_text "never"
keys Enter
check "interrupted session resumed" 'session: never ending'
keys Home
check "interrupted reply resumed" '^  never ending'
check "marked interrupted" '^RWKV +\[interrupted\]'
tui_quit

# F2's title says what the saved states take, and the budget once one is set
tui_start
keys F2
check "F2: states in the title" '│  Sessions  \(saved states: [0-9.]+ [kMG]B\) +│'
keys Escape
tui_quit
"$RWKV_TUI" sessions --db "$DB" budget 50MB >/dev/null && ok || fail "budget 50MB"
tui_start
keys F2
check "F2: the budget in the title" '│  Sessions  \(saved states: [0-9.]+ [kMG]B of 50 MB\) +│'
keys Escape
tui_quit

# a database that is not one: one clear line, non-zero exit, no crash
echo "not a database" > "$TMP/bad.db"
expect_fail "bad --db" "bad\.db" "$RWKV_TUI" --demo --db "$TMP/bad.db"
tui_finish
