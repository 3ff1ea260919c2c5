# tests/cli/sessions.sh -- `rwkv-tui sessions ...` on a real database in a
# temp dir.  Sessions are created by importing a hand-written JSON export.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/db/s.db

cat > "$TMP/chat.json" <<'JSON'
{"format": "rwkv-tui-session", "version": 1, "title": "Pangolin facts",
 "created_ms": 1700000000000, "strategy": "cpu fp32", "model": null, "head": 4,
 "turns": [
  {"id": 1, "parent": null, "role": "user", "text": "Where do pangolins sleep?",
   "tokens": [85, 115, 101, 114, 58, 32, 87, 104, 101, 114, 101, 32, 100, 111, 32, 112, 97, 110, 103, 111, 108, 105, 110, 115, 32, 115, 108, 101, 101, 112, 63, 10, 10, 65, 115, 115, 105, 115, 116, 97, 110, 116, 58], "sampling": null, "time_ms": 1700000000001},
  {"id": 2, "parent": 1, "role": "assistant", "text": "In burrows.\nSome in trees.",
   "tokens": [73, 110, 32, 98, 117, 114, 114, 111, 119, 115, 46, 10, 83, 111, 109, 101, 32, 105, 110, 32, 116, 114, 101, 101, 115, 46], "sampling": {"temperature": 1, "top_p": 0.3, "seed": "12345"},
   "prefill_tps": 100.5, "decode_tps": 20.25, "time_ms": 1700000000002, "interrupted": false},
  {"id": 3, "parent": 2, "role": "user", "text": "And what do they eat?", "tokens": [85, 115, 101, 114, 58, 32, 65, 110, 100, 32, 119, 104, 97, 116, 32, 100, 111, 32, 116, 104, 101, 121, 32, 101, 97, 116, 63, 10, 10, 65, 115, 115, 105, 115, 116, 97, 110, 116, 58],
   "time_ms": 1700000000003},
  {"id": 4, "parent": 3, "role": "assistant", "text": "Ants and termites, 很多.", "tokens": [65, 110, 116, 115, 32, 97, 110, 100, 32, 116, 101, 114, 109, 105, 116, 101, 115, 44, 32, 229, 190, 136, 229, 164, 154, 46],
   "time_ms": 1700000000004, "interrupted": true},
  {"id": 6, "parent": 1, "role": "assistant", "text": "Regenerated: underground.", "tokens": [82, 101, 103, 101, 110, 101, 114, 97, 116, 101, 100, 58, 32, 117, 110, 100, 101, 114, 103, 114, 111, 117, 110, 100, 46],
   "time_ms": 1700000000005}
 ]}
JSON

# help and usage errors
out=$("$T" sessions --help) && case $out in *"usage: rwkv-tui sessions"*) ok ;; *) fail "help: $out" ;; esac
expect_fail "no command" "which command" "$T" sessions --db "$DB"
expect_fail "unknown command" "unknown command 'frobnicate'" "$T" sessions --db "$DB" frobnicate
expect_fail "unknown option" "unknown option '--bogus'" "$T" sessions --db "$DB" list --bogus
expect_fail "bad id" "'abc' is not a session id" "$T" sessions --db "$DB" show abc
expect_fail "missing arg" "usage: rwkv-tui sessions fork ID TURN" "$T" sessions --db "$DB" fork 1
expect_fail "db needs value" "needs a value" "$T" sessions list --db

# an explicit --db in a missing directory: one line, no directory made
expect_fail "--db in a missing dir" "s.db: cannot create the session database: directory .*/db: No such file" \
    "$T" sessions --db "$DB" import "$TMP/chat.json"
[ -e "$TMP/db" ] && fail "--db made its directory" || ok
mkdir "$TMP/db"
# every command but import on a path with no file: one line, nothing created
for c in list "show 1" "export 1" "search x" "rename 1 t" "rm 1" "fork 1 2" vacuum; do
    # shellcheck disable=SC2086   # $c is the command and its words
    expect_fail "$c: no database" "^rwkv-tui: $TMP/typo.db: no session database here \(nothing created\)$" \
        "$T" sessions --db "$TMP/typo.db" $c
done
[ -e "$TMP/typo.db" ] && fail "a read-only command created a database" || ok
# on the default path (nothing saved yet), list says so and creates nothing
out=$(XDG_DATA_HOME=$TMP/xdg "$T" sessions list) && [ "$out" = "no saved sessions yet (no database at $TMP/xdg/rwkv-tui/rwkv-tui.db)" ] \
    && ok || fail "list, no default db: $out"
out=$(XDG_DATA_HOME=$TMP/xdg "$T" sessions list --json) && [ "$out" = "[]" ] && ok || fail "list --json, no default db: $out"
expect_fail "show, no default db" "xdg/rwkv-tui/rwkv-tui.db: no session database here" \
    env XDG_DATA_HOME="$TMP/xdg" "$T" sessions show 1
[ -e "$TMP/xdg" ] && fail "list made the default database or its folder" || ok
# empty database (made by a first import of a session, then its rm):
# created mode 0600
E=$TMP/db/e.db
"$T" sessions --db "$E" import "$TMP/chat.json" >/dev/null && "$T" sessions --db "$E" rm 1 >/dev/null && ok \
    || fail "import to make the database"
out=$("$T" sessions --db "$E" list) && case $out in *"no saved sessions in"*) ok ;; *) fail "empty list: $out" ;; esac
[ "$(stat -c %a "$E")" = 600 ] && ok || fail "db mode $(stat -c %a "$E")"
# a pre-existing empty file (umask 022) ends up 0600
( umask 022; : > "$TMP/empty.db" )
"$T" sessions --db "$TMP/empty.db" list >/dev/null && [ "$(stat -c %a "$TMP/empty.db")" = 600 ] && ok \
    || fail "empty db mode $(stat -c %a "$TMP/empty.db")"

# default location from $XDG_DATA_HOME (import creates it)
XDG_DATA_HOME=$TMP/xdg "$T" sessions import "$TMP/chat.json" >/dev/null && [ -f "$TMP/xdg/rwkv-tui/rwkv-tui.db" ] && ok \
    || fail "default db not under XDG_DATA_HOME"

# import, list, show
out=$("$T" sessions --db "$DB" import "$TMP/chat.json") && [ "$out" = "imported $TMP/chat.json as session 1" ] && ok \
    || fail "import: $out"
out=$("$T" sessions --db "$DB" list)
printf '%s\n' "$out" | grep -Eq '^ +1 .* 5  Pangolin facts$' && ok || fail "list: $out"
out=$("$T" sessions --db "$DB" show 1)
case $out in *"session 1: Pangolin facts"*"#1 user [2 branches]:"*"Where do pangolins sleep?"*"#4 assistant [interrupted]:"*"Ants and termites, 很多."*) ok ;;
    *) fail "show: $out" ;; esac
case $out in *Regenerated*) fail "show prints another branch" ;; *) ok ;; esac
expect_fail "show missing" "no session 99" "$T" sessions --db "$DB" show 99

# export markdown (current branch) and json (whole tree); json round trip
out=$("$T" sessions --db "$DB" export 1)
case $out in "# Pangolin facts"*"## User"*"Where do pangolins sleep?"*"## Assistant"*"In burrows."*"*(reply interrupted)*"*) ok ;;
    *) fail "export md: $out" ;; esac
"$T" sessions --db "$DB" export 1 --format json --out "$TMP/e1.json" && ok || fail "export json"
out=$("$T" sessions --db "$DB" import "$TMP/e1.json") && [ "$out" = "imported $TMP/e1.json as session 2" ] && ok \
    || fail "re-import: $out"
"$T" sessions --db "$DB" export 2 --format=json > "$TMP/e2.json" || fail "export 2"
norm() { sed -E 's/"(id|parent|head)": [0-9]+/"\1": N/g' "$1"; }
if diff <(norm "$TMP/e1.json") <(norm "$TMP/e2.json") >/dev/null; then ok; else fail "json round trip differs: $(diff <(norm "$TMP/e1.json") <(norm "$TMP/e2.json") | head -5)"; fi
grep -q '"seed": "12345"' "$TMP/e1.json" && grep -q '"top_p": 0.3,' "$TMP/e1.json" && ok || fail "sampling in export"
expect_fail "bad format" "--format 'xml' is not md or json" "$T" sessions --db "$DB" export 1 --format xml
# without --format, a .json name gets JSON (any case; as F2's C-e): before, a
# backup made with --out s.json was Markdown, and importing it failed with
# "JSON bad number at byte 0"; an explicit --format wins; a Markdown export
# is refused by import with one line saying so
"$T" sessions --db "$DB" export 1 --out "$TMP/e3.JSON" && head -c 1 "$TMP/e3.JSON" | grep -q '{'     && grep -q '"format": "rwkv-tui-session"' "$TMP/e3.JSON" && ok || fail "--out .JSON: $(head -3 "$TMP/e3.JSON")"
"$T" sessions --db "$DB" export 1 --format md --out "$TMP/m.json" && grep -q '^# Pangolin facts$' "$TMP/m.json" \
    && ok || fail "--format md wins over the name: $(head -3 "$TMP/m.json")"
expect_fail "import of a Markdown export" "m.json: a Markdown export, which cannot be imported \(export with --format json, or to a .json name\)" \
    "$T" sessions --db "$DB" import "$TMP/m.json"

# search
out=$("$T" sessions --db "$DB" search termites)
[ "$(printf '%s\n' "$out" | grep -c 'turn')" = 2 ] && case $out in *"[termites]"*) ok ;; *) fail "search: $out" ;; esac \
    || fail "search hits: $out"
out=$("$T" sessions --db "$DB" search 'zebra') && case $out in *"no matches"*) ok ;; *) fail "search none: $out" ;; esac
"$T" sessions --db "$DB" search '"AND (* NEAR' >/dev/null && ok || fail "search with FTS syntax"

# export --out never writes over the database (nor its WAL, nor another
# SQLite file): the sessions are all still there
cp "$DB" "$TMP/keep.db"
expect_fail "export over the database" "--out $DB is the session database: not written over" \
    "$T" sessions --db "$DB" export 1 --out "$DB"
expect_fail "export over its WAL" "is the session database's -wal file: not written over" \
    "$T" sessions --db "$DB" export 1 --out "$DB-wal"
expect_fail "export over another database" "keep.db is an SQLite database: not written over" \
    "$T" sessions --db "$DB" export 1 --out "$TMP/keep.db"
"$T" sessions --db "$DB" show 1 >/dev/null && ok || fail "the database was written over"
"$T" sessions --db "$DB" export 1 --out "$TMP/e.md" && "$T" sessions --db "$DB" export 1 --out "$TMP/e.md" &&
    grep -q '^# Pangolin facts$' "$TMP/e.md" && ok || fail "export over an earlier export"

# fork, rename, rm
out=$("$T" sessions --db "$DB" fork 1 2) && [ "$out" = "forked session 1 at turn 2 as session 3" ] && ok || fail "fork: $out"
out=$("$T" sessions --db "$DB" show 3)
case $out in *"Pangolin facts (fork)"*"2 turns in the tree"*"In burrows."*) ok ;; *) fail "show fork: $out" ;; esac
expect_fail "fork foreign turn" "turn 2 is not in session 2" "$T" sessions --db "$DB" fork 2 2
# a user turn of another session: named as typed (the fork rule moved it to
# its parent before the check, and the error named that turn)
uid=$(sqlite3 "$DB" "select max(id) from turns where session_id=1 and role=1")
expect_fail "fork foreign user turn" "turn $uid is not in session 2" "$T" sessions --db "$DB" fork 2 "$uid"
out=$("$T" sessions --db "$DB" rename 3 "Ants only") && "$T" sessions --db "$DB" list | grep -q 'Ants only$' && ok || fail rename
[ "$out" = "renamed session 3" ] && ok || fail "rename says: $out"   # as rm, fork and import do
# a title is one line, safe to show: blank refused; line breaks and tabs
# become spaces, escape sequences go whole (the display rule,
# utf8_sanitize_for_terminal), in the file and on every read (a file
# written before, or by hand, is shown so too)
expect_fail "rename to empty" "a session title cannot be empty" "$T" sessions --db "$DB" rename 3 ""
expect_fail "rename to blanks" "a session title cannot be empty" "$T" sessions --db "$DB" rename 3 "   "
# an empty title or search is a usage error: exit 2, as the man page says
# (by the store's rules: a title of escape codes alone is empty once cleaned)
for c in "rename 3 ''" "rename 3 \$'\\e[1m'" "fork 3 1 --title ''" "search ''" "search '  '"; do
    eval "\"\$T\" sessions --db \"\$DB\" $c" >/dev/null 2>&1
    rc=$?
    [ $rc = 2 ] && ok || fail "sessions $c: exit $rc"
done
expect_fail "fork titled empty" "a session title cannot be empty" "$T" sessions --db "$DB" fork 1 2 --title ""
"$T" sessions --db "$DB" list | grep -q 'Ants only$' && ok || fail "a refused rename changed the title"
"$T" sessions --db "$DB" rename 3 "$(printf 'Ants\nonly\tnow \033[31mred')" && ok || fail "rename with a newline"
out=$("$T" sessions --db "$DB" list)
printf '%s\n' "$out" | grep -qx " *3 .* Ants only now red" && ok || fail "title in list: $out"
printf '%s\n' "$out" | grep -q '^only' && fail "list is not one line a session: $out" || ok
out=$("$T" sessions --db "$DB" search Ants)
printf '%s\n' "$out" | grep -q "$(printf '\033')" && fail "search prints an escape: $out" || ok
if command -v sqlite3 >/dev/null; then
    sqlite3 "$DB" "UPDATE sessions SET title='raw'||char(10)||'line'||char(27)||'[2J' WHERE id=3"
    out=$("$T" sessions --db "$DB" show 3 | head -1)
    [ "$out" = "session 3: raw line" ] && ok || fail "a raw title read back: $out"
    "$T" sessions --db "$DB" rename 3 "Ants only"
fi
out=$("$T" sessions --db "$DB" rm 2) && [ "$out" = "deleted session 2" ] && ok || fail "rm: $out"
expect_fail "rm twice" "no session 2" "$T" sessions --db "$DB" rm 2
[ "$("$T" sessions --db "$DB" list | grep -c 'Pangolin facts$')" = 1 ] && ok || fail "list after rm"
# an id is never given twice: after rm of the newest session, the next one
# gets a new id (a script holding "session 4" must not reach another chat)
"$T" sessions --db "$DB" import "$TMP/chat.json" >/dev/null
out=$("$T" sessions --db "$DB" rm 4) && [ "$out" = "deleted session 4" ] && ok || fail "rm newest: $out"
out=$("$T" sessions --db "$DB" import "$TMP/chat.json") && [ "$out" = "imported $TMP/chat.json as session 5" ] && ok \
    || fail "the id of a deleted session given again: $out"
"$T" sessions --db "$DB" rm 5 >/dev/null

# bad input: one line, non-zero exit, nothing else changed
before=$("$T" sessions --db "$DB" list)
printf '{"format": "rwkv-tui-session", "version": 1, "title": "x", "turns": [' > "$TMP/trunc.json"
expect_fail "truncated json" "trunc.json" "$T" sessions --db "$DB" import "$TMP/trunc.json"
printf '{"format": "rwkv-tui-session", "version": 1, "title": "x", "turns": [{"id": 1, "parent": 7, "role": "user", "text": "a"}]}' > "$TMP/orphan.json"
expect_fail "orphan turn" "orphan.json: turn 1: parent is not an earlier turn" "$T" sessions --db "$DB" import "$TMP/orphan.json"
printf '[]' > "$TMP/arr.json"
expect_fail "not an export" "not a rwkv-tui session export" "$T" sessions --db "$DB" import "$TMP/arr.json"
expect_fail "missing file" "nope.json: cannot open: No such file" "$T" sessions --db "$DB" import "$TMP/nope.json"
[ "$("$T" sessions --db "$DB" list)" = "$before" ] && ok || fail "a bad import changed the database"

printf 'hello, I am a text file and not a database at all.....................................' > "$TMP/text.db"
expect_fail "text file as db" "text.db: not a rwkv-tui session database" "$T" sessions --db "$TMP/text.db" list
cp "$DB" "$TMP/corrupt.db"
printf 'garbage-garbage-garbage-garbage-garbage-garbage-garbage-garbage-garbage!!' | dd of="$TMP/corrupt.db" conv=notrunc bs=1 seek=0 2>/dev/null
expect_fail "corrupt db" "corrupt.db: " "$T" sessions --db "$TMP/corrupt.db" list
mkdir -p "$TMP/adir"
expect_fail "directory as db" "adir: is a directory" "$T" sessions --db "$TMP/adir" list
if command -v sqlite3 >/dev/null; then
    cp "$DB" "$TMP/newer.db"
    sqlite3 "$TMP/newer.db" 'PRAGMA user_version=42' && \
    expect_fail "newer schema" "newer.db: session database schema v42 is newer than this rwkv-tui understands" \
        "$T" sessions --db "$TMP/newer.db" list
else
    echo "note: sqlite3 CLI not installed: newer-schema case covered by test_store only"
fi
# the fork rule (as /fork and the full-screen client's edit): at a user turn
# the new session ends before that message; before the first one there is nothing
FDB=$TMP/fork.db
"$T" sessions --db "$FDB" import "$TMP/chat.json" >/dev/null
out=$("$T" sessions --db "$FDB" fork 1 3) \
    && [ "$out" = "forked session 1 before message 3 (at turn 2) as session 2" ] && ok || fail "fork at a user turn: $out"
out=$("$T" sessions --db "$FDB" show 2)
case $out in *"Where do pangolins sleep?"*"In burrows."*) ok ;; *) fail "fork before message: $out" ;; esac
case $out in *"what do they eat"*) fail "the message forked at was copied" ;; *) ok ;; esac
expect_fail "fork before the first message" 'nothing comes before it' "$T" sessions --db "$FDB" fork 1 1

# vacuum: the space of deleted rows given back, sizes before and after
expect_fail "vacuum takes no argument" "usage: rwkv-tui sessions vacuum$" "$T" sessions --db "$FDB" vacuum 1
out=$("$T" sessions --db "$FDB" vacuum) && printf '%s\n' "$out" | grep -Eqx "$FDB: [0-9.]+ MB -> [0-9.]+ MB \([0-9]+ free pages? given back\)" \
    && ok || fail "vacuum: $out"
if command -v sqlite3 >/dev/null; then
    # 8 MB of free pages, as deleted rows leave them
    sqlite3 "$FDB" 'CREATE TABLE junk(b); INSERT INTO junk VALUES (zeroblob(8000000)); DROP TABLE junk'
    before=$(stat -c %s "$FDB")
    out=$("$T" sessions --db "$FDB" vacuum) && ok || fail "vacuum: $out"
    after=$(stat -c %s "$FDB")
    [ $((before - after)) -gt 7000000 ] && ok || fail "vacuum: the file went $before -> $after bytes"
    printf '%s\n' "$out" | grep -Eq '^.*: (9|8)\.[0-9] MB -> [0-9.]+ MB \(1[0-9]{2} free pages given back\)$' \
        && ok || fail "vacuum said: $out"
    [ "$(sqlite3 "$FDB" 'PRAGMA integrity_check')" = ok ] && "$T" sessions --db "$FDB" show 2 >/dev/null \
        && ok || fail "vacuum: the file is not intact"
    # a file made without incremental auto-vacuum gets it, with one full VACUUM
    sqlite3 "$FDB" 'PRAGMA auto_vacuum=NONE; VACUUM; CREATE TABLE junk(b); INSERT INTO junk VALUES (zeroblob(8000000)); DROP TABLE junk'
    out=$("$T" sessions --db "$FDB" vacuum)
    case $out in *"(a full VACUUM: the file was made without incremental auto-vacuum; it has it now)"*) ok ;;
        *) fail "vacuum of an old file: $out" ;; esac
    [ "$(sqlite3 "$FDB" 'PRAGMA auto_vacuum')" = 2 ] && [ "$(stat -c %s "$FDB")" -lt 3000000 ] && ok \
        || fail "old file: auto_vacuum $(sqlite3 "$FDB" 'PRAGMA auto_vacuum'), $(stat -c %s "$FDB") bytes"
else
    echo "note: sqlite3 CLI not installed: vacuum shrinking covered by test_store_prune only"
fi
finish
