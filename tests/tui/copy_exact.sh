#!/usr/bin/env bash
# tests/tui/copy_exact.sh -- M-c and M-k copy the reply as saved, not as the
# transcript shows it: tabs stay tabs (a Makefile recipe works when pasted),
# CRs stay, a CRLF code block is one block with its CRs; what a paste must
# not hand on (escape sequences, an OSC 52 of the reply's own, BEL, DEL,
# bidi controls) is still left out.  tmux with `set-clipboard on` makes a
# paste buffer of the OSC 52; save-buffer writes its bytes as they are.
. "$(dirname "$0")/tmuxlib.sh"

printf 'code please\n' | "$RWKV_TUI" chat --demo --db "$DB" --max-tokens 4 --seed 1 \
    >/dev/null 2>&1 || fail "line chat"
"$RWKV_TUI" sessions --db "$DB" export 1 --format json > "$TMP/s.json" || fail "export"
python3 - "$TMP/s.json" <<'PY' || fail "edit the export"
import json, sys
p = sys.argv[1]
d = json.load(open(p))
s = (" Make:\n\n```make\nall:\n\tcc -o x x.c\n\techo\tdone\n```\n\nWin:\r\n"
     "```bat\r\necho a\r\necho\tb\r\n```\r\n"
     "esc \x1b[31mred\x1b[0m osc\x1b]52;c;ZXZpbA==\x07 bell\x07 del\x7f rlo\u202eend.")
for t in d["turns"]:
    if t["role"] == "assistant":
        t["text"] = s
        t["tokens"] = list(s.encode())
json.dump(d, open(p, "w"))
PY
"$RWKV_TUI" sessions --db "$DB" import "$TMP/s.json" >/dev/null || fail "import"

# the buffer's bytes, in Python's repr (tabs and CRs visible)
buf() {
    rm -f "$TMP/buf"
    tmx save-buffer "$TMP/buf" 2>/dev/null
    python3 -c 'import sys; print(repr(open(sys.argv[1], "rb").read()))' "$TMP/buf" 2>/dev/null
}
is_buf() {
    local got
    got=$(buf)
    [ "$got" = "$2" ] && ok || fail "$1: $got, want $2"
}

W=80 H=24 tui_start --session 2
tmx set-option -g set-clipboard on
check "resumed the edited session" 'rlo'
keys M-k
check "code block 1 of 2" 'copied code block 1 of 2 \(3 lines\); again: the next'
is_buf "M-k: the recipe's tabs" "b'all:\\n\\tcc -o x x.c\\n\\techo\\tdone'"
keys M-k
check "code block 2 of 2 (a CRLF block is one)" 'copied code block 2 of 2 \(2 lines\)'
is_buf "M-k: the CRLF block as saved" "b'echo a\\r\\necho\\tb'"
keys M-c
check "copied the reply" 'copied the reply \([0-9]+ bytes\)'
is_buf "M-c: the saved text, controls left out" \
    "b'Make:\\n\\n\`\`\`make\\nall:\\n\\tcc -o x x.c\\n\\techo\\tdone\\n\`\`\`\\n\\nWin:\\r\\n\`\`\`bat\\r\\necho a\\r\\necho\\tb\\r\\n\`\`\`\\r\\nesc red osc bell del rloend.'"
# the transcript still shows the reply cleaned (no red, no escape shown)
check "the transcript shows it cleaned" 'esc red osc bell del rloend\.'
tui_quit
tui_finish
