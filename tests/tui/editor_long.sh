#!/usr/bin/env bash
# tests/tui/editor_long.sh -- C-x with a file over the message box's room
# (1 MiB): the text is cut on a character boundary and the cut is said as a
# long paste's is (the number of characters dropped).  It was cut silently
# by bytes, and the draft saved at F10 ended with a lone 0xef.
. "$(dirname "$0")/tmuxlib.sh"

# the editor: 400000 x 你 (1.2 MB) and a newline into the file it is given
cat > "$TMP/ed.sh" <<'ED'
#!/bin/sh
python3 -c "import sys; open(sys.argv[1], 'w', encoding='utf-8').write('\u4f60' * 400000 + '\n')" "$1"
ED
chmod +x "$TMP/ed.sh"
# 1 MiB holds 349525 whole 你 (3 bytes each): 50475 are dropped
TUI_ENV="VISUAL='$TMP/ed.sh'" tui_start --max-tokens 4
keys C-x
check "the cut is said, in characters" \
    "the editor's text was too long: its last 50475 characters were dropped" 30
check "the box holds the text" '^>(↑| )你你你'
keys M-l
check "in the log too" "the editor's text was too long"
keys Escape
tui_quit
# the draft kept for next time: well-formed UTF-8, whole characters
python3 - "$XDG_STATE_HOME/rwkv-tui/history" <<'PY' && ok || fail "the saved draft: $(tail -c 8 "$XDG_STATE_HOME/rwkv-tui/history" | od -An -tx1)"
import sys
b = open(sys.argv[1], 'rb').read()
t = b.decode('utf-8')              # a lone 0xef fails here
assert t.count('\u4f60') == 349525, t.count('\u4f60')
PY
tui_finish
