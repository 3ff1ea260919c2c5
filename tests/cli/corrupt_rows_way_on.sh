#!/usr/bin/env bash
# tests/cli/corrupt_rows_way_on.sh -- a row that breaks what the schema
# promises (an id <= 0, a NULL in a NOT NULL column: what a damaged table
# page reads as) is the damaged-database line, and that line carries the
# way on as SQLite's own SQLITE_CORRUPT line does (corrupt_way_on.sh):
# export what still reads, import it into a new file, go on with --db.
# Before, the row checks' lines stopped at "(table sessions: ...)" with no
# word of what to do.  Real SQLite files, rows written by python3's sqlite3.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/r.db

printf 'hello\n' | "$T" chat --demo --db "$DB" --new s1 --seed 1 --max-tokens 4 >/dev/null 2>&1 ||
    fail "chat"
# way DB: the way on after the damaged-database line of DB (a regex)
way() {
    local d
    d=$(printf '%s' "$1" | sed 's/[.[\*^$()+?{|]/\\&/g')
    printf '%s' ": export each session that still reads \\('rwkv-tui sessions --db $d export ID --format json --out F', then 'sessions --db NEW\\.db import F'\\), or copy out what reads with sqlite3's \\.recover, and go on with --db NEW\\.db\$"
}

# --- a session row with id -5 (a copy of session 1's) -------------------------------------------
cp "$DB" "$TMP/neg.db"
python3 - "$TMP/neg.db" <<'EOF' && ok || fail "write the row"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
cols = [r[1] for r in db.execute("PRAGMA table_info(sessions)")][1:]
db.execute("INSERT INTO sessions(id, %s) SELECT -5, %s FROM sessions WHERE id=1"
           % (",".join(cols), ",".join(cols)))
db.commit()
EOF
N=$TMP/neg.db
for c in list "show 7"; do   # (show: a row not found scans the table)
    # shellcheck disable=SC2086   # $c is the command and its words
    expect_fail "id -5: $c" \
        "^rwkv-tui: $TMP/neg\\.db: the session database is corrupt \\(table sessions: a row with id -5\\)$(way "$N")" \
        "$T" sessions --db "$N" $c
done

# --- a NULL title (the NOT NULL taken out of the schema to write it, then put back) ------------
cp "$DB" "$TMP/null.db"
python3 - "$TMP/null.db" <<'EOF' && ok || fail "write the NULL"
import sqlite3, sys
p = sys.argv[1]
db = sqlite3.connect(p)
db.execute("PRAGMA writable_schema=ON")
db.execute("UPDATE sqlite_master SET sql=replace(sql, 'title TEXT NOT NULL', 'title TEXT') "
           "WHERE name='sessions'")
db.commit()
db.close()
db = sqlite3.connect(p)
db.execute("UPDATE sessions SET title=NULL WHERE id=1")
db.commit()
db.execute("PRAGMA writable_schema=ON")
db.execute("UPDATE sqlite_master SET sql=replace(sql, 'title TEXT,', 'title TEXT NOT NULL,') "
           "WHERE name='sessions'")
db.commit()
EOF
expect_fail "NULL title: list" \
    "^rwkv-tui: $TMP/null\\.db: the session database is corrupt \\(table sessions, row 1: title is NULL\\)$(way "$TMP/null.db")" \
    "$T" sessions --db "$TMP/null.db" list
finish
