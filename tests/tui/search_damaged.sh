#!/usr/bin/env bash
# tests/tui/search_damaged.sh -- F2's search over a damaged text index (its
# pages overwritten): the index is rebuilt from the messages and the search
# answers, as `sessions search` does, and the rebuild is said once (the
# message log keeps it; the next key's search takes the menu's line).  It
# was an error before the rebuild from a blank index.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 4 --seed 3
type_text "hello apples"
send
wait_for 'Assistant' 10
type_text "zebra crossing"
send
tui_quit

# garbage over the FTS5 index's pages (the rest of the file intact)
damage() {
    ps=$(sqlite3 "$DB" 'pragma page_size')
    for t in turns_fts_data turns_fts_idx; do
        pg=$(sqlite3 "$DB" "select rootpage from sqlite_master where name='$t'")
        [ -n "$pg" ] && [ "$pg" -gt 0 ] || { fail "no table $t"; continue; }
        head -c 200 /dev/urandom | dd of="$DB" bs=1 seek=$(( (pg - 1) * ps + 8 )) conv=notrunc status=none
    done
}
damage
# the index is made from the messages: the search rebuilds it and answers
"$RWKV_TUI" sessions search zebra --db "$DB" >"$TMP/cli.out" 2>"$TMP/cli.err" && ok ||
    { fail "the CLI's search failed over a damaged index"; cat "$TMP/cli.err"; }
grep -q 'search index was damaged: rebuilt from the messages' "$TMP/cli.err" && ok ||
    { fail "the CLI's search did not say it rebuilt the index"; cat "$TMP/cli.err"; }
grep -q 'zebra' "$TMP/cli.out" && ok || fail "the CLI's search found nothing after the rebuild"
[ "$(sqlite3 "$DB" 'pragma integrity_check')" = ok ] && ok || fail "the file is not whole after the rebuild"

damage
tui_start --resume --max-tokens 4 --seed 3
keys F2
check "sessions menu" ' Sessions '
type_text "zebra"       # in the second message only (the title is the first)
check "the session found by its turn" 'hello apples +4 turns'
keys Escape
wait_for ' Sessions ' 1 && keys Escape
keys M-l
check "in the log once" 'search index was'
n=$(screen | grep -c 'search index was')
[ "$n" -eq 1 ] && ok || { fail "the rebuild logged $n times for one search typed key by key"; screen; }
keys Escape
tui_quit
tui_finish
