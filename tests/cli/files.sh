#!/usr/bin/env bash
# tests/cli/files.sh -- the files rwkv-tui reads and writes (issue 14):
#   - a FIFO or device where a regular file is expected (--model, --state,
#     --vocab) is refused at once with one line, never waited on (each run
#     is under `timeout 10`, so a regression fails instead of hanging);
#   - failed writes to stdout (/dev/full) exit 1 with "stdout: No space
#     left on device", for generate, eval, tokenize, info and bench;
#   - bench --save and eval --out never follow a symlink planted at the
#     old temporary name PATH.tmp, refuse to replace a FIFO, and replace a
#     symlink at PATH rather than writing through it;
#   - a model file truncated while `generate` uses it (cpu bf16 reads the
#     weights from the mapping) ends with one line and exit status 1, not
#     SIGBUS;
#   - generate --prompt-file refuses a prompt holding a NUL byte.
cd "$(dirname "$0")/../.."
. tests/cli/lib.sh
T=$RWKV_TUI
TO="timeout 10"

# expect_quick_fail DESC PATTERN CMD... : like expect_fail, and a timeout (124)
# is named as a hang
expect_quick_fail() {
    local desc=$1 pat=$2; shift 2
    local err rc n
    err=$($TO "$@" 2>&1 >/dev/null)
    rc=$?
    n=$(printf '%s' "$err" | grep -c '')
    if [ $rc -eq 124 ]; then fail "$desc: blocked (killed by timeout)"; return; fi
    if [ $rc -eq 0 ]; then fail "$desc: exit 0"; return; fi
    if [ $rc -ge 128 ]; then fail "$desc: crashed (exit $rc): $err"; return; fi
    if [ "$n" != 1 ]; then fail "$desc: $n stderr lines: $err"; return; fi
    if ! printf '%s' "$err" | grep -Eq -- "$pat"; then fail "$desc: stderr '$err' !~ /$pat/"; return; fi
    ok
}

M=$TMP/m.pth
$TO "$T" bench --shape demo --save "$M" >/dev/null 2>&1 && [ -f "$M" ] && ok || fail "make the demo model"

# ---- FIFOs and devices where a file is expected ----
mkfifo "$TMP/fifo"
expect_quick_fail "info --model FIFO" "fifo: not a regular file \(a FIFO\)" \
    "$T" info --model "$TMP/fifo"
expect_quick_fail "generate --model FIFO" "fifo: not a regular file \(a FIFO\)" \
    "$T" generate --model "$TMP/fifo" --prompt hi --max-tokens 2
expect_quick_fail "eval --model FIFO" "fifo: not a regular file \(a FIFO\)" \
    "$T" eval --model "$TMP/fifo" --tokens 1 --out "$TMP/x.bin"
expect_quick_fail "generate --state FIFO" "fifo: not a regular file \(a FIFO\)" \
    "$T" generate --model "$M" --state "$TMP/fifo" --prompt hi --max-tokens 2
expect_quick_fail "eval --state FIFO" "fifo: not a regular file \(a FIFO\)" \
    "$T" eval --model "$M" --state "$TMP/fifo" --tokens 1 --out "$TMP/x.bin"
expect_quick_fail "tokenize --vocab FIFO" "fifo: cannot open vocabulary: not a regular file \(a FIFO\)" \
    "$T" tokenize --vocab "$TMP/fifo" --text hi
expect_quick_fail "RWKV_VOCAB=FIFO" "fifo: cannot open vocabulary: not a regular file \(a FIFO\)" \
    env RWKV_VOCAB="$TMP/fifo" "$T" tokenize --text hi
ln -s "$TMP/fifo" "$TMP/fifo-link.pth"
expect_quick_fail "--model link to a FIFO" "fifo-link\.pth: not a regular file \(a FIFO\)" \
    "$T" info --model "$TMP/fifo-link.pth"
expect_quick_fail "--model /dev/zero" "/dev/zero: not a regular file \(a character device\)" \
    "$T" info --model /dev/zero
expect_quick_fail "--model a directory" "not a regular file \(a directory\)" \
    "$T" info --model "$TMP"
[ -p "$TMP/fifo" ] && ok || fail "the FIFO is still a FIFO"
# the same through the line-mode chat, and for a model path stored in the
# session database that has become a FIFO (chat --resume)
expect_quick_fail "chat --state FIFO" "fifo: not a regular file \(a FIFO\)" \
    "$T" chat --model "$M" --state "$TMP/fifo" --max-tokens 2 </dev/null
cp "$M" "$TMP/r.pth"
echo hi | $TO "$T" chat --model "$TMP/r.pth" --db "$TMP/db.sqlite" --new t --max-tokens 3 --seed 1 \
    >/dev/null 2>&1 && ok || fail "saved chat"
rm -f "$TMP/r.pth"
mkfifo "$TMP/r.pth"
echo again >"$TMP/again.txt"
expect_quick_fail "chat --resume, stored model path is a FIFO" "r\.pth: not a regular file \(a FIFO\)" \
    "$T" chat --db "$TMP/db.sqlite" --resume --max-tokens 2 <"$TMP/again.txt"

# ---- failed writes to stdout ----
for c in "generate --model $M --prompt hi --max-tokens 200 --seed 1" \
         "generate --model $M --prompt hi --max-tokens 3 --seed 1 --chat" \
         "eval --model $M --tokens 1,2 --out -" \
         "tokenize --bytes --text hello" \
         "tokenize --bytes --decode --text 104,105" \
         "info --model $M" \
         "info --help" \
         "bench --model $M --prompt-tokens 4 --gen-tokens 2 --repeat 1 --threads 1" \
         "bench --shape demo --save $TMP/full.pth"; do
    # (run in $TMP: a build that took "-" for a file name writes it there)
    # shellcheck disable=SC2086
    err=$(cd "$TMP" && $TO "$T" $c 2>&1 >/dev/full)
    rc=$?
    if [ $rc = 1 ] && printf '%s\n' "$err" | grep -q "^rwkv-tui: stdout: No space left on device$"; then
        ok
    else
        fail "$c >/dev/full: exit $rc, stderr: $err"
    fi
done
# the same commands still exit 0 when stdout works
$TO "$T" info --model "$M" >/dev/null 2>&1 && ok || fail "info to /dev/null"
out=$(cd "$TMP" && $TO "$T" eval --model "$M" --tokens 1,2 --out - 2>/dev/null | wc -c)
[ "$out" = 1024 ] && ok || fail "eval --out - wrote $out bytes, expected 256 floats"
# a closed pipe: SIGPIPE keeps its default action (the reader is gone; like cat)
$TO "$T" generate --model "$M" --prompt hi --max-tokens 100000 --seed 1 2>/dev/null | head -c 1 >/dev/null
rc=${PIPESTATUS[0]}
[ "$rc" = 141 ] || [ "$rc" = 1 ] && ok || fail "generate into a closed pipe: exit $rc"

# ---- files we create ----
victim_kept() { [ "$(wc -c <"$TMP/victim")" = 5 ] && grep -qx keep "$TMP/victim"; }
echo keep >"$TMP/victim"
ln -s "$TMP/victim" "$TMP/s.pth.tmp"
$TO "$T" bench --shape demo --save "$TMP/s.pth" >/dev/null 2>&1 && ok || fail "save past a planted PATH.tmp"
victim_kept && ok || fail "planted PATH.tmp: its target was written"
[ -L "$TMP/s.pth.tmp" ] && [ -f "$TMP/s.pth" ] && [ ! -L "$TMP/s.pth" ] && ok || fail "save result"
cmp -s "$M" "$TMP/s.pth" && ok || fail "the saved model differs from the first save"
ls -a "$TMP" | grep -q '^\.s\.pth\..*\.tmp$' && fail "a temporary file was left" || ok
# a symlink AT the path is written through (as cp does): the link kept,
# its target the new file (save_through_link.sh)
ln -s "$TMP/victim" "$TMP/l.pth"
$TO "$T" bench --shape demo --save "$TMP/l.pth" >/dev/null 2>&1 && ok || fail "save over a symlink"
[ -L "$TMP/l.pth" ] && cmp -s "$M" "$TMP/victim" && ok \
    || fail "save over a symlink did not write through it"
echo keep >"$TMP/victim"
# a FIFO (or device) at the path is refused, not replaced by a regular file
expect_quick_fail "save onto a FIFO" "fifo: cannot create: it is a FIFO" \
    "$T" bench --shape demo --save "$TMP/fifo"
[ -p "$TMP/fifo" ] && ok || fail "save replaced the FIFO"
# eval --out / --state-out the same way
ln -s "$TMP/victim" "$TMP/o.bin.tmp"
$TO "$T" eval --model "$M" --tokens 1,2 --out "$TMP/o.bin" --state-out "$TMP/st.bin" 2>/dev/null \
    && [ "$(wc -c <"$TMP/o.bin")" = 1024 ] && [ -s "$TMP/st.bin" ] && ok || fail "eval --out"
victim_kept && ok || fail "eval --out wrote through a planted PATH.tmp"
expect_quick_fail "eval --out onto a FIFO" "fifo: cannot create: it is a FIFO" \
    "$T" eval --model "$M" --tokens 1 --out "$TMP/fifo"
expect_quick_fail "eval --out onto a full device (written in place: a device is a fine output)" "/dev/full: cannot write: No space left on device" \
    "$T" eval --model "$M" --tokens 1 --out /dev/full

# ---- a model truncated while in use ----
# cpu bf16 uses the bf16 weights straight from the mapping, so pages are
# read from the file for every token; truncating it makes the next read
# fault.  The wait loops are bounded (no timing is asserted).
cp "$M" "$TMP/t.pth"
"$T" generate --model "$TMP/t.pth" --strategy "cpu bf16" --no-weight-cache --prompt hi \
    --max-tokens 1000000 --seed 1 --threads 1 >"$TMP/t.out" 2>"$TMP/t.err" &
pid=$!
for _ in $(seq 200); do [ -s "$TMP/t.out" ] && break; sleep 0.05; done
[ -s "$TMP/t.out" ] && ok || fail "generate produced no output before the truncation"
truncate -s 1000 "$TMP/t.pth"
for _ in $(seq 200); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done
if kill -0 $pid 2>/dev/null; then
    kill $pid
    fail "generate still running after its model was truncated"
fi
wait $pid
rc=$?
[ $rc = 1 ] && ok || fail "truncated model: exit $rc (135 = killed by SIGBUS), stderr: $(cat "$TMP/t.err")"
grep -q "^rwkv-tui: $TMP/t.pth: the file changed size while in use (truncated or replaced in place)$" \
    "$TMP/t.err" && [ "$(grep -c '' "$TMP/t.err")" -le 2 ] && ok \
    || fail "truncated model message: $(cat "$TMP/t.err")"
# SIGBUS from elsewhere keeps its default action
"$T" generate --model "$M" --prompt hi --max-tokens 1000000 --seed 1 >/dev/null 2>&1 &
pid=$!
sleep 0.2
kill -BUS $pid
{ wait $pid; } 2>/dev/null
rc=$?
[ $rc = 135 ] && ok || fail "a sent SIGBUS: exit $rc, expected 135"

# ---- text with a NUL byte ----
printf 'ab\0cd' >"$TMP/nul.txt"
expect_quick_fail "prompt file with NUL" "nul\.txt: NUL byte at offset 2 \(line 1\)" \
    "$T" generate --model "$M" --prompt-file "$TMP/nul.txt" --max-tokens 2
err=$(printf 'x\ny\0z' | $TO "$T" generate --model "$M" --prompt-file - --max-tokens 2 2>&1 >/dev/null)
[ $? = 1 ] && printf '%s' "$err" | grep -q "stdin: NUL byte at offset 3 (line 2)" && ok \
    || fail "stdin prompt with NUL: $err"
printf 'hello' >"$TMP/p.txt"
a=$($TO "$T" generate --model "$M" --prompt-file "$TMP/p.txt" --max-tokens 5 --seed 3 2>/dev/null)
b=$($TO "$T" generate --model "$M" --prompt hello --max-tokens 5 --seed 3 2>/dev/null)
[ -n "$a" ] && [ "$a" = "$b" ] && ok || fail "--prompt-file differs from --prompt: '$a' vs '$b'"
expect_quick_fail "prompt and prompt-file" "exactly one of --prompt" \
    "$T" generate --model "$M" --prompt hi --prompt-file "$TMP/p.txt"
expect_quick_fail "prompt file a directory" "/: cannot read: Is a directory" \
    "$T" generate --model "$M" --prompt-file "$TMP/" --max-tokens 2
# a database we may not write, or whose folder we may not write (no journal):
# one line saying how chat goes on without one (chat has no --no-db),
# nothing written.  Root writes anyway, so as
# root the binary runs as nobody (setpriv, util-linux).
ro=$TMP/ro
mkdir -p "$ro" && chmod 755 "$TMP" "$ro"
printf 'hi\n' | "$RWKV_TUI" chat --demo --db "$ro/s.db" --max-tokens 2 >/dev/null 2>&1
as_other=()
if is_root; then
    as_other=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    "${as_other[@]}" "$RWKV_TUI" --version >/dev/null 2>&1 ||
        fail "cannot run the binary as nobody (setpriv) for the read-only checks"
fi
# the file read-only
if is_root; then chmod 644 "$ro/s.db"; else chmod 444 "$ro/s.db"; fi
before=$(cksum <"$ro/s.db")
expect_fail "read-only database" 'read-only.*leave out --db, --new, --session and --resume' \
    "${as_other[@]}" "$RWKV_TUI" chat --demo --db "$ro/s.db"
[ "$(cksum <"$ro/s.db")" = "$before" ] && ok || fail "the read-only database changed"
# the file writable, its folder not
chmod 666 "$ro/s.db"
is_root || chmod 555 "$ro"
expect_fail "read-only folder" 'read-only.*leave out --db, --new, --session and --resume' \
    "${as_other[@]}" "$RWKV_TUI" chat --demo --db "$ro/s.db"
chmod 755 "$ro"
finish
