#!/usr/bin/env bash
# eval.sh -- `rwkv-tui eval` against the reference fixtures (skipped
# without them), and its errors.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
M7=$FX/models/tiny-7v0-fp32.pth
FX7=$M7
# the checks that need any byte-level v7 file: without the fixtures, one
# written by our own writer (bench --save)
if [ ! -e "$FX7" ] && [ -z "${CI:-}" ]; then
    M7=$TMP/gen.pth
    "$RWKV_TUI" bench --shape demo --save "$M7" >/dev/null 2>&1 || fail "bench --save"
fi

# tokens of run ID in manifest JSON
toks() { python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
r=[x for x in d["runs"] if x["id"]==sys.argv[2]][0]
print(",".join(str(t) for t in r["tokens"]))' "$1" "$2"; }
# compare GOT with REF within TOL (optionally a slice of REF)
cmp32() { python3 "$HERE/cmpf32.py" "$@" >/dev/null; }

# --rnn --all: one row per token == rnn.logits
if have_fixture tiny/tiny-7v0.json 1; then
T=$(toks "$FX/tiny/tiny-7v0.json" fp32w-cpufp32-M)
if "$RWKV_TUI" eval --model "$M7" --tokens "$T" --rnn --all --out "$TMP/a.bin" --state-out "$TMP/s.bin" \
   && cmp32 "$TMP/a.bin" "$FX/tiny/7v0/fp32w-cpufp32-M-rnn-logits.bin" 1e-3 \
   && cmp32 "$TMP/s.bin" "$FX/tiny/7v0/fp32w-cpufp32-M-rnn-state.bin" 1e-3; then ok; else fail "eval --rnn --all (7v0 M)"; fi
fi

# --chunk 16 --all: one row per call == chunk16 logits (v5.2, 289 tokens, last call 1 token)
if have_fixture tiny/tiny-5v2.json 1; then
T=$(toks "$FX/tiny/tiny-5v2.json" fp32w-cpufp32-L)
if "$RWKV_TUI" eval --model "$FX/models/tiny-5v2-fp32.pth" --tokens "$T" --chunk 16 --all --out "$TMP/b.bin" \
   && cmp32 "$TMP/b.bin" "$FX/tiny/5v2/fp32w-cpufp32-L-chunk16-logits.bin" 1e-3; then ok; else fail "eval --chunk 16 --all (5v2 L)"; fi
fi

# default chunk 256, last call only, model path without .pth
if have_fixture tiny/tiny-4v0.json 1; then
T=$(toks "$FX/tiny/tiny-4v0.json" fp32w-cpufp32-L)
if "$RWKV_TUI" eval --model "$FX/models/tiny-4v0-fp32" --tokens "$T" --out "$TMP/c.bin" \
   && cmp32 "$TMP/c.bin" "$FX/tiny/4v0/fp32w-cpufp32-L-chunk256-logits.bin" 1e-3 $((256 * 1)) 256; then ok; else fail "eval default chunk (4v0 L)"; fi
fi

# state-tuning file (6v0, bf16 state file)
if have_fixture tiny/tiny-6v0.json 1; then
T=$(toks "$FX/tiny/tiny-6v0.json" fp32w-cpufp32-ST1)
if "$RWKV_TUI" eval --model "$FX/models/tiny-6v0-fp32.pth" --state "$FX/states/state-6v0-A.pth" --tokens "$T" \
     --rnn --all --out "$TMP/d.bin" \
   && cmp32 "$TMP/d.bin" "$FX/tiny/6v0/fp32w-cpufp32-ST1-rnn-logits.bin" 1e-3; then ok; else fail "eval --state (6v0 ST1)"; fi
fi

# --text with the byte tokenizer == the same bytes as --tokens
if have_fixture tiny/7v0/fp32w-cpufp32-S-chunk256-logits.bin 1; then
if "$RWKV_TUI" eval --model "$FX7" --text '"in' --out "$TMP/e.bin" \
   && cmp32 "$TMP/e.bin" "$FX/tiny/7v0/fp32w-cpufp32-S-chunk256-logits.bin" 1e-3; then ok; else fail "eval --text (7v0 S)"; fi
fi
# ... and without the fixtures, --text against --tokens of the same bytes
"$RWKV_TUI" eval --model "$M7" --text '"in' --out "$TMP/e1.bin" &&
    "$RWKV_TUI" eval --model "$M7" --tokens 34,105,110 --out "$TMP/e2.bin" &&
    cmp -s "$TMP/e1.bin" "$TMP/e2.bin" && ok || fail "eval --text != --tokens of its bytes"

# --text with the World vocabulary (world-7v0, case "en", one call of 11 tokens)
if have_fixture world/world-7v0.json 1; then
if "$RWKV_TUI" eval --model "$FX/models/world-7v0-rand-bf16.pth" --vocab "$FX/rwkv_vocab_v20230424.txt" \
     --text "The Eiffel Tower is located in the city of" --out "$TMP/w.bin" \
   && cmp32 "$TMP/w.bin" "$FX/world/world-7v0/cpufp32-en-chunk256-last-logits.bin" 1e-3; then ok; else fail "eval --text (world en)"; fi
fi

# --demo runs and writes 256 floats
if "$RWKV_TUI" eval --demo --tokens 1,2,3 --out "$TMP/f.bin" && [ "$(wc -c <"$TMP/f.bin")" = 1024 ]; then ok; else fail "eval --demo"; fi

# a safetensors checkpoint works
python3 "$HERE/mkst.py" "$TMP/good.safetensors"
if "$RWKV_TUI" eval --model "$TMP/good.safetensors" --tokens 5,6,7 --out "$TMP/g.bin"; then ok; else fail "eval safetensors"; fi

if "$RWKV_TUI" eval --help | grep -q -- '--chunk'; then ok; else fail "eval --help"; fi

# ---- bad input: one line on stderr, non-zero exit ----
expect_fail "missing file" "nonexistent" "$RWKV_TUI" eval --model /nonexistent/m.pth --tokens 1 --out "$TMP/x.bin"
echo "just some text" >"$TMP/text.pth"
expect_fail "not a zip" "text\.pth" "$RWKV_TUI" eval --model "$TMP/text.pth" --tokens 1 --out "$TMP/x.bin"
head -c 200000 "$M7" >"$TMP/trunc.pth"
expect_fail "truncated checkpoint" "trunc\.pth" "$RWKV_TUI" eval --model "$TMP/trunc.pth" --tokens 1 --out "$TMP/x.bin"
python3 "$HERE/mkst.py" "$TMP/missing.safetensors" --drop blocks.1.att.key.weight
expect_fail "missing weight" "missing\.safetensors: missing tensor 'blocks\.1\.att\.key\.weight'" \
    "$RWKV_TUI" eval --model "$TMP/missing.safetensors" --tokens 1 --out "$TMP/x.bin"
python3 "$HERE/mkst.py" "$TMP/shape.safetensors" --reshape blocks.1.att.key.weight=64,32
expect_fail "misshapen weight" "shape\.safetensors: tensor 'blocks\.1\.att\.key\.weight' has shape \[64,32\], expected \[64,64\]" \
    "$RWKV_TUI" eval --model "$TMP/shape.safetensors" --tokens 1 --out "$TMP/x.bin"
python3 "$HERE/mkst.py" "$TMP/unknown.safetensors" --only-unknown
expect_fail "unknown version" "unknown\.safetensors: unknown RWKV version" \
    "$RWKV_TUI" eval --model "$TMP/unknown.safetensors" --tokens 1 --out "$TMP/x.bin"
if have_fixture states/state-5v2-A.pth 1; then
expect_fail "state file for another model" "state-5v2-A\.pth: .*shape \[8,8,8\], expected \[1,64,64\]" \
    "$RWKV_TUI" eval --model "$FX7" --state "$FX/states/state-5v2-A.pth" --tokens 1 --out "$TMP/x.bin"
fi
# other CPU precisions run; their logits stay near cpu fp32 (bounds: test_precision.c)
"$RWKV_TUI" eval --model "$M7" --tokens 72,101,108 --out "$TMP/p32.bin" || fail "eval fp32"
BOUNDS=("cpu bf16:0.002" "cpu fp16:0.0001" "cpu fp32i8:0.05" "cpu fp32i8 *6 -> cpu fp32:0.05")
# the generated model's logits spread wider (about +-5): bounds to match
[ "$M7" = "$FX7" ] || BOUNDS=("cpu bf16:0.05" "cpu fp16:0.0001" "cpu fp32i8:0.15" "cpu fp32i8 *1 -> cpu fp32:0.15")
for s in "${BOUNDS[@]}"; do
    if "$RWKV_TUI" eval --model "$M7" --strategy "${s%%:*}" --tokens 72,101,108 --out "$TMP/p.bin" &&
       cmp32 "$TMP/p.bin" "$TMP/p32.bin" "${s##*:}"; then ok; else fail "eval --strategy '${s%%:*}'"; fi
done
expect_fail "unsupported strategy" "device 'mps' \(stage 1\) is not supported" \
    "$RWKV_TUI" eval --model "$M7" --strategy "mps fp32" --tokens 1 --out "$TMP/x.bin"
expect_fail "cuda strategy" "built without CUDA|cuda layers are not supported yet|no CUDA device" \
    "$RWKV_TUI" eval --model "$M7" --strategy "cuda fp16" --tokens 1 --out "$TMP/x.bin"
expect_fail "invalid strategy" "invalid strategy 'cpu fp64'" \
    "$RWKV_TUI" eval --model "$M7" --strategy "cpu fp64" --tokens 1 --out "$TMP/x.bin"
expect_fail "token id >= vocab" "token id 256 .*out of range" \
    "$RWKV_TUI" eval --model "$M7" --tokens 1,256 --out "$TMP/x.bin"
expect_fail "bad token list" "--tokens" "$RWKV_TUI" eval --model "$M7" --tokens 1,x --out "$TMP/x.bin"
expect_fail "no --out" "--out" "$RWKV_TUI" eval --model "$M7" --tokens 1
expect_fail "unwritable --out" "cannot create" "$RWKV_TUI" eval --model "$M7" --tokens 1 --out /nonexistent/dir/x.bin
finish
