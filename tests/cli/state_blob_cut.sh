#!/usr/bin/env bash
# tests/cli/state_blob_cut.sh -- `sessions state` on a saved state whose
# shared row (state_blobs) is cut to 9 bytes says it is damaged, naming the
# row and the sizes (9 bytes, the header alone is 64), whether the cut bytes
# are a blob or were written back as text -- not that the row is missing;
# a flipped byte still says "checksum mismatch".  The demo model, a real
# database file changed with python3's sqlite3.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/c.db

printf 'a\n' | "$T" chat --demo --db "$D" --new one --max-tokens 4 >/dev/null 2>&1
row=$(sql_rows "$D" "SELECT blob_id FROM snapshots WHERE turn_id=3")
[ -n "$row" ] && ok || fail "no shared state for turn 3"
cp "$D" "$TMP/keep.db"

# cut(AS): row ROW cut to 9 bytes, as a blob or as text
cut() {
    python3 - "$D" "$row" "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
b = db.execute("SELECT blob FROM state_blobs WHERE id=?", (int(sys.argv[2]),)).fetchone()[0][:9]
v = b if sys.argv[3] == "blob" else b.decode("latin-1")
db.execute("UPDATE state_blobs SET blob=? WHERE id=?", (v, int(sys.argv[2])))
db.commit()
PY
}
for as in blob text; do
    cp "$TMP/keep.db" "$D"
    cut $as
    out=$("$T" sessions --db "$D" state 1 3 2>&1)
    [ $? = 1 ] && ok || fail "$as: exit: $out"
    printf '%s\n' "$out" | grep -q "row $row of state_blobs) is damaged: snapshot blob truncated (9 bytes, header is 64)" &&
        ok || fail "$as: not said cut: $out"
    printf '%s\n' "$out" | grep -q 'missing' && fail "$as: said missing: $out" || ok
done
# a flipped byte in the floats: the checksum
cp "$TMP/keep.db" "$D"
python3 - "$D" "$row" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
b = bytearray(db.execute("SELECT blob FROM state_blobs WHERE id=?", (int(sys.argv[2]),)).fetchone()[0])
b[100] ^= 0xff
db.execute("UPDATE state_blobs SET blob=? WHERE id=?", (bytes(b), int(sys.argv[2])))
db.commit()
PY
out=$("$T" sessions --db "$D" state 1 3 2>&1)
printf '%s\n' "$out" | grep -q 'checksum mismatch' && ok || fail "flipped byte: $out"
finish
