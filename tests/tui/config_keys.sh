#!/usr/bin/env bash
# tests/tui/config_keys.sh -- values of the config file that were taken
# unchecked, or checked only when used, in a real terminal (tmux):
#   - a key that types a character bound to an action ("quit: q",
#     presets: "x") made that letter untypable: typing "a quick question"
#     quit the client, an 'x' opened F4.  It is refused at load, reported
#     as FILE:LINE:COLUMN with what to bind instead, and the action keeps its
#     default key; M- takes any character, M-ü too;
#   - a bad `strategy:` stopped the client with exit 1 and a line that named
#     neither the file nor the line; it is reported at its line and the
#     default used, the client up.  A model path from the file that cannot
#     be opened stops the client as --model does, its line naming where the
#     path was set;
#   - the footer measured a key name in bytes (M-ü: 4), so a hint went
#     missing at a width where all of them fit;
#   - a 2000-byte stop string was said to be "longer than 1023 bytes"; the
#     limit is 64;
#   - a key the file binds that is another action's default ("prev_branch:
#     M-p" once M-p became prev_message's) was refused as an error: the
#     file's key wins, an info line says which action lost it, and F1 and
#     the footer show the keys in force (quit keeps C-q).
. "$(dirname "$0")/tmuxlib.sh"

# typing keys: refused, reported, the letters typed
cat >"$TMP/keys.yaml" <<'EOF'
keys:
  quit: q
  presets: "x"
  states: "M-ü"
EOF
W=200 H=40 tui_start --config "$TMP/keys.yaml"
check "quit: q reported with file:line:column" \
    "keys\\.yaml:2:9: field 'quit' in 'keys': 'q' types a character: bind M-q, C-q or an F-key; 'quit' keeps F10"
check "presets: x reported" \
    "keys\\.yaml:3:12: field 'presets' in 'keys': 'x' types a character: bind M-x, C-x or an F-key; 'presets' keeps F4"
type_text "a quick question about xylophones"
check "q and x are typed into the box" '^> a quick question about xylophones'
check_not "no menu opened by x" 'search:' 1
keys C-u
check_not "no states menu yet" 'State files' 1
keys M-ü
check "M-ü opens the states menu" 'State files' 5
keys Escape
sleep 0.5
tui_quit

# the footer measures a key by its cells: M-ü is 3 columns, not 4 bytes, so
# at the width of the whole footer every hint is there (the last one went)
W=200 H=40 tui_start --config "$TMP/keys.yaml"
check "footer: M-ü states" 'M-ü states'
foot=$(screen | grep 'M-ü states' | tail -1 | sed 's/ *$//')
fw=$(printf '%s' "$foot" | python3 -c 'import sys; print(len(sys.stdin.read()))')
tui_quit
W=$fw H=24 tui_start --config "$TMP/keys.yaml"
check "footer at its own width ($fw columns): every hint" 'M-ü states .*F7 sidebar.*F10 quit$'
tui_quit

# a bad strategy: reported at its line, the default used, the client up
printf 'theme: dark\nstrategy: cpu fp23\n' >"$TMP/strat.yaml"
W=200 H=40 tui_start --config "$TMP/strat.yaml"
check "bad strategy: the client is up" 'F1 help'
check "bad strategy: reported at its line" \
    "strat\\.yaml:2:11: field 'strategy': invalid strategy 'cpu fp23': unknown dtype 'fp23'"
tui_quit

# a model from the file that cannot be opened: as --model, exit 1, naming the line
printf 'theme: dark\nmodel: %s/none.pth\n' "$TMP" >"$TMP/model.yaml"
NODEMO=1 NOWAIT=1 tui_start --db "$DB" --config "$TMP/model.yaml"
check "missing model: exit 1" '^EXIT=1' 10
if grep -q "none\\.pth: cannot open: .*(model: from $TMP/model\\.yaml:2:8)\$" "$TMP/stderr.$RUNS"; then
    ok
else
    fail "missing model: stderr does not name the config line: $(cat "$TMP/stderr.$RUNS")"
fi
# the file's other problems are said too when the start fails (they went
# to the transcript, never shown)
printf 'keys:\n  quit: q\nmodel: %s\n' "$TMP/none.pth" >"$TMP/model2.yaml"
"$RWKV_TUI" --db "$DB" --config "$TMP/model2.yaml" </dev/null >/dev/null 2>"$TMP/m2.err" &&
    fail "a missing model started"
grep -q "model2\.yaml:2:9: field 'quit' in 'keys': 'q' types a character" "$TMP/m2.err" && ok ||
    fail "a failed start hid the config's problems: $(cat "$TMP/m2.err")"

# a 2000-byte stop string: the real limit
python3 -c "open('$TMP/stop.yaml','w').write('stop: \"%s\"\n' % ('y'*2000))"
W=200 H=40 tui_start --config "$TMP/stop.yaml"
check "long stop: the 64-byte limit" "stop\\.yaml:1:7: field 'stop': a stop string must have 1\\.\\.64 bytes"
check_not "long stop: no 1023-byte limit" '1023 bytes' 1
tui_quit

# a file's key beats another action's default: no error, one info line each
printf 'keys:\n  prev_branch: M-p\n  stats: F10\n' >"$TMP/beat.yaml"
W=200 H=50 tui_start --config "$TMP/beat.yaml"
check "beat: info line for prev_message" \
    '^  M-p: prev_branch \(your config\) replaces the default of prev_message, which now has no key'
check "beat: info line for quit" \
    '^  F10: stats \(your config\) replaces the default of quit, which keeps C-q'
check_not "beat: no error" "already bound|beat\.yaml:" 1
check "beat: the footer shows quit's key in force" 'C-r regen  C-q quit *$'
check_not "beat: no keyless hint in the footer" ' - quit' 1
keys F1
check "beat: F1 lists M-p for prev_branch" '│  M-p +previous sibling of the last reply'
check "beat: F1 lists F10 for stats" '│  F10 +show or hide per-turn stats'
check "beat: F1 lists prev_message with no key" '│  - +previous message: its header'
keys Escape
sleep 0.3
keys C-q
if wait_exit 0 30; then ok; else fail "beat: C-q did not quit"; fi
tui_finish
