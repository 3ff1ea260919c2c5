#!/usr/bin/env bash
# tests/cli/check_size.sh -- tests/check_size.sh (`make check-size`) passes on
# the tree and fails, naming file, line and length, for a function over 150
# lines planted in a temp tree; braces in comments, strings and character
# literals, initialiser tables and extern "C" blocks do not fool it, and the
# allow list lets a named function through (by file name and function, in
# whatever folder the file now is).
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
CHK=$SRC/tests/check_size.sh

out=$(bash "$CHK" "$SRC" 2>&1) && ok || fail "the tree itself: $out"

mkdir -p "$TMP/t/core" "$TMP/t/tests"
: >"$TMP/t/tests/size_allow.txt"
# body N: a C function `f` of N lines in all (name line to closing brace),
# with braces in a comment, a string and a character literal on the way.
body() {
    local n=$1 i
    echo 'static int f(int x)'
    echo '{'
    echo '    /* { { { */ const char *s = "}}{"; char c = '"'}'"'; (void)s; (void)c;'
    for ((i = 4; i < n; i++)); do echo '    x++; // }'; done
    echo '    return x; }'
}
body 150 >"$TMP/t/core/a.c"
out=$(bash "$CHK" "$TMP/t" 2>&1) && ok || fail "150 lines refused: $out"

body 151 >"$TMP/t/core/a.c"
if out=$(bash "$CHK" "$TMP/t" 2>&1); then
    fail "151 lines passed: $out"
else
    printf '%s\n' "$out" | grep -q 'core/a.c:1: f is 151 lines' && ok || fail "151 lines: $out"
fi

# allowed by name, with a reason
echo 'core/a.c f  planted for this test' >"$TMP/t/tests/size_allow.txt"
out=$(bash "$CHK" "$TMP/t" 2>&1) && ok || fail "allowed function refused: $out"
# an entry still holds when the file moved to another folder
echo 'core/old/place/a.c f  planted for this test' >"$TMP/t/tests/size_allow.txt"
out=$(bash "$CHK" "$TMP/t" 2>&1) && ok || fail "allowed function refused after a move: $out"
# an entry no longer needed is a note, not a failure
body 20 >"$TMP/t/core/a.c"
out=$(bash "$CHK" "$TMP/t" 2>&1) && ok || fail "stale entry failed: $out"
printf '%s\n' "$out" | grep -q 'note: .* names a.c f, which is no longer over' && ok || fail "no note: $out"
: >"$TMP/t/tests/size_allow.txt"

# a long initialiser table, a long struct and an extern "C" block holding a
# long function: only the function counts, with its own name and line
{
    echo '#define M(a) \'
    echo '    { a }'
    echo 'static const int tab[] = {'
    for ((i = 0; i < 200; i++)); do echo "    $i,"; done
    echo '};'
    echo 'struct big {'
    for ((i = 0; i < 200; i++)); do echo "    int f$i;"; done
    echo '};'
    echo 'extern "C" {'
    body 160 | sed 's/static int f(/int g(/'
    echo '}'
} >"$TMP/t/core/b.cu"
if out=$(bash "$CHK" "$TMP/t" 2>&1); then
    fail "long function in extern \"C\" passed: $out"
else
    n=$(printf '%s\n' "$out" | grep -c 'is [0-9]* lines')
    printf '%s\n' "$out" | grep -q 'core/b.cu:408: g is 160 lines' && [ "$n" = 1 ] && ok ||
        fail "extern \"C\": $out"
fi
finish
