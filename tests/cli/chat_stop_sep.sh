#!/usr/bin/env bash
# tests/cli/chat_stop_sep.sh -- after a reply that ended at a stop string of
# one's own (--stop), the next message starts on a paragraph of its own, as
# after the demo's "\n\n": the stop string's tokens stay fed (the model wrote
# them) and the next prompt begins with the newlines that text lacks of a
# blank line -- "\n\n" after "User:" or "e", "\n" after "\n", none after
# "\n\n" (the reference's numbers).  It used to begin with none after any
# stop string ("...tcreUser: hello").  The same after a resume (the restored
# turn) and through an export and import (the import's check of a message's
# tokens takes the "\n" form).  (Byte-level model: a token id is the byte.)
. "$(dirname "$0")/lib.sh"

# prompts DB: the bytes of each message's tokens, repr, one a line
prompts() {
    python3 - "$1" <<'PY'
import sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
for (b,) in db.execute("select tokens from turns where role=1 order by id"):
    print(repr(bytes(struct.unpack("<%di" % (len(b) // 4), b))))
PY
}
# text_ok DB: the text fed (every turn's tokens, in order) has a blank line
# before every "User:" after the first, and never three newlines there
text_ok() {
    python3 - "$1" <<'PY'
import re, sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
t = b"".join(bytes(struct.unpack("<%di" % (len(b) // 4), b))
             for (b,) in db.execute("select tokens from turns order by id"))
i = [m.start() for m in re.finditer(rb"User: (hello|again|more)\n\nAssistant:", t)]
sys.exit(0 if i and all(t[:k].endswith(b"\n\n") and not t[:k].endswith(b"\n\n\n") for k in i) else 1)
PY
}

if have_fixture models/tiny-6v0-fp32.pth 9; then
    M="--model $FX/models/tiny-6v0-fp32.pth --max-tokens 300 --seed 3"
    # "e" ends the first reply (" tcre"), "User:" is the natural choice
    printf 'hi\nhello\n' | "$RWKV_TUI" chat $M --stop 'User:' --stop e --db "$TMP/e.db" --new e \
        >/dev/null 2>&1
    [ "$(prompts "$TMP/e.db" | sed -n 2p)" = "b'\\n\\nUser: hello\\n\\nAssistant:'" ] && ok ||
        fail "after --stop e: $(prompts "$TMP/e.db")"
    text_ok "$TMP/e.db" && ok || fail "after --stop e: no blank line before User:"
    # resumed: the restored last reply ended at "e" too
    printf 'again\n' | "$RWKV_TUI" chat --db "$TMP/e.db" --resume --max-tokens 300 >/dev/null 2>&1
    [ "$(prompts "$TMP/e.db" | sed -n 3p)" = "b'\\n\\nUser: again\\n\\nAssistant:'" ] && ok ||
        fail "after a resume: $(prompts "$TMP/e.db")"
    # "\n": one more newline makes the blank line
    printf 'hi\nhello\nmore\n' | "$RWKV_TUI" chat $M --stop '\n' --db "$TMP/n.db" --new n \
        >/dev/null 2>&1
    [ "$(prompts "$TMP/n.db" | sed -n 2p)" = "b'\\nUser: hello\\n\\nAssistant:'" ] && ok ||
        fail "after --stop '\\n': $(prompts "$TMP/n.db")"
    text_ok "$TMP/n.db" && ok || fail "after --stop '\\n': no blank line before User:"
    # exported and imported: the "\n" form is a message's form
    "$RWKV_TUI" sessions --db "$TMP/n.db" export 1 --out "$TMP/n.json" 2>/dev/null &&
        "$RWKV_TUI" sessions --db "$TMP/n2.db" import "$TMP/n.json" >/dev/null 2>"$TMP/ni" && ok ||
        fail "import of a --stop '\\n' session: $(cat "$TMP/ni")"
    # the demo's "\n\n" (the default): nothing added, as the reference (seed 5:
    # the first reply ends at "\n\n", its 294th token)
    M="--model $FX/models/tiny-6v0-fp32.pth --max-tokens 400 --seed 5"
    printf 'hi\nhello\n' | "$RWKV_TUI" chat $M --db "$TMP/d.db" --new d >/dev/null 2>&1
    [ "$(prompts "$TMP/d.db" | sed -n 2p)" = "b'User: hello\\n\\nAssistant:'" ] && ok ||
        fail "after the demo's stop: $(prompts "$TMP/d.db")"
    text_ok "$TMP/d.db" && ok || fail "after the demo's stop: no blank line before User:"
    # a stop string that ends with "\n\n" of one's own: nothing added either
    printf 'hi\nhello\n' | "$RWKV_TUI" chat $M --stop 'QQ' --stop '\n\n' --db "$TMP/q.db" --new q \
        >/dev/null 2>&1
    [ "$(prompts "$TMP/q.db" | sed -n 2p)" = "b'User: hello\\n\\nAssistant:'" ] && ok ||
        fail "after --stop '\\n\\n': $(prompts "$TMP/q.db")"
fi
finish
