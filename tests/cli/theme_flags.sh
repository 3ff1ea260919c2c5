#!/usr/bin/env bash
# tests/cli/theme_flags.sh -- a theme's style flags are true or false
# (YAML 1.2's words): libcyaml's bool took any word but false/no/off as
# true, so "bold: banana" drew bold, in silence.  Now it is refused at its
# line as any other theme mistake (the commands exit 2; the client falls
# back to the default theme and says why).
. "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/cfg/rwkv-tui/themes"
bad() {   # bad NAME CONTENT WANT
    printf "$2" >"$TMP/cfg/rwkv-tui/themes/$1.yaml"
    XDG_CONFIG_HOME=$TMP/cfg "$RWKV_TUI" chat --theme "$1" --demo --db "$TMP/t.db" </dev/null \
        >/dev/null 2>"$TMP/terr"
    rc=$?
    [ $rc = 2 ] && grep -qx "rwkv-tui: chat: --theme: $TMP/cfg/rwkv-tui/themes/$3" "$TMP/terr" && ok ||
        fail "$1: exit $rc: $(cat "$TMP/terr")"
}
bad b 'roles:\n  user: { fg: red, bold: banana }\n' \
    "b.yaml:2: field 'bold' in 'user': 'banana' is not true or false"
bad d 'roles:\n  error:\n    fg: cyan\n    dim: 2\n' "d.yaml:4: field 'dim' in 'error': '2' is not true or false"
bad e 'roles:\n  info:\n    italic:\n' "e.yaml:3: field 'italic' in 'info': '' is not true or false"
bad y 'roles:\n  user: { reverse: yes }\n' "y.yaml:2: field 'reverse' in 'user': 'yes' is not true or false"
printf 'roles:\n  user: { fg: red, bold: True, dim: false, italic: TRUE }\n' >"$TMP/cfg/rwkv-tui/themes/g.yaml"
XDG_CONFIG_HOME=$TMP/cfg "$RWKV_TUI" chat --theme g --demo --db "$TMP/t.db" </dev/null \
    >/dev/null 2>"$TMP/terr" && ok || fail "true/false refused: $(cat "$TMP/terr")"
# every shipped theme still loads
for t in themes/*.yaml; do
    "$RWKV_TUI" chat --theme "$PWD/$t" --demo --db "$TMP/t.db" </dev/null >/dev/null 2>"$TMP/terr" &&
        ok || fail "$t: $(cat "$TMP/terr")"
done
finish
