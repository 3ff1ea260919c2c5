#!/usr/bin/env bash
# tests/tui/chat_user.sh -- what a terminal-chat user expects of the
# full-screen client (issue 12's smaller items):
#   - F2 rows show the model, the state file and the session id;
#   - rename pre-fills the current title, refuses an empty one (the prompt
#     stays), and a title longer than STORE_TITLE_MAX - 1 bytes stops being
#     accepted as it is typed;
#   - range prompts show integers in full (seed [0..18446744073709551615]);
#   - the state-files and presets lists are sorted by name; importing the same file twice
#     is refused ("already in the library") and the library lists it once;
#   - Ctrl-Z suspends to the shell and `fg` brings the screen back;
#   - Ctrl-C while the model loads ends with one clear line (exit 130).
. "$(dirname "$0")/tmuxlib.sh"
q() { sqlite3 "$1" "$2" 2>/dev/null; }

mkdir -p "$TMP/states" "$XDG_CONFIG_HOME/rwkv-tui"
python3 "$(dirname "$0")/mkstate.py" "$TMP/states/mid.safetensors" 2 7 13 &&
python3 "$(dirname "$0")/mkstate.py" "$TMP/states/zeta.safetensors" 2 5 11 &&
python3 "$(dirname "$0")/mkstate.py" "$TMP/states/alpha.safetensors" 2 3 17 ||
    { echo "python3 needed"; echo "0 passed, 1 failed"; exit 1; }
printf 'state_dir: %s\n' "$TMP/states" > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"

# --- sorted state files; import twice ----------------------------------------
tui_start --max-tokens 4 --seed 2
keys F3
check "state menu" 'State files'
order=$(screen | grep -oE '(alpha|mid|zeta)\.safetensors' | tr '\n' ' ')
[ "$order" = "alpha.safetensors mid.safetensors zeta.safetensors " ] && ok ||
    fail "state files not sorted by name: $order"
# the search matches a row's folder too: "mid.s", not "mid", which a
# random temp dir's name can hold (it did: every row matched)
type_text "mid.s"
keys C-s
check "imported" 'library, imported'
keys C-u
type_text "mid.s"
keys End
keys C-s
check "second import refused" 'already in the library'
[ "$(q "$DB" 'select count(*) from state_files')" = 1 ] && ok ||
    fail "library rows: $(q "$DB" 'select id,name from state_files')"
keys Escape

# F1 help lists the new keys (typing filters the list)
keys F1
check "help" 'Help: every key'
type_text "suspend"
check "help: C-z" 'C-z +suspend'
keys BSpace BSpace BSpace BSpace BSpace BSpace BSpace
type_text "persona"
check "help: C-w in the state files" 'State files: C-w +save the current state as a state file'
keys Escape
check_not "help closed" 'Help: every key'

# presets sorted by name, built-ins among them
for name in zzz aaa; do
    keys F4
    check "presets menu" 'Presets'
    keys C-s
    check "preset name prompt" 'save preset as:'
    type_text "$name"
    keys Enter
    check "preset $name saved" "preset '$name' saved"
done
keys F4
check "presets listed" 'zzz'
order=$(screen | grep -oE '│ +(aaa|demo|state|user|zzz) ' | awk '{print $2}' | tr '\n' ' ')
[ "$order" = "aaa demo state user zzz " ] && ok || fail "presets not sorted by name: '$order'"
keys Escape
check_not "presets closed" ' Presets '   # (an Esc followed at once by F3 is Alt-F3)

# --- a session from a state file: F2 shows model, state file, id --------------
keys F3
type_text "alpha"
keys Enter
check "state in use" 'state: alpha\.safetensors'
type_text "hello there"
send
keys F2
check "F2 row: model, state file and id" 'hello there +[0-9]+ turns +#1 +[0-9-]+ [0-9:]+ +(\(open\) +)?\(demo\) +state alpha\.safetensors'
# --- rename --------------------------------------------------------------------
keys C-r
check "rename pre-fills the current title" 'new title: hello there'
keys C-u Enter
check "empty title refused" 'a title cannot be empty'
check "prompt stays open" 'new title:'
type_text "$(printf 'x%.0s' $(seq 300))"
check "long title stops as typed" 'a title holds at most 255 bytes'
keys Enter
check "renamed (menu back)" 'x{60}'
# (the word "session:" is the first the status line drops short of room,
# and how much room is left depends on the decode speed's digits, "decode
# 9524.4" or "decode 10524.4": the title itself is what is checked)
check "status shows the new title" '\| (session: )?x{10}'
[ "$(q "$DB" 'select length(title) from sessions where id=1')" = 255 ] && ok ||
    fail "title length $(q "$DB" 'select length(title) from sessions where id=1')"
keys Escape
check_not "menu closed" ' Sessions '    # (an Esc followed at once by Tab is Alt-Tab)

# --- range prompt of the seed --------------------------------------------------
keys Tab
for i in $(seq 12); do keys Down; done
keys Enter
check "seed range in full" 'seed \[0\.\.18446744073709551615\]'
check_not "no scientific notation" '1\.84467e\+19'
keys Escape
check_not "seed prompt closed" 'seed \[0'   # (Esc then F10 at once is Alt-F10)
tui_quit

# --- Ctrl-Z and fg (an interactive shell in the pane) --------------------------
RUNS=$((RUNS + 1))
shell_start
# (alone on its line: a stopped job would let the shell run the rest of a list)
type_text "XDG_CONFIG_HOME='$XDG_CONFIG_HOME' '$RWKV_TUI' --demo --db '$DB' 2>'$TMP/stderr.$RUNS'"
keys Enter
check "started" 'F1 help'
wait_idle
keys C-z
check "suspended to the shell" 'Stopped'
check "shell prompt back" 'SHELL\$ *$'
type_text "fg"
keys Enter
check "redrawn after fg" 'F1 help'
check "status line back" 'DEMO MODEL'
type_text "after resume"
check "keys work after resume" '> after resume'
keys F10
check "back at the shell" 'SHELL\$ *$'
type_text 'echo EXIT=$?'
keys Enter
check "quit after resume" 'EXIT=0'

# --- Ctrl-C while the model loads ------------------------------------------------
if "$RWKV_TUI" bench --shape 0.1b --save "$TMP/big.pth" --threads 2 >/dev/null 2>&1 &&
   [ -e "$FX/rwkv_vocab_v20230424.txt" ]; then
    RUNS=$((RUNS + 1))
    tmx_fresh "env XDG_CONFIG_HOME='$XDG_CONFIG_HOME' LANG=C.UTF-8 '$RWKV_TUI' --model '$TMP/big.pth' \
              --vocab '$FX/rwkv_vocab_v20230424.txt' --strategy 'cpu fp32' --no-db \
              2>'$TMP/stderr.$RUNS'; echo EXIT=\$?; sleep 600"
    if wait_for 'loading|opening' 10; then
        keys C-c
        if wait_for 'EXIT=' 20; then
            if screen | grep -q 'EXIT=130'; then ok; else
                if screen | grep -q 'F1 help'; then skip 2 "(2) the load ended before Ctrl-C"
                else fail "Ctrl-C while loading: $(screen | grep EXIT=)"; fi
            fi
            grep -q 'interrupted while loading' "$TMP/stderr.$RUNS" && ok ||
                { screen | grep -q 'EXIT=130' && fail "no clear line: $(cat "$TMP/stderr.$RUNS")"; }
        else
            screen | grep -q 'F1 help' && skip 2 "(2) the load ended before Ctrl-C" ||
                fail "Ctrl-C while loading: no exit"
        fi
    else
        skip 2 "(2) the load ended before it could be interrupted"
    fi
    # a message typed and sent while the model loads, then Ctrl-C: never
    # read as keys, it was lost; it is the history's draft, back at the next
    # start (not under --no-db, above: that keeps nothing)
    RUNS=$((RUNS + 1))
    hist=$XDG_STATE_HOME/rwkv-tui/history
    tmx_fresh "env XDG_CONFIG_HOME='$XDG_CONFIG_HOME' XDG_STATE_HOME='$XDG_STATE_HOME' LANG=C.UTF-8 \
              '$RWKV_TUI' --model '$TMP/big.pth' --vocab '$FX/rwkv_vocab_v20230424.txt' \
              --strategy 'cpu fp32' --db '$TMP/load.db' 2>'$TMP/stderr.$RUNS'; echo EXIT=\$?; sleep 600"
    if wait_for 'loading|opening' 10; then
        type_text "typed while loading"
        keys Enter C-c
        wait_for 'EXIT=' 20
        if screen | grep -q 'EXIT=130'; then
            grep -qx 'd typed while loading' "$hist" 2>/dev/null && ok ||
                fail "the message typed while loading is not the history's draft: $(tail -2 "$hist" 2>&1)"
            grep -q 'interrupted while loading .*what you typed is kept: Up brings it back' \
                "$TMP/stderr.$RUNS" && ok || fail "not said: $(cat "$TMP/stderr.$RUNS")"
        else
            skip 2 "(2) the load ended before Ctrl-C"
        fi
    else
        skip 2 "(2) the load ended before it could be interrupted"
    fi
    rm -f "$TMP/big.pth"
else
    skip 4 "(4) no 0.1b model file or no World vocabulary"
fi
tui_finish
