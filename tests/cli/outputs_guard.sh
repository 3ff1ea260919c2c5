#!/usr/bin/env bash
# tests/cli/outputs_guard.sh -- one rule for every file a command writes
# (store_output_check): `/save`, `eval --out/--state-out`, `bench --save` and
# `sessions export --out` never write over the session database -- the
# default one too, when this command did not open it --, its -wal/-shm
# names, any SQLite database, or an input of the same command (the model,
# the vocabulary, the state file in use), under any name, hard link
# included.  Refused with one line, nothing written: exit 2 for a command,
# an in-chat line for /save (the chat goes on).  Before, /save without --db
# wrote a state file over the default database ("not a rwkv-tui session
# database" for every session), /save and eval --out wrote over the
# --vocab in use, and eval --out/--state-out and bench --save over any
# database.  Nor a file made read-only (mode without write bits, or not
# writable by this user): the atomic writers' rename replaced it.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
case $FX in /*) ;; *) FX=$PWD/$FX ;; esac   # the checks below run in $TMP
cd "$TMP" || exit 1
export XDG_DATA_HOME=$TMP/xdg HOME=$TMP/home
mkdir -p "$HOME"
DB=$XDG_DATA_HOME/rwkv-tui/rwkv-tui.db           # the default database

# a session in the default database
printf 'hello\n' | "$T" chat --demo --new keep --seed 1 --max-tokens 2 >/dev/null 2>err ||
    fail "making the default database: $(cat err)"
[ -s "$DB" ] && ok || fail "no default database at $DB: $(cat err)"
dbsum=$(cksum <"$DB")
db_intact() { [ "$(cksum <"$DB")" = "$dbsum" ] && "$T" sessions list 2>&1 | grep -q ' keep$'; }

# /save in a chat that saves nothing (no --db): the default database and
# its -wal/-shm names are refused all the same; the chat goes on
ln "$DB" hard.db
printf 'hi\n/save %s\n/save %s-wal\n/save %s-shm\n/save hard.db\n/save new.pth\n' \
    "$DB" "$DB" "$DB" | "$T" chat --demo --seed 1 --max-tokens 3 >out 2>err
rc=$?
[ $rc = 0 ] && ok || fail "chat: exit $rc: $(cat err)"
grep -qx "rwkv-tui: /save: $DB is an SQLite database: not written over" err && ok ||
    fail "/save over the default database: $(cat err)"
grep -qx "rwkv-tui: /save: $DB-wal is the -wal file of the SQLite database $DB: not written over" err &&
    ok || fail "/save over the default database's -wal: $(cat err)"
grep -qx "rwkv-tui: /save: $DB-shm is the -shm file of the SQLite database $DB: not written over" err &&
    ok || fail "/save over the default database's -shm: $(cat err)"
grep -qx "rwkv-tui: /save: hard.db is an SQLite database: not written over" err && ok ||
    fail "/save over a hard link to the database: $(cat err)"
[ ! -e "$DB-wal" ] && [ ! -e "$DB-shm" ] && ok || fail "/save made a -wal or -shm file"
[ -s new.pth ] && grep -q 'state saved to new.pth' err && ok || fail "/save new.pth: $(cat err)"
db_intact && ok || fail "/save wrote over the default database"

# the chat that saves to it: the database's own files, by device and inode
printf '/save %s\n/save hard.db\nhi\n' "$DB" |
    "$T" chat --demo --db "$DB" --new two --seed 1 --max-tokens 2 >/dev/null 2>err
grep -qx "rwkv-tui: /save: $DB is the session database: not written over" err && ok ||
    fail "/save over the database in use: $(cat err)"
grep -qx "rwkv-tui: /save: hard.db is the session database: not written over" err && ok ||
    fail "/save over a hard link to the database in use: $(cat err)"
"$T" sessions list 2>&1 | grep -q ' two$' && ok || fail "the chat did not go on saving: $(cat err)"
dbsum=$(cksum <"$DB")

# eval --out / --state-out and bench --save: the database, its files, any
# SQLite database -- exit 2, nothing written
for o in "--out $DB" "--out hard.db" "--out o.bin --state-out $DB" "--out $DB-wal" \
         "--out o.bin --state-out $DB-journal"; do
    expect_fail "eval $o" "^rwkv-tui: eval: --(state-)?out [^ ]+ is (an SQLite database|the -(wal|journal) file of the SQLite database [^ ]+): not written over$" \
        "$T" eval --demo --tokens 1,2 $o
    "$T" eval --demo --tokens 1 $o >/dev/null 2>&1
    [ $? = 2 ] && ok || fail "eval $o: exit status not 2"
done
[ ! -e o.bin ] && [ ! -e "$DB-wal" ] && [ ! -e "$DB-journal" ] && ok ||
    fail "a refused eval wrote a file"
for p in "$DB" hard.db "$DB-wal"; do
    expect_fail "bench --save $p" "^rwkv-tui: bench: --save $p is (an SQLite database|the -wal file of the SQLite database $DB): not written over$" \
        "$T" bench --shape demo --save "$p"
    "$T" bench --shape demo --save "$p" >/dev/null 2>&1
    [ $? = 2 ] && ok || fail "bench --save $p: exit status not 2"
done
# sessions export --out: the -wal name of another database
cp "$DB" other.db
expect_fail "export over another database's -wal" "^rwkv-tui: sessions export: --out other\\.db-wal is the -wal file of the SQLite database other\\.db: not written over$" \
    "$T" sessions export 1 --out other.db-wal
[ ! -e other.db-wal ] && ok || fail "export made other.db-wal"
db_intact && ok || fail "the default database was written over"
# a file that merely ends in -wal, with no database beside it, is a file
"$T" eval --demo --tokens 1 --out logits-wal 2>err && [ -s logits-wal ] && ok ||
    fail "eval --out logits-wal: $(cat err)"

if have_fixture models/world-7v0-rand-bf16.pth 12 && have_fixture rwkv_vocab_v20230424.txt 12; then
    # fresh: each case starts from the vocabulary whole (a failure stays its own)
    fresh() { rm -f v.txt vhard.txt; cp "$FX/rwkv_vocab_v20230424.txt" v.txt; ln v.txt vhard.txt; }
    fresh
    vsum=$(cksum <v.txt)
    v_intact() { [ "$(cksum <v.txt)" = "$vsum" ]; }
    W="--model $FX/models/world-7v0-rand-bf16.pth --vocab v.txt"
    # /save over the vocabulary in use, by name, another path, a hard link
    printf 'hi\n/save v.txt\n/save ./v.txt\n/save vhard.txt\n/save w.pth\n' |
        "$T" chat $W --seed 1 --max-tokens 3 >out 2>err
    rc=$?
    [ $rc = 0 ] && ok || fail "world chat: exit $rc: $(cat err)"
    [ "$(grep -Ec '^rwkv-tui: /save: (\./)?v(hard)?\.txt is the vocabulary in use: not written over$' err)" = 3 ] &&
        ok || fail "/save over the vocabulary: $(cat err)"
    v_intact && ok || fail "/save wrote over the vocabulary in use"
    [ -s w.pth ] && ok || fail "/save w.pth: $(cat err)"
    fresh
    # eval --out / --state-out over --vocab: exit 2, nothing written
    for o in "--out v.txt" "--out vhard.txt" "--out o.bin --state-out ./v.txt"; do
        expect_fail "eval --vocab v.txt $o" "^rwkv-tui: eval: --(state-)?out [^ ]+ is the vocabulary \\(--vocab v\\.txt\\): not written over$" \
            "$T" eval $W --text hi $o
        v_intact && ok || fail "eval $o: the vocabulary was written over"
        fresh
    done
    # the vocabulary --text finds by itself (here $RWKV_VOCAB) is an input too
    expect_fail "eval \$RWKV_VOCAB --out it" "^rwkv-tui: eval: --out v\\.txt is the vocabulary \\(v\\.txt\\): not written over$" \
        env RWKV_VOCAB=v.txt "$T" eval --model "$FX/models/world-7v0-rand-bf16.pth" --text hi --out v.txt
    v_intact && [ ! -e o.bin ] && ok || fail "a refused eval wrote a file"
fi

if have_fixture models/tiny-7v0-fp32.pth 4 && have_fixture states/state-7v0-A.pth 4; then
    cp "$FX/states/state-7v0-A.pth" st.pth
    ssum=$(cksum <st.pth)
    # /save over the state file the chat started from
    printf 'hi\n/save st.pth\n/save st2.pth\n' |
        "$T" chat --model "$FX/models/tiny-7v0-fp32.pth" --state st.pth --seed 1 --max-tokens 3 \
        >out 2>err
    rc=$?
    [ $rc = 0 ] && ok || fail "chat --state: exit $rc: $(cat err)"
    grep -qx 'rwkv-tui: /save: st.pth is the state file in use (the conversation starts from it): not written over' err &&
        ok || fail "/save over the state file in use: $(cat err)"
    [ "$(cksum <st.pth)" = "$ssum" ] && ok || fail "/save wrote over the state file in use"
    [ -s st2.pth ] && ok || fail "/save st2.pth: $(cat err)"
fi

# a file made read-only is not replaced (the atomic rename ignored its mode,
# and root passes every permission check): bench --save over a read-only
# checkpoint put random weights there; eval --out, export --out and /save
# replaced read-only files the same way
"$T" bench --shape demo --save ro.pth >/dev/null 2>&1 && chmod 444 ro.pth && ok ||
    fail "bench --save ro.pth"
printf 'keep me\n' >ro.txt && chmod 444 ro.txt
rsum=$(cksum <ro.pth)
tsum=$(cksum <ro.txt)
expect_fail "bench --save over a read-only file" "^rwkv-tui: bench: --save ro\.pth is read-only \(mode 444\): not written over$" \
    "$T" bench --shape demo --seed 2 --save ro.pth
"$T" bench --shape demo --seed 2 --save ro.pth >/dev/null 2>&1
[ $? = 2 ] && ok || fail "bench --save over a read-only file: exit status not 2"
expect_fail "eval --out over a read-only file" "^rwkv-tui: eval: --out ro\.txt is read-only \(mode 444\): not written over$" \
    "$T" eval --demo --tokens 1 --out ro.txt
expect_fail "export --out over a read-only file" "^rwkv-tui: sessions export: --out ro\.txt is read-only \(mode 444\): not written over$" \
    "$T" sessions export 1 --out ro.txt
printf 'hi\n/save ro.txt\n' | "$T" chat --demo --seed 1 --max-tokens 2 >out 2>err
grep -qx 'rwkv-tui: /save: ro.txt is read-only (mode 444): not written over' err && ok ||
    fail "/save over a read-only file: $(cat err)"
[ "$(cksum <ro.pth)" = "$rsum" ] && [ "$(cksum <ro.txt)" = "$tsum" ] && ok ||
    fail "a read-only file was replaced"
# a symlink at the output is written through: to a read-only file, refused
ln -s ro.txt link.txt
"$T" eval --demo --tokens 1 --out link.txt 2>err; rc=$?
[ $rc != 0 ] && grep -qx 'rwkv-tui: eval: --out link.txt is read-only (mode 444): not written over' err &&
    [ -L link.txt ] && ok || fail "eval --out over a symlink to a read-only file: exit $rc, $(cat err)"
[ "$(cksum <ro.txt)" = "$tsum" ] && ok || fail "the symlink's read-only target was written"
finish
