#!/usr/bin/env bash
# tests/tui/nosample_regen.sh -- the client: C-r when no token can be
# sampled (every token banned) says why and keeps nothing: no empty
# interrupted reply is saved beside the message for each try, and the
# message keeps the one reply it had (the runtime's rule, as the line
# chat's /regen: tests/cli/nosample_no_reply.sh).  The demo model, a saved
# session.
. "$(dirname "$0")/tmuxlib.sh"

rows() { sql_rows "$DB" "SELECT count(*) FROM turns WHERE role=2" 2>/dev/null; }

W=100 H=30 tui_start --ban "$(seq -s, 0 255)"
type_text hi
send
check "the send says why" 'no token can be sampled'
[ "$(rows)" = 1 ] && ok || fail "after the send: $(rows) replies saved"
for k in 1 2; do
    keys C-r
    sleep 0.5
    wait_idle
    check "C-r $k says why" 'no token can be sampled'
done
sleep 0.5
[ "$(rows)" = 1 ] && ok || fail "after two C-r: $(rows) replies saved (empty ones kept)"
out=$("$RWKV_TUI" sessions --db "$DB" show 1 2>&1)
printf '%s\n' "$out" | grep -q 'branches\]' && fail "branches of empty replies: $out" || ok
tui_quit
tui_finish
