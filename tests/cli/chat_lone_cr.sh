#!/usr/bin/env bash
# tests/cli/chat_lone_cr.sh -- a lone CR inside a message (an old Mac's line
# end, in a pasted or piped text) is a line break, as LF and CR LF are: the
# model gets "a\nb", the session saves it, `sessions show` shows two lines.
# It was kept as a CR: fed to the model as one, and every display (which
# drops controls) glued the lines ("ab").  The rule is the chat's own
# (chat_normalize), below the line chat and the full-screen client alike.
# The demo model (byte-level: a message's tokens are its bytes).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
export XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/config HOME=$TMP/home
mkdir -p "$TMP/home"
DB=$TMP/cr.db

printf 'a\rb\nc\r\rd\n' |
    timeout -k 5 60 "$T" chat --demo --db "$DB" --new cr --seed 1 --max-tokens 3 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc = 0 ] && ok || fail "chat: exit $rc: $(head -c 300 "$TMP/err")"
[ "$(grep -c '^Assistant:' "$TMP/out")" = 2 ] && ok || fail "two replies: $(head -c 300 "$TMP/out")"
# the messages as saved: each CR a line break, two in a row one (as LFs)
got=$(sql_rows "$DB" "SELECT hex(text) FROM turns WHERE role=1 ORDER BY id" | tr '\n' ' ')
[ "$got" = "610A62 630A64 " ] && ok || fail "saved texts (hex): $got"
# what the model got: no CR byte in any message's tokens (int32 each)
got=$(sql_rows "$DB" "SELECT count(*) FROM turns WHERE role=1 AND instr(hex(tokens), '0D000000') > 0")
[ "$got" = 0 ] && ok || fail "$got message(s) fed with a CR token"
got=$(sql_rows "$DB" "SELECT count(*) FROM turns WHERE role=1 AND hex(tokens) LIKE '%3A00000020000000610000000A00000062000000%'")
[ "$got" = 1 ] && ok || fail "\"a\\nb\" not fed as 'a', LF, 'b' ($got)"
# shown on two lines
"$T" sessions --db "$DB" show 1 >"$TMP/show" 2>&1
grep -A3 '^#2 user' "$TMP/show" | grep -qx 'a' && grep -A3 '^#2 user' "$TMP/show" | grep -qx 'b' &&
    ok || fail "sessions show: $(grep -A3 '^#2 user' "$TMP/show" | tr '\n' '|')"
grep -q $'\r' "$TMP/show" && fail "sessions show: a CR (a terminal shows \"ab\")" || ok
finish
