#!/usr/bin/env bash
# tests/cli/wcache_clean.sh -- the weight cache's old files, seen and
# reclaimed.  A cache is one file per model, strategy and kernel set (GBs
# for a big model), and none was ever removed: the caches of another
# strategy, of a model deleted or changed since, stayed, and `info` named
# only the one it used.  Now `info` lists the other cache files of the
# cache folders (the model's, RWKV_WEIGHT_CACHE_DIR, the per-user one) with
# their size and what they are, and `--clean-weight-cache stale` removes the
# stale ones (their model gone or changed: no load can use them again),
# `all` every one but the cache in use -- only files the program wrote
# (the name and the cache's header), never anything else there.  And a
# folder where the cache file goes said "writing" for a cache never written.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
unset RWKV_WEIGHT_CACHE_DIR          # (tests/run.sh sets one: the model's folder is tested)
export XDG_CACHE_HOME=$TMP/xdg RWKV_WEIGHT_CACHE=1
D=$TMP/m
mkdir -p "$D"
for m in a b c; do
    "$T" bench --shape demo --save "$D/$m.pth" >/dev/null 2>&1 || fail "bench --save $m"
done
info() { "$T" info --model "$D/$1.pth" --strategy "$2" "${@:3}" >"$TMP/out" 2>"$TMP/err"; }
used() { sed -n 's/^weight cache: [a-z]* (\([^;)]*\).*/\1/p' "$TMP/out"; }
# four caches next to their models: a (two strategies), b, c
info a "cpu fp32i8"; A8=$(used)
info a "cpu fp16"; A16=$(used)
info b "cpu fp32i8"; B8=$(used)
info c "cpu fp32i8"; C8=$(used)
[ -f "$A8" ] && [ -f "$A16" ] && [ -f "$B8" ] && [ -f "$C8" ] && [ "$A8" != "$A16" ] && ok ||
    fail "the caches: '$A8' '$A16' '$B8' '$C8': $(ls "$D")"
# b deleted, c changed since; beside them files that are not caches
rm "$D/b.pth"
touch -d '2001-01-01' "$D/c.pth"
echo 'not a cache' >"$D/notes.rwkvc"
head -c 4096 "$A8" >"$TMP/magic"; ln -s "$TMP/magic" "$D/x.pth.0000abcd.rwkvc"
cp "$A8" "$D/a.pth.12345678.rwkvc.bak"

# info lists the other three with what they are, then a summary
info a "cpu fp32i8"
[ "$(used)" = "$A8" ] && ok || fail "the cache in use: '$(used)'"
grep -Eqx "other weight caches in $D: 3 files, [0-9.]+ [KMG]iB \(2 stale, [0-9.]+ [KMG]iB\): --clean-weight-cache stale removes those" \
    "$TMP/out" && ok || fail "the summary: $(cat "$TMP/out")"
K=$(sed -n 's/^kernels: *\([a-z0-9-]*\).*/\1/p' "$TMP/out")
grep -Eqx "  $A16 \([0-9.]+ [KMG]iB\): for $D/a\.pth, another strategy or kernel set \(kernels $K\)" \
    "$TMP/out" && ok || fail "a's other cache: $(cat "$TMP/out")"
grep -Eqx "  $B8 \([0-9.]+ [KMG]iB\): stale: its model $D/b.pth is gone" "$TMP/out" && ok ||
    fail "b's cache: $(cat "$TMP/out")"
grep -Eqx "  $C8 \([0-9.]+ [KMG]iB\): stale: made for $D/c.pth before it changed" "$TMP/out" && ok ||
    fail "c's cache: $(cat "$TMP/out")"
[ "$(grep -c '^  ' "$TMP/out")" = 3 ] && ok || fail "other files listed: $(cat "$TMP/out")"
[ ! -s "$TMP/err" ] && ok || fail "stderr: $(cat "$TMP/err")"

# stale: b's and c's go, the rest stays
info a "cpu fp32i8" --clean-weight-cache stale
[ $? = 0 ] && [ ! -e "$B8" ] && [ ! -e "$C8" ] && [ -f "$A16" ] && [ -f "$A8" ] && ok ||
    fail "clean stale: $(ls "$D"): $(cat "$TMP/out" "$TMP/err")"
grep -Eqx "  removed $B8 \([0-9.]+ [KMG]iB\): stale: its model $D/b.pth is gone" "$TMP/out" && ok ||
    fail "the removal not said: $(cat "$TMP/out")"
[ -f "$D/notes.rwkvc" ] && [ -L "$D/x.pth.0000abcd.rwkvc" ] && [ -f "$TMP/magic" ] &&
    [ -f "$D/a.pth.12345678.rwkvc.bak" ] && [ -f "$D/c.pth" ] && ok || fail "other files touched: $(ls -la "$D")"
# all: every cache but the one in use
info a "cpu fp32i8" --clean-weight-cache all
[ ! -e "$A16" ] && [ -f "$A8" ] && [ -f "$D/notes.rwkvc" ] && ok || fail "clean all: $(ls "$D")"
info a "cpu fp32i8"
grep -q '^other weight caches' "$TMP/out" && fail "listed after the clean: $(cat "$TMP/out")" || ok
# a word it does not know: a usage error, nothing removed
"$T" info --model "$D/a.pth" --clean-weight-cache old >/dev/null 2>"$TMP/err"
[ $? = 2 ] && grep -q "clean-weight-cache" "$TMP/err" && [ -f "$A8" ] && ok || fail "--clean-weight-cache old: $(cat "$TMP/err")"

# a cache folder (RWKV_WEIGHT_CACHE_DIR, as the per-user one): a cache
# names its model by file name and a hash of its path -- found for the
# model loaded and the files of its folder, there or gone; another
# folder's model is named as such and never called stale
rm -f "$A8"
export RWKV_WEIGHT_CACHE_DIR=$TMP/wc
mkdir -p "$TMP/o"
"$T" bench --shape demo --save "$D/b.pth" >/dev/null 2>&1 || fail "bench --save b"
"$T" bench --shape demo --save "$TMP/o/c.pth" >/dev/null 2>&1 || fail "bench --save o/c"
"$T" info --model "$TMP/o/c.pth" --strategy "cpu fp32i8" >"$TMP/out" 2>&1; WC=$(used)
info a "cpu fp16"; W16=$(used)
info b "cpu fp32i8"; WB=$(used)
info a "cpu fp32i8"; W8=$(used)
case $W8 in "$TMP/wc/a.pth."*) ok ;; *) fail "not in the cache folder: '$W8'" ;; esac
grep -Eqx "other weight caches in $TMP/wc: 3 files, [0-9.]+ [KMG]iB \(none stale\)" "$TMP/out" && ok ||
    fail "the folder's summary: $(cat "$TMP/out")"
grep -Eqx "  $W16 \([0-9.]+ [KMG]iB\): for $D/a\.pth, another strategy or kernel set \(kernels $K\)" \
    "$TMP/out" && ok || fail "a's other cache there: $(cat "$TMP/out")"
grep -Eqx "  $WB \([0-9.]+ [KMG]iB\): for $D/b\.pth \(kernels $K\)" "$TMP/out" && ok ||
    fail "b's cache there: $(cat "$TMP/out")"
grep -Eqx "  $WC \([0-9.]+ [KMG]iB\): for a model named c\.pth elsewhere" "$TMP/out" && ok ||
    fail "another folder's model: $(cat "$TMP/out")"
# a changed, b deleted: their caches there are stale, c's kept
touch -d '2001-01-01' "$D/a.pth"
rm "$D/b.pth"
info a "cpu fp32i8"
grep -Eqx "  $WB \([0-9.]+ [KMG]iB\): stale: its model $D/b\.pth is gone" "$TMP/out" && ok ||
    fail "b gone: $(cat "$TMP/out")"
info a "cpu fp32i8" --clean-weight-cache stale
[ ! -e "$W16" ] && [ ! -e "$WB" ] && [ -f "$WC" ] && [ -f "$W8" ] && ok ||
    fail "stale in the cache folder: $(ls "$TMP/wc"): $(cat "$TMP/out")"
unset RWKV_WEIGHT_CACHE_DIR

# a folder where the cache goes: "none", why; never "writing"
mkdir "$A8"
info a "cpu fp32i8"
grep -Fqx "weight cache: none (not written to $A8: a folder has that name)" "$TMP/out" && ok ||
    fail "a folder in the cache's place: $(grep '^weight cache' "$TMP/out")"
finish
