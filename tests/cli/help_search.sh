#!/usr/bin/env bash
# tests/cli/help_search.sh -- what F1 and --help-ui say of F2's search: it
# said "every word, anywhere in them", but every word must be in one title
# or in one message (storage/store_export.c; README, "sessions search").
. "$(dirname "$0")/lib.sh"

out=$("$RWKV_TUI" --help-ui 2>&1) && ok || fail "--help-ui exit $?"
row=$(printf '%s\n' "$out" | sed -n '/^  Sessions: type/,/^  [^ ]/p' | tr -s ' \n' ' ')
printf '%s\n' "$row" | grep -q 'every word in one title or one message' && ok ||
    fail "Sessions: type does not say one title or one message: $row"
printf '%s\n' "$out" | grep -q 'anywhere in them' && fail "--help-ui still says 'anywhere in them'" || ok
finish
