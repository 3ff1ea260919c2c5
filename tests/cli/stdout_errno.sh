#!/usr/bin/env bash
# tests/cli/stdout_errno.sh -- a command's output to a full disk (/dev/full)
# names the disk's error: one line "rwkv-tui: stdout: No space left on
# device", exit status 1.  A block larger than stdio's buffer (eval's logits,
# tokenize --decode's text, a long turn of `sessions show` or `export`) was
# written past the buffer, the failing write's errno was lost by the end,
# and the line said "Input/output error".  Now every such block goes through
# the one writer (cli_write), which keeps the errno where the write failed.
# The demo model and the byte tokenizer; the eval check needs the world
# fixture (its 65536 logits).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
export XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/config HOME=$TMP/home
mkdir -p "$TMP/home"
ENOSPC='^rwkv-tui: stdout: No space left on device$'
if [ ! -w /dev/full ]; then
    skip 8 "/dev/full not available"
    finish
    exit
fi
# full CMD...: CMD with its stdout on /dev/full
full() { "$@" >/dev/full; }

# --- tokenize --decode: 4096 and 10000 bytes of text in one block ------------------
ids() { local i; for i in $(seq "$1"); do printf '97,'; done; printf '97'; }
ids 4095 >"$TMP/ids4096"
ids 9999 >"$TMP/ids10000"
expect_fail "decode 4096 bytes >/dev/full" "$ENOSPC" \
    full "$T" tokenize --bytes --decode --file "$TMP/ids4096"
expect_fail "decode 10000 bytes >/dev/full" "$ENOSPC" \
    full "$T" tokenize --bytes --decode --file "$TMP/ids10000"
# to a file: every byte there, nothing on stderr
"$T" tokenize --bytes --decode --file "$TMP/ids10000" >"$TMP/dec" 2>"$TMP/err"
[ $? = 0 ] && [ "$(wc -c <"$TMP/dec")" = 10000 ] && [ "$(tr -d a <"$TMP/dec" | wc -c)" = 0 ] \
    && [ ! -s "$TMP/err" ] && ok || fail "decode to a file: $(wc -c <"$TMP/dec") bytes, $(head -c 200 "$TMP/err")"

# --- sessions show / export of a turn longer than the buffer -----------------------
DB=$TMP/s.db
head -c 12000 /dev/zero | tr '\0' x >"$TMP/msg"
echo >>"$TMP/msg"
timeout 120 "$T" chat --demo --seed 1 --max-tokens 2 --db "$DB" --new long <"$TMP/msg" >/dev/null 2>"$TMP/err" \
    && ok || fail "chat: $(head -c 300 "$TMP/err")"
expect_fail "sessions show >/dev/full" "$ENOSPC" full "$T" sessions --db "$DB" show 1
expect_fail "sessions export md >/dev/full" "$ENOSPC" full "$T" sessions --db "$DB" export 1
expect_fail "sessions export json >/dev/full" "$ENOSPC" \
    full "$T" sessions --db "$DB" export 1 --format json

# --- eval --out -: 65536 float32 logits per position ---------------------------------
if have_fixture models/world-7v0-rand-bf16.pth 1; then
    expect_fail "eval --out - >/dev/full" "$ENOSPC" \
        full timeout 120 "$T" eval --model "$FX/models/world-7v0-rand-bf16.pth" --tokens 1,2 --all --out -
fi
finish
