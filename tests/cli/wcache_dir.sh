#!/usr/bin/env bash
# tests/cli/wcache_dir.sh -- RWKV_WEIGHT_CACHE_DIR names a folder; the
# cache makes that folder only, never the folders above it: a typo
# (/hom/me/cache) made every missing folder on its way, as root at the top
# of the disk.  A path under a missing folder, under a file or naming a
# file is refused with one line saying which part is wrong, and the model
# loads without the cache.
. "$(dirname "$0")/lib.sh"

M="$FX/models/tiny-6v0-bf16.pth"
if [ ! -e "$M" ] && [ -z "${CI:-}" ]; then
    M=$TMP/gen-v6.pth
    "$RWKV_TUI" bench --shape demo-v6 --save "$M" >/dev/null 2>&1 || fail "bench --save"
fi
S="cpu fp32i8"
field() { sed -n 's/^weight cache: *\([a-z]*\).*/\1/p' "$TMP/out"; }
run() {   # run DIR [ENV...]: info with the cache forced on, DIR as the cache folder
    local d=$1
    shift
    env RWKV_WEIGHT_CACHE=1 "$@" RWKV_WEIGHT_CACHE_DIR="$d" "$RWKV_TUI" info --model "$M" --strategy "$S" \
        >"$TMP/out" 2>"$TMP/err"
}
tail1="; models load without the weight cache"

# two folders missing: refused, nothing made, the load goes on
run "$TMP/no/such/cache"
rc=$?
[ $rc = 0 ] && [ "$(field)" = off ] && ok || fail "missing parents: exit $rc, cache '$(field)'"
grep -qxF "rwkv-tui: RWKV_WEIGHT_CACHE_DIR=$TMP/no/such/cache: $TMP/no does not exist (only the cache's own folder is made)$tail1" \
    "$TMP/err" && ok || fail "missing parents not said: $(cat "$TMP/err")"
[ ! -e "$TMP/no" ] && ok || fail "folders made: $(find "$TMP/no")"

# a file in the way: above the folder, or the folder itself
echo x >"$TMP/afile"
run "$TMP/afile/cache"
[ "$(field)" = off ] && grep -qxF "rwkv-tui: RWKV_WEIGHT_CACHE_DIR=$TMP/afile/cache: $TMP/afile is not a folder$tail1" \
    "$TMP/err" && ok || fail "a file above: cache '$(field)': $(cat "$TMP/err")"
run "$TMP/afile"
[ "$(field)" = off ] && grep -qxF "rwkv-tui: RWKV_WEIGHT_CACHE_DIR=$TMP/afile: $TMP/afile is not a folder$tail1" \
    "$TMP/err" && ok || fail "a file as the folder: cache '$(field)': $(cat "$TMP/err")"
[ "$(cat "$TMP/afile")" = x ] && ok || fail "the file was changed"

# the cache off: nothing to say
run "$TMP/no/such/cache" RWKV_WEIGHT_CACHE=0
[ "$(field)" = off ] && ! grep -q RWKV_WEIGHT_CACHE_DIR "$TMP/err" && ok ||
    fail "cache off, yet: $(cat "$TMP/err")"

# only the last folder missing: made (0700), the cache written, nothing said
run "$TMP/new/"
mkdir -p "$TMP/parent"
run "$TMP/parent/cache"
st=$(field)
{ [ "$st" = writing ] || [ "$st" = written ]; } && [ -d "$TMP/parent/cache" ] &&
    ! grep -q RWKV_WEIGHT_CACHE_DIR "$TMP/err" && ok || fail "last folder: cache '$st': $(cat "$TMP/err")"
[ "$(stat -c %a "$TMP/parent/cache")" = 700 ] && ok || fail "mode $(stat -c %a "$TMP/parent/cache")"
run "$TMP/parent/cache"
[ "$(field)" = hit ] && ok || fail "second load: '$(field)'"
[ -d "$TMP/new" ] && ok || fail "DIR/ (a trailing slash) not made"
finish
