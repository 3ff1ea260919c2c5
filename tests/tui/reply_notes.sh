#!/usr/bin/env bash
# tests/tui/reply_notes.sh -- what the client says about a reply:
# - the first reply of a new session cut at max tokens says so in the log
#   (M-l: "new session 1: ..." then the max-tokens note; the footer keeps
#   the session's note); it said only "new session 1";
# - F9's stats of a regenerated reply (no prefill: it starts from the
#   prompt's saved state) leave the prefill out, not "prefill 0 tok/s";
# - F6 shows a reply without its stored leading space ("RWKV: x", not
#   "RWKV:  x"), as the transcript does;
# - F3 C-w's notice names F3 (it outlives the menu) and says Enter only
#   where the file is listed.
. "$(dirname "$0")/tmuxlib.sh"
export XDG_DATA_HOME=$TMP/data
TUI_ENV="XDG_DATA_HOME='$XDG_DATA_HOME'"

tui_start --max-tokens 5 --seed 3
type_text "first"
send
check "footer: the session's note" 'new session 1: first'
keys M-l
check "log: the new session" 'new session 1: first'
check "log: the max-tokens note" '[0-9]  reply stopped at max tokens: M-r continues it'
keys Escape
sleep 0.3

# F9 on a regenerated reply
keys F9
keys C-r
wait_idle
check "regen: the stats shown" '^RWKV .*\(decode [0-9.]+ tok/s, max tokens\) +5 tok'
check_not "regen: no prefill 0 tok/s" 'prefill 0 tok/s'
keys F9

# F3 C-w: in the states folder (listed, selected) and outside it
keys F3
check "state menu" 'State files'
keys C-w
check "save prompt" 'save the current state as'
keys Enter
check "saved, listed: F3 named" 'state saved to .*first\.pth \(in F3, Enter starts from it; --state loads it\)'
keys C-w
check "save prompt again" 'save the current state as'
keys C-u
type_text "$TMP/x.pth"
keys Enter
check "saved outside: no Enter promised" 'state saved to .*/x\.pth \(not listed in F3; --state loads it\)'
[ -f "$TMP/x.pth" ] && ok || fail "no $TMP/x.pth"
keys Escape
tui_quit

# F6: a reply's stored leading space (" at tos": it follows "Assistant:")
# is not shown, as in the transcript.  A saved session whose reply holds
# one: the line chat's, its export edited, imported.
printf 'hello\n' | "$RWKV_TUI" chat --demo --db "$DB" --max-tokens 4 --seed 1 >/dev/null 2>&1 ||
    fail "line chat"
"$RWKV_TUI" sessions --db "$DB" export 2 --format json >"$TMP/s.json" || fail "export"
python3 - "$TMP/s.json" <<'PY' || fail "edit the export"
import json, sys
p = sys.argv[1]
d = json.load(open(p))
for t in d["turns"]:
    if t["role"] == "assistant":
        t["text"] = " at tos"
        t["tokens"] = list(t["text"].encode())
json.dump(d, open(p, "w"))
PY
"$RWKV_TUI" sessions --db "$DB" import "$TMP/s.json" >/dev/null || fail "import"
tui_start --session 3
check "resumed the edited session" '^  at tos'
keys F6
check "branches menu" 'Branches: the whole tree'
check "the reply without its leading space" 'RWKV: at tos'
check_not "no double space after RWKV:" 'RWKV:  at tos'
keys Escape
tui_quit
tui_finish
