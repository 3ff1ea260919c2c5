#!/usr/bin/env bash
# tests/tui/chat_paste.sh -- the line chat on a terminal takes a paste of
# several lines as one message, as the chat demo does (prompt_toolkit keeps
# a paste's line breaks in its one message): it asks for bracketed paste at
# the prompt and joins the lines between the marks.  Each pasted line was a
# message of its own, with a reply after each, the next lines typed into
# those replies.  The marks never show ("^[[200~"), a one-line paste is
# the text pasted, and the terminal's modes (echoctl) are as before when the
# chat ends.
. "$(dirname "$0")/tmuxlib.sh"
M=$TMP/m.safetensors
python3 "$(dirname "$0")/../cli/mkst.py" "$M" || fail "mkst.py"
PDB=$TMP/paste.db

shell_start || fail "no shell prompt"
type_text "clear; '$RWKV_TUI' chat --model '$M' --seed 1 --max-tokens 6 --no-greeting --db '$PDB' --new p 2>'$TMP/err'; echo EXIT=\$?; stty -a | grep -o -- '-*echoctl'"
keys Enter
check "the chat's prompt" '^User: $' 20
printf 'first line\nsecond line\n\nthird line' | tmx load-buffer -
tmx paste-buffer -p
type_text " and more"
keys Enter
check "one reply" '^Assistant:' 20
check "the prompt after it" '^User: $' 20
n=$(screen | grep -c '^Assistant:')
[ "$n" = 1 ] && ok || { fail "$n replies to one paste, not 1"; screen | sed 's/^/    | /'; }
screen | grep -q '200~\|201~' && fail "the paste's marks shown: $(screen | grep '20[01]~')" || ok
# a paste of one line: its text, then Enter
printf 'just this' | tmx load-buffer -
tmx paste-buffer -p
keys Enter
n_replies() { [ "$(screen | grep -c '^Assistant:')" = "$1" ]; }
poll n_replies 2 && ok || fail "no reply to a one-line paste"
check "the second reply's prompt" '^User: $' 20
keys C-d
check "the chat ends, status 0" '^EXIT=0$' 20
check "echoctl as before" '^echoctl$' 10

# what was sent: the messages as saved
"$RWKV_TUI" sessions --db "$PDB" export 1 --format json >"$TMP/s.json" 2>"$TMP/err2" || fail "export: $(cat "$TMP/err2")"
python3 - "$TMP/s.json" <<'PY' && ok || fail "saved messages: $(grep '"role": "user"' "$TMP/s.json")"
import json, sys
d = json.load(open(sys.argv[1]))
users = [t["text"] for t in d["turns"] if t["role"] == "user"]
want = ["first line\nsecond line\nthird line and more", "just this"]
sys.exit(0 if users == want else "%r != %r" % (users, want))
PY
tui_finish
