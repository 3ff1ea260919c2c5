#!/usr/bin/env bash
# tests/tui/status_speed_branch.sh -- the status line's speeds are those of
# the last reply shown: after M-, / M-. to a sibling reply, and after a
# resume, the shown reply's saved speeds, not the last generated one's.
. "$(dirname "$0")/tmuxlib.sh"

# "decode N tok/s" of the status line (the screen's first line)
status_decode() { screen | head -n 1 | grep -o 'decode [0-9.]* tok/s' | head -n 1; }
# the same text from the saved speed of reply turn $1
saved_decode() {
    python3 - "$DB" "$1" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
r = c.execute("SELECT decode_tps FROM turns WHERE id=?", (int(sys.argv[2]),)).fetchone()
print("decode %.1f tok/s" % r[0])
PY
}
# ids of the assistant turns, oldest first
replies() {
    python3 - "$DB" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(" ".join(str(r[0]) for r in c.execute("SELECT id FROM turns WHERE role=2 ORDER BY id")))
PY
}
# poll until the status line says $1 (speeds are drawn with the next frame)
status_is() {
    local want=$1 i
    for i in $(seq 1 100); do
        [ "$(status_decode)" = "$want" ] && return 0
        sleep 0.1
    done
    return 1
}

tui_start --max-tokens 24 --seed 5
type_text "alpha"
send
check "first reply" '^RWKV'
wait_idle
keys C-r
check "regenerated reply is sibling 2 of 2" '^RWKV  < 2/2 >'
wait_idle
read -r r1 r2 <<<"$(replies)"
s1=$(saved_decode "$r1")
s2=$(saved_decode "$r2")
echo "# reply $r1: $s1; reply $r2: $s2; status: $(status_decode)"
if [ "$s1" = "$s2" ]; then
    skip "both replies were saved with the same decode speed ($s1): nothing to tell apart"
else
    keys M-,
    check "previous sibling" '^RWKV  < 1/2 >'
    if status_is "$s1"; then ok "after M-, the status line has reply 1's speed ($s1)"
    else fail "after M-, the status line says '$(status_decode)', reply 1 was saved with '$s1'"; fi
    keys M-.
    check "next sibling" '^RWKV  < 2/2 >'
    if status_is "$s2"; then ok "after M-. the status line has reply 2's speed ($s2)"
    else fail "after M-. the status line says '$(status_decode)', reply 2 was saved with '$s2'"; fi
    keys M-,
    check "previous sibling again" '^RWKV  < 1/2 >'
    tui_quit
    # a resume shows the resumed branch's last reply's speed
    tui_start --max-tokens 24
    keys F2 Enter
    check "resumed on the first reply" '^RWKV  < 1/2 >'
    if status_is "$s1"; then ok "after a resume the status line has the shown reply's speed ($s1)"
    else fail "after a resume the status line says '$(status_decode)', the shown reply was saved with '$s1'"; fi
fi
tui_quit
tui_finish
