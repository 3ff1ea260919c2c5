#!/usr/bin/env bash
# tests/cli/export_live.sh -- `sessions export` of a session whose reply a
# line chat is still writing (store_turn_writing: its writer alive, its row
# the text so far).  The export says what `sessions show` says: the
# Markdown marks it "still being written in another window", the JSON has
# "interrupted": true and "being_written": true -- never "reply
# interrupted" alone, which it is not.  The JSON imports (the reply a cut
# one there: nothing writes it in the copy).  Once the writer is killed
# (kill -9), the export says "interrupted" again, with no being_written.
# Real processes on one database file, the demo model.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
N_CHECKS=9

if ! python3 -c 'import sqlite3' 2>/dev/null; then
    skip $N_CHECKS "python3 with sqlite3 not found"
    finish
    exit
fi

D=$TMP/s.db
printf 'hi\n' | "$T" chat --demo --db "$D" --new live --seed 1 --max-tokens 4 >/dev/null 2>&1
chat_bg --demo --db "$D" --session 1 --seed 3 --max-tokens 1000000 --stop QQQZZZ
printf 'tell me a long story\n' >&3
poll partial_saved "$D" || fail "A's reply not saved as it streams: $(cat "$TMP/err")"

# Markdown: being written, not interrupted
"$T" sessions --db "$D" export 1 --out "$TMP/live.md" 2>"$TMP/e.err"
grep -qx '\*(reply still being written in another window: its text so far)\*' "$TMP/live.md" &&
    ok || fail "md: the live reply not marked being written: $(grep '^\*(' "$TMP/live.md") $(cat "$TMP/e.err")"
grep -q 'reply interrupted' "$TMP/live.md" && fail "md: the live reply said interrupted" || ok

# JSON: interrupted (its text is not final) and being written
"$T" sessions --db "$D" export 1 --format json --out "$TMP/live.json" 2>"$TMP/e.err"
python3 - "$TMP/live.json" 2>"$TMP/py.err" <<'EOF' && ok || fail "json: the live reply's marks: $(tail -1 "$TMP/py.err") $(cat "$TMP/e.err")"
import json, sys
t = json.load(open(sys.argv[1]))["turns"]
live = [x for x in t if x.get("being_written")]
marks = [(x["id"], x["role"], x["interrupted"], x.get("being_written")) for x in t]
assert len(live) == 1 and live[0]["role"] == "assistant" and live[0]["interrupted"] is True, marks
assert all("being_written" not in x for x in t if x is not live[0]), marks
EOF
# its import: a cut reply (nobody writes it in the copy)
"$T" sessions --db "$TMP/b.db" import "$TMP/live.json" >/dev/null 2>"$TMP/i.err" && ok ||
    fail "the export does not import: $(cat "$TMP/i.err")"
out=$("$T" sessions --db "$TMP/b.db" show 1 2>&1)
case $out in *"assistant [interrupted]:"*) ok ;; *) fail "imported: $(printf '%s' "$out" | grep '^#')" ;; esac
case $out in *"[being written]"*) fail "imported reply shown as being written" ;; *) ok ;; esac

# A killed: its writer gone, the reply is cut, and the export says so
{ kill -9 $pid; wait $pid; } 2>/dev/null
exec 3>&-
"$T" sessions --db "$D" export 1 --out "$TMP/cut.md" 2>/dev/null
grep -qx '\*(reply interrupted)\*' "$TMP/cut.md" && ok || fail "md after kill -9: $(grep '^\*(' "$TMP/cut.md")"
grep -q 'being written' "$TMP/cut.md" && fail "md after kill -9: still being written" || ok
"$T" sessions --db "$D" export 1 --format json 2>/dev/null | grep -q being_written &&
    fail "json after kill -9: being_written" || ok
finish
