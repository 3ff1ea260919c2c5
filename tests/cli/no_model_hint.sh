#!/usr/bin/env bash
# tests/cli/no_model_hint.sh -- a launch without a model (`rwkv-tui`, `rwkv-tui
# chat`) whose session database holds saved sessions says so in a second
# line: how many, the latest's title, and that --resume continues it (a
# session knows its model).  Before, only "no model: give --model PATH",
# as if nothing had been saved.  The database is only looked at: no file
# made where there is none, none beside it, nothing written; no database,
# no session, or --no-db: the one line as before.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_STATE_HOME=$TMP/state
DB=$XDG_DATA_HOME/rwkv-tui/rwkv-tui.db

# no database: one line, and none made
"$T" </dev/null >/dev/null 2>"$TMP/err"
[ $? = 2 ] && [ "$(grep -c '' "$TMP/err")" = 1 ] && ok || fail "no database: $(cat "$TMP/err")"
[ ! -e "$DB" ] && [ ! -e "$XDG_DATA_HOME/rwkv-tui" ] && ok || fail "a database made by the look"

printf 'hello\n' | "$T" chat --demo --new 'first talk' --seed 1 --max-tokens 2 >/dev/null 2>&1
ls -a "$XDG_DATA_HOME/rwkv-tui" >"$TMP/files1"
sum=$(cksum <"$DB")
"$T" </dev/null >/dev/null 2>"$TMP/err"
[ $? = 2 ] && ok || fail "one session: exit status"
grep -qx "rwkv-tui: $DB holds a saved session, 'first talk': --resume continues it" "$TMP/err" &&
    ok || fail "one session: no hint: $(cat "$TMP/err")"
ls -a "$XDG_DATA_HOME/rwkv-tui" | cmp -s - "$TMP/files1" && [ "$(cksum <"$DB")" = "$sum" ] && ok ||
    fail "the look changed the folder: $(ls -a "$XDG_DATA_HOME/rwkv-tui")"

printf 'hi\n' | "$T" chat --demo --new 'second talk' --seed 1 --max-tokens 2 >/dev/null 2>&1
"$T" chat </dev/null >/dev/null 2>"$TMP/err"
[ $? = 2 ] && ok || fail "chat: exit status"
grep -qx "rwkv-tui: $DB holds 2 saved sessions: --resume continues the latest, 'second talk' (\`rwkv-tui sessions list\` lists them)" \
    "$TMP/err" && ok || fail "chat: no hint: $(cat "$TMP/err")"
# --db names another
"$T" --db "$TMP/none.db" </dev/null >/dev/null 2>"$TMP/err"
[ "$(grep -c '' "$TMP/err")" = 1 ] && [ ! -e "$TMP/none.db" ] && ok ||
    fail "--db without a file: $(cat "$TMP/err")"
# --no-db: nothing looked at
"$T" --no-db </dev/null >/dev/null 2>"$TMP/err"
[ "$(grep -c '' "$TMP/err")" = 1 ] && ok || fail "--no-db: $(cat "$TMP/err")"
finish
