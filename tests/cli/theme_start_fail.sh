#!/usr/bin/env bash
# tests/cli/theme_start_fail.sh -- a full-screen start that fails (no
# model; a model that does not load) after a theme that did not load says
# the theme's problem as it is, not "...; using the default theme": nothing
# goes on, so nothing uses one.  Before, `rwkv-tui --theme DIR` with no
# model said "no model: ..." and then "...: not a regular file (a
# directory); using the default theme", exit 2.  A start that goes on
# still says it (tests/tui/theme.sh).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_STATE_HOME=$TMP/state
mkdir -p "$TMP/dir"

"$T" --theme "$TMP/dir" </dev/null >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" = 2 ] && ok || fail "no model: exit $rc, not 2"
grep -q '^rwkv-tui: no model: give --model PATH' "$TMP/err" && ok ||
    fail "no model: not said: $(cat "$TMP/err")"
grep -q 'using the default theme' "$TMP/err" && fail "no model: claims a default theme: $(cat "$TMP/err")" || ok
grep -q "^rwkv-tui: --theme: .*/dir: not a regular file (a directory)\$" "$TMP/err" && ok ||
    fail "no model: the theme's problem not said as it is: $(cat "$TMP/err")"
[ "$(grep -c '' "$TMP/err")" = 2 ] && ok || fail "no model: $(grep -c '' "$TMP/err") lines: $(cat "$TMP/err")"
# a model that does not load: the same
printf 'not a model' >"$TMP/m.pth"
"$T" --theme "$TMP/dir" --model "$TMP/m.pth" </dev/null >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" != 0 ] && [ "$rc" -lt 128 ] && ok || fail "bad model: exit $rc"
grep -q 'using the default theme' "$TMP/err" && fail "bad model: claims a default theme: $(cat "$TMP/err")" || ok
grep -q "dir.*not a regular file (a directory)" "$TMP/err" && ok ||
    fail "bad model: the theme's problem not said: $(cat "$TMP/err")"
# the config's theme: that setting named
mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"
printf 'theme: %s\n' "$TMP/dir" >"$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
"$T" </dev/null >"$TMP/out" 2>"$TMP/err"
grep -q "^rwkv-tui: theme: .*/dir: not a regular file (a directory)\$" "$TMP/err" &&
    ! grep -q 'using the default theme' "$TMP/err" && ok ||
    fail "config theme, no model: $(cat "$TMP/err")"
finish
