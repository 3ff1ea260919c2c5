#!/usr/bin/env bash
# tests/cli/chat_reset_deleted.sh -- /reset in a line chat whose session was
# deleted elsewhere (`sessions rm`, F2 in another window): the conversation
# is reset, said in one line, and the next message starts a new session
# holding that message alone.  /reset used to fail with "DB: no turn N" and
# reset nothing: the next message went on with the whole old conversation,
# saved as a new session with every old turn in it.  /history there (the
# turns' ids are gone) says what became of them instead of "DB: no turn N".
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/a.db

printf 'first words\n' | "$T" chat --demo --db "$DB" --new "old talk" --max-tokens 3 --seed 1 \
    >/dev/null 2>&1 || fail "chat to make the session"
chat_bg --demo --db "$DB" --session 1 --max-tokens 3 --seed 2
printf 'one more\n' >&3
poll chat_replied 1 || fail "no reply to the first message"
"$T" sessions --db "$DB" rm 1 >/dev/null 2>&1 && ok || fail "sessions rm"
printf '/history\n/reset\nafter the reset\n' >&3
exec 3>&-
wait $pid
rc=$?
[ $rc = 0 ] && ok || fail "exit status $rc: $(cat "$TMP/err")"
if grep -q '^rwkv-tui: session 1 was deleted elsewhere: the next message starts a new session$' "$TMP/err" &&
    ! grep -Eq 'no turn|session 0' "$TMP/err"; then
    ok
else
    fail "the reset not said as such: $(cat "$TMP/err")"
fi
grep -q '^rwkv-tui: /history: session 1 was deleted elsewhere: this conversation is saved again, as a new session, with the next message$' \
    "$TMP/err" && ok || fail "/history not said as a deletion: $(cat "$TMP/err")"
[ "$(chat_replies)" = 2 ] && ok || fail "not both messages answered: $(cat "$TMP/out")"
out=$("$T" sessions --db "$DB" list 2>&1)
printf '%s\n' "$out" | grep -Eq '^ +2 .* 2  after the reset$' && ok ||
    fail "the message after the reset not a session of its own: $out"
finish
