#!/usr/bin/env bash
# tests/cli/chat_inline_sampling.sh -- ChatRWKV's chat.py takes "-temp=X"
# and "-top_p=Y" typed in a message: that reply alone samples with them
# (the temperature clamped to 0.2..5), and they are taken out of the text.
# The line chat does the same; the session's own values are back after the
# reply (the next reply, /show and a resume use them).  Only whole words
# with a number count.  Before, the words went to the model as text.
. "$(dirname "$0")/lib.sh"
D=$TMP/s.db
printf '%s\n' 'hello -temp=0.5 -top_p=0.7' 'again' 'hi -temp=0' 'x-temp=1 -temp=hot done' \
    'bad -top_p=2' '+gen story -temp=0.4' '/show' |
    "$RWKV_TUI" chat --demo --db "$D" --seed 1 --max-tokens 3 >"$TMP/out" 2>"$TMP/err" ||
    fail "chat: status $?: $(cat "$TMP/err")"
grep -Eq '^  temperature +1$' "$TMP/out" && grep -Eq '^  top_p +0\.3$' "$TMP/out" && ok ||
    fail "/show after the replies: $(grep -E 'temperature|top_p' "$TMP/out")"
grep -q -- '-top_p=2: top-p: 2 is out of range.*(not sent)' "$TMP/err" && ok || fail "top_p 2 not refused: $(cat "$TMP/err")"
"$RWKV_TUI" sessions --db "$D" export 1 --format json >"$TMP/s.json" 2>"$TMP/err2" ||
    fail "export: $(cat "$TMP/err2")"
python3 - "$TMP/s.json" <<'PY' && ok || fail "saved turns: $(cat "$TMP/s.json" | grep -E '"(user|assistant)"' | cut -c1-160)"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["turns"]
users = [x["text"] for x in t if x["role"] == "user"]
samp = [(x["sampling"]["temperature"], x["sampling"]["top_p"]) for x in t if x["role"] == "assistant"]
want_u = ["hello", "again", "hi", "x-temp=1 -temp=hot done"]
want_s = [(0.5, 0.7), (1, 0.3), (0.2, 0.3), (1, 0.3)]
ok = users == want_u and all(abs(a - c) < 1e-6 and abs(b - e) < 1e-6 for (a, b), (c, e) in zip(samp, want_s)) and len(samp) == 4
sys.exit(0 if ok else "%r %r" % (users, samp))
PY
# the session keeps its own values, not the inline ones
printf '/show\n' | "$RWKV_TUI" chat --resume --db "$D" >"$TMP/out2" 2>"$TMP/err3" || fail "resume: $(cat "$TMP/err3")"
grep -Eq '^  temperature +1( +\(set\))?$' "$TMP/out2" && grep -Eq '^  top_p +0\.3( +\(set\))?$' "$TMP/out2" && ok ||
    fail "/show after a resume: $(grep -E 'temperature|top_p' "$TMP/out2")"
# /help lists them
printf '/help\n' | "$RWKV_TUI" chat --demo 2>/dev/null >"$TMP/help"
grep -qF -- '  -temp=X -top_p=Y ' "$TMP/help" && ok || fail "/help does not list -temp="
finish
