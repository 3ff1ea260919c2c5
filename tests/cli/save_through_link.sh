#!/usr/bin/env bash
# tests/cli/save_through_link.sh -- an output named by a symlink is written
# THROUGH it, as cp(1) and a shell's > do (rwkv_output_target,
# core/io/fileio.h): `/save cur.pth` with cur.pth -> persona-v3.pth writes
# persona-v3.pth, the link stays a link and `--state cur.pth` loads the new
# state; `sessions export --out LINK` the same; a dangling link creates its
# target when the target's folder is there (the line names the file).  The
# refusals judge the file the link leads to: a link to the session
# database, to a -wal name, to the model in use or to a read-only file is
# refused.  Before, the atomic write's rename replaced the link with a plain
# file and the file it named was never written (and a link to the model
# passed the input check, the link being what was replaced).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
cd "$TMP" || exit 1

# ---- /save in the line chat ----------------------------------------------------------------
mkdir states
echo old >states/persona-v3.pth
ln -s persona-v3.pth states/cur.pth          # relative: read from the link's folder
ln -s new.pth states/dangling.pth            # dangling, its folder there
ln -s gone/x.pth states/nofolder.pth         # dangling, its folder missing
printf 'hi\n/save plain.pth\n/save states/cur.pth\n/save states/dangling.pth\n/save states/nofolder.pth\n' |
    "$T" chat --demo --db d.db --seed 1 --max-tokens 2 >out 2>err
rc=$?
[ $rc = 0 ] && ok || fail "chat: exit $rc: $(cat err)"
grep -qx '(state saved to states/persona-v3.pth through the link states/cur.pth: load it with --state states/cur.pth)' err &&
    ok || fail "/save LINK: the line: $(cat err)"
[ -L states/cur.pth ] && [ "$(readlink states/cur.pth)" = persona-v3.pth ] && ok ||
    fail "/save LINK: the link was replaced: $(ls -l states)"
cmp -s plain.pth states/persona-v3.pth && ok || fail "/save LINK: the link's target is not the state saved"
# --state LINK loads it: the same logits as the file saved without a link
"$T" eval --demo --state states/cur.pth --tokens 1,2 --out o1.bin 2>e1 &&
    "$T" eval --demo --state plain.pth --tokens 1,2 --out o2.bin 2>e2 && cmp -s o1.bin o2.bin && ok ||
    fail "--state LINK: not the state saved: $(cat e1 e2)"
printf 'again\n' | "$T" chat --demo --db d.db --state states/cur.pth --seed 1 --max-tokens 2 \
    >out2 2>err2 && grep -q '^Assistant:' out2 && ok || fail "chat --state LINK: $(cat err2)"
# a dangling link: its target made, the link kept, the line names the file
grep -qx '(state saved to states/new.pth through the link states/dangling.pth: load it with --state states/dangling.pth)' err &&
    ok || fail "/save DANGLING: the line: $(cat err)"
[ -L states/dangling.pth ] && cmp -s plain.pth states/new.pth && ok ||
    fail "/save DANGLING: $(ls -l states)"
# its folder missing: refused in one line that names where the link leads
grep -qx 'rwkv-tui: /save: states/nofolder.pth (a link to states/gone/x.pth): cannot create: No such file or directory' err &&
    [ -L states/nofolder.pth ] && ok || fail "/save to a link into no folder: $(cat err)"

# ---- the refusals judge the file the link leads to -----------------------------------------
ln -s d.db dblink
ln -s other.db-wal wallink.pth
sqlite3 other.db 'CREATE TABLE t(x);' 2>/dev/null || cp d.db other.db
printf 'hi\n/save dblink\n/save wallink.pth\n' |
    "$T" chat --demo --db d.db --seed 1 --max-tokens 2 >out 2>err
grep -qx 'rwkv-tui: /save: dblink is the session database: not written over' err &&
    [ -L dblink ] && ok || fail "/save to a link to the database: $(cat err)"
grep -qx 'rwkv-tui: /save: wallink.pth is the -wal file of the SQLite database other.db: not written over' err &&
    [ -L wallink.pth ] && [ ! -e other.db-wal ] && ok || fail "/save to a link to a -wal name: $(cat err)"
expect_fail "export --out a link to the database" \
    '^rwkv-tui: sessions export: --out dblink is the session database: not written over$' \
    "$T" sessions --db d.db export 1 --out dblink
[ -L dblink ] && "$T" sessions --db d.db list >/dev/null 2>&1 && ok || fail "the database was harmed"

# ---- sessions export --out LINK ---------------------------------------------------------------
mkdir ex
ln -s ../ex/s1.md ex/link.md                  # relative, through ".."
"$T" sessions --db d.db export 1 >want.md 2>/dev/null
"$T" sessions --db d.db export 1 --out ex/link.md 2>err; rc=$?
[ $rc = 0 ] && [ -L ex/link.md ] && cmp -s want.md ex/s1.md && ok ||
    fail "export --out LINK: exit $rc, $(cat err); $(ls -l ex)"
# the file written named (the command line names only the link)
[ "$(cat err)" = "rwkv-tui: sessions export: written to $(pwd -P)/ex/s1.md (--out ex/link.md is a link to it)" ] &&
    ok || fail "export --out LINK: the file written not said: $(cat err)"
"$T" sessions --db d.db export 1 --out ex/s1.md 2>err && [ ! -s err ] && ok || fail "export --out FILE said: $(cat err)"
# a link to the model the session names (an input): refused, the model whole
echo model >m.pth
msum=$(cksum <m.pth)
ln -s m.pth mlink.pth
expect_fail "eval --out a link to the model" \
    '^rwkv-tui: eval: --out mlink\.pth is the model \(--model m\.pth\): not written over$' \
    "$T" eval --model m.pth --tokens 1 --out mlink.pth
[ "$(cksum <m.pth)" = "$msum" ] && [ -L mlink.pth ] && ok || fail "the model or its link was written over"

# ---- a sticky folder anyone writes to (/tmp): another user's link is not followed ------------
# (the kernel's protected_symlinks rule: a link planted there by someone else
# at the output path is replaced, its target untouched; our own is followed)
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    mkdir pub && chmod 1777 pub
    echo mine >victim.txt
    ln -s ../victim.txt pub/planted.md && chown -h nobody pub/planted.md
    ln -s ../ex/own.md pub/own.md
    "$T" sessions --db d.db export 1 --out pub/planted.md 2>err; rc=$?
    [ $rc = 0 ] && [ ! -L pub/planted.md ] && [ "$(cat victim.txt)" = mine ] &&
        cmp -s want.md pub/planted.md && [ ! -s err ] && ok ||
        fail "another user's link in a sticky folder was followed: exit $rc, $(cat err); $(cat victim.txt)"
    "$T" sessions --db d.db export 1 --out pub/own.md 2>err; rc=$?
    [ $rc = 0 ] && [ -L pub/own.md ] && cmp -s want.md ex/own.md &&
        grep -qx "rwkv-tui: sessions export: written to $(pwd -P)/ex/own.md (--out pub/own.md is a link to it)" err && ok ||
        fail "our own link in a sticky folder: exit $rc, $(cat err); $(ls -l pub ex)"
else
    skip 2 "(2) a sticky folder's foreign link: needs root and a 'nobody' user"
fi
finish
