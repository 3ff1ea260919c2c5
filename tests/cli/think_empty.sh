#!/usr/bin/env bash
# tests/cli/think_empty.sh -- `--think ""` is a usage error in the line chat
# and the full-screen client (one line naming the modes, exit 2, before any
# model is read), as an empty `think:` in the config file is refused at its
# line.  It used to be taken silently as "no mode".  A mode given is taken.
. "$(dirname "$0")/lib.sh"

pat="think.*'' is not off, on, short, long or skip"
rc_is 'chat --think ""' 2 "$pat" "$RWKV_TUI" chat --demo --think "" --db "$TMP/a.db"
rc_is 'client --think ""' 2 "$pat" "$RWKV_TUI" --demo --think "" --db "$TMP/b.db"
[ ! -e "$TMP/a.db" ] && [ ! -e "$TMP/b.db" ] && ok || fail "a refused line made a database"
out=$(printf 'hi\n' | "$RWKV_TUI" chat --demo --think skip --max-tokens 2 --db "$TMP/c.db" 2>&1) &&
    ok || fail "--think skip: $out"
finish
