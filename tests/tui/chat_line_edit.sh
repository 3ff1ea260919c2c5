#!/usr/bin/env bash
# tests/tui/chat_line_edit.sh -- the line chat's line editor on a terminal
# (cli/lineedit.c): a line edited in its middle with the arrow keys, Home
# and End; Up recalls this run's lines and the client's history file; C-w,
# C-u, C-d; a 6000-byte line taken whole (the terminal's line mode cut it at
# 4095 bytes); wide characters erased and drawn right; Ctrl-Z suspends with
# the terminal's modes back and fg draws the line again; Ctrl-C and Ctrl-D
# at the prompt end the chat (status 0) with the modes as before.  Before,
# the terminal's line mode echoed the arrows as ^[[D, had no history, and
# refused a line over 4095 bytes.
. "$(dirname "$0")/tmuxlib.sh"
M=$TMP/m.safetensors
python3 "$(dirname "$0")/../cli/mkst.py" "$M" || fail "mkst.py"
EDB=$TMP/edit.db
# the client's history file (HOME is $TMP in shell_start): Up reaches it
mkdir -p "$TMP/.local/state/rwkv-tui"
printf 'rwkv-tui history 1\ns from the client\n' >"$TMP/.local/state/rwkv-tui/history"

# the line being edited: the last row that starts with the prompt
# (cells erased at its end are kept by capture-pane -J as blanks: not compared)
prompt_is() { [ "$(screen | grep '^User:' | tail -1 | sed 's/ *$//')" = "$(printf 'User: %s' "$1" | sed 's/ *$//')" ]; }
# (20 s, not poll's 60: an editor that does not draw the line fails sooner)
check_prompt() {
    local i
    for i in $(seq 200); do prompt_is "$1" && break; sleep 0.1; done
    if prompt_is "$1"; then ok; else fail "$2: the line is '$(screen | grep '^User:' | tail -1 | cut -c1-140)', not 'User: $1'"; fi
}
n_replies() { [ "$(tmx capture-pane -p -J -S - | grep -c '^Assistant:')" = "$1" ]; }
modes="stty -a | tr ' ' '\\n' | grep -xE -- '-?(icanon|echo|icrnl|isig|ixon)' | tr '\\n' ,; echo"

shell_start || fail "no shell prompt"
# the terminal's modes before any chat, as the shell leaves them
type_text "$modes"
keys Enter
modes_seen() { screen | grep -qE '^-?icrnl,'; }
poll modes_seen || fail "stty: no modes line"
BASE=$(screen | grep -E '^-?icrnl,' | tail -1)
type_text "clear; '$RWKV_TUI' chat --model '$M' --seed 1 --max-tokens 4 --no-greeting --db '$EDB' --new e 2>'$TMP/err'; echo EXIT=\$?; $modes"
keys Enter
check "the chat's prompt" '^User: $' 20

# 1. editing in the middle of the line
type_text "hllo wrld"
keys Home Right
type_text "e"
keys End Left Left Left
type_text "o"
check_prompt "hello world" "arrows, Home and End"
screen | grep -qF '^[[' && fail "an arrow key echoed: $(screen | grep -F '^[[')" || ok
keys Enter
poll n_replies 1 && ok || fail "no reply to the edited line"
check "the prompt after it" '^User: $' 20

# 2. Up recalls the last line; C-a / C-e
keys Up
check_prompt "hello world" "Up"
keys C-a
type_text ">"
keys C-e
type_text " again"
check_prompt ">hello world again" "C-a, C-e on the recalled line"
keys Enter
poll n_replies 2 && ok || fail "no reply to the recalled line"

# 3. C-w, C-u, C-k, C-d on text
check "the prompt" '^User: $' 20
type_text "one two three"
keys C-w
check_prompt "one two " "C-w"
keys C-u
check_prompt "" "C-u"
type_text "xkept junk"
keys Left Left Left Left Left C-k C-a C-d
check_prompt "kept" "C-k, C-d"
keys Enter
poll n_replies 3 && ok || fail "no reply to 'kept'"
check "the prompt" '^User: $' 20

# 4. a 6000-byte line, pasted (bracketed) and typed: taken whole, drawn on one row
python3 -c "print('x' * 5997 + 'END', end='')" | tmx load-buffer -
tmx paste-buffer -p
# the line's end shown, on one row: "User: " and 113 of its columns
check_prompt "$(python3 -c "print('x' * 110 + 'END', end='')")" "the long line's end, one row"
keys Enter
poll n_replies 4 && ok || fail "no reply to the 6000-byte paste"
check "the prompt" '^User: $' 20
python3 -c "print('y' * 5000, end='')" | tmx load-buffer -
tmx paste-buffer
keys Enter
poll n_replies 5 && ok || fail "no reply to the 5000-byte typed line"
check "the prompt" '^User: $' 20

# 5. wide characters: erased whole, the cursor between them
type_text "你好世界"
keys BSpace BSpace
check_prompt "你好" "two wide characters erased"
type_text "朋友"
keys Left
type_text "X"
check_prompt "你好朋X友" "typed before a wide character"
keys Enter
poll n_replies 6 && ok || fail "no reply to the wide line"
check "the prompt" '^User: $' 20

# 6. C-d on an empty line ends the chat, status 0, the modes as before
type_text "abc"
keys C-u C-d
check "C-d: the chat ends, status 0" '^EXIT=0$' 20
check "the terminal's modes back" "^$BASE\$" 10
grep -q 'not sent\|cannot' "$TMP/err" && fail "stderr: $(cat "$TMP/err")" || ok

"$RWKV_TUI" sessions --db "$EDB" export 1 --format json >"$TMP/s.json" 2>"$TMP/err2" || fail "export: $(cat "$TMP/err2")"
python3 - "$TMP/s.json" <<'PY' && ok || fail "saved messages: $(grep '"role": "user"' "$TMP/s.json" | cut -c1-200)"
import json, sys
d = json.load(open(sys.argv[1]))
users = [t["text"] for t in d["turns"] if t["role"] == "user"]
want = ["hello world", ">hello world again", "kept", "x" * 5997 + "END", "y" * 5000, "你好朋X友"]
sys.exit(0 if users == want else "%r != %r" % ([u[:40] for u in users], [w[:40] for w in want]))
PY

# 7. a new chat: Up reaches the client's history; Ctrl-Z and fg; a resize;
# Ctrl-C (in a subshell: bash goes on with a list when its job stops)
type_text "clear; ( '$RWKV_TUI' chat --model '$M' --seed 1 --max-tokens 4 --no-greeting 2>'$TMP/err3'; echo EXIT=\$?; $modes )"
keys Enter
check "the second chat's prompt" '^User: $' 20
keys Up
check_prompt "from the client" "Up: the history file"
keys C-u
type_text "partial"
keys C-z
check "Ctrl-Z: suspended" 'Stopped' 10
type_text "$modes"
keys Enter
check "suspended: the terminal's modes back" "^$BASE\$" 10
type_text "fg"
keys Enter
check_prompt "partial" "fg: the line drawn again"
type_text " more"
check_prompt "partial more" "typing after fg"
python3 -c "print('z' * 100, end='')" | tmx load-buffer -
tmx paste-buffer
tmx resize-window -x 60 -y 40
narrow() { tmx capture-pane -p | grep -E '^User: .*z+$' | awk 'length($0) <= 59' | grep -q .; }
poll narrow && ok || fail "not drawn again in 60 columns: $(tmx capture-pane -p | grep '^User:' | tail -1)"
keys C-c
check "Ctrl-C at the prompt: the chat ends, status 0" '^EXIT=0$' 20
n=$(screen | grep -cxF -- "$BASE")
[ "$n" = 2 ] && ok || fail "the modes after Ctrl-C: $(screen | tail -3)"
grep -q 'not sent\|cannot' "$TMP/err3" && fail "stderr: $(cat "$TMP/err3")" || ok

# 8. a line being edited when SIGTERM (the chat's own end) or SIGUSR1 (the
# default: the program killed) comes: the terminal's modes put back
for sig in TERM USR1; do
    type_text "clear; '$RWKV_TUI' chat --model '$M' --seed 1 --max-tokens 4 --no-greeting 2>/dev/null; echo EXIT=\$?; $modes"
    keys Enter
    check "SIG$sig: the chat's prompt" '^User: $' 20
    type_text "typed"
    check_prompt "typed" "SIG$sig: typed"
    pid=$(pgrep -P "$(tmx display -p '#{pane_pid}')" -x rwkv-tui)
    [ -n "$pid" ] && kill -$sig "$pid"
    check "SIG$sig: the chat ends by it" '^EXIT=(143|138)$' 20
    check "SIG$sig: the terminal's modes back" "^$BASE\$" 10
done
tui_finish
