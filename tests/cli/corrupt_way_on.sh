#!/usr/bin/env bash
# tests/cli/corrupt_way_on.sh -- a session database damaged on disk.  No
# retry mends a damaged file, so its one line says the way on: export the
# sessions that still read and import them into a new file (or sqlite3's
# .recover), then --db NEW.db.  Before, `sessions list/show/export` said
# only "the session database is corrupt (...)", and the line chat, damaged
# mid-run, said "what is not saved is tried again with your next message".
# A session whose pages are whole still exports from a file damaged
# elsewhere, and imports into a new one: the way on works.  Real SQLite
# files, pages overwritten with dd; the demo model.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/c.db

for i in 1 2; do
    printf 'hello %s\n' $i | "$T" chat --demo --db "$DB" --new s$i --seed 1 --max-tokens 8 >/dev/null 2>&1 ||
        fail "chat $i"
done
# rootpage TABLE [DB]: the table's root page
rootpage() {
    python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(
        "select rootpage from sqlite_master where name=?", (sys.argv[2],)).fetchone()[0])' "${2:-$DB}" "$1"
}
psz=$(sql_rows "$DB" 'pragma page_size')
# damage DB PAGE: PAGE overwritten with random bytes
damage() { dd if=/dev/urandom of="$1" bs="$psz" seek=$(($2 - 1)) count=1 conv=notrunc 2>/dev/null; }

# --- the turns page damaged: list and show say the way on ------------------------------------
cp "$DB" "$TMP/t.db"
damage "$TMP/t.db" "$(rootpage turns)"
W="the session database is corrupt \(.*\): export each session that still reads \('rwkv-tui sessions --db $TMP/t\.db export ID --format json --out F', then 'sessions --db NEW\.db import F'\), or copy out what reads with sqlite3's \.recover, and go on with --db NEW\.db$"
expect_fail "list" "^rwkv-tui: $TMP/t\\.db: $W" "$T" sessions --db "$TMP/t.db" list
expect_fail "show" "^rwkv-tui: $TMP/t\\.db: $W" "$T" sessions --db "$TMP/t.db" show 1

# --- damage elsewhere (the saved states): the sessions export and import whole -------------
cp "$DB" "$TMP/b.db"
damage "$TMP/b.db" "$(rootpage state_blobs)"
"$T" sessions --db "$TMP/b.db" export 2 --format json --out "$TMP/s2.json" 2>"$TMP/e" && ok ||
    fail "export from a file damaged elsewhere: $(cat "$TMP/e")"
"$T" sessions --db "$TMP/new.db" import "$TMP/s2.json" >/dev/null 2>"$TMP/e" && ok || fail "import: $(cat "$TMP/e")"
[ "$(sql_rows "$TMP/new.db" 'select text from turns where role=1')" = "hello 2" ] && ok ||
    fail "imported: $(sql_rows "$TMP/new.db" 'select text from turns')"

# --- damaged while the line chat runs: no "tried again" ---------------------------------------
cp "$DB" "$TMP/m.db"
chat_bg --demo --db "$TMP/m.db" --session 1 --seed 1 --max-tokens 8
printf 'first\n' >&3
poll rows_are "$TMP/m.db" "select count(*) from turns where text='first'" 1 ||
    fail "first not saved"
# (the saved rows into the file, so the damage is not hidden by the -wal;
# the restarted -wal makes the chat read the pages again)
sql_rows "$TMP/m.db" 'pragma wal_checkpoint(truncate)' >/dev/null
pt=$(rootpage turns "$TMP/m.db")
ps=$(rootpage sessions "$TMP/m.db")
damage "$TMP/m.db" "$pt"
damage "$TMP/m.db" "$ps"
printf 'second\n' >&3
poll grep -q 'is corrupt' "$TMP/err"
exec 3>&-
wait $pid
grep -q 'is corrupt.*a retry cannot mend a damaged file' "$TMP/err" && ok || fail "mid-run: $(cat "$TMP/err")"
grep -q 'tried again with your next message' "$TMP/err" && fail "mid-run: a retry promised: $(cat "$TMP/err")" || ok
finish
