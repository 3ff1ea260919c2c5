#!/usr/bin/env bash
# tests/tui/menu_damaged_models.sh -- F2 over a database whose models table
# holds a row the schema forbids: the sessions are still listed (they are whole), each
# model shown as "?", and the footer says the database is corrupt -- the
# menu showed "-" for every model and said nothing.  `--resume` refuses with
# the same line instead of opening the session without its model.
. "$(dirname "$0")/tmuxlib.sh"

cat >"$TMP/m.json" <<'JSON'
{"format": "rwkv-tui-session", "version": 1, "title": "modelled", "created_ms": 1700000000000,
 "model": {"path": "/models/x.pth", "fingerprint": "00000000deadbeef", "version": "7.0",
 "n_layer": 2, "n_embd": 64, "n_head": 1, "head_size": 64},
 "turns": [{"id": 1, "parent": null, "role": "user", "text": "hi", "tokens": [85, 115, 101, 114, 58, 32, 104, 105, 10, 10, 65, 115, 115, 105, 115, 116, 97, 110, 116, 58]},
 {"id": 2, "parent": 1, "role": "assistant", "text": "hello", "tokens": [104, 101, 108, 108, 111]}]}
JSON
for i in 1 2; do
    "$RWKV_TUI" sessions --db "$DB" import "$TMP/m.json" >/dev/null || fail "import $i"
done
# a models row the schema forbids (a NULL path: what a damaged page reads
# back as), written past the NOT NULL by editing the schema's text
sqlite3 "$DB" "PRAGMA writable_schema=ON;
UPDATE sqlite_master SET sql=replace(sql, 'path TEXT NOT NULL', 'path TEXT') WHERE name='models';" &&
    sqlite3 "$DB" "UPDATE models SET path=NULL WHERE id=1; PRAGMA writable_schema=ON;
UPDATE sqlite_master SET sql=replace(sql, 'path TEXT,', 'path TEXT NOT NULL,') WHERE name='models';" &&
    ok || fail "damage the models table"
"$RWKV_TUI" sessions --db "$DB" list | grep -c modelled | grep -qx 2 && ok ||
    fail "the sessions table was damaged too: $("$RWKV_TUI" sessions --db "$DB" list 2>&1)"
"$RWKV_TUI" sessions --db "$DB" show 1 >/dev/null 2>&1 && fail "show 1 did not see the damage" || ok

tui_start --no-greeting
keys F2
# the damage said whole, with its way on (a line that long opens in a box
# any key closes; the menu is under it)
check "the damage is said" 'session database is corrupt \(table models'
check "... with the way on" 'go on with --db NEW\.db'
keys Escape
check_not "the box closes" 'any key closes'
check "sessions menu" ' Sessions '
check "the sessions are listed" 'modelled'
check_not "no model shown as none" '#1  [0-9-]+( [0-9:]+)? +(\(open\) +)?-( |$)'
check "the model is unknown" '#1  [0-9-]+( [0-9:]+)? +(\(open\) +)?\?( |$)'
keys Escape
wait_for ' Sessions ' 1 && keys Escape
tui_quit

"$RWKV_TUI" chat --db "$DB" --session 1 >"$TMP/r.out" 2>"$TMP/r.err" </dev/null &&
    fail "--session 1 opened without its model" || ok
grep -q 'session database is corrupt (table models' "$TMP/r.err" && ok ||
    fail "--session 1: $(cat "$TMP/r.err")"
tui_finish
