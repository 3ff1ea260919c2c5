#!/usr/bin/env bash
# tests/cli/tokenize_empty_item.sh -- `tokenize --decode` refuses an empty
# item between commas (or a comma first or last) with one line naming the
# item and the byte, and prints nothing: '1,,2' is a slip (an id lost), not
# the two ids it was decoded as before.  Blanks around a comma stay fine.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI

expect_fail "1,,2" "^rwkv-tui: --text: item 2 is empty \\(the ',' at byte 5\\)\$" \
    "$T" tokenize --bytes --decode --text '104,,105'
expect_fail "blanks between" "^rwkv-tui: --text: item 2 is empty \\(the ',' at byte 8\\)\$" \
    "$T" tokenize --bytes --decode --text $'104, \n ,105'
expect_fail "a comma first" "^rwkv-tui: --text: item 1 is empty \\(the ',' at byte 2\\)\$" \
    "$T" tokenize --bytes --decode --text ' ,104'
expect_fail "a comma last" "^rwkv-tui: --text: item 3 is empty \\(nothing after the ',' at byte 8\\)\$" \
    "$T" tokenize --bytes --decode --text $'104,105,\n'
printf '104 105,,106\n' >"$TMP/ids"
expect_fail "in a file" "^rwkv-tui: $TMP/ids: item 3 is empty \\(the ',' at byte 9\\)\$" \
    "$T" tokenize --bytes --decode --file "$TMP/ids"
out=$("$T" tokenize --bytes --decode --text '104,,105' 2>/dev/null)
[ -z "$out" ] && ok || fail "refused, yet printed '$out'"
# what was fine stays fine
[ "$("$T" tokenize --bytes --decode --text $'104, 105\n,106 107')" = hijk ] && ok ||
    fail "commas with blanks around them"
[ "$("$T" tokenize --bytes --decode --text '104 105')" = hi ] && ok || fail "spaces"
finish
