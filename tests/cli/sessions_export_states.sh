#!/usr/bin/env bash
# tests/cli/sessions_export_states.sh -- `sessions export ID --states` carries
# the saved states (base64, with their model, length and checksum) and
# `sessions import FILE --states` takes them: the imported session opens
# with no replay, its states byte for byte the other database's.  An export
# held no states, so the first open of an imported session replayed the
# whole conversation (35 s for 2,000 turns on the tiny model, tens of
# minutes on a 1.5B on a CPU), and nothing said so at import.  Now:
#   - without --states the export is as it was, and the import says in one
#     line that the first open replays N turns (N tokens) and how not to;
#   - a state for another model, a flipped byte, a cut or bad base64 is
#     named in one line (the file, the turn, what is wrong); the import
#     goes on without it (exit 0: the session is imported, its tokens
#     rebuild the state), never a crash;
#   - an import without --states takes none (a state cannot be checked
#     against the text) and says so.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
case $FX in /*) ;; *) FX=$PWD/$FX ;; esac   # (the test runs in $TMP)
cd "$TMP" || exit 1

snaps() { sql_rows "$1" "select turn_id from snapshots order by turn_id" | tr '\n' ',' | sed 's/,$//'; }
# blob DB TURN: the sha1 of TURN's saved state bytes (shared or inline)
blob() {
    python3 - "$1" "$2" <<'EOF'
import hashlib, sqlite3, sys
r = sqlite3.connect(sys.argv[1]).execute(
    "select coalesce(b.blob, n.blob) from snapshots n left join state_blobs b on b.id=n.blob_id"
    " where n.turn_id=?", (int(sys.argv[2]),)).fetchone()
print(hashlib.sha1(r[0]).hexdigest() if r and r[0] else "none")
EOF
}
# edit IN OUT PY: the export IN with the python statement PY run on its
# head turn's state object `s` (d is the document) into OUT
edit() {
    python3 - "$@" <<'EOF'
import base64, json, sys
d = json.load(open(sys.argv[1]))
s = [t for t in d["turns"] if t["id"] == d["head"]][0]["state"]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
EOF
}
opens_at_once() {   # DB: the first open replays nothing
    "$T" chat --demo --db "$1" --session 1 </dev/null >"$TMP/o" 2>&1 || { fail "open $1: $(cat "$TMP/o")"; return; }
    grep -q 'replayed' "$TMP/o" && fail "open of $1 replayed: $(cat "$TMP/o")" || ok
}
replays() {         # DB: the first open replays (the state was left out)
    "$T" chat --demo --db "$1" --session 1 </dev/null >"$TMP/o" 2>&1 || { fail "open $1: $(cat "$TMP/o")"; return; }
    grep -q 'replayed [0-9]* tokens' "$TMP/o" && ok || fail "open of $1 did not replay: $(cat "$TMP/o")"
}

printf 'one\ntwo\nthree\nfour\n' | "$T" chat --demo --db src.db --new st --max-tokens 3 --seed 1 \
    >/dev/null 2>err || fail "chat: $(cat err)"
head=$(sql_rows src.db "select head_turn from sessions where id=1")
ntok=$(sql_rows src.db "select sum(length(tokens)/4) from turns")

# --- 1. --states carries them; import --states opens at once -----------------
"$T" sessions --db src.db export 1 --format json --out plain.json 2>err || fail "export: $(cat err)"
"$T" sessions --db src.db export 1 --format json --states --out st.json 2>err && ok ||
    fail "export --states: $(cat err)"
# carried: the states of the branch's end and the two turns above it
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(",".join(str(t["id"]) for t in d["turns"] if "state" in t))' st.json >carried
echo "$(cat carried)" | tr ',' '\n' | grep -c '' >n
[ "$(cat carried)" = "$((head - 2)),$((head - 1)),$head" ] && ok ||
    fail "export --states carries the states of turns $(cat carried) (want the last three of $head)"
out=$("$T" sessions --db i.db import st.json --states 2>err)
[ $? = 0 ] && [ "$out" = "imported st.json as session 1 with $(cat n) saved states" ] && [ ! -s err ] && ok ||
    fail "import --states: '$out' $(cat err)"
[ "$(snaps i.db)" = "$(cat carried)" ] && ok || fail "states imported: '$(snaps i.db)' (want '$(cat carried)')"
[ "$(blob i.db "$head")" = "$(blob src.db "$head")" ] && [ "$(blob i.db "$head")" != none ] && ok ||
    fail "the head's state is not byte-identical"
opens_at_once i.db
# the export without --states holds no state at all (as before)
grep -q '"state"' plain.json && fail "a plain export carries states" || ok
# --states is for JSON: a usage error, one line
expect_fail "export --states to Markdown" "--states is for a JSON export" \
    "$T" sessions --db src.db export 1 --states
expect_fail "import --format" "is an option of" "$T" sessions --db i2.db import st.json --format json

# --- 2. no states: one line with the cost of the first open and the way out -----
out=$("$T" sessions --db p.db import plain.json 2>err)
[ "$out" = "imported plain.json as session 1" ] && ok || fail "plain import said '$out'"
[ "$(grep -c '' err)" = 1 ] && grep -q "plain.json: no saved states (sessions export --states carries them): the first open of session 1 replays $head turns ($ntok tokens)" err &&
    ok || fail "plain import's note: $(cat err)"
replays p.db
# a file with states imported without --states: none taken, said
out=$("$T" sessions --db q.db import st.json 2>err)
[ "$out" = "imported st.json as session 1" ] && [ -z "$(snaps q.db)" ] && ok ||
    fail "import without --states: '$out' states '$(snaps q.db)'"
[ "$(grep -c '' err)" = 1 ] && grep -q "st.json: its $(cat n) saved states not taken (import --states takes them" err &&
    ok || fail "import without --states' note: $(cat err)"

# --- 3. hostile states: one line each, the import goes on without them ---------
# hostile NAME FILE PATTERN: import --states of FILE: exit 0, the session
# imported, one stderr line naming the file, the head turn and PATTERN; the
# head's state left out (its replay said), the other states taken
hostile() {
    local db=$TMP/h-$1.db out rc
    out=$("$T" sessions --db "$db" import "$2" --states 2>"$TMP/herr")
    rc=$?
    [ $rc = 0 ] && case $out in "imported $2 as session 1 with "*" saved states") true ;; *) false ;; esac &&
        ok || fail "$1: exit $rc, '$out' $(cat "$TMP/herr")"
    [ "$(grep -c '' "$TMP/herr")" = 1 ] && grep -Eq "^rwkv-tui: $2: turn $head: saved state not taken: $3; the first open of session 1 replays 1 turn \\([0-9]+ tokens\\)$" "$TMP/herr" &&
        ok || fail "$1: stderr: $(cat "$TMP/herr")"
    [ "$(blob "$db" "$head")" = none ] && ok || fail "$1: the head's bad state was stored"
    replays "$db"
}
edit st.json flip.json 'b = bytearray(base64.b64decode(s["base64"])); b[len(b) // 2] ^= 1; s["base64"] = base64.b64encode(bytes(b)).decode()'
hostile flip flip.json "snapshot blob checksum mismatch \\(corrupt\\)"
edit st.json cut.json 's["base64"] = s["base64"][:-7]'
hostile cut cut.json "base64 of [0-9]+ characters is cut \\(not a multiple of 4\\)"
edit st.json short.json 's["base64"] = s["base64"][:-8]'
hostile short short.json "its base64 holds [0-9]+ bytes, \"bytes\" says [0-9]+ \\(cut or padded\\)"
edit st.json bad.json 's["base64"] = s["base64"][:100] + "!" + s["base64"][101:]'
hostile bad64 bad.json "bad base64 at character 100"
# a state made with another model (the tiny fixture's), in the demo session's head
if have_fixture models/tiny-7v0-fp32.pth 4; then
    printf 'hi\n' | "$T" chat --model "$FX/models/tiny-7v0-fp32.pth" --db tiny.db --new t --max-tokens 3 \
        --seed 1 >/dev/null 2>err || fail "tiny chat: $(cat err)"
    "$T" sessions --db tiny.db export 1 --format json --states --out tiny.json 2>err || fail "tiny export: $(cat err)"
    edit st.json other.json 'o = json.load(open("tiny.json")); s.clear(); s.update([t for t in o["turns"] if t["id"] == o["head"]][0]["state"])'
    hostile other other.json "made with another model \\(fingerprint [0-9a-f]{16}, the session's model [0-9a-f]{16}\\)"
fi
finish
