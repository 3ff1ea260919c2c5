#!/usr/bin/env bash
# bench.sh -- `rwkv-tui bench`: a quick run on the in-memory shapes, the
# weight-bytes estimate, and its errors.
. "$(dirname "$0")/lib.sh"

out=$("$RWKV_TUI" bench --shape demo --strategy "cpu bf16" --threads 2 --prompt-tokens 8 \
      --gen-tokens 4 --repeat 1 --json 2>&1) || fail "bench --shape demo: $out"
if printf '%s\n' "$out" | grep -Eq '"strategy": "cpu bf16".*"weight_bytes": [1-9][0-9]*.*"prefill_tok_s": [0-9.]+, "decode_tok_s": [0-9.]+'; then ok
else fail "bench --shape demo json: $out"; fi
out=$("$RWKV_TUI" bench --demo --prompt-tokens 4 --gen-tokens 2 --repeat 1 2>&1) || fail "bench --demo: $out"
if printf '%s\n' "$out" | grep -q "decode at"; then ok; else fail "bench --demo text: $out"; fi
expect_fail "bench unknown shape" "unknown model shape 'nope'.*known: demo, 0\.1b" "$RWKV_TUI" bench --shape nope
expect_fail "bench two models" "one of --model" "$RWKV_TUI" bench --demo --shape 0.1b
expect_fail "bench cuda" "built without CUDA|cuda layers are not supported yet|no CUDA device" "$RWKV_TUI" bench --shape demo --strategy "cuda fp16"
finish
