#!/usr/bin/env bash
# framing_two_windows.sh -- one session open in two windows: a framing
# change made in one (its stop strings, bans, think mode) applies in the
# other from its next message, said once (framing_sync, storage/session.c);
# and a framing write of the other changes only the field its user changed,
# on top of what was written since -- it wrote back its whole stale set,
# and the first window's stop string was gone from the session.
. "$(dirname "$0")/lib.sh"
D=$TMP/f.db
printf 'hi\n' | "$RWKV_TUI" chat --demo --db "$D" --new fr --max-tokens 3 --seed 1 >/dev/null 2>&1 ||
    fail "first chat"
replies() { grep -c '^Assistant:' "$TMP/out"; }
replied() { [ "$(replies)" -ge "$1" ]; }

# window A: the session open, think off, the demo's stop string
chat_bg --db "$D" --session 1 --max-tokens 3 --seed 1
printf '/framing\n' >&3
poll grep -q '^stop ' "$TMP/out" || fail "A's framing: $(cat "$TMP/out" "$TMP/err")"
# window B: a stop string of its own, saved with the session; then think on
printf '' | "$RWKV_TUI" chat --db "$D" --session 1 --stop ZZ >/dev/null 2>&1 || fail "B --stop"
printf '/think on\n' | "$RWKV_TUI" chat --db "$D" --session 1 >/dev/null 2>&1 || fail "B /think"
"$RWKV_TUI" sessions --db "$D" show 1 | grep -q 'stop ZZ' && ok ||
    fail "B's stop string not saved: $("$RWKV_TUI" sessions --db "$D" show 1 | grep framing)"
# A's next message: B's framing is taken, said once
printf 'hello\n' >&3
poll replied 1 || fail "A: no reply: $(cat "$TMP/err")"
grep -q "session 1's framing was changed in another window: the stop strings, think mode set there apply here too" \
    "$TMP/err" && ok || fail "A was not told: $(cat "$TMP/err")"
# A changes think only: B's stop string stays in the session
printf '/think skip\n/framing\n' >&3
poll grep -q '^think     skip' "$TMP/out" || fail "A's /think: $(cat "$TMP/out")"
grep -q '^stop      ZZ$' "$TMP/out" && ok || fail "A's framing lost B's stop: $(grep '^stop' "$TMP/out")"
exec 3>&-
wait $pid
out=$("$RWKV_TUI" sessions --db "$D" show 1 | grep framing)
case $out in *"think skip"*"stop ZZ"*|*"stop ZZ"*"think skip"*) ok ;;
    *) fail "the session's framing after A's write: $out" ;; esac
[ "$(grep -c "framing was changed in another window" "$TMP/err")" = 1 ] && ok ||
    fail "said more than once: $(cat "$TMP/err")"
finish
