#!/usr/bin/env bash
# tests/cli/xdg_relative.sh -- $XDG_CONFIG_HOME follows the XDG rule every
# other XDG variable follows here (XDG_DATA_HOME, XDG_STATE_HOME,
# XDG_CACHE_HOME): a relative path is ignored, and ~/.config is used.  A
# relative one was taken from the current folder, so the config file and the
# themes changed with the folder rwkv-tui was started in.  The themes are
# looked up by name here (--theme NAME, the same folders as config.yaml's).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
mkdir -p "$TMP/cwd/rel/rwkv-tui/themes" "$TMP/home/.config/rwkv-tui/themes" "$TMP/abs/rwkv-tui/themes"
printf 'name: x\nroles:\n  user: { fg: cyan }\n' >"$TMP/cwd/rel/rwkv-tui/themes/inrel.yaml"
printf 'name: x\nroles:\n  user: { fg: cyan }\n' >"$TMP/home/.config/rwkv-tui/themes/inhome.yaml"
printf 'name: x\nroles:\n  user: { fg: cyan }\n' >"$TMP/abs/rwkv-tui/themes/inabs.yaml"
# run XDG_CONFIG_HOME THEME: generate with --theme THEME, from $TMP/cwd
run() {
    (cd "$TMP/cwd" && HOME=$TMP/home XDG_CONFIG_HOME=$1 timeout 60 \
        "$T" generate --demo --prompt hi --max-tokens 1 --seed 1 --theme "$2")
}
# a relative XDG_CONFIG_HOME: not a folder to look in; ~/.config is
expect_fail "relative XDG_CONFIG_HOME is ignored" \
    "^rwkv-tui: generate: --theme: theme 'inrel' not found .*$TMP/home/\.config/rwkv-tui/themes" \
    run rel inrel
run rel inhome >/dev/null 2>"$TMP/e" && ok || fail "relative XDG_CONFIG_HOME: ~/.config's theme: $(cat "$TMP/e")"
run ./rel inhome >/dev/null 2>"$TMP/e" && ok || fail "XDG_CONFIG_HOME=./rel: ~/.config's theme: $(cat "$TMP/e")"
# an absolute one, and an empty one, as before
run "$TMP/abs" inabs >/dev/null 2>"$TMP/e" && ok || fail "absolute XDG_CONFIG_HOME: $(cat "$TMP/e")"
expect_fail "absolute XDG_CONFIG_HOME: not ~/.config" "theme 'inhome' not found" run "$TMP/abs" inhome
run "" inhome >/dev/null 2>"$TMP/e" && ok || fail "empty XDG_CONFIG_HOME: ~/.config's theme: $(cat "$TMP/e")"
finish
