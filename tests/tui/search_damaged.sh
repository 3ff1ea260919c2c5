#!/usr/bin/env bash
# tests/tui/search_damaged.sh -- F2's search over a damaged text index: the
# database's error is said in the footer (and the log), as `sessions search`
# says it, not shown as "(no match)".
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 4 --seed 3
type_text "hello apples"
send
tui_quit

# garbage over the FTS5 index's pages (the rest of the file intact)
ps=$(sqlite3 "$DB" 'pragma page_size')
for t in turns_fts_data turns_fts_idx; do
    pg=$(sqlite3 "$DB" "select rootpage from sqlite_master where name='$t'")
    [ -n "$pg" ] && [ "$pg" -gt 0 ] || { fail "no table $t"; continue; }
    head -c 200 /dev/urandom | dd of="$DB" bs=1 seek=$(( (pg - 1) * ps + 8 )) conv=notrunc status=none
done
"$RWKV_TUI" sessions search hello --db "$DB" >"$TMP/cli.out" 2>"$TMP/cli.err" && fail "the CLI's search passed" || ok

tui_start --resume --max-tokens 4 --seed 3
keys F2
check "sessions menu" ' Sessions '
type_text "hello"
check "the search's error is said" 'search: .*(malformed|vtable|corrupt)'
keys Escape
wait_for ' Sessions ' 1 && keys Escape
keys M-l
check "in the log once" 'error: search: '
n=$(screen | grep -c 'error: search: ')
[ "$n" -eq 1 ] && ok || { fail "the error logged $n times for one search typed key by key"; screen; }
keys Escape
tui_quit
tui_finish
