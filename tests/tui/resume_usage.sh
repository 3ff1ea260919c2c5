#!/usr/bin/env bash
# tests/tui/resume_usage.sh -- the client's --resume / --session exit
# statuses, by the command-line contract (rwkv-tui(1), EXIT STATUS: 1 a
# runtime error, 2 a usage error).  --resume or --session with --no-db is a
# usage error: the options contradict each other, whatever is on disk, so
# it is found before any file is read, as --resume with --session is (it
# was found after the config file: a missing --config was named instead).
# No session to resume (an empty or missing database, an unknown id) is a
# runtime failure, exit 1, as for `chat --resume`; nothing is created.
. "$(dirname "$0")/../cli/lib.sh"

export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_STATE_HOME=$TMP/state
rc_is "--resume --no-db" 2 'rwkv-tui: --resume needs the session database \(not --no-db\)' \
    "$RWKV_TUI" --resume --no-db
rc_is "--session 3 --no-db" 2 'rwkv-tui: --session needs the session database \(not --no-db\)' \
    "$RWKV_TUI" --session 3 --no-db
# the usage error before any file: a missing config is not what is named
rc_is "--resume --no-db --config missing" 2 '--resume needs the session database' \
    "$RWKV_TUI" --resume --no-db --config "$TMP/missing.yaml"
rc_is "--resume --session 3 --config missing" 2 'use one of --resume and --session ID' \
    "$RWKV_TUI" --resume --session 3 --config "$TMP/missing.yaml"
# no session to open: a runtime failure
rc_is "--resume, no database" 1 '--resume: no saved sessions \(.*does not exist\)' \
    "$RWKV_TUI" --resume --db "$TMP/none.db"
[ ! -e "$TMP/none.db" ] && ok || fail "--resume created $TMP/none.db"
printf 'hi\n' | "$RWKV_TUI" chat --demo --db "$TMP/e.db" --max-tokens 2 >/dev/null 2>&1
"$RWKV_TUI" sessions --db "$TMP/e.db" rm 1 >/dev/null 2>&1
rc_is "--resume, an empty database" 1 '--resume: no saved sessions in .*e\.db' \
    "$RWKV_TUI" --resume --db "$TMP/e.db"
rc_is "--session 7, not in the database" 1 'e\.db: no session 7' \
    "$RWKV_TUI" --session 7 --db "$TMP/e.db"
rc_is "chat --resume, an empty database (the same)" 1 'chat: --resume: no saved sessions in' \
    "$RWKV_TUI" chat --resume --db "$TMP/e.db"
finish
