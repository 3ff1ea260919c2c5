#!/usr/bin/env bash
# tests/cli/import_reopen.sh -- an imported session (an export holds no
# states) is replayed once, at its first open, and opens at once after
# that: the replay's states are kept -- the head's and the one before the
# last message, which a regeneration starts from.  Only the head's was
# kept, so every later open replayed the whole conversation again, in
# silence (a 600-turn import: 2 s an open on the tiny model; hours on a
# 1.5B on a CPU).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
cd "$TMP" || exit 1

printf 'one\ntwo\nthree\nfour\n' | "$T" chat --demo --db src.db --new imp --max-tokens 3 --seed 1 \
    >/dev/null 2>err || fail "chat: $(cat err)"
"$T" sessions --db src.db export 1 --format json --out e.json 2>err || fail "export: $(cat err)"
"$T" sessions --db i.db import e.json >/dev/null 2>err && ok || fail "import: $(cat err)"
snaps() { python3 -c 'import sqlite3, sys; print(",".join(str(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("select turn_id from snapshots order by turn_id")))' i.db; }
[ -z "$(snaps)" ] && ok || fail "an import with states: $(snaps)"

# the first open replays from the start and says so
"$T" chat --demo --db i.db --session 1 </dev/null >out 2>err || fail "first open: $(cat err)"
grep -q 'replayed [0-9]* tokens from the start of the session' out err && ok ||
    fail "first open: no replay said: $(cat out err)"
# kept: the reply at the head (turn 9) and the one before the last message (turn 7)
[ "$(snaps)" = "7,9" ] && ok || fail "states kept after the first open: '$(snaps)' (want 7,9)"
# the second open replays nothing: from the kept states, at once
"$T" chat --demo --db i.db --session 1 </dev/null >out2 2>err2 || fail "second open: $(cat err2)"
grep -q 'replayed' out2 err2 && fail "the second open replayed: $(cat out2 err2)" || ok
[ "$(snaps)" = "7,9" ] && ok || fail "states after the second open: '$(snaps)'"
# and a regeneration from there takes the kept state (no replay either)
printf '/regen\n' | "$T" chat --demo --db i.db --session 1 --max-tokens 2 --seed 2 >out3 2>err3 ||
    fail "regen: $(cat err3)"
grep -q 'replayed' out3 err3 && fail "the regeneration replayed: $(cat out3 err3)" || ok
finish
