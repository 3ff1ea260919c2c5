#!/usr/bin/env bash
# tests/cli/state_share.sh -- identical saved states are stored once (schema
# v8, storage/store_snapshot.c): every session's greeting state is the same
# bytes for one model and framing, so N chats keep one copy, a fork copies
# no state bytes, deleting all sessions but one keeps that one's greeting
# state (a resume replays nothing), deleting the last frees it; a damaged
# shared state is one error naming the turn; a v7 file (states inline)
# migrates and its states stay in use.  The demo model, real database files.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/s.db
N=5

# stored NAME DB: bytes of saved states in DB, each stored copy once (the
# shared rows of v8 where the file has them); NAME: all, or greeting (the
# states of the sessions' greeting turns only)
cat > "$TMP/stored.py" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[2])
where = "" if sys.argv[1] == "all" else \
    " where turn_id in (select id from turns where role=0 and parent_id is null)"
n = db.execute("select coalesce(sum(length(blob)),0) from snapshots" + where).fetchone()[0]
if db.execute("select 1 from sqlite_master where name='state_blobs'").fetchone():
    n += db.execute("select coalesce(sum(length(blob)),0) from state_blobs where id in"
                    " (select blob_id from snapshots" + where + ")").fetchone()[0]
print(n)
PY
stored() { python3 "$TMP/stored.py" "$1" "$2"; }
one_state() { sql_rows "$1" "select max(n_floats)*4+64 from snapshots"; }

for i in $(seq $N); do
    printf 'message %s\n' "$i" | "$T" chat --demo --db "$D" --new "s$i" --max-tokens 4 --seed "$i" \
        >/dev/null 2>"$TMP/c$i.err" || fail "chat s$i: $(cat "$TMP/c$i.err")"
done
[ "$(sql_rows "$D" "select count(*) from snapshots n join turns t on t.id=n.turn_id where t.depth=0")" = $N ] &&
    ok || fail "want $N greeting snapshots"
# the greeting's state: one copy for the N sessions
g=$(stored greeting "$D")
[ "$g" = "$(one_state "$D")" ] && ok || fail "greeting states take $g bytes, one is $(one_state "$D")"
# the sizes shown count it once too
total=$(stored all "$D")
out=$("$T" sessions --db "$D" budget)
want=$(python3 -c "import sys; b=int(sys.argv[1]); print('%.0f kB' % (b/1e3) if b < 1e6 else '%.1f MB' % (b/1e6))" "$total")
case $out in "saved states: $want in "*) ok ;; *) fail "budget shows '$out', stored $total ($want)" ;; esac

# a fork copies no state bytes
before=$(stored all "$D")
"$T" sessions --db "$D" fork $N "$(sql_rows "$D" "select head_turn from sessions where id=$N")" \
    >/dev/null 2>"$TMP/f.err" || fail "fork: $(cat "$TMP/f.err")"
[ "$(stored all "$D")" = "$before" ] && ok || fail "a fork grew the states: $before -> $(stored all "$D")"
"$T" sessions --db "$D" rm $((N + 1)) >/dev/null || fail "rm the fork"

# all but the last session deleted: its greeting state is still there
for i in $(seq $((N - 1))); do "$T" sessions --db "$D" rm "$i" >/dev/null || fail "rm $i"; done
gt=$(sql_rows "$D" "select id from turns where session_id=$N and depth=0")
"$T" sessions --db "$D" state $N "$gt" >/dev/null 2>"$TMP/st.err" && ok ||
    fail "the greeting state of the last session: $(cat "$TMP/st.err")"
[ "$(stored greeting "$D")" = "$(one_state "$D")" ] && ok || fail "greeting bytes after rm: $(stored greeting "$D")"
# a resume from the greeting (fork at it: the copy's head is the greeting): no replay
"$T" sessions --db "$D" fork $N "$gt" --title g >/dev/null 2>&1 || fail "fork at the greeting"
fid=$(sql_rows "$D" "select max(id) from sessions")
printf 'again\n' | "$T" chat --demo --db "$D" --session "$fid" --max-tokens 4 >/dev/null 2>"$TMP/r.err" ||
    fail "resume: $(cat "$TMP/r.err")"
grep -qi 'replay' "$TMP/r.err" && fail "resume replayed: $(cat "$TMP/r.err")" || ok
# a damaged shared state: one line naming the turn
cp "$D" "$TMP/dmg.db"
sql_rows "$TMP/dmg.db" "update state_blobs set blob=substr(blob,1,200) where id=(select blob_id
                        from snapshots where turn_id=$gt)" >/dev/null 2>&1
expect_fail "damaged shared state" "saved state of turn $gt is unusable" \
    "$T" sessions --db "$TMP/dmg.db" state $N "$gt"
# the last sessions deleted: no state left, the shared rows gone
"$T" sessions --db "$D" rm "$fid" >/dev/null && "$T" sessions --db "$D" rm $N >/dev/null || fail "rm the last"
[ "$(stored all "$D")" = 0 ] && [ "$(sql_rows "$D" "select count(*) from state_blobs")" = 0 ] && ok ||
    fail "states left: $(stored all "$D") bytes"

# a v7 file (states inline, as 0.x saved them) migrates and keeps using them
V=$TMP/v7.db
printf 'hello\n' | "$T" chat --demo --db "$V" --new old --max-tokens 4 --seed 1 >/dev/null 2>&1 || fail "v7 chat"
python3 - "$V" <<'PY' || fail "making a v7 file"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
if db.execute("select 1 from sqlite_master where name='state_blobs'").fetchone():
    db.executescript("""
      UPDATE snapshots SET blob=(SELECT b.blob FROM state_blobs b WHERE b.id=snapshots.blob_id)
        WHERE blob_id IS NOT NULL;
      DROP TRIGGER snapshots_blob_ad; DROP TRIGGER snapshots_blob_au; DROP INDEX snapshots_blob;
      ALTER TABLE snapshots DROP COLUMN blob_id; DROP TABLE state_blobs;""")
db.execute("PRAGMA user_version=7")
db.commit()
PY
printf 'and more\n' | "$T" chat --demo --db "$V" --session 1 --max-tokens 4 >/dev/null 2>"$TMP/v7.err" ||
    fail "v7 resume: $(cat "$TMP/v7.err")"
grep -qi 'replay' "$TMP/v7.err" && fail "v7: the inline state was not used: $(cat "$TMP/v7.err")" || ok
[ "$(sql_rows "$V" "pragma user_version")" = 8 ] && ok || fail "v7 file not migrated"
[ "$(sql_rows "$V" "select count(*) from snapshots where length(blob) > 0")" -ge 1 ] && ok ||
    fail "v7: the inline states were moved or lost"
finish
