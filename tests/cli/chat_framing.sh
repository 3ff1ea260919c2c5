#!/usr/bin/env bash
# tests/cli/chat_framing.sh -- the chat's framing in the line chat: --user
# and --bot name the roles in the prompt, the greeting and the labels (the
# defaults print as the demo does); the framing is saved with the session,
# used again by --resume and --session, shown by /framing, carried by
# export/import; options given with --resume: stop strings win, names stay
# the session's (one note); a database made before the framing was kept
# resumes with the defaults; bad values are one line and exit 2.  Real
# database files in a temp dir, the demo model (byte tokenizer: a token id is
# its byte, so the prompts fed can be read back from the export).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
HAVE_SQLITE=0
command -v sqlite3 >/dev/null 2>&1 && HAVE_SQLITE=1

# the token ids of turn ROLE number N (1-based) of an export, as text
turn_text() {
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ts = [t for t in d["turns"] if t["role"] == sys.argv[2]]
sys.stdout.write(bytes(ts[int(sys.argv[3]) - 1]["tokens"]).decode("utf-8", "replace"))' "$@"
}

# --- help ---------------------------------------------------------------------------
out=$("$T" chat --help)
for w in '--user NAME' '--bot NAME' '/framing'; do
    case $out in *"$w"*) ok ;; *) fail "chat --help lacks '$w'" ;; esac
done
out=$("$T" --help-ui)
for w in '--user NAME' '--bot NAME'; do
    case $out in *"$w"*) ok ;; *) fail "--help-ui lacks '$w'" ;; esac
done

# --- defaults: the demo's label -----------------------------------------------------
out=$(printf 'hi\n' | "$T" chat --demo --seed 1 --max-tokens 3 2>/dev/null)
case $out in Assistant:*) ok ;; *) fail "default label: $out" ;; esac

# --- names: label, prompt, greeting, saved ------------------------------------------
D=$TMP/f.db
printf 'hi\n' | "$T" chat --demo --db "$D" --user Bob --bot Alice --seed 1 --max-tokens 3 \
    >"$TMP/o1" 2>"$TMP/e1" && ok || fail "named chat: $(cat "$TMP/e1")"
case $(cat "$TMP/o1") in Alice:*) ok ;; *) fail "bot label: $(cat "$TMP/o1")" ;; esac
"$T" sessions --db "$D" export 1 --format json >"$TMP/x1.json" && ok || fail "export"
grep -q '"framing": {"greeting": null, "user": "Bob", "bot": "Alice", "stop": \[\], "ban": \[\]}' \
    "$TMP/x1.json" && ok || fail "framing in the export: $(grep framing "$TMP/x1.json")"
if command -v python3 >/dev/null 2>&1; then
    [ "$(turn_text "$TMP/x1.json" user 1)" = "$(printf 'Bob: hi\n\nAlice:')" ] && ok \
        || fail "prompt fed: $(turn_text "$TMP/x1.json" user 1)"
    case $(turn_text "$TMP/x1.json" system 1) in
        "$(printf 'Bob: hi\n\nAlice: Hi. I am your assistant')"*) ok ;;
        *) fail "greeting fed: $(turn_text "$TMP/x1.json" system 1)" ;;
    esac
else
    skip 2 "python3 not found"
fi

# --greeting reads \n, \t and \\ as --stop, F8 and the config do
printf 'hi\n' | "$T" chat --demo --db "$TMP/g.db" --greeting 'Bob: hi\n\nAlice: yes\t\\n' --seed 1 \
    --max-tokens 3 >/dev/null 2>"$TMP/eg" && ok || fail "--greeting with escapes: $(cat "$TMP/eg")"
"$T" sessions --db "$TMP/g.db" export 1 --format json | grep -qF '"greeting": "Bob: hi\n\nAlice: yes\t\\n"' && ok ||
    fail "--greeting escapes: $("$T" sessions --db "$TMP/g.db" export 1 --format json | grep greeting)"
# /framing shows a greeting of one's own as it is fed: with the blank line
# the chat adds at its end (it used to be left out); one with it already,
# as it is
printf '/framing\n' | "$T" chat --demo --greeting 'Hello there' >"$TMP/of" 2>/dev/null
grep -qx 'greeting  Hello there\\n\\n' "$TMP/of" && ok || fail "/framing greeting: $(cat "$TMP/of")"
printf '/framing\n' | "$T" chat --demo --greeting 'Hi\n\n' >"$TMP/of" 2>/dev/null
grep -qx 'greeting  Hi\\n\\n' "$TMP/of" && ok || fail "/framing greeting ended: $(cat "$TMP/of")"

# --- resume: the session's framing ----------------------------------------------------
printf 'more\n/framing\n' | "$T" chat --db "$D" --resume --seed 1 --max-tokens 3 >"$TMP/o2" 2>"$TMP/e2" \
    && ok || fail "resume: $(cat "$TMP/e2")"
grep -q '^Alice:' "$TMP/o2" && ok || fail "resumed label: $(cat "$TMP/o2")"
grep -q '^user      Bob$' "$TMP/o2" && ok || fail "/framing user: $(cat "$TMP/o2")"
grep -q '^bot       Alice$' "$TMP/o2" && ok || fail "/framing bot: $(cat "$TMP/o2")"
"$T" sessions --db "$D" export 1 --format json >"$TMP/x2.json"
if command -v python3 >/dev/null 2>&1; then
    # (the first reply ended at max-tokens, so "\n\n" comes first, as ever)
    [ "$(turn_text "$TMP/x2.json" user 2)" = "$(printf '\n\nBob: more\n\nAlice:')" ] && ok \
        || fail "resumed prompt: $(turn_text "$TMP/x2.json" user 2)"
else
    skip 1 "python3 not found"
fi

# --- resume with options: stops win and are saved; names stay, with a note -------------
printf '/framing\n' | "$T" chat --db "$D" --session 1 --user Dan --stop 'END' --ban 5,6 \
    >"$TMP/o3" 2>"$TMP/e3" && ok || fail "resume with options: $(cat "$TMP/e3")"
grep -q '^user      Bob$' "$TMP/o3" && ok || fail "names kept: $(cat "$TMP/o3")"
grep -q '^stop      END$' "$TMP/o3" && ok || fail "stop given wins: $(cat "$TMP/o3")"
grep -q '^ban       5,6$' "$TMP/o3" && ok || fail "ban given wins: $(cat "$TMP/o3")"
grep -q 'session 1 keeps its own greeting and names: Bob / Alice' "$TMP/e3" && ok \
    || fail "note: $(cat "$TMP/e3")"
printf '/framing\n' | "$T" chat --db "$D" --session 1 >"$TMP/o4" 2>/dev/null
grep -q '^stop      END$' "$TMP/o4" && ok || fail "stop saved with the session: $(cat "$TMP/o4")"

# --- export / import ------------------------------------------------------------------
"$T" sessions --db "$D" export 1 --format json >"$TMP/x3.json"
D2=$TMP/g.db
out=$("$T" sessions --db "$D2" import "$TMP/x3.json" 2>&1) && ok || fail "import: $out"
# (by its id: an import is not "chatted in", so not what --resume opens)
printf '/framing\n' | "$T" chat --db "$D2" --session "${out##* }" >"$TMP/o5" 2>"$TMP/e5"
grep -q '^user      Bob$' "$TMP/o5" && grep -q '^stop      END$' "$TMP/o5" && ok \
    || fail "imported framing: $(cat "$TMP/o5" "$TMP/e5")"
# a bad framing in a file: one line, nothing imported
sed 's/"user": "Bob"/"user": "B:ob"/' "$TMP/x3.json" >"$TMP/bad.json"
expect_fail "bad framing import" "bad\.json: framing: user name: no ':'" \
    "$T" sessions --db "$D2" import "$TMP/bad.json"

# --- a database from before the framing: today's defaults -------------------------------
if [ $HAVE_SQLITE = 1 ]; then
    D3=$TMP/old.db
    printf 'hi\n' | "$T" chat --demo --db "$D3" --seed 1 --max-tokens 3 >/dev/null 2>&1
    sqlite3 "$D3" 'UPDATE snapshots SET blob=(SELECT b.blob FROM state_blobs b WHERE b.id=snapshots.blob_id)
                   WHERE blob_id IS NOT NULL; DROP TRIGGER snapshots_blob_ad; DROP TRIGGER snapshots_blob_au;
                   DROP INDEX snapshots_blob; ALTER TABLE snapshots DROP COLUMN blob_id; DROP TABLE state_blobs;
                   ALTER TABLE sessions DROP COLUMN framing; ALTER TABLE presets DROP COLUMN framing;
                   ALTER TABLE snapshots DROP COLUMN digest; DROP TRIGGER sessions_seq;
                   DROP TRIGGER turns_seq; DROP TABLE id_seq; DROP TABLE settings;
                   PRAGMA user_version=3;' &&
        ok || fail "downgrade"
    printf 'again\n/framing\n' | "$T" chat --db "$D3" --resume --seed 1 --max-tokens 3 \
        >"$TMP/o6" 2>"$TMP/e6" && ok || fail "old database: $(cat "$TMP/e6")"
    grep -q '^user      User$' "$TMP/o6" && grep -q '^Assistant:' "$TMP/o6" && ok \
        || fail "old session defaults: $(cat "$TMP/o6")"
    [ "$(sqlite3 "$D3" 'PRAGMA user_version')" = 8 ] && ok || fail "migrated to the current schema (v8)"
else
    skip 4 "sqlite3 not found"
fi

# --- bad values -----------------------------------------------------------------------
expect_fail "--user colon" "option --user: no ':'" "$T" chat --demo --user 'a:b'
expect_fail "--bot empty" "option --bot: a role name has 1\.\.64 bytes" "$T" chat --demo --bot ''
expect_fail "--user newline" "option --user: no ':', newline" "$T" chat --demo --user "$(printf 'a\nb')"
expect_fail "--user too long" "1\.\.64 bytes" "$T" chat --demo --user "$(printf 'x%.0s' $(seq 70))"
expect_fail "--ban bad" "option --ban: '1,x' is not" "$T" chat --demo --ban 1,x
finish
