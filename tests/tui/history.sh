#!/usr/bin/env bash
# tests/tui/history.sh -- the input history outlives the client: what was
# sent and the draft left in the box at quit (F10, C-q, SIGHUP) are in
# $XDG_STATE_HOME/rwkv-tui/history (mode 0600); at the next start a notice
# says the draft is kept and Up brings it back (multi-line, backslashes
# intact), then the messages sent before.  A damaged file is one line in the
# message log (M-l) and replaced at quit; `history: off` writes nothing.
. "$(dirname "$0")/tmuxlib.sh"

HF=$XDG_STATE_HOME/rwkv-tui/history
box() { screen | grep -A3 '^> '; }

tui_start --max-tokens 2 --seed 3
type_text 'first sent message'
send
type_text 'draft line one \n stays'
keys C-j
type_text 'draft line two'
check "the draft in the box" 'draft line two'
keys C-q
if wait_for '^EXIT=0' 10; then ok; else fail "C-q: no clean exit"; fi
if [ -f "$HF" ]; then ok; else fail "no history file at $HF"; fi
mode=$(stat -c %a "$HF" 2>/dev/null)
[ "$mode" = 600 ] && ok || fail "history file mode $mode, want 600"
head -1 "$HF" | grep -q '^rwkv-tui history 1$' && ok || fail "header: $(head -1 "$HF")"
grep -qx 's first sent message' "$HF" && ok || fail "sent entry missing: $(cat "$HF")"
grep -qx 'd draft line one \\\\n stays\\ndraft line two' "$HF" && ok ||
    fail "draft entry: $(cat "$HF")"

tui_start --max-tokens 2 --seed 3
check "the draft is said once" 'your unsent draft is kept: Up brings it back'
keys Up
check "Up: the draft's first line" '^> draft line one \\n stays'
check "Up: the draft's second line" '^  draft line two'
keys Up Up             # (the first Up moves to the draft's first line)
check "Up again: the message sent before" '^> first sent message'
check_not "(one line now)" '^  draft line two'
keys C-u
tui_quit
grep -q '^d ' "$HF" && fail "the draft is still marked: $(cat "$HF")" || ok
grep -q '^s draft line one' "$HF" && ok || fail "the draft left the history: $(cat "$HF")"

tui_start --max-tokens 2 --seed 3
check_not "no draft: no notice" 'unsent draft'
keys Up
check "Up: the old draft, now history" '^  draft line two'
tui_quit

# a damaged file: one line in the log, no crash, replaced at quit
printf 'rwkv-tui history 1\ns fine\nx broken\n' > "$HF"
tui_start --max-tokens 2 --seed 3
keys Up
check_not "nothing recalled from a damaged file" '^> fine'
keys C-u M-l
check "damage in the message log" "input history not loaded, the file is replaced at quit"
# (the path is cut where the box ends: a long TMPDIR cut "history" itself)
flat_has "... naming the line" log_flat "rwkv-tui/history:3: damaged line"
keys Escape
check_not "the log closed" 'Messages \(newest first\)'
type_text 'after damage'
send
tui_quit
[ "$(head -1 "$HF")" = 'rwkv-tui history 1' ] && grep -qx 's after damage' "$HF" && ok ||
    fail "not rewritten: $(cat "$HF")"

# not a history file at all (binary junk)
head -c 300 /dev/urandom > "$HF"
tui_start --max-tokens 2 --seed 3
keys M-l
check "junk: the log" 'Messages \(newest first\)'
flat_has "junk: in the message log" log_flat 'rwkv-tui/history: not an rwkv-tui'
keys Escape
check_not "the log closed" 'Messages \(newest first\)'
tui_quit

# a closed terminal (SIGHUP) keeps the draft too
tui_start --max-tokens 2 --seed 3
type_text 'draft at hangup'
check "typed" '^> draft at hangup'
pid=$(pgrep -P "$(tmx display-message -p '#{pane_pid}')" | head -1)
[ -n "$pid" ] && kill -HUP "$pid" && ok || fail "no process to hang up"
wait_for '^EXIT=' 10 && ok || fail "SIGHUP: no exit"
grep -qx 'd draft at hangup' "$HF" && ok || fail "SIGHUP: draft not kept: $(cat "$HF")"

# history: off -- nothing written
rm -f "$HF"
mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"
printf 'history: off\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
tui_start --max-tokens 2 --seed 3
type_text 'never kept'
send
type_text 'draft never kept'
tui_quit
[ -e "$HF" ] && fail "history: off wrote $HF" || ok
# a wrong value: one line saying so, the history kept as by default
printf 'history: maybe\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
tui_start --max-tokens 2 --seed 3
# (the message starts with the config's path: where its rows break depends
# on the path's length)
flat_has "history: maybe refused" main_flat "field 'history': 'maybe' is not on or off"
type_text 'kept by default'
tui_quit
grep -qx 'd kept by default' "$HF" && ok || fail "default after a bad value: $(cat "$HF" 2>&1)"
rm -f "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"

# a 40 kB paste left unsent is kept whole (it was cut to 16 KiB while the
# notice said it was kept), and comes back whole
rm -f "$HF"
tui_start --max-tokens 2 --seed 3
python3 -c 'import sys; sys.stdout.write("long draft " + "word " * 8000 + "END-OF-DRAFT")' >"$TMP/long"
tmx load-buffer "$TMP/long"
tmx paste-buffer -p
check "the paste in the box" 'END-OF-DRAFT'
keys C-q
wait_for '^EXIT=0' 10 && ok || fail "C-q: no clean exit"
n=$(grep '^d ' "$HF" | wc -c)
grep -q '^d long draft .*END-OF-DRAFT$' "$HF" && [ "$n" -eq $((2 + $(wc -c <"$TMP/long") + 1)) ] && ok ||
    fail "the long draft was not kept whole ($n bytes)"
tui_start --max-tokens 2 --seed 3
check "said" 'your unsent draft is kept: Up brings it back'
keys Up
check "Up: the long draft back, to its end" 'END-OF-DRAFT'
keys C-u
tui_quit

tui_finish
