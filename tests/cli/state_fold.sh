#!/usr/bin/env bash
# tests/cli/state_fold.sh -- states saved inline by an older version (schema
# v7) and the shared rows of v8: `sessions vacuum` folds an old greeting
# state and its new copies into one stored copy (saying what that gave back),
# leaves a state with no twin where it is, and every session still resumes
# without a replay; `sessions show` splits a session's states into its own
# bytes and those shared with other sessions, so the sessions' own figures
# plus the shared copy once add up to the total `sessions budget` prints.
# The demo model, real database files.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/f.db
N=3

# greeting DB: bytes the sessions' greeting states take, each stored copy once
cat > "$TMP/greet.py" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
g = " where turn_id in (select id from turns where role=0 and parent_id is null)"
n = db.execute("select coalesce(sum(length(blob)),0) from snapshots" + g).fetchone()[0]
n += db.execute("select coalesce(sum(length(blob)),0) from state_blobs where id in"
                " (select blob_id from snapshots" + g + ")").fetchone()[0]
print(n)
PY
greeting() { python3 "$TMP/greet.py" "$1"; }
one_state() { sql_rows "$1" "select max(n_floats)*4+64 from snapshots"; }
kb() { python3 -c "import sys; b=int(sys.argv[1]); print('%.0f kB' % (b/1e3) if b < 1e6 else '%.1f MB' % (b/1e6))" "$1"; }

# N chats saved as schema v7 kept them: every state inline
for i in $(seq $N); do
    printf 'message %s\n' "$i" | "$T" chat --demo --db "$D" --new "s$i" --max-tokens 4 --seed "$i" \
        >/dev/null 2>"$TMP/c$i.err" || fail "chat s$i: $(cat "$TMP/c$i.err")"
done
python3 - "$D" <<'PY' || fail "making a v7 file"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("""
  UPDATE snapshots SET blob=(SELECT b.blob FROM state_blobs b WHERE b.id=snapshots.blob_id)
    WHERE blob_id IS NOT NULL;
  DROP TRIGGER snapshots_blob_ad; DROP TRIGGER snapshots_blob_au; DROP INDEX snapshots_blob;
  ALTER TABLE snapshots DROP COLUMN blob_id; DROP TABLE state_blobs;""")
db.execute("PRAGMA user_version=7")
db.commit()
PY
ONE=$(one_state "$D")
# upgraded, one new chat: its greeting state is a new shared copy
printf 'new one\n' | "$T" chat --demo --db "$D" --new new --max-tokens 4 --seed 9 >/dev/null \
    2>"$TMP/n.err" || fail "new chat: $(cat "$TMP/n.err")"
g=$(greeting "$D")
[ "$g" = $(((N + 1) * ONE)) ] && ok || fail "before: greetings take $g bytes, want $((N + 1)) x $ONE"
inline_user=$(sql_rows "$D" "select count(*) from snapshots n join turns t on t.id=n.turn_id
                             where t.role<>0 and n.blob_id is null and length(n.blob)>0")

out=$("$T" sessions --db "$D" vacuum 2>"$TMP/v.err") || fail "vacuum: $(cat "$TMP/v.err")"
case $out in
*"($N saved states of an older version stored once with their twins: $(kb $((N * ONE))) given back)"*) ok ;;
*) fail "vacuum said: $out" ;;
esac
g=$(greeting "$D")
[ "$g" = "$ONE" ] && ok || fail "after: greetings take $g bytes, want one state ($ONE)"
[ "$(sql_rows "$D" "select count(*) from snapshots n join turns t on t.id=n.turn_id
                    where t.role<>0 and n.blob_id is null and length(n.blob)>0")" = "$inline_user" ] &&
    ok || fail "states with no twin were moved"
[ "$(sql_rows "$D" "pragma integrity_check")" = ok ] && ok || fail "integrity after the fold"
out=$("$T" sessions --db "$D" vacuum 2>&1)
case $out in *"older version"*) fail "a second vacuum folded again: $out" ;; *) ok ;; esac
# every session still goes on from its saved states, no replay
for i in $(seq $((N + 1))); do
    printf 'again\n' | "$T" chat --demo --db "$D" --session "$i" --max-tokens 4 >/dev/null \
        2>"$TMP/r$i.err" || fail "resume $i: $(cat "$TMP/r$i.err")"
    grep -qi 'replay' "$TMP/r$i.err" && fail "resume $i replayed: $(cat "$TMP/r$i.err")" || ok
done

# sessions show: own bytes and the shared copy, apart
S=$TMP/s.db
for i in $(seq $N); do
    printf 'hello %s\n' "$i" | "$T" chat --demo --db "$S" --new "t$i" --max-tokens 4 --seed "$i" \
        >/dev/null 2>&1 || fail "chat t$i"
done
ONE=$(one_state "$S")
sum=0
for i in $(seq $N); do
    line=$("$T" sessions --db "$S" show "$i" | grep '^saved states: ')
    own=$(sql_rows "$S" "select coalesce(sum(length(b.blob)),0) + (select coalesce(sum(length(n.blob)),0)
                         from snapshots n join turns t on t.id=n.turn_id where t.session_id=$i)
                         from state_blobs b where b.id in (select n.blob_id from snapshots n join turns t
                         on t.id=n.turn_id where t.session_id=$i) and b.id not in (select n.blob_id from
                         snapshots n join turns t on t.id=n.turn_id where t.session_id<>$i
                         and n.blob_id is not null)")
    cnt=$(sql_rows "$S" "select count(*) from snapshots n join turns t on t.id=n.turn_id where t.session_id=$i")
    want="saved states: $cnt ($(kb "$own") its own, $(kb "$ONE") shared with $((N - 1)) other sessions)"
    [ "$line" = "$want" ] && ok || fail "show $i: '$line', want '$want'"
    sum=$((sum + own))
done
total=$(sql_rows "$S" "select (select coalesce(sum(length(blob)),0) from state_blobs) +
                             (select coalesce(sum(length(blob)),0) from snapshots)")
[ $((sum + ONE)) = "$total" ] && ok || fail "own $sum + shared $ONE != total $total"
out=$("$T" sessions --db "$S" budget)
case $out in "saved states: $(kb "$total") in "*) ok ;; *) fail "budget: '$out', total $total" ;; esac
# the last session alone: nothing shared any more
for i in $(seq $((N - 1))); do "$T" sessions --db "$S" rm "$i" >/dev/null || fail "rm $i"; done
line=$("$T" sessions --db "$S" show $N | grep '^saved states: ')
case $line in *shared*) fail "alone, still shared: $line" ;; "saved states: "*" ("*" kB)") ok ;;
*) fail "alone: $line" ;; esac
finish
