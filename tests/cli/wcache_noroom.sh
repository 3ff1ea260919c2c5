#!/usr/bin/env bash
# tests/cli/wcache_noroom.sh -- `info` on a weight-cache folder where no
# cache can be written -- its disk full, or a read-only file system -- says
# so: "none (not written to PATH: why)", and nothing is made there.  It used
# to say "writing (PATH)": the background writer started, failed, and no
# cache ever came, the user told otherwise.  (The checks need a tmpfs of
# their own: root and mount(8), else skipped.)
. "$(dirname "$0")/lib.sh"
N_CHECKS=5

M="$FX/models/tiny-6v0-bf16.pth"
if [ ! -e "$M" ] && [ -z "${CI:-}" ]; then
    M=$TMP/gen-v6.pth
    "$RWKV_TUI" bench --shape demo-v6 --save "$M" >/dev/null 2>&1 || fail "bench --save"
fi
run() {   # run DIR: info with the cache forced on, DIR as the cache folder
    RWKV_WEIGHT_CACHE=1 RWKV_WEIGHT_CACHE_DIR="$1" "$RWKV_TUI" info --model "$M" \
        --strategy "cpu fp32i8" >"$TMP/out" 2>"$TMP/err"
}
line() { grep '^weight cache:' "$TMP/out"; }

full_disk_mnt $N_CHECKS
dd if=/dev/zero of="$MNT/fill" bs=64k 2>/dev/null   # until the disk is full
run "$MNT/wc"
[ $? = 0 ] && ok || fail "full: exit status: $(cat "$TMP/err")"
line | grep -Eqx "weight cache: none \(not written to $MNT/wc/[^ ]+\.rwkvc: no room: it takes [0-9]+ MiB and 256 MiB are kept free; 0 MiB free in $MNT\)" &&
    ok || fail "full: $(line)"
[ ! -e "$MNT/wc" ] && ok || fail "full: the folder made: $(ls -la "$MNT")"

mount -o remount,ro "$MNT" 2>/dev/null || { skip 2 "remount read-only failed"; finish; exit; }
run "$MNT/wc"
line | grep -Eqx "weight cache: none \(not written to $MNT/wc/[^ ]+\.rwkvc: the folder $MNT cannot be written to\)" &&
    ok || fail "read-only: $(line)"
run "$MNT"
line | grep -Eqx "weight cache: none \(not written to $MNT/[^ /]+\.rwkvc: the folder $MNT cannot be written to\)" &&
    ok || fail "read-only, the folder itself: $(line)"
finish
