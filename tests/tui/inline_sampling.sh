#!/usr/bin/env bash
# tests/tui/inline_sampling.sh -- ChatRWKV chat.py's "-temp=X" / "-top_p=Y"
# typed in a message, in the full-screen client as in the line chat
# (core/chat: chat_inline_sampling; the runtime's sess_reply_sampling):
# that reply alone samples with them, the words are not in the text shown,
# fed or saved, a notice says the values, and the chat's own values are
# back afterwards (the sidebar, the next reply, the saved session).  A value
# out of range is refused with the text left in the box.  Before, the words
# went to the model as text.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 3 --seed 1
type_text "-temp=0.3 -top_p=0.9 hi"
send
keys M-l       # (the footer has the runtime's notes now: new session, max tokens)
check "the notice names the values" 'this reply: temperature 0\.3, top_p 0\.9'
keys Escape
check_not "the log closed" 'Messages \(newest first\)'
check "the transcript shows the message without them" '^ *hi *(│|$)'
check_not "no word in the transcript" 'top_p=0\.9 hi'
check "the sidebar: the chat's temperature" 'temperature +1 *│?$'
check "the sidebar: the chat's top-p" 'top-p +0\.3 *│?$'
type_text "again"
send
type_text "more -temp=9"
send
keys M-l
check "clamped to 5, the chat's top_p" 'this reply: temperature 5, top_p 0\.3'
keys Escape
check_not "the log closed" 'Messages \(newest first\)'
check "the sidebar: temperature 1 again" 'temperature +1 *│?$'
type_text "bad -top_p=2"
keys Enter
check "out of range: refused" '-top_p=2: top-p: 2 is out of range.*\(not sent\)'
check "the text stays in the box" '^> bad -top_p=2'
keys C-u
tui_quit

"$RWKV_TUI" sessions --db "$DB" export 1 --format json >"$TMP/s.json" 2>"$TMP/err" ||
    fail "export: $(cat "$TMP/err")"
python3 - "$TMP/s.json" <<'PY' && ok || fail "saved turns: $(grep -E '"(text|temperature|top_p)"' "$TMP/s.json" | tr -d ' \n' | cut -c1-300)"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["turns"]
users = [x["text"] for x in t if x["role"] == "user"]
samp = [(x["sampling"]["temperature"], x["sampling"]["top_p"]) for x in t if x["role"] == "assistant"]
want_s = [(0.3, 0.9), (1, 0.3), (5, 0.3)]
ok = users == ["hi", "again", "more"] and len(samp) == 3 and \
    all(abs(a - c) < 1e-6 and abs(b - e) < 1e-6 for (a, b), (c, e) in zip(samp, want_s))
sys.exit(0 if ok else "%r %r" % (users, samp))
PY
# the session keeps its own values
printf '/show\n' | "$RWKV_TUI" chat --resume --db "$DB" >"$TMP/show" 2>"$TMP/err2" ||
    fail "resume: $(cat "$TMP/err2")"
grep -Eq '^  temperature +1( +\(set\))?$' "$TMP/show" && grep -Eq '^  top_p +0\.3( +\(set\))?$' "$TMP/show" &&
    ok || fail "the session's values: $(grep -E 'temperature|top_p' "$TMP/show")"
tui_finish
