#!/usr/bin/env bash
# tests/cli/theme_all_problems.sh -- a theme with several mistakes lists
# them all at once, one "file:line: ..." line each, and loads nothing: the
# loader (libcyaml) stops at the first, so a user with three typos fixed
# one, ran again, and met the next; now a walk led by the same schema lists
# them.  Up to 32 are listed, then how many more; a YAML syntax error ends
# the list, after what came before it.
. "$(dirname "$0")/lib.sh"

T=$TMP/three.yaml
cat >"$T" <<'YAML'
name: typos
roles:
  user: { fg: purpel, bold: yes }
  assistent: { fg: green }
  status: { fg: black, bg: 300, blink: true }
  info: { fg: cyan }
YAML
"$RWKV_TUI" info --demo --theme "$T" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc = 2 ] && ok || fail "exit $rc (want 2): $(cat "$TMP/err")"
C="(a name like 'cyan', a number 0-255 or #rrggbb)"
want=(
    "rwkv-tui: info: --theme: $T:3: field 'fg' in 'user': unknown colour 'purpel' $C"
    "$T:3: field 'bold' in 'user': 'yes' is not true or false"
    "$T:4: unknown field 'assistent' in 'roles' (did you mean 'assistant'?)"
    "$T:5: field 'bg' in 'status': unknown colour '300' $C"
    "$T:5: unknown field 'blink' in 'status'"
)
for w in "${want[@]}"; do
    grep -qxF -- "$w" "$TMP/err" && ok || fail "missing line '$w' in:
$(cat "$TMP/err")"
done
n=$(grep -c '' "$TMP/err")
[ "$n" = 5 ] && ok || fail "$n lines, want 5: $(cat "$TMP/err")"

# many mistakes: as many lines as fit (at most 32), then the count of the
# others, never a flood
M=$TMP/many.yaml
{ echo "roles:"
  for r in normal user assistant user_header assistant_header info error interrupted stats input \
           input_border sidebar sidebar_title sidebar_label sidebar_value sidebar_selected status \
           status_demo footer footer_key; do
      echo "  $r: { fg: nocolour, bg: nocolour }"
  done; } >"$M"
"$RWKV_TUI" info --demo --theme "$M" >/dev/null 2>"$TMP/err"
rc=$?
n=$(grep -c "^\(rwkv-tui: info: --theme: \)\?$M:[0-9]*: field '[bf]g' in '[a-z_]*': unknown colour 'nocolour'" "$TMP/err")
more=$(sed -n "s|^$M: \([0-9]*\) more problems\$|\1|p" "$TMP/err")
[ $rc = 2 ] && [ "$n" -ge 10 ] && [ "$n" -le 32 ] && [ $((n + ${more:-0})) = 40 ] &&
    [ "$(grep -c '' "$TMP/err")" = $((n + 1)) ] && ok ||
    fail "exit $rc, $n colour lines, '$more' more: $(cat "$TMP/err")"

# a syntax error ends the walk; the problems before it are listed too
S=$TMP/syntax.yaml
printf 'roles:\n  user: { fg: purpel }\n  error: { fg: red }\n  info: { fg: cyan\n' >"$S"
"$RWKV_TUI" info --demo --theme "$S" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc = 2 ] && grep -qxF "rwkv-tui: info: --theme: $S:2: field 'fg' in 'user': unknown colour 'purpel' $C" "$TMP/err" &&
    grep -q "^$S:[45]: YAML syntax error" "$TMP/err" && [ "$(grep -c '' "$TMP/err")" = 2 ] && ok ||
    fail "syntax error after a mistake: exit $rc: $(cat "$TMP/err")"

# what libcyaml refuses by its schema (a description over its 1024 bytes,
# an alias: it follows none) is listed with the rest, and an empty role or
# document is no mistake
L=$TMP/limits.yaml
printf 'description: %s\nroles:\n  user: { fg: purpel }\n  error: &e { fg: red }\n  info: *e\n' \
    "$(printf '%01100d' 0)" >"$L"
"$RWKV_TUI" info --demo --theme "$L" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc = 2 ] && [ "$(cat "$TMP/err")" = "rwkv-tui: info: --theme: $L:1: field 'description': longer than 1024 bytes
$L:3: field 'fg' in 'user': unknown colour 'purpel' $C
$L:5: field 'info' in 'roles': expected a mapping of fg, bg, bold, ..., found an alias" ] && ok ||
    fail "schema limits: exit $rc: $(cat "$TMP/err")"
printf 'roles:\n  user:\n  error: { fg: red }\n' >"$TMP/empty_role.yaml"
printf -- '---\n' >"$TMP/empty_doc.yaml"
for f in empty_role empty_doc; do
    "$RWKV_TUI" info --demo --theme "$TMP/$f.yaml" >/dev/null 2>"$TMP/err" && ok ||
        fail "$f refused: $(cat "$TMP/err")"
done

# one mistake is still one line, and a valid theme loads
printf 'roles:\n  user: { fg: red, underline: maybe }\n' >"$TMP/one.yaml"
"$RWKV_TUI" info --demo --theme "$TMP/one.yaml" >/dev/null 2>"$TMP/err"
[ "$(cat "$TMP/err")" = "rwkv-tui: info: --theme: $TMP/one.yaml:2: field 'underline' in 'user': 'maybe' is not true or false" ] &&
    ok || fail "one mistake: $(cat "$TMP/err")"
printf 'name: fine\nroles:\n  user: { fg: "#ff8800", bold: true }\n  status: { fg: black, bg: 250 }\n' >"$TMP/fine.yaml"
"$RWKV_TUI" info --demo --theme "$TMP/fine.yaml" >/dev/null 2>"$TMP/err" && ok ||
    fail "valid theme refused: $(cat "$TMP/err")"
finish
