#!/usr/bin/env bash
# tests/tui/replay_rate.sh -- a replay at open (an imported session: no
# saved states) shows its rate and the time left in the status line's bar,
# as a live prefill does; it said "0 tok/s" and never a time left for the
# whole replay (minutes on a big model: when the time left matters).
. "$(dirname "$0")/tmuxlib.sh"

# a replay of seconds (under the sanitizers a tenth of it takes as long)
n=30000
[ -n "${RWKV_ASAN:-}" ] && n=3000
python3 -c "print(' '.join(['lorem ipsum'] * $n))" >"$TMP/big.txt"
"$RWKV_TUI" chat --demo --db "$TMP/src.db" --new long --max-tokens 2 <"$TMP/big.txt" >/dev/null \
    2>"$TMP/c.err" || fail "chat: $(cat "$TMP/c.err")"
"$RWKV_TUI" sessions --db "$TMP/src.db" export 1 --format json --out "$TMP/l.json" &&
    "$RWKV_TUI" sessions --db "$DB" import "$TMP/l.json" >/dev/null && ok || fail "export/import"

NOWAIT=1 W=160 H=20 tui_start --session 1
seen_bar=0 seen_rate=0
for i in $(seq 1 100); do
    top=$(screen | head -1)
    case $top in
    *replaying*) seen_bar=1
        if printf '%s' "$top" | grep -Eq ' [1-9][0-9]* tok/s +[0-9][0-9hms]* left'; then seen_rate=1; break; fi ;;
    *) [ $seen_bar = 1 ] && break ;;
    esac
    sleep 0.1
done
if [ $seen_bar = 0 ]; then
    skip 1 "(1) the replay ended before the screen showed it"
elif [ $seen_rate = 1 ]; then
    ok
else
    fail "the replay's bar shows no rate or time left: '$top'"
fi
wait_idle 900
check "resumed" 'replayed [0-9]+ tokens|resumed'
tui_quit
tui_finish
