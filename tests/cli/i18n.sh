#!/usr/bin/env bash
# tests/cli/i18n.sh -- the Chinese catalog (po/zh_CN.po) against the sources
# and po/po2c.py's checks: no marked string without a translation, no
# translation nothing uses, the same printf conversions in msgid and
# msgstr; PO escapes reach the C table; plural forms and bad lines refused.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
PO2C="python3 $SRC/po/po2c.py"
cd "$SRC"

if ! command -v python3 >/dev/null 2>&1; then
    echo "python3 not found: skipping"; echo "0 passed, 0 failed"; exit 0
fi

# the real catalog: complete and current
# (storage/, core's parameter table and the engine's framing refusals: their
# messages are translated where tui/ shows them, tui_tr_msg)
out=$($PO2C --check po/zh_CN.po tui/*.c tui/*.h storage/*.c core/chat/params.c \
    core/chat/chat.c core/chat/sampler.c 2>&1) && ok ||
    fail "catalog check: $out"

po_head() {
    printf 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
}

# a translation whose conversions differ (order, a missing one, the type)
for bad in '"%d %s"|"%s %d"' '"%d files"|"文件"' '"%zu turns"|"%d 轮"' '"%.*s!"|"%s！"'; do
    id=${bad%%|*}; str=${bad#*|}
    { po_head; printf 'msgid %s\nmsgstr %s\n' "$id" "$str"; } > "$TMP/bad.po"
    if out=$($PO2C "$TMP/bad.po" "$TMP/bad.c" 2>&1); then
        fail "conversions $id -> $str: accepted"
    else
        printf '%s' "$out" | grep -q 'conversions' && ok || fail "conversions: $out"
    fi
done
# the same ones in another wording (and %% is no conversion)
{ po_head; printf 'msgid "%%d%%%% of %%s"\nmsgstr "%%d%%%%，%%s"\n'; } > "$TMP/good.po"
out=$($PO2C "$TMP/good.po" "$TMP/good.c" 2>&1) && ok || fail "same conversions refused: $out"

# escapes: \n, \", \\ and UTF-8 reach the table as the C strings they mean
{ po_head; printf 'msgid "a \\"q\\" b\\\\c\\n"\nmsgstr "甲 \\"q\\" 乙\\\\c\\n"\n'; } > "$TMP/esc.po"
mkdir -p "$TMP/tui"
cp tui/i18n.h "$TMP/tui/"
if $PO2C "$TMP/esc.po" "$TMP/esc.c" 2>"$TMP/err"; then
    cat > "$TMP/main.c" <<'C'
#include <stdio.h>
#include "tui/i18n.h"
int main(void) { printf("%zu[%s][%s]", tui_tr_zh_n, tui_tr_zh[0].id, tui_tr_zh[0].str); return 0; }
C
    if ${CC:-cc} -I"$TMP" -o "$TMP/esc" "$TMP/main.c" "$TMP/esc.c" 2>"$TMP/err"; then
        got=$("$TMP/esc")
        want=$(printf '1[a "q" b\\c\n][甲 "q" 乙\\c\n]')
        [ "$got" = "$want" ] && ok || fail "escapes: got '$got', want '$want'"
    else
        fail "escapes: the table does not compile: $(head -3 "$TMP/err")"
    fi
else
    fail "escapes: $(cat "$TMP/err")"
fi

# plural forms, a PO syntax error: refused with the line
{ po_head; printf 'msgid "%%d turn"\nmsgid_plural "%%d turns"\nmsgstr[0] "%%d 轮"\n'; } > "$TMP/pl.po"
out=$($PO2C "$TMP/pl.po" "$TMP/pl.c" 2>&1) && fail "plural accepted" ||
    { printf '%s' "$out" | grep -q 'pl.po:6: msgid_plural is not supported' && ok || fail "plural: $out"; }
{ po_head; printf 'msgid "x"\nmsgstr "y\n'; } > "$TMP/syn.po"
out=$($PO2C "$TMP/syn.po" "$TMP/syn.c" 2>&1) && fail "syntax error accepted" ||
    { printf '%s' "$out" | grep -q 'syn.po:6: not a PO line' && ok || fail "syntax: $out"; }

# --check against sources: a marked string without a translation (a fuzzy
# one counts as none), a translation nothing uses
mkdir -p "$TMP/src/tui"
cat > "$TMP/src/tui/x.c" <<'C'
static const char *const k[] = { TR_NOOP("kept"), TR_NOOP("fuzzy one") };
void f(struct app *a) { tui_notice(a, 0, "new %s", TR("also" " joined")); (void)k; }
C
{ po_head; printf 'msgid "kept"\nmsgstr "保留"\n\n#, fuzzy\nmsgid "fuzzy one"\nmsgstr "模糊"\n\n'
  printf 'msgid "also joined"\nmsgstr "也"\n\nmsgid "gone from the code"\nmsgstr "过时"\n'; } > "$TMP/chk.po"
out=$($PO2C --check "$TMP/chk.po" "$TMP/src/tui/x.c" 2>&1)
printf '%s' "$out" | grep -q "x.c: not in the catalog: 'new %s'" && ok || fail "notice format not found missing: $out"
printf '%s' "$out" | grep -q "x.c: no translation: 'fuzzy one'" && ok || fail "fuzzy not missing: $out"
printf '%s' "$out" | grep -q "stale (in no source): 'gone from the code'" && ok || fail "stale not found: $out"
if printf '%s' "$out" | grep -q "'kept'\|'also joined'"; then fail "false report: $out"; else ok; fi

# the build's table is the catalog's: as many entries as translated msgids
n=$(grep -c '^msgid "[^"]' po/zh_CN.po)
m=$(grep -c '^      "' "${BUILD:+$BUILD/}gen/i18n_zh.c" 2>/dev/null || echo none)
[ -f "${BUILD:+$BUILD/}gen/i18n_zh.c" ] || skip 1 "no ${BUILD:+$BUILD/}gen/i18n_zh.c (BUILD not built)"
[ -f "${BUILD:+$BUILD/}gen/i18n_zh.c" ] && { [ "$n" = "$m" ] && ok || fail "table has $m entries, catalog $n"; }

# msgfmt (GNU gettext), where installed, accepts the catalog as PO
if command -v msgfmt >/dev/null 2>&1; then
    out=$(msgfmt -c -o /dev/null po/zh_CN.po 2>&1) && ok || fail "msgfmt -c: $out"
else
    skip 1 "msgfmt not installed"
fi
finish
