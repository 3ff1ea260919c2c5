#!/usr/bin/env bash
# bench.sh -- `rwkv-tui bench`: a quick run on the in-memory shapes, the
# weight-bytes estimate, and its errors.
. "$(dirname "$0")/lib.sh"

out=$("$RWKV_TUI" bench --shape demo --strategy "cpu bf16" --threads 2 --prompt-tokens 8 \
      --gen-tokens 4 --repeat 1 --json 2>&1) || fail "bench --shape demo: $out"
if printf '%s\n' "$out" | grep -Eq '"strategy": "cpu bf16".*"weight_bytes": [1-9][0-9]*.*"prefill_tok_s": [0-9.]+, "decode_tok_s": [0-9.]+'; then ok
else fail "bench --shape demo json: $out"; fi
# the bandwidth is read after each decode run too (none without decode), and
# the bound is the best of every probe
jnum() { printf '%s\n' "$1" | sed -n "s/.*\"$2\": \([0-9.]*\).*/\1/p"; }
out=$("$RWKV_TUI" bench --shape demo --strategy "cpu fp32" --threads 2 --prompt-tokens 8 \
      --gen-tokens 8 --repeat 3 --json 2>&1) || fail "bench: $out"
runs=$(jnum "$out" read_bandwidth_runs_gb_s); bw=$(jnum "$out" read_bandwidth_gb_s)
b0=$(jnum "$out" read_bandwidth_before_gb_s); b1=$(jnum "$out" read_bandwidth_after_gb_s)
if awk -v r="$runs" -v bw="$bw" -v b0="$b0" -v b1="$b1" \
    'BEGIN { m = b0 > b1 ? b0 : b1; m = m > r ? m : r; exit !(r > 0 && bw == m) }'; then ok
else fail "the bound is not the best probe: runs '$runs', before '$b0', after '$b1', bound '$bw'"; fi
# the paired probe: every other decoded token against a pass read right after it;
# the median of those shares agrees with the medians of tok/s and GB/s
# (within 3x: one is a median of ratios), which fails if the passes' time
# were counted in the tokens' or the units slipped
pb=$(jnum "$out" read_bandwidth_paired_gb_s); ps=$(jnum "$out" decode_share_paired)
dt=$(jnum "$out" decode_tok_s); wb=$(jnum "$out" weight_bytes)
if awk -v pb="$pb" -v ps="$ps" -v dt="$dt" -v wb="$wb" \
    'BEGIN { e = dt * wb / 1e9 / pb; exit !(pb > 0 && ps > 0 && ps < 3 * e && e < 3 * ps) }'; then ok
else fail "paired probe: share '$ps', bandwidth '$pb', decode '$dt' tok/s of '$wb' bytes"; fi
# 8 tokens: a pass after the 2nd, 4th, 6th and 8th; the 3rd, 5th and 7th
# follow a pass and are not timed
if [ "$(printf '%s\n' "$out" | sed -n 's/.*"decode_tokens_timed": \([0-9]*\).*/\1/p')" = 5 ]; then ok
else fail "the tokens after a probe pass were timed: $out"; fi
# decode's matrix products (rwkv_model_products): inside the token's time,
# and their bytes a token agree with the weight bytes (rate x share = bytes
# x tok/s, within 1.5x: medians of ratios), which fails if the head or a
# batch were left out or counted twice, or a prefill's products counted
sh=$(jnum "$out" decode_products_share); pr=$(jnum "$out" decode_products_gb_s)
pp=$(jnum "$out" decode_products_paired)
if awk -v sh="$sh" -v pr="$pr" -v pp="$pp" -v dt="$dt" -v wb="$wb" -v pb="$pb" \
    'BEGIN { e = pr * sh / (dt * wb / 1e9); q = pr / pb;
             exit !(sh > 0 && sh <= 1 && e > 1 / 1.5 && e < 1.5 && pp > q / 3 && pp < 3 * q) }'; then ok
else fail "products: share '$sh', '$pr' GB/s, paired '$pp'; decode '$dt' tok/s of '$wb' bytes, probe '$pb' GB/s"; fi
out=$("$RWKV_TUI" bench --shape demo --strategy "cpu fp32" --threads 2 --prompt-tokens 8 \
      --gen-tokens 0 --repeat 1 --json 2>&1) || fail "bench --gen-tokens 0: $out"
if [ "$(jnum "$out" read_bandwidth_runs_gb_s)" = "0.00" ]; then ok; else fail "no decode, yet a probe after it: $out"; fi
if [ "$(jnum "$out" decode_share_paired)" = "0.000" ] &&
   [ "$(jnum "$out" read_bandwidth_paired_gb_s)" = "0.00" ]; then ok
else fail "no decode, yet a paired share: $out"; fi
if [ "$(jnum "$out" decode_products_share)" = "0.000" ] &&
   [ "$(jnum "$out" decode_products_gb_s)" = "0.00" ]; then ok
else fail "no decode, yet decode's products: $out"; fi
out=$("$RWKV_TUI" bench --shape demo --strategy "cpu fp32" --threads 2 --prompt-tokens 8 \
      --gen-tokens 4 --repeat 1 2>&1) || fail "bench text: $out"
if printf '%s\n' "$out" | grep -Eq "after the decode runs up to [0-9.]+; the best counts"; then ok
else fail "the text does not name the probes after the runs: $out"; fi
if printf '%s\n' "$out" | grep -Eq "\(4 tokens, 3 timed: none right after a probe pass, median of 1\).*decode at [0-9]+%, [0-9]+% paired \(every other token against the [0-9.]+ GB/s read after it, median\)"; then ok
else fail "the text does not give the paired share: $out"; fi
if printf '%s\n' "$out" | grep -Eq "^products +[0-9]+% of a decoded token's time, reading [0-9.]+ GB/s, [0-9]+% paired \(the matrix products"; then ok
else fail "the text does not give decode's products: $out"; fi
out=$("$RWKV_TUI" bench --demo --prompt-tokens 4 --gen-tokens 2 --repeat 1 2>&1) || fail "bench --demo: $out"
if printf '%s\n' "$out" | grep -q "decode at"; then ok; else fail "bench --demo text: $out"; fi
expect_fail "bench unknown shape" "unknown model shape 'nope'.*known: demo, 0\.1b" "$RWKV_TUI" bench --shape nope
# a usage error, exit 2 as every bad option value, with --save too (it was
# 1); nothing written
for s in "" "--save $TMP/x.pth"; do
    "$RWKV_TUI" bench --shape nope $s >/dev/null 2>&1
    rc=$?
    [ $rc = 2 ] && ok || fail "bench --shape nope $s: exit $rc, not 2"
done
expect_fail "bench --save unknown shape" "^rwkv-tui: bench: unknown model shape 'nope' \(known: demo, demo-v6, .*1\.6b-v6\)$" \
    "$RWKV_TUI" bench --shape nope --save "$TMP/x.pth"
[ ! -e "$TMP/x.pth" ] && ok || fail "bench --shape nope --save wrote a file"
expect_fail "bench two models" "one of --model" "$RWKV_TUI" bench --demo --shape 0.1b
expect_fail "bench cuda" "built without CUDA|cuda layers are not supported yet|no CUDA device" "$RWKV_TUI" bench --shape demo --strategy "cuda fp16"
finish
