#!/bin/bash
# bench_kernels.sh -- `rwkv-tui bench` says which kernel set ran and what the
# CPU has (text and JSON), RWKV_KERNELS=avx2 forces the AVX2 set where the
# CPU has it, and --busy N runs N spinning processes beside the run that are
# gone when bench exits (also when the model fails to load).
. "$(dirname "$0")/lib.sh"

run() { "$RWKV_TUI" bench --demo --prompt-tokens 4 --gen-tokens 2 --repeat 1 "$@" 2>&1; }
field() { sed -n "s/.*\"$1\": \"\\{0,1\\}\\([^\",]*\\)\"\\{0,1\\}[,}].*/\\1/p"; }

out=$(run --json) || fail "bench --json: $out"
kern=$(printf '%s\n' "$out" | field kernels)
feat=$(printf '%s\n' "$out" | field cpu_features)
case $kern in portable|avx2|avx2-vnni|avx512|avx512-exact) ok ;; *) fail "kernels '$kern': $out" ;; esac
if [ -n "$feat" ]; then ok; else fail "no cpu_features: $out"; fi
if [ "$(printf '%s\n' "$out" | field busy)" = 0 ]; then ok; else fail "busy without --busy: $out"; fi

out=$(run) || fail "bench text: $out"
line=$(printf '%s\n' "$out" | grep '^cpu ')
if [ -n "$line" ] && printf '%s' "$line" | grep -qF -- "$feat"; then ok
else fail "text report lacks the cpu features line '$feat': $out"; fi
if printf '%s\n' "$out" | grep -q "^strategy .*, $kern kernels;"; then ok
else fail "text report lacks '$kern kernels': $out"; fi

# the forced AVX2 set, where the CPU has AVX2 + FMA + F16C
has() { case " $feat " in *" $1 "*) return 0 ;; esac; return 1; }
if has avx2 && has fma && has f16c; then
    out=$(RWKV_KERNELS=avx2 run --json) || fail "RWKV_KERNELS=avx2: $out"
    if [ "$(printf '%s\n' "$out" | field kernels)" = avx2 ]; then ok
    else fail "RWKV_KERNELS=avx2 ran '$(printf '%s\n' "$out" | field kernels)': $out"; fi
    out=$(RWKV_KERNELS=avx2 run) || fail "RWKV_KERNELS=avx2 text: $out"
    if printf '%s\n' "$out" | grep -q "^cpu .*(RWKV_KERNELS set)"; then ok
    else fail "text report does not say RWKV_KERNELS was set: $out"; fi
else
    # a set the CPU cannot run: one line says so and the best it has runs
    out=$(RWKV_KERNELS=avx2 run --json) || fail "RWKV_KERNELS=avx2 on a CPU without it: $out"
    printf '%s\n' "$out" | grep -q "RWKV_KERNELS=avx2: this CPU cannot run that kernel set; using $kern" &&
        ok || fail "RWKV_KERNELS=avx2 without AVX2: not said: $out"
    [ "$(printf '%s\n' "$out" | field kernels)" = "$kern" ] && ok ||
        fail "RWKV_KERNELS=avx2 without AVX2 ran '$(printf '%s\n' "$out" | field kernels)'"
fi
# AVX-512: the default is avx512 or, where the bf16 dot product measured no faster
# than FMA, avx512-exact; each can be forced, and only avx512 bounds bf16 prefill
# by the bf16 dot peak
if has avx512f && has bf16; then
    case $kern in avx512|avx512-exact) ok ;; *) fail "AVX-512 CPU ran '$kern' by default" ;; esac
    for k in avx512 avx512-exact; do
        out=$(RWKV_KERNELS=$k run --json --strategy "cpu bf16") || fail "RWKV_KERNELS=$k: $out"
        case $k in avx512) want=bf16dot ;; *) want=fma ;; esac
        if [ "$(printf '%s\n' "$out" | field kernels)" = $k ] &&
           [ "$(printf '%s\n' "$out" | field prefill_peak)" = $want ]; then ok
        else fail "RWKV_KERNELS=$k: want kernels $k, prefill peak $want: $out"; fi
    done
else
    # forced where the CPU lacks them: one line says so, the best set it has
    # runs, and bf16 prefill is bounded by the FMA peak (no dot kernel)
    for k in avx512 avx512-exact; do
        out=$(RWKV_KERNELS=$k run --json --strategy "cpu bf16") || fail "RWKV_KERNELS=$k: $out"
        if printf '%s\n' "$out" | grep -q "RWKV_KERNELS=$k: this CPU cannot run that kernel set; using $kern" &&
           [ "$(printf '%s\n' "$out" | field kernels)" = "$kern" ]; then ok
        else fail "RWKV_KERNELS=$k without AVX-512: want one line and kernels $kern: $out"; fi
    done
    [ "$(printf '%s\n' "$out" | field prefill_peak)" = fma ] && ok ||
        fail "no AVX-512: cpu bf16 prefill bounded by '$(printf '%s\n' "$out" | field prefill_peak)', want fma"
fi
out=$(RWKV_KERNELS=portable run --json) || fail "RWKV_KERNELS=portable: $out"
if [ "$(printf '%s\n' "$out" | field kernels)" = portable ]; then ok
else fail "RWKV_KERNELS=portable ran '$(printf '%s\n' "$out" | field kernels)'"; fi
# a set without a bf16 dot product times the FMA in both probes: one peak,
# the best of the four (a slow probe must not lower it and raise a share)
fma=$(printf '%s\n' "$out" | field peak_fma_gflop_s)
dot=$(printf '%s\n' "$out" | field peak_bf16dot_gflop_s)
if [ -n "$fma" ] && [ "$fma" = "$dot" ]; then ok
else fail "portable: FMA peak '$fma' and dot peak '$dot' differ: $out"; fi

# --busy 2: reported, and no spinner left behind.  The seed marks this run's
# processes (the spinners are forks of bench, with its command line).
seed=$((40000 + $$ % 20000))
out=$(run --busy 2 --seed $seed --json) || fail "bench --busy 2: $out"
if [ "$(printf '%s\n' "$out" | field busy)" = 2 ]; then ok; else fail "busy 2 not reported: $out"; fi
if pgrep -f -- "--busy 2 --seed $seed" >/dev/null; then
    fail "spinners of --busy 2 still running after bench exited"
else ok; fi
out=$(run --busy 1 --seed $seed) || fail "bench --busy 1 text: $out"
if printf '%s\n' "$out" | grep -q "^cpu .*1 spinning process beside the run"; then ok
else fail "text report lacks the --busy line: $out"; fi
# a model that fails to load: the error, and the spinners gone too
expect_fail "bench --busy, bad model" "nope" "$RWKV_TUI" bench --model "$TMP/nope.pth" \
    --busy 1 --seed $seed
if pgrep -f -- "--busy 1 --seed $seed" >/dev/null; then
    fail "spinners of --busy 1 still running after a failed load"
else ok; fi
expect_fail "bench --busy -1" "busy" "$RWKV_TUI" bench --demo --busy -1
expect_fail "bench --busy too many" "busy" "$RWKV_TUI" bench --demo --busy 65
finish
