#!/usr/bin/env bash
# tests/cli/search_fold_title.sh -- `sessions search` folds case in every
# script the same way for a title, a message and the [ ] of a match: the
# body index's own folding (the FTS5 trigram tokenizer's).  `search добро`
# finds the title "… ДОБРО" and brackets ДОБРО in the message, as
# `search ДОБРО` does; so do Ελληνικά / ελληνικά, äöü and a one-letter word
# (no index: a scan) in the title.  The demo model, a real database file.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/f.db
MSG='Straße ÄÖÜ Ελληνικά ДОБРО'

printf '%s\n' "$MSG" | LC_ALL=C.UTF-8 "$T" chat --demo --db "$D" --new "$MSG" --max-tokens 4 \
    >/dev/null 2>"$TMP/e"
[ $? = 0 ] && ok || fail "chat: $(cat "$TMP/e")"

# search WORD: the title line and the message's match, bracketed as WANT
check() {
    local word=$1 want=$2 out
    out=$(LC_ALL=C.UTF-8 "$T" sessions --db "$D" search "$word" 2>&1)
    printf '%s\n' "$out" | grep -q '^session 1 (title): .*\['"$want"'\]' && ok ||
        fail "search $word: no title hit with [$want]: $out"
    printf '%s\n' "$out" | grep -q '^session 1 turn [0-9]* (user) .*: .*\['"$want"'\]' && ok ||
        fail "search $word: no bracketed message hit [$want]: $out"
}
check 'ДОБРО' 'ДОБРО'
check 'добро' 'ДОБРО'
check 'ελληνικά' 'Ελληνικά'
check 'äöü' 'ÄÖÜ'
check 'д' 'Д'
finish
