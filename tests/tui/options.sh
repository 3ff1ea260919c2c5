#!/usr/bin/env bash
# tests/tui/options.sh -- the client's command line: --help, bad options and
# bad inputs give one clear stderr line and a non-zero exit; --max-frames
# ends a run by itself (the switch sanitizer runs use).
. "$(dirname "$0")/tmuxlib.sh"

out=$("$RWKV_TUI" --help-ui 2>&1); rc=$?
if [ $rc = 0 ] && printf '%s' "$out" | grep -q -- '--max-frames' && printf '%s' "$out" | grep -q -- '--theme'; then
    ok; else fail "--help-ui: rc $rc"; fi
expect_fail "unknown option" "unknown option '--bogus'" "$RWKV_TUI" --bogus
expect_fail "max-frames 0" "^rwkv-tui: option --max-frames: '0' is not an integer" "$RWKV_TUI" --demo --max-frames 0
expect_fail "bad --session" "^rwkv-tui: option --session: 'x' is not an integer" "$RWKV_TUI" --session x
expect_fail "no model" "no model.*--demo" env XDG_CONFIG_HOME="$TMP/none" "$RWKV_TUI" --db "$TMP/x.db"
expect_fail "missing model file" "nonexistent" "$RWKV_TUI" --model "$TMP/nonexistent.pth" --vocab x --db "$TMP/x.db"
expect_fail "not a terminal" "needs a terminal" "$RWKV_TUI" --demo --db "$TMP/x.db"
expect_fail "missing --config" "nope\.yaml" sh -c "'$RWKV_TUI' --demo --no-db --config '$TMP/nope.yaml' --max-frames 1 </dev/null >/dev/null"

# a terminal type curses cannot use: one line, no curses exit message
TUI_ENV="TERM=no-such-terminal" tui_start
check "unknown TERM: exit 1" '^EXIT=1'
if [ "$(grep -c '' "$TMP/stderr.$RUNS")" = 1 ] &&
   grep -q "cannot use terminal type 'no-such-terminal'; for line mode use 'rwkv-tui chat'" "$TMP/stderr.$RUNS"; then ok; else
    fail "unknown TERM: stderr: $(cat "$TMP/stderr.$RUNS")"; fi

# a terminal without cursor addressing (dumb) is refused the
# same way, pointing to the line-mode chat
for T in dumb; do
    TUI_ENV="TERM=$T" tui_start
    check "TERM=$T: exit 1" '^EXIT=1'
    if [ "$(grep -c '' "$TMP/stderr.$RUNS")" = 1 ] &&
       grep -q "cannot use terminal type '$T'; for line mode use 'rwkv-tui chat'" "$TMP/stderr.$RUNS"; then ok; else
        fail "TERM=$T: stderr: $(cat "$TMP/stderr.$RUNS")"; fi
done

# SIGTERM ends the program cleanly (terminal restored), then by the signal
NODEMO=1 tui_start --demo --no-db
pid=$(pgrep -P "$(tmx list-panes -F '#{pane_pid}' | head -1)" | head -1)
if [ -n "$pid" ]; then kill -TERM "$pid"; ok; else fail "no pid"; fi
check "SIGTERM: restored, ended by the signal (as the line chat)" '^EXIT=143'

# --max-frames: the program draws N frames and exits 0 on its own
NODEMO=1 tui_start --demo --max-frames 3 --no-db
check "max-frames run ends cleanly" '^EXIT=0'
tui_finish
