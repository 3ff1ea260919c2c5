#!/usr/bin/env bash
# tests/cli/sessions_readonly.sh -- a session database this process may not
# write is still read: `sessions list`, show, export, search, state and
# budget work on it, creating, changing and removing nothing (no -wal or
# -shm made, no file touched); the commands that write (rm, rename, fork,
# import, vacuum, budget SIZE), `chat` and the full-screen client refuse it
# with one line naming the file and why, with a hint true for that command
# (before: every command refused it, the read ones too, with a hint naming
# --no-db, which `chat` and `sessions` do not take).
#
# The cases, each where it can be made (else skipped, saying why):
#   - mode 444: refused for writing by the program's own rule, root too;
#   - a read-only bind mount (root, mount(8)); and the same while another
#     program has it open for writing on the writable side (-wal and -shm
#     there: read through them, its commits seen);
#   - chattr +i on the file, and on its folder;
#   - another user (root runs the binary as nobody, setpriv): the file not
#     its own (mode 644), in a folder it may not write, and in one it may
#     (where a plain read-only SQLite open would leave a -wal and a -shm
#     owned by nobody beside another user's database).
# Real files in a temp dir, the real binary, the demo model.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
MNT=
IMM=()
cleanup() {
    local f
    [ -n "$MNT" ] && umount "$MNT" 2>/dev/null
    for f in "${IMM[@]}"; do chattr -i "$f" 2>/dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT
chmod 755 "$TMP"

# the source database: two sessions made by chat (states saved), one imported
SRC=$TMP/src.db
printf 'hello there\nand again\n' | "$T" chat --demo --db "$SRC" --new "first talk" --seed 1 \
    --max-tokens 4 >/dev/null 2>"$TMP/err" && ok || fail "chat to make the database: $(cat "$TMP/err")"
printf 'one more\n' | "$T" chat --demo --db "$SRC" --new "second talk" --seed 2 --max-tokens 4 \
    >/dev/null 2>"$TMP/err" && ok || fail "second chat: $(cat "$TMP/err")"
cat >"$TMP/imp.json" <<'JSON'
{"format": "rwkv-tui-session", "version": 1, "title": "Imported", "created_ms": 1700000000000,
 "strategy": "cpu fp32", "model": null, "head": 2,
 "turns": [{"id": 1, "parent": null, "role": "user", "text": "hi", "tokens": [85, 115, 101, 114, 58, 32, 104, 105, 10, 10, 65, 115, 115, 105, 115, 116, 97, 110, 116, 58], "time_ms": 1700000000001},
           {"id": 2, "parent": 1, "role": "assistant", "text": "yo", "tokens": [121, 111], "time_ms": 1700000000002}]}
JSON
# what the read commands print on the writable original (compared below)
READS=("list" "list --json" "show 1" "show 2" "export 1" "export 1 --format json" "search again"
       "state 1 3" "budget")
for i in "${!READS[@]}"; do
    # shellcheck disable=SC2086   # the command and its words
    "$T" sessions --db "$SRC" ${READS[$i]} >"$TMP/want.$i" 2>"$TMP/err" ||
        fail "${READS[$i]} on the writable database: $(cat "$TMP/err")"
done
[ ! -e "$SRC-wal" ] && [ ! -e "$SRC-shm" ] && ok || fail "the source database kept a -wal or -shm"

# snap DIR: every file in DIR, its size, mode, owner, times and content
snap() { (cd "$1" && ls -lA --time-style=full-iso | tail -n +2 && md5sum -- * 2>/dev/null); }

# ro_case NAME DIR DB [RUNNER...]: the reads work, print what the writable
# original printed and leave DIR as it was; the writes are refused with one
# line naming DB, and so are chat and the client
ro_case() {
    local name=$1 dir=$2 db=$3 before err c i n
    shift 3
    local run=("$@")
    before=$(snap "$dir")
    for i in "${!READS[@]}"; do
        # shellcheck disable=SC2086
        if ! "${run[@]}" "$T" sessions --db "$db" ${READS[$i]} >"$TMP/got" 2>"$TMP/err"; then
            fail "$name: ${READS[$i]} refused: $(cat "$TMP/err")"
        elif [ -s "$TMP/err" ]; then
            fail "$name: ${READS[$i]} said: $(cat "$TMP/err")"
        elif ! cmp -s "$TMP/got" "$TMP/want.$i"; then
            fail "$name: ${READS[$i]} printed another thing: $(diff "$TMP/want.$i" "$TMP/got" | head -5)"
        else
            ok
        fi
    done
    for c in "rm 1" "rename 1 x" "fork 1 3" vacuum "budget 1G" "import $TMP/imp.json"; do
        # shellcheck disable=SC2086
        err=$("${run[@]}" "$T" sessions --db "$db" $c 2>&1 >/dev/null)
        n=$(printf '%s' "$err" | grep -c '')
        case $err in
            *--no-db*) fail "$name: $c names --no-db: $err" ;;
            "rwkv-tui: $db: the session database is read-only ("*"): 'sessions ${c%% *}' changes it: make it writable, or use a writable --db (list, show, search, export and state read it as it is)")
                [ "$n" = 1 ] && ok || fail "$name: $c: $n lines: $err" ;;
            *) fail "$name: $c: $err" ;;
        esac
    done
    err=$(printf 'hi\n' | "${run[@]}" "$T" chat --demo --db "$db" --max-tokens 2 2>&1 >/dev/null)
    case $err in
        "rwkv-tui: $db: the session database is read-only ("*"): use a writable --db, or leave out --db, --new, --session and --resume to chat without saving") ok ;;
        *) fail "$name: chat: $err" ;;
    esac
    err=$(printf 'hi\n' | "${run[@]}" "$T" chat --db "$db" --resume --max-tokens 2 2>&1 >/dev/null)
    case $err in
        "rwkv-tui: chat: $db: the session database is read-only ("*"): use a writable --db, or leave out --db, --new, --session and --resume to chat without saving") ok ;;
        *) fail "$name: chat --resume: $err" ;;
    esac
    # the full-screen client has --no-db: its hint names it
    err=$("${run[@]}" "$T" --demo --db "$db" </dev/null 2>&1 >/dev/null)
    case $err in
        *"$db: the session database is read-only ("*"): use a writable --db, or --no-db to save nothing") ok ;;
        *) fail "$name: the client: $err" ;;
    esac
    [ "$(snap "$dir")" = "$before" ] && ok || fail "$name: the folder changed: $(diff <(echo "$before") <(snap "$dir"))"
}
NCHECKS=$(( ${#READS[@]} + 6 + 3 + 1 ))

# --- mode 444 (the program's own rule: root too) -------------------------------------------
mkdir "$TMP/m444" && cp "$SRC" "$TMP/m444/s.db" && chmod 444 "$TMP/m444/s.db"
ro_case "mode 444" "$TMP/m444" "$TMP/m444/s.db"
err=$("$T" sessions --db "$TMP/m444/s.db" rm 1 2>&1)
case $err in *"(mode 444: no write permission for anyone)"*) ok ;; *) fail "mode 444: the reason: $err" ;; esac

# --- a read-only bind mount ----------------------------------------------------------------
mkdir -p "$TMP/rw" "$TMP/ro" && cp "$SRC" "$TMP/rw/s.db"
if is_root && mount --bind "$TMP/rw" "$TMP/ro" 2>/dev/null; then
    MNT=$TMP/ro
    if mount -o remount,bind,ro "$TMP/ro" 2>/dev/null && ! touch "$TMP/ro/x" 2>/dev/null; then
        ro_case "read-only mount" "$TMP/ro" "$TMP/ro/s.db"
        err=$("$T" sessions --db "$TMP/ro/s.db" rm 1 2>&1)
        case $err in *"(on a read-only file system)"*) ok ;; *) fail "ro mount: the reason: $err" ;; esac
        # another program writes through the writable side and keeps it open:
        # its -wal and -shm are there, and the reads see its commit
        if command -v python3 >/dev/null 2>&1; then
            rm -f "$TMP/held" "$TMP/done"
            python3 - "$TMP/rw/s.db" "$TMP" <<'EOF' &
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("UPDATE sessions SET title='retitled elsewhere' WHERE id=1")
open(os.path.join(sys.argv[2], "held"), "w").close()
while not os.path.exists(os.path.join(sys.argv[2], "done")):
    time.sleep(0.05)
EOF
            writer=$!
            poll test -e "$TMP/held"
            [ -e "$TMP/ro/s.db-wal" ] && [ -e "$TMP/ro/s.db-shm" ] && ok || fail "no -wal and -shm beside a database in use"
            before=$(cd "$TMP/ro" && ls -lA --time-style=full-iso)
            out=$("$T" sessions --db "$TMP/ro/s.db" list 2>&1)
            case $out in *"retitled elsewhere"*) ok ;; *) fail "ro mount, in use: list: $out" ;; esac
            out=$("$T" sessions --db "$TMP/ro/s.db" show 1 2>&1)
            case $out in "session 1: retitled elsewhere"*) ok ;; *) fail "ro mount, in use: show: $out" ;; esac
            [ "$(cd "$TMP/ro" && ls -lA --time-style=full-iso)" = "$before" ] && ok || fail "ro mount, in use: the folder changed"
            touch "$TMP/done"
            wait $writer
        else
            skip 4 "(4) python3 not found: no writer to hold the database open"
        fi
    else
        skip $((NCHECKS + 5)) "($((NCHECKS + 5))) a bind mount cannot be made read-only here"
    fi
    umount "$TMP/ro" && MNT=
else
    skip $((NCHECKS + 5)) "($((NCHECKS + 5))) no read-only mount: needs root and mount --bind (not allowed here)"
fi

# --- chattr +i: the file, then its folder ---------------------------------------------------
mkdir "$TMP/imm" && cp "$SRC" "$TMP/imm/s.db"
if command -v chattr >/dev/null 2>&1 && chattr +i "$TMP/imm/s.db" 2>/dev/null; then
    IMM+=("$TMP/imm/s.db")
    ro_case "immutable file" "$TMP/imm" "$TMP/imm/s.db"
    chattr -i "$TMP/imm/s.db"
    chattr +i "$TMP/imm" && IMM+=("$TMP/imm")
    ro_case "immutable folder" "$TMP/imm" "$TMP/imm/s.db"
    chattr -i "$TMP/imm"
else
    skip $((NCHECKS * 2)) "($((NCHECKS * 2))) chattr +i not possible here (not root, or the file system has no such flag)"
fi

# --- another user ------------------------------------------------------------------------
as_other=()
if is_root; then
    as_other=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    "${as_other[@]}" "$T" --version >/dev/null 2>&1 || as_other=(none)
fi
if [ "${as_other[0]:-}" = none ]; then
    skip $((NCHECKS * 2)) "($((NCHECKS * 2))) cannot run the binary as nobody (setpriv, or the path is not readable by it)"
else
    # a folder it may not write (SQLite cannot make a -wal or -shm there)
    mkdir "$TMP/other" && cp "$SRC" "$TMP/other/s.db"
    if is_root; then chmod 644 "$TMP/other/s.db"; chmod 755 "$TMP/other"; else chmod 555 "$TMP/other"; fi
    ro_case "folder not writable" "$TMP/other" "$TMP/other/s.db" "${as_other[@]}"
    chmod 755 "$TMP/other"
    # a folder it may write, the file not its own: nothing made beside it
    if is_root; then
        mkdir "$TMP/shared" && cp "$SRC" "$TMP/shared/s.db" && chmod 644 "$TMP/shared/s.db" &&
            chmod 1777 "$TMP/shared"
        ro_case "another user's file" "$TMP/shared" "$TMP/shared/s.db" "${as_other[@]}"
    else
        skip "$NCHECKS" "($NCHECKS) another user's file: needs root to make one"
    fi
fi

# --- what stays as it was ---------------------------------------------------------------------
# a missing database: the read commands still create nothing (sessions.sh),
# and a writable one is read as before, with no -wal or -shm left
"$T" sessions --db "$SRC" list >/dev/null && [ ! -e "$SRC-wal" ] && [ ! -e "$SRC-shm" ] && ok ||
    fail "a writable database kept a -wal or -shm after list"
finish
