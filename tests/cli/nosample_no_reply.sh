#!/usr/bin/env bash
# tests/cli/nosample_no_reply.sh -- a regeneration that cannot sample a
# single token (every token banned: "no token can be sampled") keeps
# nothing, as one cancelled before its first token: no empty interrupted
# reply is saved beside the message, /regen N says no alternative was made,
# and the chat stays where it was.  The demo model, a real database file.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/ban.db
BAN=$(seq -s, 0 255)

printf 'hi\n/regen\n/regen 2\n' |
    "$T" chat --demo --ban "$BAN" --db "$D" --new ban >"$TMP/o" 2>"$TMP/e"
[ $? = 0 ] && ok || fail "exit: $(cat "$TMP/e")"
# each try says why, once
[ "$(grep -c 'no token can be sampled' "$TMP/e")" = 3 ] && ok || fail "errors: $(cat "$TMP/e")"
# /regen 2 made none: no "1 of 2 made"
grep -q 'alternatives stopped' "$TMP/e" && fail "a made alternative claimed: $(cat "$TMP/e")" || ok
# the message has its one reply (the send's), no empty sibling per try
out=$("$T" sessions --db "$D" show 1)
printf '%s\n' "$out" | grep -q 'branches\]' && fail "empty replies kept: $out" || ok
rows_are "$D" "SELECT count(*) FROM turns WHERE role=2" 1 && ok ||
    fail "assistant rows: $(sql_rows "$D" 'SELECT id, parent_id, interrupted, length(text) FROM turns')"
finish
