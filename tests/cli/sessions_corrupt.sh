# tests/cli/sessions_corrupt.sh -- `rwkv-tui sessions` on a database whose
# table pages were damaged on disk, and `sessions import` of files that are
# not a session export or hold a tree the chat never makes:
#   - 200 bytes overwritten at offset 8 of the sessions table's root page
#     (its cell pointers; SQLite reads the page without an error, as rows of
#     id 0 full of NULLs): list, list --json, show and export fail with one
#     line "the session database is corrupt (...)" and exit 1 -- they
#     printed three sessions "0  1970-01-01 00:00  0" and exited 0;
#   - the same on the models page: export (JSON and Markdown) says the
#     database is corrupt -- it said "no model 1" (JSON) or left the model
#     out in silence (Markdown);
#   - list --json and show fail the same way before any output (they
#     printed "model": null / no model line and exited 0);
#   - the failed commands leave the file as it was;
#   - import of a text file says it is not a session export (it said "JSON
#     bad number at byte 0"); a greeting under a greeting, a message under a
#     message or a reply at the root is refused with one line naming the
#     turn, nothing imported.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/s.db

cat > "$TMP/m.json" <<'JSON'
{"format": "rwkv-tui-session", "version": 1, "title": "modelled", "created_ms": 1700000000000,
 "model": {"path": "/models/x.pth", "fingerprint": "00000000deadbeef", "version": "7.0",
 "n_layer": 2, "n_embd": 64, "n_head": 1, "head_size": 64},
 "turns": [{"id": 1, "parent": null, "role": "user", "text": "hi", "tokens": [85, 115, 101, 114, 58, 32, 104, 105, 10, 10, 65, 115, 115, 105, 115, 116, 97, 110, 116, 58]},
 {"id": 2, "parent": 1, "role": "assistant", "text": "hello", "tokens": [104, 101, 108, 108, 111]}]}
JSON
for i in 1 2 3; do
    "$T" sessions --db "$DB" import "$TMP/m.json" >/dev/null || fail "import $i"
done
[ "$("$T" sessions --db "$DB" list | grep -c modelled)" = 3 ] && ok || fail "three sessions"

# smash COPY TABLE: 200 zero bytes at offset 8 of TABLE's root page of COPY
smash() {
    local root psz
    root=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(
        "select rootpage from sqlite_master where name=?", (sys.argv[2],)).fetchone()[0])' "$1" "$2")
    psz=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(
        "pragma page_size").fetchone()[0])' "$1")
    dd if=/dev/zero of="$1" bs=1 seek=$(( (root - 1) * psz + 8 )) count=200 conv=notrunc 2>/dev/null
}
C="the session database is corrupt \("

# --- the sessions page ----------------------------------------------------------------------
cp "$DB" "$TMP/sp.db"
smash "$TMP/sp.db" sessions && ok || fail "damage the sessions page"
cp "$TMP/sp.db" "$TMP/sp.orig"
for c in list "list --json" "show 2" "export 2" "export 2 --format json"; do
    # shellcheck disable=SC2086   # $c is the command and its words
    expect_fail "sessions page: $c" "^rwkv-tui: $TMP/sp\\.db: ${C}(table sessions|.*malformed)" \
        "$T" sessions --db "$TMP/sp.db" $c
done
out=$("$T" sessions --db "$TMP/sp.db" list 2>/dev/null)
case $out in *1970-01-01*) fail "list printed blank rows: $out" ;; *) ok ;; esac
cmp -s "$TMP/sp.db" "$TMP/sp.orig" && ok || fail "the failed commands changed the file"

# --- the models page ------------------------------------------------------------------------
cp "$DB" "$TMP/mp.db"
smash "$TMP/mp.db" models && ok || fail "damage the models page"
expect_fail "models page: export --out f.json" "^rwkv-tui: $TMP/mp\\.db: ${C}(table models|.*malformed)" \
    "$T" sessions --db "$TMP/mp.db" export 2 --out "$TMP/f.json"
[ -e "$TMP/f.json" ] && fail "a failed export wrote f.json" || ok
expect_fail "models page: export (Markdown)" "^rwkv-tui: $TMP/mp\\.db: ${C}(table models|.*malformed)" \
    "$T" sessions --db "$TMP/mp.db" export 2
# list --json and show name the damage before printing anything (they
# printed "model": null and no model line, exit 0)
for c in "list --json" "show 2"; do
    # shellcheck disable=SC2086   # $c is the command and its words
    expect_fail "models page: $c" "^rwkv-tui: $TMP/mp\\.db: ${C}(table models|.*malformed)" \
        "$T" sessions --db "$TMP/mp.db" $c
    # shellcheck disable=SC2086
    [ -z "$("$T" sessions --db "$TMP/mp.db" $c 2>/dev/null)" ] && ok || fail "models page: $c printed"
done
# the sessions themselves are whole
[ "$("$T" sessions --db "$TMP/mp.db" list | grep -c modelled)" = 3 ] && ok || fail "models page: list"

# --- a healthy file: a missing session is still "no session" -------------------------------
expect_fail "no session 9" "^rwkv-tui: $DB: no session 9$" "$T" sessions --db "$DB" show 9

# --- import: not JSON, impossible trees ------------------------------------------------------
printf 'Hello, these are my notes.\n' >"$TMP/notes.txt"
expect_fail "import a text file" \
    "^rwkv-tui: $TMP/notes\\.txt: not a rwkv-tui session export \(a JSON export starts with '\{', this file with 'H'\)$" \
    "$T" sessions --db "$DB" import "$TMP/notes.txt"
"$T" sessions --db "$DB" export 1 --out "$TMP/e.json" && ok || fail "export 1"
# the export as the chat makes it imports; edited into impossible trees it does not
python3 - "$TMP" <<'PY' && ok || fail "edit the export"
import json, sys
d = sys.argv[1]
e = json.load(open(d + "/e.json"))
t = e["turns"]
def save(name, turns):
    x = dict(e, turns=turns, head=None)
    json.dump(x, open(d + "/" + name, "w"))
g = {"id": 0, "parent": None, "role": "system", "text": "Hi, I am RWKV.", "tokens": [72, 105, 44, 32, 73, 32, 97, 109, 32, 82, 87, 75, 86, 46]}
u, a = t[0], t[1]
save("good.json", [g, dict(u, parent=0), dict(a, parent=u["id"])])
save("sys_under.json", [g, {"id": 1, "parent": 0, "role": "system", "text": "Start again", "tokens": [83, 116, 97, 114, 116, 32, 97, 103, 97, 105, 110]}])
save("user2.json", [u, {"id": u["id"] + 1, "parent": u["id"], "role": "user", "text": "more", "tokens": [85, 115, 101, 114, 58, 32, 109, 111, 114, 101, 10, 10, 65, 115, 115, 105, 115, 116, 97, 110, 116, 58]}])
save("reply_root.json", [dict(a, parent=None)])
PY
n0=$("$T" sessions --db "$DB" list | grep -c modelled)
out=$("$T" sessions --db "$DB" import "$TMP/good.json") && ok || fail "a greeted export: $out"
# (a turn is named by its "id" in the file, not its place in the array)
uid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["turns"][0]["id"])' "$TMP/e.json")
aid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["turns"][1]["id"])' "$TMP/e.json")
expect_fail "a system turn under a system turn" \
    "^rwkv-tui: $TMP/sys_under\\.json: turn 1: a system turn cannot be under a system turn \(\"parent\": 0\)" \
    "$T" sessions --db "$DB" import "$TMP/sys_under.json"
expect_fail "a user turn under a user turn" \
    "^rwkv-tui: $TMP/user2\\.json: turn $((uid + 1)): a user turn cannot be under a user turn \(\"parent\": $uid\)" \
    "$T" sessions --db "$DB" import "$TMP/user2.json"
expect_fail "a reply at the root" "^rwkv-tui: $TMP/reply_root\\.json: turn $aid: an assistant turn cannot be a first turn" \
    "$T" sessions --db "$DB" import "$TMP/reply_root.json"
[ "$("$T" sessions --db "$DB" list | grep -c modelled)" = $((n0 + 1)) ] && ok ||
    fail "refused imports wrote a session: $("$T" sessions --db "$DB" list)"
finish
