#!/usr/bin/env bash
# tests/cli/theme_builtin.sh -- the shipped themes are built into the binary
# (themes/themes2c.py, tui/theme.c): a copy of it in an empty folder, with no
# themes/ beside it, finds `--theme mono|dark|light`; a file of the same name
# in the user's folder still wins; a name found nowhere says every folder
# looked in and the names built in.
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/bin" "$TMP/home/.config"
cp "$RWKV_TUI" "$TMP/bin/rwkv-tui"
T=$TMP/bin/rwkv-tui
export HOME=$TMP/home XDG_CONFIG_HOME=$TMP/home/.config

for t in mono dark light default; do
    "$T" info --demo --theme "$t" >/dev/null 2>"$TMP/err" && ok ||
        fail "--theme $t from a copied binary: $(cat "$TMP/err")"
done
# the user's file of the same name first: a broken one is the one reported
mkdir -p "$XDG_CONFIG_HOME/rwkv-tui/themes"
printf 'name: mono\nroles:\n  user: { fg: purpel }\n' >"$XDG_CONFIG_HOME/rwkv-tui/themes/mono.yaml"
expect_fail "the user's mono.yaml wins" "rwkv-tui/themes/mono.yaml:3: .*purpel" \
    "$T" info --demo --theme mono
rm "$XDG_CONFIG_HOME/rwkv-tui/themes/mono.yaml"
expect_fail "not found: every folder" \
    "theme 'nosuch' not found \\(looked in $XDG_CONFIG_HOME/rwkv-tui/themes, $TMP/bin/themes, .*/usr/share/rwkv-tui/themes; built in: dark, default, light, mono\\)" \
    "$T" info --demo --theme nosuch
finish
