#!/usr/bin/env bash
# tests/cli/yaml_end_line.sh -- a YAML syntax error libyaml notices only at
# the end of the file (an unclosed "[" on the last line) was reported at the
# line after the last, one the file does not have ("t.yaml:4:" for a file
# of 3 lines).  Now it names the last line and says it is the end of the
# file (tui/yamlerr.c).  `info --theme`, on the demo model.
. "$(dirname "$0")/lib.sh"
export XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/config HOME=$TMP/home
mkdir -p "$TMP/home"

# with and without a newline at the end: both 3 lines
printf 'name: broken\nroles:\n  user: [ fg\n' >"$TMP/nl.yaml"
printf 'name: broken\nroles:\n  user: [ fg' >"$TMP/nonl.yaml"
for f in nl nonl; do
    timeout 60 "$RWKV_TUI" info --demo --theme "$TMP/$f.yaml" >/dev/null 2>"$TMP/$f.err"
    grep -q "$f\.yaml:4:" "$TMP/$f.err" && fail "$f: a line 4 named: $(cat "$TMP/$f.err")" || ok
    grep -qE "$f\.yaml:3: YAML syntax error at the end of the file: did not find expected ',' or ']'" \
        "$TMP/$f.err" && ok || fail "$f: not the last line, at the end: $(cat "$TMP/$f.err")"
done
# an error in the middle keeps its own line
printf 'name: x\nroles: [ a\nb: c\n  - d\n' >"$TMP/mid.yaml"
timeout 60 "$RWKV_TUI" info --demo --theme "$TMP/mid.yaml" >/dev/null 2>"$TMP/mid.err"
grep -q "end of the file" "$TMP/mid.err" && fail "mid: said at the end: $(cat "$TMP/mid.err")" || ok
grep -qE "mid\.yaml:[0-9]+: YAML syntax error: " "$TMP/mid.err" && ok ||
    fail "mid: no syntax error: $(cat "$TMP/mid.err")"
finish
