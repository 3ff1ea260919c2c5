#!/usr/bin/env bash
# tests/cli/sessions_resume_target.sh -- `--resume` opens the session last
# chatted in, and `sessions list` lists the last chatted in first: opening
# an older session and leaving without a message, importing an export of
# one, or forking one is no chatting in it and changes neither; a message
# is.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/r.db

# resumed: the id --resume opens (from its "resumed session N" line)
resumed() {
    printf '/quit\n' | "$T" chat --demo --db "$D" --resume 2>&1 >/dev/null |
        sed -n 's/^resumed session \([0-9]*\):.*/\1/p'
}
# first: the id `sessions list` shows first
first() { "$T" sessions --db "$D" list | awk 'NR == 2 { print $1 }'; }

echo one | "$T" chat --demo --db "$D" --new one --seed 1 --max-tokens 4 >/dev/null 2>&1
sleep 0.01
echo two | "$T" chat --demo --db "$D" --new two --seed 1 --max-tokens 4 >/dev/null 2>&1
[ "$(resumed)" = 2 ] && ok || fail "the last chatted in: $(resumed)"
h=$("$T" sessions --db "$D" list | head -1)

# session 1 opened, left without a message
printf '/quit\n' | "$T" chat --demo --db "$D" --session 1 >/dev/null 2>"$TMP/err" && ok ||
    fail "open 1: $(cat "$TMP/err")"
[ "$(resumed)" = 2 ] && ok || fail "opening session 1 made it the --resume target"
[ "$(first)" = 2 ] && ok || fail "opening session 1 put it first: $("$T" sessions --db "$D" list)"

# an import of session 1, a fork of it
"$T" sessions --db "$D" export 1 --format json --out "$TMP/one.json" && ok || fail export
"$T" sessions --db "$D" import "$TMP/one.json" >/dev/null 2>"$TMP/err" && ok ||
    fail "import: $(cat "$TMP/err")"
[ "$(resumed)" = 2 ] && ok || fail "an import became the --resume target: $(resumed)"
"$T" sessions --db "$D" fork 1 3 >/dev/null 2>"$TMP/err" && ok || fail "fork: $(cat "$TMP/err")"
[ "$(resumed)" = 2 ] && ok || fail "a fork became the --resume target: $(resumed)"
[ "$(first)" = 2 ] && ok || fail "list: $("$T" sessions --db "$D" list)"
# the fork is listed right below the session it came from
"$T" sessions --db "$D" list | awk 'NR > 1 { printf "%s ", $1 }' | grep -q '^2 1 4 ' && ok ||
    fail "order: $("$T" sessions --db "$D" list)"

# a message in session 1 makes it the last chatted in
echo again | "$T" chat --demo --db "$D" --session 1 --max-tokens 4 >/dev/null 2>&1
[ "$(resumed)" = 1 ] && ok || fail "a message did not make session 1 the target: $(resumed)"
finish
