# tests/cli/sessions_damage.sh -- `rwkv-tui sessions` and `chat --session` on
# tampered and damaged databases, and the text hygiene of import/show/export:
#   - a parent loop (turn 1's parent set to its own descendant) makes show,
#     export (md, json), fork and chat --session fail at once with one line
#     "turn N: parent loop in the database" (timeout guards a hang; it is not
#     a speed check);
#   - a damaged row (bad token blob, bad sampling text, invalid UTF-8) does not
#     hide the rest: show/export print what is readable, name the damage on
#     stderr and exit 1;
#   - escape codes and invalid UTF-8 never reach the terminal or the export;
#   - sessions import refuses a FIFO instead of hanging;
#   - the model (and vocabulary) travel through export/import.
# The database is tampered with through Python's sqlite3 module, as a user
# with a text editor for SQLite would.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/d.db
sql() { python3 - "$@" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript(sys.argv[2])
c.commit()
PY
}

cat > "$TMP/c.json" <<'JSON'
{"format": "rwkv-tui-session", "version": 1, "title": "Loop", "created_ms": 1700000000000, "strategy": "",
 "model": null, "head": 4,
 "turns": [
  {"id": 1, "parent": null, "role": "user", "text": "User: hi\n\nAssistant:", "tokens": [85, 115, 101, 114, 58, 32, 85, 115, 101, 114, 58, 32, 104, 105, 10, 10, 65, 115, 115, 105, 115, 116, 97, 110, 116, 58, 10, 10, 65, 115, 115, 105, 115, 116, 97, 110, 116, 58]},
  {"id": 2, "parent": 1, "role": "assistant", "text": " hello", "tokens": [32, 104, 101, 108, 108, 111]},
  {"id": 3, "parent": 2, "role": "user", "text": "User: more\n\nAssistant:", "tokens": [85, 115, 101, 114, 58, 32, 85, 115, 101, 114, 58, 32, 109, 111, 114, 101, 10, 10, 65, 115, 115, 105, 115, 116, 97, 110, 116, 58, 10, 10, 65, 115, 115, 105, 115, 116, 97, 110, 116, 58]},
  {"id": 4, "parent": 3, "role": "assistant", "text": " ok", "tokens": [32, 111, 107]}
 ]}
JSON

# --- parent loop -------------------------------------------------------------------------
"$T" sessions --db "$DB" import "$TMP/c.json" >/dev/null && ok || fail "import"
"$T" sessions --db "$DB" show 1 >/dev/null && ok || fail "show before tampering"
sql "$DB" "UPDATE turns SET parent_id=3 WHERE id=1" && ok || fail "tamper"
L="turn [0-9]+: parent loop in the database"
expect_fail "show, loop" "$L" timeout 20 "$T" sessions --db "$DB" show 1
expect_fail "export md, loop" "$L" timeout 20 "$T" sessions --db "$DB" export 1
expect_fail "export json, loop" "$L" timeout 20 "$T" sessions --db "$DB" export 1 --format json
expect_fail "fork, loop" "$L" timeout 20 "$T" sessions --db "$DB" fork 1 4
expect_fail "chat --session, loop" "$L" timeout 20 sh -c "'$T' chat --db '$DB' --session 1 --demo --seed 1 </dev/null"
expect_fail "chat --resume, loop" "$L" timeout 20 sh -c "'$T' chat --db '$DB' --resume --demo --seed 1 </dev/null"
# still listed and deletable
out=$("$T" sessions --db "$DB" list) && case $out in *Loop*) ok ;; *) fail "list: $out" ;; esac
out=$(timeout 20 "$T" sessions --db "$DB" rm 1) && [ "$out" = "deleted session 1" ] && ok || fail "rm looped: $out"

# --- damaged rows ------------------------------------------------------------------------
out=$("$T" sessions --db "$DB" import "$TMP/c.json") && S2=${out##* } && ok || fail "import 2: $out"
sql "$DB" "UPDATE turns SET tokens=x'0102030405' WHERE id=(SELECT min(id) FROM turns);
           UPDATE turns SET sampling='temperature=banana' WHERE id=(SELECT min(id)+1 FROM turns);
           UPDATE turns SET text=CAST(x'62616420ff1b5b33316d726564' AS TEXT) WHERE id=(SELECT min(id)+2 FROM turns)" \
    && ok || fail "damage rows"
"$T" sessions --db "$DB" show "$S2" >"$TMP/show.out" 2>"$TMP/show.err"
rc=$?
[ $rc = 1 ] && ok || fail "show damaged: exit $rc"
grep -q "User: hi" "$TMP/show.out" && grep -q "hello" "$TMP/show.out" && grep -q " ok" "$TMP/show.out" && ok \
    || fail "show damaged: readable part missing: $(cat "$TMP/show.out")"
grep -q "\[damaged\]" "$TMP/show.out" && ok || fail "show: damage not marked"
[ "$(grep -c 'is damaged in the database' "$TMP/show.err")" = 2 ] && grep -q banana "$TMP/show.err" && ok \
    || fail "show: damage not named: $(cat "$TMP/show.err")"
# to a file the text as saved; on a terminal (a pty) by the display rule
LC_ALL=C grep -qF "bad $(printf '\377\033')[31mred" "$TMP/show.out" && ok || fail "show to a file: not the text as saved"
script -qec "'$T' sessions --db '$DB' show $S2" /dev/null </dev/null 2>/dev/null | tr -d '\r' >"$TMP/show.tty"
grep -q "bad $(printf '\xef\xbf\xbd')red" "$TMP/show.tty" && ! LC_ALL=C grep -q "$(printf '\033')" "$TMP/show.tty" && ok \
    || fail "show on a terminal: not by the display rule: $(cat -v "$TMP/show.tty")"
for f in md json; do
    "$T" sessions --db "$DB" export "$S2" --format $f >"$TMP/e.$f" 2>"$TMP/e.$f.err"
    rc=$?
    [ $rc = 1 ] && ok || fail "export $f damaged: exit $rc"
    [ "$(grep -c '' "$TMP/e.$f.err")" = 1 ] && grep -q "damaged rows exported in part: turn .*banana" "$TMP/e.$f.err" && ok \
        || fail "export $f: stderr $(cat "$TMP/e.$f.err")"
    grep -q "hello" "$TMP/e.$f" && grep -q " ok" "$TMP/e.$f" && ok || fail "export $f: readable part missing"
    LC_ALL=C grep -q "$(printf '\033')" "$TMP/e.$f" && fail "export $f: escape code" || ok
done
python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding="utf-8", errors="strict")); assert len(d["turns"]) == 4; assert sum("damaged" in t for t in d["turns"]) == 2' \
    "$TMP/e.json" && ok || fail "export json: not strict JSON / damage not marked"
# (the turn whose text was changed in the database is no longer its tokens: refused)
expect_fail "re-import damaged export" "turn [0-9]+ \\(user\\): its tokens are not its text" \
    "$T" sessions --db "$DB" import "$TMP/e.json"

# --- import keeps the text (controls too), the title cleaned; markdown escaped -----------------
printf '%s' '{"format": "rwkv-tui-session", "version": 1, "title": "esc\u001b]0;pwned\u0007", "model": null,
 "turns": [{"id": 1, "parent": null, "role": "user", "text": "# heading?\n```\n\u001b[2Jclear \u009b31m", "tokens": [85, 115, 101, 114, 58, 32, 35, 32, 104, 101, 97, 100, 105, 110, 103, 63, 10, 96, 96, 96, 10, 27, 91, 50, 74, 99, 108, 101, 97, 114, 32, 194, 155, 51, 49, 109, 10, 10, 65, 115, 115, 105, 115, 116, 97, 110, 116, 58]}]}' \
    >"$TMP/esc.json"
out=$("$T" sessions --db "$DB" import "$TMP/esc.json") && id=${out##* } && ok || fail "import esc: $out"
"$T" sessions --db "$DB" show "$id" >"$TMP/esc.show" && ok || fail "show esc"
# to a file, the text as saved: the message's controls, as the chat keeps a
# model's; the title was made as the client makes one (no control)
LC_ALL=C grep -q "$(printf '\033')\[2Jclear $(printf '\302\233')31m" "$TMP/esc.show" && ok ||
    fail "show esc: the message's text not as imported"
LC_ALL=C grep -q "$(printf '\007')\|]0;pwned" "$TMP/esc.show" && fail "show esc: the title's control printed" || ok
"$T" sessions --db "$DB" list >"$TMP/esc.list"
LC_ALL=C grep -q "$(printf '\033')" "$TMP/esc.list" && fail "list: escape printed" || ok
"$T" sessions --db "$DB" export "$id" >"$TMP/esc.md"
grep -qx '\\# heading?  ' "$TMP/esc.md" && grep -q '^\\`\\`\\`' "$TMP/esc.md" && ok || fail "md not escaped: $(cat "$TMP/esc.md")"
grep -q '^# esc' "$TMP/esc.md" && ok || fail "md title: $(head -1 "$TMP/esc.md")"
# a NUL in the title is a control like any other (it was refused as too
# long): dropped, as the OSC after it, as the client would make the title
sed 's/"esc/"nul\\u0000/' "$TMP/esc.json" >"$TMP/nul.json"
out=$("$T" sessions --db "$DB" import "$TMP/nul.json" 2>&1) && id=${out##* } && ok || fail "import nul: $out"
"$T" sessions --db "$DB" show "$id" 2>/dev/null | head -1 | grep -qx "session $id: nul" && ok ||
    fail "nul title: $("$T" sessions --db "$DB" show "$id" 2>&1 | head -1)"

# --- a FIFO is refused, not waited on ---------------------------------------------------
mkfifo "$TMP/fifo"
expect_fail "import a FIFO no program writes: empty, not a wait" "fifo: not a rwkv-tui session export \(the file is empty\)" timeout 20 "$T" sessions --db "$DB" import "$TMP/fifo"
expect_fail "--db a FIFO" "fifo: not a regular file" timeout 20 "$T" sessions --db "$TMP/fifo" list

# --- output that cannot be written is an error -----------------------------------------
if [ -w /dev/full ]; then
    expect_fail "list > /dev/full" "stdout: No space left on device" sh -c "'$T' sessions --db '$DB' list >/dev/full"
    expect_fail "export > /dev/full" "stdout: No space left on device" sh -c "'$T' sessions --db '$DB' export $id >/dev/full"
    # --out is a file made whole (rwkv_write_file): a device is refused, as
    # eval --out refuses one
    expect_fail "export --out /dev/full (a device is written in place)" "^rwkv-tui: /dev/full: cannot write: No space left on device$" \
        "$T" sessions --db "$DB" export $id --out /dev/full
fi
# an export that cannot be written whole leaves the file it replaces as it
# was (it was opened "wb": a full disk left it cut, the old one gone); the
# full disk is a 64 kB tmpfs (root and mount(8), else skipped)
MNT=$TMP/small
mkdir -p "$MNT"
if is_root && mount -t tmpfs -o size=64k tmpfs "$MNT" 2>/dev/null; then
    python3 -c 'import json; print(json.dumps({"format": "rwkv-tui-session", "version": 1, "title": "long",
 "turns": [{"id": 1, "parent": None, "role": "user", "text": "x" * 100000, "tokens": list(b"User: " + b"x" * 100000 + b"\n\nAssistant:")}]}))' >"$TMP/long.json"
    out=$("$T" sessions --db "$DB" import "$TMP/long.json") && lid=${out##* } && ok || fail "import long: $out"
    printf 'the old export\n' >"$MNT/old.md"
    err=$("$T" sessions --db "$DB" export "$lid" --out "$MNT/old.md" 2>&1)
    rc=$?
    [ $rc = 1 ] && ok || fail "export onto a full disk: exit $rc: $err"
    [ "$(cat "$MNT/old.md")" = "the old export" ] && ok || fail "the old file was cut: $(head -c 80 "$MNT/old.md")"
    [ "$(ls -A "$MNT")" = old.md ] && ok || fail "a temporary file left: $(ls -A "$MNT")"
    umount "$MNT"
else
    skip 4 "a full disk needs a tmpfs: not root, or mount failed"
fi

# --- the model travels ----------------------------------------------------------------
cat > "$TMP/m.json" <<'JSON'
{"format": "rwkv-tui-session", "version": 1, "title": "modelled", "model": {"path": "/models/x.pth",
 "fingerprint": "00000000deadbeef", "version": "7.0", "vocab": "/models/rwkv_vocab_v20230424.txt",
 "n_layer": 2, "n_embd": 64, "n_head": 1, "head_size": 64},
 "turns": [{"id": 1, "parent": null, "role": "user", "text": "hi"}]}
JSON
out=$("$T" sessions --db "$DB" import "$TMP/m.json") && id=${out##* } && ok || fail "import model: $out"
out=$("$T" sessions --db "$DB" show "$id")
case $out in *"model /models/x.pth (v7.0, fingerprint 00000000deadbeef)"*"vocabulary /models/rwkv_vocab_v20230424.txt"*) ok ;;
    *) fail "model not kept: $out" ;; esac
"$T" sessions --db "$DB" export "$id" --format json | grep -q '"vocab": "/models/rwkv_vocab_v20230424.txt"' && ok \
    || fail "vocab not exported"
finish
