#!/usr/bin/env bash
# tests/cli/nodb_with_db.sh -- the full-screen client's --no-db with --db
# PATH contradict each other (a database named, none wanted): a usage
# error, exit 2, one line, found before any file is read, as --no-db with
# --resume or --session is (tests/tui/resume_usage.sh).  Before, it was
# accepted and nothing was saved to the database named.  The line chat has
# no --no-db (without --db, --new, --session or --resume it saves nothing):
# the option stays unknown there.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_STATE_HOME=$TMP/state

said='^rwkv-tui: --db names the session database \(not with --no-db, which saves nothing\)$'
rc_is "--demo --no-db --db" 2 "$said" "$T" --demo --no-db --db "$TMP/x.db"
rc_is "--db before --no-db" 2 "$said" "$T" --db "$TMP/x.db" --no-db --demo
# before any file: a missing config or model is not what is named
rc_is "--no-db --db --config missing" 2 "$said" \
    "$T" --no-db --db "$TMP/x.db" --config "$TMP/missing.yaml"
rc_is "--no-db --db, no model" 2 "$said" "$T" --no-db --db "$TMP/x.db"
[ ! -e "$TMP/x.db" ] && ok || fail "a database was made at $TMP/x.db"
# the --resume one is said as before (it comes first)
rc_is "--resume --no-db --db" 2 '^rwkv-tui: --resume needs the session database \(not --no-db\)$' \
    "$T" --resume --no-db --db "$TMP/x.db"
# each alone is still taken (no terminal: the client's own refusal, not a usage line)
"$T" --demo --no-db </dev/null >/dev/null 2>"$TMP/err"
grep -q 'names the session database' "$TMP/err" && fail "--no-db alone refused" || ok
"$T" --demo --db "$TMP/y.db" </dev/null >/dev/null 2>"$TMP/err"
grep -q 'names the session database' "$TMP/err" && fail "--db alone refused" || ok
# the line chat has no --no-db
rc_is "chat --no-db" 2 "chat: unknown option '--no-db'" "$T" chat --demo --no-db --db "$TMP/x.db"
finish
