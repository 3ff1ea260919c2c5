#!/usr/bin/env bash
# tests/cli/main_stdout.sh -- the top-level --help, help and --version
# (cli/main.c) check their write like every command does: to a full disk
# (/dev/full) one line "stdout: No space left on device" and exit 1 (they
# exited 0 with the text lost).  And the standard descriptors a caller left
# closed stay failing reads and writes (cli/main.c holds them with a
# placeholder so no file of ours takes their numbers): the commands still
# say "Bad file descriptor".
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
export XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/config HOME=$TMP/home
mkdir -p "$TMP/home"

if [ -w /dev/full ]; then
    for a in --help help -h --version; do
        expect_fail "$a >/dev/full" '^rwkv-tui: stdout: No space left on device$' \
            sh -c '"$0" "$1" >/dev/full' "$T" "$a"
    done
else
    skip 4 "/dev/full not available"
fi
# the same to a working stdout: exit 0, the text there
"$T" --help >"$TMP/out" 2>"$TMP/err" && grep -q '^usage: rwkv-tui' "$TMP/out" && [ ! -s "$TMP/err" ] \
    && ok || fail "--help: $(head -c 200 "$TMP/err")"

# closed descriptors: the error the closed descriptor gives
expect_fail "tokenize >&-" '^rwkv-tui: stdout: Bad file descriptor$' \
    sh -c '"$0" tokenize --bytes --text hi >&-' "$T"
expect_fail "generate --prompt-file - <&-" '^rwkv-tui: stdin: cannot read: Bad file descriptor$' \
    sh -c '"$0" generate --demo --seed 1 --max-tokens 2 --prompt-file - <&-' "$T"
# stdin and stdout closed: the logits still go whole to the --out file
rm -f "$TMP/o.f32"
timeout 60 "$T" eval --demo --tokens 1,2 --out "$TMP/o.f32" <&- >&-
rc=$?
[ $rc = 0 ] && [ "$(wc -c <"$TMP/o.f32")" = 1024 ] && ok || fail "eval <&- >&-: exit $rc, $(wc -c <"$TMP/o.f32" 2>&1) bytes"
finish
