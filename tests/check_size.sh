#!/usr/bin/env bash
# tests/check_size.sh [ROOT] -- no function longer than 150 lines (the house
# style, docs/testing.md): every function defined in the
# .c/.cu/.cuh/.cpp files of core/ gpu/ storage/ tui/ cli/ bench/ tests/ is measured
# from the line that names it to its closing brace, as ctags counts.
#
# The few that are longer on purpose, or that belong to a piece someone else
# is reworking, are listed in tests/size_allow.txt, one a line:
#
#   FILE FUNCTION  reason in a few words
#
# (FILE is matched by its name alone, so an entry survives a move of the file
# to another folder.)
# `make check-size` runs this (and `make test` runs that); it prints every
# function over the limit that the list does not name, and exits 1 if there
# is one.  An entry whose function is no longer too long is reported as a
# note, so the list can shrink, but does not fail the check.
#
# The scanner is plain awk, no compiler: it strips comments, string and
# character literals and preprocessor lines, then follows the braces; a
# brace at the top level opens a function when what stands before it has a
# NAME( at parenthesis depth 0 and no `=` (an initialiser).  `extern "C" {`
# and `namespace X {` are transparent.
set -u
cd "${1:-$(dirname "$0")/..}" || exit 2
LIMIT=${SIZE_LIMIT:-150}
ALLOW=${SIZE_ALLOW:-tests/size_allow.txt}

# measure FILE...: "FILE LINE NAME LENGTH" for every function definition.
measure() {
    awk '
    function flush_header() { hdr = ""; name = ""; nline = 0; pdepth = 0 }
    FNR == 1 { incomment = 0; depth = 0; tdepth = 0; infn = 0; inpp = 0; flush_header() }
    {
        s = $0
        # a preprocessor line (and its continuations) says nothing about braces
        if (inpp) { inpp = (s ~ /\\$/); next }
        if (!incomment && s ~ /^[ \t]*#/) { inpp = (s ~ /\\$/); next }
        out = ""; i = 1; n = length(s)
        while (i <= n) {
            c = substr(s, i, 1)
            if (incomment) {
                if (c == "*" && substr(s, i + 1, 1) == "/") { incomment = 0; i += 2 } else i++
                continue
            }
            two = substr(s, i, 2)
            if (two == "/*") { incomment = 1; i += 2; out = out " "; continue }
            if (two == "//") break
            if (c == "\"" || c == "\047") {
                q = c; i++
                while (i <= n && substr(s, i, 1) != q) i += (substr(s, i, 1) == "\\") ? 2 : 1
                i++; out = out " 0 "; continue
            }
            out = out c; i++
        }
        scan(out)
    }
    function scan(t,    k, c, m, id) {
        for (k = 1; k <= length(t); k++) {
            c = substr(t, k, 1)
            if (depth > 0) {
                if (c == "{") depth++
                else if (c == "}") {
                    depth--
                    if (depth == 0) {
                        if (infn) print FILENAME, fline, fname, FNR - fline + 1
                        infn = 0; flush_header()
                    }
                }
                continue
            }
            if (c == "(") {
                if (pdepth == 0 && match(hdr, /[A-Za-z_][A-Za-z_0-9]*[ \t]*$/)) {
                    id = substr(hdr, RSTART, RLENGTH); sub(/[ \t]+$/, "", id)
                    if (id !~ /^(__attribute__|__launch_bounds__|__declspec|alignas|_Alignas|__align__|if|while|for|switch|return|sizeof)$/) {
                        name = id; nline = FNR
                    }
                }
                pdepth++
            } else if (c == ")") {
                if (pdepth > 0) pdepth--
            } else if (c == ";") {
                if (pdepth == 0) { flush_header(); continue }
            } else if (c == "{") {
                if (hdr ~ /^[ \t]*(extern|namespace)[ \t]/ || hdr ~ /^[ \t]*(extern|namespace)[ \t]*0?[ \t]*$/) {
                    tdepth++; flush_header(); continue
                }
                plain = hdr; gsub(/\([^()]*\)/, "", plain); gsub(/\([^()]*\)/, "", plain)
                infn = (name != "" && plain !~ /=/)
                fname = name; fline = nline; depth = 1
                continue
            } else if (c == "}") {
                if (tdepth > 0) tdepth--
                flush_header(); continue
            }
            hdr = hdr c
        }
        hdr = hdr " "
    }
    ' "$@"
}

files=$(find core gpu storage tui cli bench tests -type f \( -name '*.c' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' \) 2>/dev/null | sort)
[ -n "$files" ] || { echo "check-size: no sources under $(pwd)"; exit 2; }
allow=""
# "NAME FUNCTION" per entry: a file is known by its name, not its folder, so
# an entry still holds after the file moves to another folder.
[ -f "$ALLOW" ] && allow=$(grep -Ev '^[[:space:]]*(#|$)' "$ALLOW" | awk '{ n = $1; sub(/.*\//, "", n); print n " " $2 }')

bad=0
long=$(measure $files | awk -v lim="$LIMIT" '$4 > lim')
while read -r file line fn len; do
    [ -n "$file" ] || continue
    if printf '%s\n' "$allow" | grep -qxF "${file##*/} $fn"; then continue; fi
    echo "check-size: $file:$line: $fn is $len lines (at most $LIMIT; split it into named steps)"
    bad=1
done <<<"$long"
while read -r file fn; do
    [ -n "$file" ] || continue
    printf '%s\n' "$long" | awk -v f="$file" -v n="$fn" '{ b = $1; sub(/.*\//, "", b) }
        b == f && $3 == n { hit = 1 } END { exit !hit }' ||
        echo "check-size: note: $ALLOW names $file $fn, which is no longer over $LIMIT lines"
done <<<"$allow"
if [ $bad = 0 ]; then
    echo "check-size: ok (no function over $LIMIT lines but the $(printf '%s\n' "$allow" | grep -c .) in $ALLOW)"
fi
exit $bad
