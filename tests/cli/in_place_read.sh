#!/usr/bin/env bash
# in_place_read.sh -- matrices a checkpoint stores in the strategy's dtype
# (`cpu bf16` of a bf16 file): `info` says how many bytes and whether they
# were read into memory (huge pages, the default where the file fits in half
# the memory available) or used where the file is mapped;
# RWKV_CHECKPOINT_LOAD=map|copy picks; the logits and the text are
# the same bytes either way; a converting plan has no such line.  Without the
# fixtures the same checks run on models written by `bench --save`.
. "$(dirname "$0")/lib.sh"

M="$FX/models/tiny-6v0-bf16.pth"
if [ ! -e "$M" ] && [ -z "${CI:-}" ]; then
    M=$TMP/gen-v6.pth
    "$RWKV_TUI" bench --shape demo-v6 --save "$M" >/dev/null 2>&1 || fail "bench --save"
fi
M7=$TMP/gen-v7-fp16.pth
"$RWKV_TUI" bench --shape demo --dtype fp16 --save "$M7" >/dev/null 2>&1 || fail "bench --save fp16"

how() { RWKV_CHECKPOINT_LOAD=$1 "$RWKV_TUI" info --model "$2" --strategy "$3" \
        | sed -n 's/^in place: *\([0-9]*\) bytes of matrices as the checkpoint stores them (\(.*\))$/\1 \2/p'; }
for pair in "$M|cpu bf16" "$M7|cpu fp16"; do
    m=${pair%%|*}; s=${pair#*|}
    a=$(how map "$m" "$s"); b=$(how copy "$m" "$s")
    if [ "${a#* }" = mapped ] && [ "${a%% *}" -gt 0 ]; then ok; else fail "$s, map: '$a'"; fi
    if [ "${b#* }" = "read into memory" ] && [ "${b%% *}" = "${a%% *}" ]; then ok
    else fail "$s, copy: '$b' (mapped: '$a')"; fi
    evl() { RWKV_CHECKPOINT_LOAD=$1 "$RWKV_TUI" eval --model "$m" --strategy "$s" \
            --text "Read, or mapped" --all --out "$TMP/ev-$1.bin" >/dev/null 2>&1; }
    evl map && evl copy && [ -s "$TMP/ev-map.bin" ] && ok || fail "$s: eval"
    cmp -s "$TMP/ev-map.bin" "$TMP/ev-copy.bin" && ok || fail "$s: logits differ, mapped vs read"
    gen() { RWKV_CHECKPOINT_LOAD=$1 "$RWKV_TUI" generate --model "$m" --strategy "$s" \
            --prompt "In place" --max-tokens 12 --temperature 0 2>/dev/null; }
    a=$(gen map); b=$(gen copy)
    if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else fail "$s: generate differs: '$a' vs '$b'"; fi
done

# the default reads them into memory where the file fits in half the memory
# available (these do); an empty or unknown word is the default too
for pair in "$M|cpu bf16" "$M7|cpu fp16"; do
    m=${pair%%|*}; s=${pair#*|}
    a=$("$RWKV_TUI" info --model "$m" --strategy "$s" | sed -n 's/^in place:.*(\(.*\))$/\1/p')
    if [ "$a" = "read into memory" ]; then ok; else fail "default, $s: '$a'"; fi
    a=$(RWKV_CHECKPOINT_LOAD= "$RWKV_TUI" info --model "$m" --strategy "$s" 2>/dev/null \
        | sed -n 's/^in place:.*(\(.*\))$/\1/p')
    if [ "$a" = "read into memory" ]; then ok; else fail "empty word, $s: '$a'"; fi
done
# bench's JSON says the same
j=$(RWKV_CHECKPOINT_LOAD=map "$RWKV_TUI" bench --model "$M" --strategy "cpu bf16" --prompt-tokens 4 \
    --gen-tokens 0 --repeat 1 --json 2>&1)
if printf '%s\n' "$j" | grep -Eq '"in_place_bytes": [1-9][0-9]*, "in_place_read": 0,'; then ok
else fail "bench json, mapped: $j"; fi
j=$(RWKV_CHECKPOINT_LOAD=copy "$RWKV_TUI" bench --model "$M" --strategy "cpu bf16" --prompt-tokens 4 \
    --gen-tokens 0 --repeat 1 2>&1)
if printf '%s\n' "$j" | grep -q "checkpoint's matrices in place: read into memory)"; then ok
else fail "bench text, read: $j"; fi
# a plan that converts every matrix has none in place
if "$RWKV_TUI" info --model "$M" --strategy "cpu fp32i8" | grep -q '^in place:'; then
    fail "cpu fp32i8 of a bf16 file reports matrices in place"
else ok; fi
# a mixed plan: only the bf16 layers are in place, fewer bytes than all
a=$(how map "$M" "cpu bf16"); c=$(how map "$M" "cpu fp32i8 *1 -> cpu bf16")
if [ -n "$c" ] && [ "${c%% *}" -gt 0 ] && [ "${c%% *}" -lt "${a%% *}" ]; then ok
else fail "mixed plan: '$c' against '$a'"; fi
if grep -q RWKV_CHECKPOINT_LOAD "$(dirname "$0")/../../man/rwkv-tui.1"; then ok
else fail "the man page lacks RWKV_CHECKPOINT_LOAD"; fi
finish
