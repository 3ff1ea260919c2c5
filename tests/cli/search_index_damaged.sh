#!/usr/bin/env bash
# tests/cli/search_index_damaged.sh -- the search index (turns_fts) is
# derived data: damaged (rows of turns_fts_data deleted), a search on a
# writable file rebuilds it from the messages, says so in one line and
# answers; `sessions vacuum` checks it (FTS5 integrity-check) and rebuilds
# it; a read-only file says the index, not the database, is damaged, and
# what rebuilds it.  It said "the session database is corrupt ... export
# each session ... import" for an intact database, and vacuum left it
# damaged.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
SRC=$TMP/src.db

zoo_db "$SRC"
want=$("$T" sessions --db "$SRC" search zoo 2>&1)
[ "$(printf '%s\n' "$want" | grep -c '^session 1 turn')" = 40 ] && ok || fail "the search before: $want"
damage() { cp "$SRC" "$1" && sql_rows "$1" "DELETE FROM turns_fts_data WHERE id>10" >/dev/null; }
intact() { sql_rows "$1" "INSERT INTO turns_fts(turns_fts, rank) VALUES('integrity-check', 1)" >/dev/null 2>&1; }

# a search: rebuilt, one line, the same answer
damage "$TMP/a.db"
intact "$TMP/a.db" && fail "the damage did not take" || ok
out=$("$T" sessions --db "$TMP/a.db" search zoo 2>"$TMP/err") && ok || fail "search: exit $?: $(cat "$TMP/err")"
[ "$out" = "$want" ] && ok || fail "search after the rebuild: $out"
[ "$(cat "$TMP/err")" = "rwkv-tui: $TMP/a.db: the search index was damaged: rebuilt from the messages (nothing was lost)" ] &&
    ok || fail "the note: $(cat "$TMP/err")"
intact "$TMP/a.db" && ok || fail "the index is still damaged"
"$T" sessions --db "$TMP/a.db" search zoo >/dev/null 2>"$TMP/err" && [ ! -s "$TMP/err" ] && ok ||
    fail "a second search: $(cat "$TMP/err")"

# vacuum: rebuilt, said
damage "$TMP/v.db"
out=$("$T" sessions --db "$TMP/v.db" vacuum 2>"$TMP/err") && ok || fail "vacuum: $(cat "$TMP/err")"
case $out in *"(the search index was damaged: rebuilt from the messages, nothing lost)"*) ok ;;
*) fail "vacuum did not say it: $out" ;; esac
intact "$TMP/v.db" && ok || fail "vacuum left the index damaged"
out=$("$T" sessions --db "$TMP/v.db" vacuum 2>&1)
case $out in *"search index"*) fail "an intact index said rebuilt: $out" ;; *) ok ;; esac

# read-only (mode 444, the program's own rule): the index named, the way on
mkdir "$TMP/ro" && damage "$TMP/ro/s.db" && chmod 444 "$TMP/ro/s.db"
rc_is "read-only search" 1 "^rwkv-tui: $TMP/ro/s.db: the search index is damaged \(not the sessions: it is made from their messages\), and this file is read-only here: 'rwkv-tui sessions --db $TMP/ro/s.db vacuum' rebuilds it where the file may be written$" \
    "$T" sessions --db "$TMP/ro/s.db" search zoo
grep -q 'database is corrupt' "$TMP/err" && fail "read-only: the database called corrupt" || ok

finish
