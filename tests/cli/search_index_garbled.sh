#!/usr/bin/env bash
# tests/cli/search_index_garbled.sh -- the search index's structure record
# (turns_fts_data id 10, FTS5's map of its segments) garbled or emptied:
#   - garbled, FTS5 cannot open the index at all, and its own 'rebuild'
#     needs it open: a search, and `sessions vacuum`, said "the session
#     database is corrupt ... export each session ... import" for an intact
#     database, and nothing could rebuild the index.  Now the index's two
#     tables are reset to a blank index's and rebuilt from the messages:
#     the search answers (one line says so), vacuum says it rebuilt it;
#   - emptied (or cut to one byte), FTS5 reads it as another index, and a
#     write through it (`sessions rm`, `fork`: the triggers) failed with
#     SQLite's bare "constraint failed".  Now it is named: the search
#     index is damaged, and `sessions vacuum` rebuilds it (which it then
#     does; fork works after); `sessions rm` rebuilds it itself, as a
#     search does, says so and deletes.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
SRC=$TMP/src.db

zoo_db "$SRC"
want=$("$T" sessions --db "$SRC" search zoo 2>&1)
[ "$(printf '%s\n' "$want" | grep -c '^session 1 turn')" = 40 ] && ok || fail "the search before: $want"
# record DB BLOB: a copy of the source with the structure record replaced
record() {
    cp "$SRC" "$1" && python3 -c "
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute('UPDATE turns_fts_data SET block=? WHERE id=10', (bytes.fromhex(sys.argv[2]),)); c.commit()" "$1" "$2"
}
intact() { sql_rows "$1" "INSERT INTO turns_fts(turns_fts, rank) VALUES('integrity-check', 1)" >/dev/null 2>&1; }
damaged_line() { echo "rwkv-tui: $2$1: the search index is damaged (not the sessions: it is made from their messages): 'rwkv-tui sessions --db $1 vacuum' rebuilds it"; }

# garbled: a search rebuilds it and answers
record "$TMP/g.db" 0102030405060708
out=$("$T" sessions --db "$TMP/g.db" search zoo 2>"$TMP/err") && ok || fail "search: exit $?: $(cat "$TMP/err")"
[ "$out" = "$want" ] && ok || fail "search after the rebuild: $out"
[ "$(cat "$TMP/err")" = "rwkv-tui: $TMP/g.db: the search index was damaged: rebuilt from the messages (nothing was lost)" ] &&
    ok || fail "the note: $(cat "$TMP/err")"
intact "$TMP/g.db" && ok || fail "the index is still damaged"
# garbled: vacuum rebuilds it
record "$TMP/v.db" ffffffffffffffffffff
out=$("$T" sessions --db "$TMP/v.db" vacuum 2>"$TMP/err") && ok || fail "vacuum: $(cat "$TMP/err")"
case $out in *"(the search index was damaged: rebuilt from the messages, nothing lost)"*) ok ;;
*) fail "vacuum did not say it: $out" ;; esac
intact "$TMP/v.db" && [ "$("$T" sessions --db "$TMP/v.db" search zoo 2>&1)" = "$want" ] && ok ||
    fail "vacuum left the index damaged"

# emptied: a write through it names the index (fork), vacuum mends it;
# `sessions rm` mends it itself, as a search does, and deletes
for blob in "" 00; do
    record "$TMP/e.db" "$blob"
    "$T" sessions --db "$TMP/e.db" fork 1 3 >/dev/null 2>"$TMP/err"
    [ $? = 1 ] && [ "$(cat "$TMP/err")" = "$(damaged_line "$TMP/e.db" "forking session 1: ")" ] && ok ||
        fail "fork, the record '$blob': $(cat "$TMP/err")"
    "$T" sessions --db "$TMP/e.db" vacuum >/dev/null 2>&1 && intact "$TMP/e.db" &&
        "$T" sessions --db "$TMP/e.db" fork 1 3 >/dev/null 2>&1 && ok || fail "vacuum, then fork, the record '$blob'"
    record "$TMP/r.db" "$blob"
    out=$("$T" sessions --db "$TMP/r.db" rm 1 2>"$TMP/err")
    [ $? = 0 ] && [ "$out" = "deleted session 1" ] &&
        [ "$(cat "$TMP/err")" = "rwkv-tui: $TMP/r.db: the search index was damaged: rebuilt from the messages (nothing was lost)" ] &&
        [ "$(n_sessions "$TMP/r.db")" = 0 ] && intact "$TMP/r.db" && ok || fail "rm, the record '$blob': $out / $(cat "$TMP/err")"
done
finish
