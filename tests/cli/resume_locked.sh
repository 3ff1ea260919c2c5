#!/usr/bin/env bash
# tests/cli/resume_locked.sh -- `chat --resume` / `--session` while another
# program holds the session database's write lock.  Before: the start made
# three writes, each waiting out the busy timeout (10 s) without a word --
# the model's row, the branch position, the framing -- and then said,
# wrongly, that the model file had changed (its row's write had failed, and
# a failed write was read as "another file").  Now: a resume whose rows are
# as it left them writes nothing and starts at once; a write it needs waits
# once, said up front with its bound ("waiting up to 10 s for the lock
# another program holds on DB"), and one line names the file when it gave
# up; the model is called changed only when its file is another one (size,
# fingerprint, digest), lock or not.  `sessions` writes say their wait the
# same way.  Real files in a temp dir, the real binary, a real SQLite lock
# (python3's sqlite3, tests/cli/lib.sh: hold_lock).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/s.db
WAITING="waiting up to 10 s for the lock another program holds on $D"

if ! command -v python3 >/dev/null 2>&1; then
    skip 17 "(17) python3 not found: no program to hold the lock"
    finish
    exit
fi

# now_ms: the monotonic-enough wall clock in ms
now_ms() { date +%s%3N; }

printf 'hello\nagain\n' | "$T" chat --demo --db "$D" --new first --seed 1 --max-tokens 4 \
    >/dev/null 2>"$TMP/err" && ok || fail "chat: $(cat "$TMP/err")"
printf 'other\n' | "$T" chat --demo --db "$D" --new second --seed 2 --max-tokens 4 \
    >/dev/null 2>"$TMP/err" && ok || fail "second chat: $(cat "$TMP/err")"

# --- the resume of the last session writes nothing: no wait ---------------------------------
hold_lock "$D" || fail "no lock taken"
t0=$(now_ms)
err=$("$T" chat --db "$D" --resume --max-tokens 3 </dev/null 2>&1 >/dev/null)
rc=$?
t=$(($(now_ms) - t0))
[ $rc = 0 ] && ok || fail "resume under the lock: exit $rc: $err"
[ $t -lt 5000 ] && ok || fail "resume under the lock took $t ms (it writes nothing): $err"
case $err in *"resumed session 2: second"*) ok ;; *) fail "resume under the lock: $err" ;; esac
case $err in *waiting*|*saving*|*changed*) fail "resume under the lock said: $err" ;; *) ok ;; esac

# --- another session (its position is written) and a framing given: one wait, one line ------
t0=$(now_ms)
err=$("$T" chat --db "$D" --session 1 --stop '###' --max-tokens 3 </dev/null 2>&1 >/dev/null)
rc=$?
t=$(($(now_ms) - t0))
[ $rc = 0 ] && ok || fail "--session 1 under the lock: exit $rc: $err"
[ $t -ge 9000 ] && [ $t -lt 20000 ] && ok || fail "--session 1 under the lock took $t ms (one wait of 10 s): $err"
[ "$(printf '%s\n' "$err" | grep -cxF "$WAITING")" = 1 ] && ok || fail "not one waiting line: $err"
[ "$(printf '%s\n' "$err" | grep -c '^rwkv-tui: saving')" = 1 ] && ok || fail "not one line for the failed writes: $err"
# said up front: the waiting line comes before the failure
printf '%s\n' "$err" | grep -A1 -xF "$WAITING" |
    grep -qx "rwkv-tui: saving the branch position: $D: database is locked (the chat goes on)" &&
    ok || fail "the waiting line, then the failure naming the file: $err"
case $err in *changed*) fail "--session 1 under the lock said: $err" ;; *) ok ;; esac

# --- sessions: a write says its wait, then fails naming the file ------------------------------
err=$("$T" sessions --db "$D" rename 1 renamed 2>&1 >/dev/null)
printf '%s\n' "$err" | grep -qxF "$WAITING" && ok || fail "sessions rename: no waiting line: $err"
printf '%s\n' "$err" | grep -q "^rwkv-tui: renaming session 1: $D: database is locked$" && ok ||
    fail "sessions rename: the failure: $err"
# a read does not wait
out=$("$T" sessions --db "$D" list 2>&1) && case $out in *first*) ok ;; *) fail "list under the lock: $out" ;; esac
release_lock

# --- the model's row: a real file (a copy of a fixture model) ---------------------------------
if have_fixture models/tiny-7v0-fp32.pth 5 && have_fixture models/tiny-7v0-bf16.pth 0; then
    M=$TMP/m.pth
    cp "$FX/models/tiny-7v0-fp32.pth" "$M"
    printf 'hello\n' | "$T" chat --model "$M" --db "$D" --new model --max-tokens 3 >/dev/null 2>"$TMP/err" \
        && ok || fail "chat with the model: $(cat "$TMP/err")"
    # the same file touched: its row's mtime is written, and that waits
    touch -d '2001-01-01' "$M"
    hold_lock "$D" || fail "no lock taken"
    err=$("$T" chat --db "$D" --resume --max-tokens 3 </dev/null 2>&1 >/dev/null)
    printf '%s\n' "$err" | grep -q "^rwkv-tui: saving the model row: $D: database is locked" && ok ||
        fail "the model row under the lock: $err"
    case $err in *"changed since"*) fail "a failed write of the model row read as another model file: $err" ;; *) ok ;; esac
    # another file at the path (other weights): said, lock or not
    cp "$FX/models/tiny-7v0-bf16.pth" "$M"
    err=$("$T" chat --db "$D" --resume --max-tokens 3 </dev/null 2>&1 >/dev/null)
    case $err in *"the model at $M changed since this session was saved"*) ok ;;
        *) fail "another model file under the lock, not said: $err" ;; esac
    release_lock
    err=$("$T" chat --db "$D" --resume --max-tokens 3 </dev/null 2>&1 >/dev/null)
    case $err in *"the model at $M changed since this session was saved"*) ok ;;
        *) fail "another model file, not said: $err" ;; esac
fi
finish
