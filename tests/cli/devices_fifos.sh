#!/usr/bin/env bash
# tests/cli/devices_fifos.sh -- a character device is a fine output and a
# FIFO a fine input (core/io/fileio.c): `eval --out /dev/null`, `sessions
# export --out /dev/null` write there (nothing to replace, no temporary file
# beside it); `sessions import <(cmd)` reads the pipe as `import -` does, and
# a FIFO no program writes is an empty file, not a wait.  An empty --text is
# a usage error (2) in eval as --prompt "" is in generate (man: EXIT STATUS).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/d.db
printf 'hello\n' | "$T" chat --demo --db "$DB" --new one --max-tokens 4 >/dev/null 2>&1 || fail "chat"

"$T" eval --demo --text hi --out /dev/null 2>"$TMP/e" && ok || fail "eval --out /dev/null: $(cat "$TMP/e")"
"$T" eval --demo --tokens 1,2 --out /dev/null --state-out /dev/null 2>"$TMP/e" && ok ||
    fail "eval --state-out /dev/null: $(cat "$TMP/e")"
"$T" sessions --db "$DB" export 1 --out /dev/null 2>"$TMP/e" && ok ||
    fail "export --out /dev/null: $(cat "$TMP/e")"
# /dev/stdout on a pipe is the pipe: what eval writes arrives
n=$("$T" eval --demo --tokens 1,2 --out /dev/stdout 2>"$TMP/e" | wc -c)
[ "$n" -gt 0 ] && [ $((n % 4)) = 0 ] && ok || fail "eval --out /dev/stdout: $n bytes, $(cat "$TMP/e")"
ls -a /dev | grep -q '^\.null\..*\.tmp$' && fail "a temporary file left in /dev" || ok
# a FIFO is still no output (nothing would read it: it would hang)
mkfifo "$TMP/ff"
expect_fail "FIFO output" "ff: cannot create: it is a FIFO" "$T" eval --demo --text hi --out "$TMP/ff"

"$T" sessions --db "$DB" export 1 --format json --out "$TMP/one.json" || fail "export"
out=$("$T" sessions --db "$DB" import <(cat "$TMP/one.json") 2>"$TMP/note") && ok ||
    fail "import <(cat): $out $(cat "$TMP/note")"
case $out in "imported /dev/fd/"*" as session 2") ok ;; *) fail "import said: $out" ;; esac
# a FIFO with no writer: empty at once (the timeout only guards a hang)
expect_fail "FIFO with no writer" "ff: not a rwkv-tui session export \\(the file is empty\\)" \
    timeout 60 "$T" sessions --db "$DB" import "$TMP/ff"
# a device is still no input
expect_fail "device input" "/dev/zero: not a regular file \\(a character device\\)" \
    "$T" sessions --db "$DB" import /dev/zero

expect_fail "eval --text ''" "eval: --text is empty" "$T" eval --demo --text "" --out "$TMP/o"
"$T" eval --demo --text "" --out "$TMP/o" 2>/dev/null; rc=$?
[ $rc = 2 ] && ok || fail "eval --text '' exit $rc, generate --prompt '' exits 2"
"$T" generate --demo --prompt "" 2>/dev/null; rc=$?
[ $rc = 2 ] && ok || fail "generate --prompt '' exit $rc"
finish
