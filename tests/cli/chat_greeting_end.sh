#!/usr/bin/env bash
# tests/cli/chat_greeting_end.sh -- a greeting of one's own (--greeting, the
# config's `greeting:`, F8) ends with a blank line as the demo's does, so the
# first message is "User: ..." on a paragraph of its own: the newlines it
# lacks are added (ChatRWKV's load_prompt ends a custom prompt with "\n\n"),
# by the chat engine below both front ends (the client's greeting too).
# It used to be fed as given: "...Assistant: helloUser: yo\n\nAssistant:".
# The demo's greeting and one that already ends with "\n\n" are fed as they
# were, byte for byte.  (Byte-level model: a token id is the byte.)
. "$(dirname "$0")/lib.sh"

# turns ROLE: the bytes of the tokens of each turn of that role, repr, one a line
turns() {
    python3 - "$1" "$2" <<'PY'
import sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
for (b,) in db.execute("select tokens from turns where role=? order by id", (int(sys.argv[2]),)):
    print(repr(bytes(struct.unpack("<%di" % (len(b) // 4), b))))
PY
}

if have_fixture models/tiny-7v0-fp32.pth 7; then
    M="--model $FX/models/tiny-7v0-fp32.pth --max-tokens 2 --seed 1"
    n=0
    # GREETING (as --greeting takes it: \n escapes) -> the greeting fed
    while IFS='|' read -r given fed; do
        n=$((n + 1))
        printf 'yo\n' | "$RWKV_TUI" chat $M --greeting "$given" --db "$TMP/g$n.db" --new g \
            >/dev/null 2>"$TMP/e$n" || fail "--greeting '$given': $(cat "$TMP/e$n")"
        got=$(turns "$TMP/g$n.db" 0)
        [ "$got" = "$fed" ] && ok || fail "--greeting '$given' fed $got, not $fed"
        got=$(turns "$TMP/g$n.db" 1)
        [ "$got" = "b'User: yo\\n\\nAssistant:'" ] && ok ||
            fail "--greeting '$given': the first message fed $got"
    done <<'LIST'
User: hi\n\nAssistant: hello|b'User: hi\n\nAssistant: hello\n\n'
User: hi\n\nAssistant: hello\n|b'User: hi\n\nAssistant: hello\n\n'
You are terse.\n\n|b'You are terse.\n\n'
LIST
    # the demo's greeting: byte for byte the reference's
    printf 'yo\n' | "$RWKV_TUI" chat $M --db "$TMP/d.db" --new d >/dev/null 2>&1
    [ "$(turns "$TMP/d.db" 0)" = "b'User: hi\\n\\nAssistant: Hi. I am your assistant and I will provide expert full response in full details. Please feel free to ask any question and I will always answer it.\\n\\n'" ] \
        && ok || fail "the demo's greeting changed: $(turns "$TMP/d.db" 0)"
fi
finish
