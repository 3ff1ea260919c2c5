#!/usr/bin/env bash
# bench_files.sh -- `rwkv-tui bench --shape NAME --save PATH`: benchmark model
# files written by rwkv-tui's own .pth writer: Python's zipfile/pickletools
# accept them (tests/cli/ckpt_check.py), they load and evaluate, they do not
# depend on the thread count, the bench report has the memory and limit
# fields, and bad paths / options give one clear line.
. "$(dirname "$0")/lib.sh"
CHECK="$(dirname "$0")/ckpt_check.py"

out=$("$RWKV_TUI" bench --shape demo-v6 --save "$TMP/v6.pth" --threads 2 2>&1) \
    || fail "save demo-v6: $out"
if printf '%s\n' "$out" | grep -Eq "^$TMP/v6\.pth: demo-v6 model \(bfloat16, seed 1\), [0-9]+ bytes .* s$"; then ok
else fail "save report: $out"; fi
[ -f "$TMP/v6.pth" ] && ! ls -a "$TMP" | grep -q '\.tmp$' && ok || fail "file / leftover temporary"
out=$(python3 "$CHECK" "$TMP/v6.pth" 2>&1)
[ "$out" = "ok 62 tensors" ] && ok || fail "python check v6: $out"

"$RWKV_TUI" bench --shape demo --save "$TMP/v7a.pth" --threads 1 --dtype fp16 --seed 9 >/dev/null \
    || fail "save demo fp16"
"$RWKV_TUI" bench --shape demo --save "$TMP/v7b.pth" --threads 2 --dtype fp16 --seed 9 >/dev/null \
    || fail "save demo fp16, 2 threads"
cmp -s "$TMP/v7a.pth" "$TMP/v7b.pth" && ok || fail "1 and 2 threads wrote different files"
out=$(python3 "$CHECK" "$TMP/v7a.pth" 2>&1)
[ "$out" = "ok 69 tensors" ] && ok || fail "python check v7: $out"
out=$("$RWKV_TUI" info --model "$TMP/v7a.pth" 2>&1) || fail "info: $out"
printf '%s\n' "$out" | grep -q "dtypes: *float16" && printf '%s\n' "$out" | grep -q "RWKV 7.0" \
    && ok || fail "info of the fp16 file: $out"
out=$("$RWKV_TUI" bench --shape demo --save "$TMP/j.pth" --dtype fp32 --json 2>&1) || fail "json save: $out"
printf '%s\n' "$out" | grep -Eq '"saved": ".*j\.pth", "shape": "demo", "dtype": "float32", "seed": 1, "file_bytes": [0-9]+' \
    && ok || fail "json save report: $out"
# --seed takes any 64-bit number, as chat's --seed does, and it picks the weights
out=$("$RWKV_TUI" bench --shape demo --save "$TMP/s64.pth" --seed 18446744073709551615 2>&1) &&
    printf '%s\n' "$out" | grep -q "seed 18446744073709551615)" && ok || fail "64-bit seed: $out"
"$RWKV_TUI" bench --shape demo --save "$TMP/s1.pth" --seed 1 >/dev/null 2>&1 &&
    ! cmp -s "$TMP/s64.pth" "$TMP/s1.pth" && ok || fail "seeds 2^64-1 and 1 wrote the same weights"
expect_fail "seed past 64 bits" "'18446744073709551616' is not an integer in \\[0, 18446744073709551615\\]" \
    "$RWKV_TUI" bench --shape demo --save "$TMP/s65.pth" --seed 18446744073709551616
expect_fail "negative seed" "'-1' is not an integer in \\[0, 18446744073709551615\\]" \
    "$RWKV_TUI" bench --shape demo --save "$TMP/sneg.pth" --seed -1

# the file loads and evaluates: finite logits, chunked == token by token
"$RWKV_TUI" eval --model "$TMP/v6.pth" --text "hello world" --out "$TMP/a.bin" >/dev/null 2>&1 \
    || fail "eval v6 chunked"
"$RWKV_TUI" eval --model "$TMP/v6.pth" --text "hello world" --rnn --out "$TMP/b.bin" >/dev/null 2>&1 \
    || fail "eval v6 rnn"
out=$(python3 - "$TMP/a.bin" "$TMP/b.bin" <<'PY'
import math, struct, sys
a = struct.unpack("<256f", open(sys.argv[1], "rb").read())
b = struct.unpack("<256f", open(sys.argv[2], "rb").read())
ok = all(math.isfinite(x) for x in a) and max(abs(x - y) for x, y in zip(a, b)) < 1e-3 \
     and max(a) - min(a) > 0.1
print("ok" if ok else "bad %g %g" % (max(a), min(a)))
PY
)
[ "$out" = ok ] && ok || fail "v6 logits: $out"

# the bench report on a file
out=$("$RWKV_TUI" bench --model "$TMP/v6.pth" --strategy "cpu bf16" --threads 2 --prompt-tokens 8 \
      --gen-tokens 2 --repeat 1 --json 2>&1) || fail "bench file: $out"
for k in file_bytes load_s rss_load_mib peak_rss_mib rss_file_ratio prefill_tok_s decode_tok_s \
         read_bandwidth_gb_s decode_share_of_bound peak_fma_gflop_s peak_bf16dot_gflop_s \
         prefill_gflop_per_tok prefill_bound_tok_s prefill_share_of_bound \
         prefill_cores decode_cores; do
    printf '%s\n' "$out" | grep -Eq "\"$k\": [0-9.]+[,}]" || { fail "bench json lacks $k: $out"; k=; break; }
done
[ -n "$k" ] && ok
# bf16 prefill is bounded by the bf16 dot peak where the kernels use it (avx512), else
# by the FMA peak (avx2, avx512-exact, portable: fp32 panels)
case $out in *'"kernels": "avx512"'*) want=bf16dot ;; *) want=fma ;; esac
printf '%s\n' "$out" | grep -q "\"prefill_peak\": \"$want\"" && ok || fail "cpu bf16 peak kind (want $want): $out"
out=$("$RWKV_TUI" bench --model "$TMP/v6.pth" --strategy "cpu fp16" --threads 1 --prompt-tokens 4 \
      --gen-tokens 0 --repeat 1 2>&1) || fail "bench fp16: $out"
printf '%s\n' "$out" | grep -q "at the fp32 FMA peak" && ! printf '%s\n' "$out" | grep -q "^decode" \
    && ok || fail "fp16 report / --gen-tokens 0: $out"

# hostile paths and options
expect_fail "save into a missing dir" "$TMP/no/such/dir/m\.pth: cannot create: No such file or directory" \
    "$RWKV_TUI" bench --shape demo --save "$TMP/no/such/dir/m.pth"
expect_fail "save without shape" "--save needs --shape" "$RWKV_TUI" bench --save "$TMP/x.pth"
expect_fail "save unknown shape" "unknown model shape '7b'.*1\.6b-v6" \
    "$RWKV_TUI" bench --shape 7b --save "$TMP/x.pth"
expect_fail "bad dtype" "--dtype must be bf16, fp16 or fp32" \
    "$RWKV_TUI" bench --shape demo --save "$TMP/x.pth" --dtype int8
expect_fail "dtype without save" "--dtype only applies with --save" \
    "$RWKV_TUI" bench --shape demo --dtype fp16
expect_fail "v6 shape in memory" "exists only as a file.*--save" "$RWKV_TUI" bench --shape 1.6b-v6
expect_fail "save onto a directory" "$TMP: cannot create: it is a directory" \
    "$RWKV_TUI" bench --shape demo --save "$TMP"
[ ! -e "$TMP/x.pth" ] && [ ! -e "$TMP.tmp" ] && ok || fail "failed saves left files"

# --json with a path JSON must escape: the one escaper (core/io/json.h)
q="$TMP/q\"uo\\te.pth"
"$RWKV_TUI" bench --shape demo --save "$q" --dtype fp32 --json >"$TMP/qs" 2>&1 || fail "save $q"
"$RWKV_TUI" bench --model "$q" --prompt-tokens 4 --gen-tokens 2 --repeat 1 --json >"$TMP/qb" 2>&1 ||
    fail "bench $q"
python3 - "$TMP/qs" "$TMP/qb" "$q" <<'PY' >"$TMP/qp" 2>&1 && ok || fail "json paths: $(cat "$TMP/qp")"
import json, sys
assert json.load(open(sys.argv[1]))["saved"] == sys.argv[3]
assert json.load(open(sys.argv[2]))["model"] == sys.argv[3]
PY
finish
