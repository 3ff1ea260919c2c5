#!/usr/bin/env bash
# tests/tui/chat_long_line.sh -- the line chat on a terminal and the
# terminal's line limit: Linux's line mode keeps 4095 bytes of a line and
# drops the rest before the chat can read it.  A line that long was cut:
# it is refused with one line, never sent cut short.  Before, a cut line
# went to the model as it was, and a long one-line bracketed paste lost its
# end mark with the cut: every line typed after it was taken into that
# "paste" and nothing was sent until Ctrl-D.  (The terminal's line mode:
# --plain-input; the line editor has no such limit, chat_line_edit.sh.)
. "$(dirname "$0")/tmuxlib.sh"
if [ "$(uname -s)" != Linux ]; then
    echo "not Linux: the terminal's line limit differs, skipping"
    echo "0 passed, 0 failed"
    exit 0
fi
M=$TMP/m.safetensors
python3 "$(dirname "$0")/../cli/mkst.py" "$M" || fail "mkst.py"
LDB=$TMP/long.db

shell_start || fail "no shell prompt"
type_text "clear; '$RWKV_TUI' chat --plain-input --model '$M' --seed 1 --max-tokens 4 --no-greeting --db '$LDB' --new l 2>'$TMP/err'; echo EXIT=\$?"
keys Enter
check "the chat's prompt" '^User: $' 20
# the replies so far, the scrollback included (a long line fills the screen)
n_replies() { [ "$(tmx capture-pane -p -J -S - | grep -c '^Assistant:')" = "$1" ]; }
err_has() { grep -q -- "$1" "$TMP/err"; }

# 1. a bracketed paste of one line of 5000 bytes, then Enter: refused
python3 -c "print('w' * 5000 + 'END', end='')" | tmx load-buffer -
tmx paste-buffer -p
keys Enter
poll err_has 'the terminal cut this line at 4095 bytes' && ok ||
    fail "no refusal of the cut paste: $(cat "$TMP/err")"
# the next line typed is a message of its own, with its reply
type_text "second"
keys Enter
poll n_replies 1 && ok || { fail "no reply to the line typed after the cut paste"; screen | tail -5 | sed 's/^/    | /'; }
check "the prompt after it" '^User: $' 20

# 2. a paste whose middle line is cut: refused whole; its last line (its end
# mark on it) comes with the Enter after the paste: dropped as its rest
printf 'one\n%s\nlast' "$(python3 -c "print('x' * 5000)")" | tmx load-buffer -
tmx paste-buffer -p
poll err_has 'the terminal cut this paste at 4095 bytes' && ok ||
    fail "no refusal of the paste with a cut line: $(cat "$TMP/err")"
keys Enter
poll err_has 'the rest of the paste refused above' && ok ||
    fail "the paste's last line not dropped: $(cat "$TMP/err")"
type_text "third"
keys Enter
poll n_replies 2 && ok || { fail "no reply to the line after the second paste"; screen | tail -5 | sed 's/^/    | /'; }
check "the prompt after it" '^User: $' 20

# 3. a long line without bracketed paste (typed, or a terminal without it)
python3 -c "print('y' * 4200, end='')" | tmx load-buffer -
tmx paste-buffer
keys Enter
poll err_has 'the terminal cut this line at 4095 bytes.*pipe it in' && ok ||
    fail "no refusal of the long typed line: $(cat "$TMP/err")"
# a line under the limit is sent as it is
python3 -c "print('z' * 4000, end='')" | tmx load-buffer -
tmx paste-buffer
keys Enter
poll n_replies 3 && ok || { fail "no reply to a 4000-byte line"; screen | tail -3 | cut -c1-80 | sed 's/^/    | /'; }
check "the prompt after it" '^User: $' 20
keys C-d
check "the chat ends, status 0" '^EXIT=0$' 20

n=$(grep -c 'not sent' "$TMP/err")
[ "$n" = 4 ] && ok || fail "stderr: $n refusals, not 4 (3 cut, 1 a paste's rest): $(cat "$TMP/err")"
# what was sent: the messages as saved
"$RWKV_TUI" sessions --db "$LDB" export 1 --format json >"$TMP/s.json" 2>"$TMP/err2" || fail "export: $(cat "$TMP/err2")"
python3 - "$TMP/s.json" <<'PY' && ok || fail "saved messages: $(grep '"role": "user"' "$TMP/s.json" | cut -c1-200)"
import json, sys
d = json.load(open(sys.argv[1]))
users = [t["text"] for t in d["turns"] if t["role"] == "user"]
want = ["second", "third", "z" * 4000]
sys.exit(0 if users == want else "%r != %r" % ([u[:40] for u in users], [w[:40] for w in want]))
PY
tui_finish
