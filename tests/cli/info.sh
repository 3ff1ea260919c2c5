#!/usr/bin/env bash
# info.sh -- `rwkv-tui info` on the fixture checkpoints (skipped without
# them), on a model written by `bench --save`, and its errors.
. "$(dirname "$0")/lib.sh"

check_info() {   # MODEL FIELD-REGEX...
    local model=$1 out; shift
    out=$("$RWKV_TUI" info --model "$model" 2>&1) || { fail "info $model: $out"; return; }
    for re in "$@"; do
        printf '%s\n' "$out" | grep -Eq -- "$re" || { fail "info $model: no /$re/ in: $out"; return; }
    done
    ok
}
# a model of our own writer: always there
"$RWKV_TUI" bench --shape demo --save "$TMP/gen.pth" >/dev/null 2>&1 || fail "bench --save"
check_info "$TMP/gen.pth" "version: +RWKV 7\.0" "layers: +2" "embedding: +128" "heads: +2 x 64" \
    "vocab: +256" "dtypes: +bfloat16" "format: +pth"
if have_fixture models 8; then
check_info "$FX/models/tiny-7v0-fp32.pth" "version: +RWKV 7\.0" "layers: +12" "embedding: +64" \
    "heads: +1 x 64" "ffn: +256" "vocab: +256" "dtypes: +float32" "format: +pth" "file size: +3445257 bytes"
check_info "$FX/models/tiny-4v0-bf16.pth" "version: +RWKV 4$" "layers: +4" "embedding: +128" "dtypes: +bfloat16"
check_info "$FX/models/tiny-5v1-fp32.pth" "version: +RWKV 5\.0" "heads: +8 x 8"
check_info "$FX/models/rand-v5.1-fp32.pth" "version: +RWKV 5\.1" "layers: +2"
check_info "$FX/models/tiny-5v2-fp32" "version: +RWKV 5\.2"
check_info "$FX/models/tiny-6v0-fp32.pth" "version: +RWKV 6\.0" "heads: +16 x 8" "ffn: +448"
check_info "$FX/models/rand-7v0-h2-bf16.pth" "heads: +2 x 64" "layers: +3" "ffn: +512"
check_info "$FX/models/world-7v0-rand-bf16.pth" "vocab: +65536"
fi
if "$RWKV_TUI" info --demo | grep -q "format: *demo"; then ok; else fail "info --demo"; fi
# what runs it: the kernel set (and RWKV_KERNELS said when set), and the CUDA
# devices or why there are none, in one line each
out=$("$RWKV_TUI" info --demo 2>&1)
printf '%s\n' "$out" | grep -Eq "^kernels: +(portable|avx2|avx2-vnni|avx512|avx512-exact) \(cpu: " \
    && ok || fail "info: no kernels line: $out"
printf '%s\n' "$out" | grep -Eq "^cuda(: +not in this build|: +no CUDA device|:[0-9]+ +.*, sm_[0-9]+, [0-9]+ SMs)" \
    && [ "$(printf '%s\n' "$out" | grep -c '^cuda')" -ge 1 ] && ok || fail "info: no cuda line: $out"
out=$(RWKV_KERNELS=portable "$RWKV_TUI" info --demo 2>&1)
printf '%s\n' "$out" | grep -q "^kernels: *portable, RWKV_KERNELS set" && ok \
    || fail "info with RWKV_KERNELS=portable: $out"
printf '%s\n' "$out" | grep -q "not a kernel set" && fail "a known set warned: $out" || ok
# a name that is not a kernel set is said in one line, not taken as set
# (it was ignored in silence, info saying "RWKV_KERNELS set"); empty is unset
for k in bogus AVX2 avx-512; do
    out=$(RWKV_KERNELS=$k "$RWKV_TUI" info --demo 2>"$TMP/kerr")
    [ "$(cat "$TMP/kerr")" = "rwkv-tui: RWKV_KERNELS=$k is not a kernel set (portable, avx2, avx2-vnni, avx512, avx512-exact); using $(printf '%s\n' "$out" | sed -n 's/^kernels: *\([a-z0-9-]*\),.*/\1/p')" ] &&
        ok || fail "RWKV_KERNELS=$k: stderr '$(cat "$TMP/kerr")'"
    printf '%s\n' "$out" | grep -q "^kernels: .*, RWKV_KERNELS not followed" && ok ||
        fail "RWKV_KERNELS=$k: info says $(printf '%s\n' "$out" | grep kernels)"
done
out=$(RWKV_KERNELS= "$RWKV_TUI" info --demo 2>&1)
case $out in *RWKV_KERNELS*) fail "empty RWKV_KERNELS: $out" ;; *) ok ;; esac
RWKV_KERNELS=bogus "$RWKV_TUI" sessions --db "$TMP/none.db" list 2>&1 | grep -q RWKV_KERNELS &&
    fail "sessions (no model) warned of the kernels" || ok
# the engine's other settings: a value it does not follow is said, one line
# each (RWKV_TPOOL_SPIN_US=abc read as 0, RWKV_WEIGHT_CACHE=maybe as auto, in
# silence); valid values and empty ones say nothing
RWKV_TPOOL_SPIN_US=abc RWKV_TPOOL_SOLO_MS=-1 RWKV_WEIGHT_CACHE=maybe RWKV_CHECKPOINT_LOAD=bogus \
    RWKV_WEIGHT_CACHE_LOAD=mapped "$RWKV_TUI" info --demo >/dev/null 2>"$TMP/eerr"
for want in "RWKV_TPOOL_SPIN_US=abc is not a number of microseconds, 0 to 1000; using the default" \
            "RWKV_TPOOL_SOLO_MS=-1 is not a number of milliseconds, 0 to 640; using the default" \
            "RWKV_WEIGHT_CACHE=maybe is not 0/off/no/false, 1/on/yes/true or auto; using the default" \
            "RWKV_CHECKPOINT_LOAD=bogus is not map or copy; using the default" \
            "RWKV_WEIGHT_CACHE_LOAD=mapped is not map or copy; using the default"; do
    grep -qxF "rwkv-tui: $want" "$TMP/eerr" && ok || fail "not said: $want (stderr: $(cat "$TMP/eerr"))"
done
[ "$(grep -c '' "$TMP/eerr")" = 5 ] && ok || fail "env notes: $(cat "$TMP/eerr")"
RWKV_TPOOL_SPIN_US=0.5 RWKV_TPOOL_SOLO_MS=640 RWKV_WEIGHT_CACHE=off RWKV_CHECKPOINT_LOAD=copy \
    RWKV_WEIGHT_CACHE_LOAD= "$RWKV_TUI" info --demo >/dev/null 2>"$TMP/eerr"
[ ! -s "$TMP/eerr" ] && ok || fail "valid settings warned: $(cat "$TMP/eerr")"
RWKV_TPOOL_SPIN_US=5000 "$RWKV_TUI" info --demo 2>&1 >/dev/null | grep -q 'RWKV_TPOOL_SPIN_US=5000 is not' &&
    ok || fail "an out-of-range spin was not said"
# weight bytes per token: fp32 = 4 bytes x (parameters - embedding); other
# strategies store the linears smaller
if have_fixture models/tiny-7v0-fp32.pth 3; then
wb() { "$RWKV_TUI" info --model "$FX/models/tiny-7v0-fp32.pth" --strategy "$1" | sed -n 's/^weights: *\([0-9]*\) bytes.*/\1/p'; }
params=$("$RWKV_TUI" info --model "$FX/models/tiny-7v0-fp32.pth" | sed -n 's/^parameters: *\([0-9]*\) .*/\1/p')
w32=$(wb "cpu fp32"); w16=$(wb "cpu bf16"); wh=$(wb "cpu fp16"); w8=$(wb "cpu fp32i8"); wmix=$(wb "cpu fp32i8 *6 -> cpu fp32")
if [ -n "$params" ] && [ "$w32" = $((4 * (params - 256 * 64))) ]; then ok; else fail "fp32 weight bytes $w32 (params $params)"; fi
if [ "$w16" -lt "$w32" ] && [ "$wh" = "$w16" ] && [ "$w8" -lt "$w16" ] && [ "$wmix" -gt "$w8" ] && [ "$wmix" -lt "$w32" ]; then ok
else fail "weight bytes fp32 $w32 bf16 $w16 fp16 $wh fp32i8 $w8 mixed $wmix"; fi
if "$RWKV_TUI" info --model "$FX/models/tiny-7v0-fp32.pth" --strategy "cpu fp32i8 *6 -> cpu fp32" | grep -q "strategy: *cpu fp32i8 \*6 -> cpu fp32"; then ok; else fail "mixed strategy shown"; fi
fi
expect_fail "info cuda strategy" "built without CUDA|cuda layers are not supported yet|no CUDA device" "$RWKV_TUI" info --model "$TMP/gen.pth" --strategy "cuda fp16"
expect_fail "info bad strategy" "unknown dtype" "$RWKV_TUI" info --model "$TMP/gen.pth" --strategy "cpu fp64"
# a --strategy that does not parse is a usage error (exit 2, as the man page
# says), for every command and the client, before any model is read
for c in info generate chat eval bench ""; do
    # shellcheck disable=SC2086   # $c is the command, or none (the client)
    "$RWKV_TUI" $c --demo --strategy "cpu fp23" </dev/null >/dev/null 2>"$TMP/se"
    rc=$?
    [ $rc = 2 ] && grep -q "^rwkv-tui: --strategy: invalid strategy 'cpu fp23': unknown dtype" "$TMP/se" &&
        ok || fail "'$c --strategy \"cpu fp23\"': exit $rc: $(cat "$TMP/se")"
done
if "$RWKV_TUI" info --help | grep -q -- '--model'; then ok; else fail "info --help"; fi
expect_fail "info missing file" "nonexistent" "$RWKV_TUI" info --model /nonexistent/m.pth
expect_fail "info no model" "--model" "$RWKV_TUI" info
# --state and --vocab are checked against the model (they were taken and
# never read: a missing file, a FIFO or another model's state said nothing)
if have_fixture models/tiny-7v0-fp32.pth 4 && have_fixture states/state-7v0-A.pth 4 &&
   have_fixture states/state-5v2-A.pth 4; then
    M7=$FX/models/tiny-7v0-fp32.pth
    expect_fail "info --state missing" "^rwkv-tui: /nonexistent\.pth: cannot open" \
        "$RWKV_TUI" info --model "$M7" --state /nonexistent.pth
    expect_fail "info --state of another model" "state-5v2-A\.pth: tensor .* \(a state file for another model\?\)" \
        "$RWKV_TUI" info --model "$M7" --state "$FX/states/state-5v2-A.pth"
    mkfifo "$TMP/st.fifo"
    expect_fail "info --state FIFO" "st\.fifo: not a regular file \(a FIFO\)" \
        timeout 10 "$RWKV_TUI" info --model "$M7" --state "$TMP/st.fifo"
    "$RWKV_TUI" info --model "$M7" --state "$FX/states/state-7v0-A.pth" >"$TMP/is" 2>&1 &&
        grep -q "^state file:  .*state-7v0-A\.pth (fits this model)$" "$TMP/is" && ok ||
        fail "info --state that fits: $(tail -2 "$TMP/is")"
fi
if have_fixture models/world-7v0-rand-bf16.pth 2 && have_fixture rwkv_vocab_v20230424.txt 2; then
    printf 'not a vocabulary\n' >"$TMP/v.txt"
    expect_fail "info --vocab not a vocabulary" "v\.txt:1: expected a token id" \
        "$RWKV_TUI" info --model "$FX/models/world-7v0-rand-bf16.pth" --vocab "$TMP/v.txt"
    "$RWKV_TUI" info --model "$FX/models/world-7v0-rand-bf16.pth" --vocab "$FX/rwkv_vocab_v20230424.txt" |
        grep -q "^vocabulary:  .* (65530 tokens)$" && ok || fail "info --vocab: no line"
fi
finish
