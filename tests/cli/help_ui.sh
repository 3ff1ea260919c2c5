#!/usr/bin/env bash
# tests/cli/help_ui.sh -- `rwkv-tui --help-ui`: the client's options and every
# key (the F1 rows with the default bindings), wrapped at 79 columns with the
# descriptions in one column; `--help` stays options only.
. "$(dirname "$0")/lib.sh"

out=$("$RWKV_TUI" --help-ui 2>&1) && ok || fail "--help-ui exit $?"
keys=$(printf '%s\n' "$out" | sed -n '/^Keys of the full-screen client/,$p')
[ -n "$keys" ] && ok || fail "no key section"
# one row per action, fixed key and menu key (a sample of each group)
for re in '^  F1 +help' '^  C-f +search the transcript' '^  M-c +copy the reply' \
          '^  Enter, C-m +send the message' '^  M-b/M-f, C-Left/C-Right +move' '^  Sessions: C-e +export' \
          '^  Branches: C-d +delete' '^  Models: C-s +change the strategy'; do
    printf '%s\n' "$keys" | grep -Eq -- "$re" && ok || fail "no row /$re/"
done
# nothing wider than 79 columns
long=$(printf '%s\n' "$out" | awk 'length($0) > 79' | head -1)
[ -z "$long" ] && ok || fail "line over 79 columns: $long"
# the descriptions start in one column (rows whose key fits it)
cols=$(printf '%s\n' "$keys" | awk '/^  [^ ]/ { k = $0; sub(/^  /, "", k);
        if (match(k, /  +[^ ]/)) { if (RSTART < 26) print RSTART + RLENGTH + 1 } }' | sort -u)
[ "$(printf '%s\n' "$cols" | grep -c '')" = 1 ] && ok || fail "descriptions in several columns: $cols"
# continuation lines sit in that column too
cont=$(printf '%s\n' "$keys" | awk '/^ {20,}[^ ]/ { match($0, /[^ ]/); print RSTART }' | sort -u)
[ -z "$cont" ] || [ "$cont" = "$cols" ] && ok || fail "wrapped lines at column $cont, not $cols"
# --help: options only
h=$("$RWKV_TUI" --help 2>&1) && ok || fail "--help exit $?"
printf '%s\n' "$h" | grep -q 'Keys of the full-screen client' && fail "--help lists the keys" || ok
printf '%s\n' "$h" | grep -q -- '--help-ui' && ok || fail "--help does not name --help-ui"
finish
