#!/usr/bin/env bash
# tests/tui/copy.sh -- M-c copies the reply (the last, or the one scrolled
# to) and M-k a fenced code block of it (again: the next block) to the
# clipboard with OSC 52: tmux with `set-clipboard on` takes the sequence
# from the pane and makes a paste buffer of it, read back here with
# `show-buffer`.  `clipboard: off` in the config turns it off (one clear
# line); M-m turns mouse reporting off (the footer says so) and on again.
. "$(dirname "$0")/tmuxlib.sh"

# a saved session whose replies hold Markdown with code blocks: made with
# the line chat, its JSON export edited, imported as a new session
printf 'show me code\nand more\n' | "$RWKV_TUI" chat --demo --db "$DB" --max-tokens 4 --seed 1 \
    >/dev/null 2>&1 || fail "line chat"
"$RWKV_TUI" sessions --db "$DB" export 1 --format json > "$TMP/s.json" || fail "export"
python3 - "$TMP/s.json" <<'PY' || fail "edit the export"
import json, sys
p = sys.argv[1]
d = json.load(open(p))
replies = [t for t in d["turns"] if t["role"] == "assistant"]
texts = [" First reply, no code at all.",
         " Here:\n\n```python\nprint('one')\nx = 1\n```\n\nand\n\n~~~\nsecond block\n~~~\nend"]
for t, s in zip(replies, texts):
    t["text"] = s
    t["tokens"] = list(s.encode())
json.dump(d, open(p, "w"))
PY
"$RWKV_TUI" sessions --db "$DB" import "$TMP/s.json" >/dev/null || fail "import"

W=80 H=12 tui_start --session 2
tmx set-option -g set-clipboard on
check "resumed the edited session" 'second block'
keys M-c
check "copied notice" 'copied the reply \([0-9]+ bytes\)'
want=$(printf "Here:\n\n\`\`\`python\nprint('one')\nx = 1\n\`\`\`\n\nand\n\n~~~\nsecond block\n~~~\nend")
got=$(tmx show-buffer 2>/dev/null)
[ "$got" = "$want" ] && ok || fail "M-c buffer: '$got'"
keys M-k
check "code block 1 of 2" 'copied code block 1 of 2 \(2 lines\); again: the next'
got=$(tmx show-buffer 2>/dev/null)
[ "$got" = "$(printf "print('one')\nx = 1")" ] && ok || fail "M-k buffer: '$got'"
keys M-k
check "code block 2 of 2" 'copied code block 2 of 2 \(1 line\)'
[ "$(tmx show-buffer 2>/dev/null)" = "second block" ] && ok || fail "second block: '$(tmx show-buffer)'"
keys M-k
check "wraps to block 1" 'copied code block 1 of 2'

# scrolled back to the first reply: that one is copied
keys Home
# (the demo model's note stands at the top: a few lines down to the reply)
keys S-Down S-Down S-Down S-Down S-Down
check "top of the transcript" 'First reply, no code'
keys M-c
check "copied the first reply" 'copied the reply \(28 bytes\)'
[ "$(tmx show-buffer 2>/dev/null)" = "First reply, no code at all." ] && ok ||
    fail "scrolled-to reply: '$(tmx show-buffer)'"
keys M-k
check "no code block in it" 'the reply has no code block'
keys End

# mouse reporting off and on
keys M-m
check "mouse off: notice" 'mouse reporting off: select text with the mouse'
type_text "a"
keys BSpace
check "mouse off said in the footer" '^mouse off \(M-m\)'
check "... with the usual hints" 'F1 help'
keys M-m
check "mouse on: notice" 'mouse reporting on'
type_text "a"
keys BSpace
check_not "mouse on again" '^mouse off' 3
keys F1
type_text "copy"
check "help lists M-c" 'M-c +copy the reply'
check "help lists M-k" 'M-k +copy a code block'
keys Escape
tui_quit

# clipboard: off
mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"
printf 'clipboard: off\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
tmx kill-server 2>/dev/null
W=80 H=24 tui_start --session 2
tmx set-option -g set-clipboard on
tmx set-buffer "untouched"
check "resumed" 'second block'
keys M-c
check "copying off said" 'copying is off \(clipboard: off in the config file\)'
[ "$(tmx show-buffer 2>/dev/null)" = "untouched" ] && ok || fail "OSC 52 written while off"
tui_quit
printf 'clipboard: maybe\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
W=160 H=24 tui_start
check "a bad value: file:line:column" "config.yaml:1:12: field 'clipboard': 'maybe' is not osc52 or off"
tui_quit
tui_finish
