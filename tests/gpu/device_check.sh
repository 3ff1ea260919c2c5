#!/usr/bin/env bash
# tests/gpu/device_check.sh -- THE script for a machine with a CUDA GPU (a
# lent H200, 15 minutes of device time in all): build with CUDA=1, run the
# GPU tests (kernels, two v7 layers, whole models GPU vs CPU for every
# fixture model and cuda strategy), measure copy bandwidth, cuBLAS fp16 GEMM
# rate at the 1.5B shapes and our kernels' speeds, then `rwkv-tui bench` of
# the 0.1b and 1.5b shapes in every cuda strategy (fp16, fp16i8, fp16i4, bf16,
# a mixed cuda -> cpu plan, streamed *N+ plans) with decode as a share of the
# copy bandwidth and prefill as a share of cuBLAS's fp16 GEMM rate.
# Everything goes under $OUT (default ./device-check-out); summary.txt holds
# the lines to read first.  Every step runs under `timeout`, bounded so the
# whole script ends within TOTAL = 420 s (7 minutes) even when steps hang.
#
#   bash tests/gpu/device_check.sh            # from the repository root
#   JOBS=16 OUT=/tmp/out bash tests/gpu/device_check.sh
#
# Fixture models: $RWKV_FIXTURES, else ../shared/fixtures, else
# build-fixtures (an ignored folder to `carry` to a device machine, ~38 MB):
#   mkdir -p build-fixtures/models && cp /work/shared/fixtures/models/{tiny-5v1-fp32,\
#     rand-v5.1-fp32,tiny-5v2-fp32,tiny-6v0-bf16,tiny-7v0-fp32,rand-7v0-h2-bf16,\
#     world-7v0-rand-bf16,tiny-4v0-fp32}.pth build-fixtures/models/
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/device-check-out}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 4)}
B=${B:-build-devcheck}
mkdir -p "$OUT"
SUM=$OUT/summary.txt
: > "$SUM"
start=$(date +%s)
note() { echo "$*" | tee -a "$SUM"; }
elapsed() { echo $(( $(date +%s) - start )); }
# The whole script stays within TOTAL seconds: each step's timeout is its own
# limit or what is left, whichever is smaller (at least 5 s).
TOTAL=${TOTAL:-420}
lim() {
    local left=$(( TOTAL - $(elapsed) ))
    [ "$left" -lt 5 ] && left=5
    [ "$left" -lt "$1" ] && echo "$left" || echo "$1"
}

export PATH=$PATH:/usr/local/cuda/bin
if [ -z "${RWKV_FIXTURES:-}" ]; then
    for d in ../shared/fixtures shared/fixtures build-fixtures; do
        [ -d "$d/models" ] && { RWKV_FIXTURES=$PWD/$d; break; }
    done
fi
export RWKV_FIXTURES=${RWKV_FIXTURES:-$PWD/build-fixtures}
# Only the GPU's own architecture: a third of the nvcc time (override with
# CUDA_ARCH=... in the environment).
CUDA_ARCH=${CUDA_ARCH:--gencode arch=compute_90,code=sm_90}
export CUDA_ARCH
note "device_check: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname)"
{ timeout 10 nvidia-smi; timeout 10 nvidia-smi -q -d CLOCK,MEMORY; } > "$OUT/nvidia-smi.txt" 2>&1
nvcc --version > "$OUT/nvcc.txt" 2>&1
note "gpu: $(timeout 10 nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | head -n 1)"

# 1. Build.  The full build (rwkv-tui + tests) needs sqlite/ncurses/cyaml;
#    if those are missing here, fall back to building core/ + gpu/ by hand
#    (they need nothing but CUDA, libc and pthreads): the GPU tests, the
#    whole-model test and gpu_model_bench (the model benchmark without
#    rwkv-tui) still run.
TESTS=$(cd tests/gpu && ls test_gpu_*.c | sed "s/\.c$//" | tr "\n" " ")
CU=${CUDA_HOME:-/usr/local/cuda}
CFL="-std=c11 -O2 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE"
CULIBS="-L$CU/lib64 -Wl,-rpath,$CU/lib64 -lcudart -lstdc++ -lpthread -lm -ldl"
t0=$(date +%s)
: > "$OUT/build.log"
# (FORCE_MIN=1 skips the full build, to try the fallback)
if [ -z "${FORCE_MIN:-}" ] && timeout "$(lim 200)" make -j"$JOBS" WERROR=1 CUDA=1 "CUDA_ARCH=$CUDA_ARCH" BUILD=$B BIN=$B/rwkv-tui $B/rwkv-tui \
        $(for t in $TESTS; do echo "$B/tests/$t"; done) $B/tests/gpu_bench \
        > "$OUT/build.log" 2>&1; then
    note "build: make CUDA=1 ok ($(( $(date +%s) - t0 )) s)"
    cc $CFL -o $B/tests/gpu_model_bench tests/gpu/gpu_model_bench.c $B/libgpu.a $B/libcore.a \
        $CULIBS >> "$OUT/build.log" 2>&1 || note "build: gpu_model_bench FAILED (see build.log)"
else
    note "build: make CUDA=1 FAILED (see build.log, last lines below); trying the minimal build"
    tail -n 15 "$OUT/build.log" | tee -a "$SUM"
    rm -f "$B/rwkv-tui"
    M=$B/min; mkdir -p $M $B/tests
    if timeout "$(lim 150)" bash -c "
        set -e
        nvcc -O3 -std=c++17 $CUDA_ARCH -c gpu/gpu_kernels.cu -o $M/k.o &
        for f in gpu/gpu_device.c gpu/gpu_blas.c gpu/gpu_model.c core/*.c core/*/*.c; do
            x=''
            case \$f in
            *_avx512.c) x='-mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512bf16 -mavx512vnni -mfma -mf16c' ;;
            *_avx2.c) x='-mavx2 -mfma -mf16c' ;;
            core/model/strategy.c) x='-DRWKV_CUDA_BUILD' ;;
            esac
            cc $CFL \$x -isystem $CU/include -c \$f -o $M/\$(echo \$f | tr / _ | sed 's/\\.c\$/.o/') &
            while [ \$(jobs -r | wc -l) -ge $JOBS ]; do sleep 0.2; done
        done
        wait
        rm -f $M/libmin.a; ar rcs $M/libmin.a $M/*.o
        for p in $TESTS gpu_bench gpu_model_bench; do
            cc $CFL -o $B/tests/\$p tests/gpu/\$p.c $M/libmin.a $CULIBS
        done" >> "$OUT/build.log" 2>&1; then
        note "build: minimal build ok (no rwkv-tui: benches use gpu_model_bench)"
    else
        note "build: minimal build FAILED too"; tail -n 15 "$OUT/build.log" | tee -a "$SUM"
        note "device_check: done in $(elapsed) s (nothing ran)"; exit 1
    fi
fi

# 2. The GPU tests (each kernel, two whole v7 layers, then whole models GPU
#    vs CPU: test_gpu_model prints one "case" line per model x strategy with
#    the measured errors; they are all copied into the summary).  The model
#    test runs twice: with 1-token passes replayed as CUDA graphs (default)
#    and with graphs off (RWKV_CUDA_GRAPHS=0), so both paths are checked.
for t in $TESTS; do
    t0=$(date +%s)
    timeout "$(lim 120)" "$B/tests/$t" > "$OUT/$t.txt" 2>&1
    rc=$?
    note "$t: $(grep -E '^[0-9]+ passed, [0-9]+ failed' "$OUT/$t.txt" | tail -n 1) (exit $rc, $(( $(date +%s) - t0 )) s)"
    grep -E '^(FAIL|skipped|case)|device 0' "$OUT/$t.txt" | head -n 120 | tee -a "$SUM"
done
if [ -x "$B/tests/test_gpu_model" ]; then
    t0=$(date +%s)
    RWKV_CUDA_GRAPHS=0 RWKV_GPU_MODEL_FILTER=7v0 timeout "$(lim 60)" "$B/tests/test_gpu_model" \
        > "$OUT/test_gpu_model_nograph.txt" 2>&1
    rc=$?
    note "test_gpu_model (graphs off, v7 models): $(grep -E '^[0-9]+ passed, [0-9]+ failed' "$OUT/test_gpu_model_nograph.txt" | tail -n 1) (exit $rc, $(( $(date +%s) - t0 )) s)"
    grep -E '^FAIL' "$OUT/test_gpu_model_nograph.txt" | head -n 20 | tee -a "$SUM"
fi
# The command line end to end: eval on cuda vs cpu (fp32: bound 1e-4).
if [ -x "$B/rwkv-tui" ] && [ -f "$RWKV_FIXTURES/models/tiny-7v0-fp32.pth" ]; then
    M7=$RWKV_FIXTURES/models/tiny-7v0-fp32.pth
    timeout "$(lim 30)" "$B/rwkv-tui" eval --model "$M7" --strategy "cuda fp32" --text "Hello there" \
        --out "$OUT/eval_cuda.bin" > "$OUT/eval_cli.txt" 2>&1
    rc1=$?
    timeout "$(lim 30)" "$B/rwkv-tui" eval --model "$M7" --strategy "cpu fp32" --text "Hello there" \
        --out "$OUT/eval_cpu.bin" >> "$OUT/eval_cli.txt" 2>&1
    rc2=$?
    if [ $rc1 = 0 ] && [ $rc2 = 0 ] && command -v python3 > /dev/null; then
        note "cli eval cuda fp32 vs cpu fp32: $(python3 -c '
import struct,sys
a=open(sys.argv[1],"rb").read(); b=open(sys.argv[2],"rb").read()
x=struct.unpack("<%df"%(len(a)//4),a); y=struct.unpack("<%df"%(len(b)//4),b)
e=max(abs(p-q) for p,q in zip(x,y))/max(max(abs(q) for q in y),1e-6)
print("rel err %.3g %s" % (e, "ok" if e <= 1e-4 and len(a)==len(b) else "FAIL (bound 1e-4)"))' \
            "$OUT/eval_cuda.bin" "$OUT/eval_cpu.bin")"
    else
        note "cli eval: exit $rc1 (cuda) / $rc2 (cpu): $(tail -n 2 "$OUT/eval_cli.txt" | tr '\n' ' ')"
    fi
fi

# 3. Bandwidth, cuBLAS rate, kernel speeds.
t0=$(date +%s)
timeout "$(lim 120)" "$B/tests/gpu_bench" > "$OUT/gpu_bench.txt" 2>&1
note "bench: exit $? ($(( $(date +%s) - t0 )) s)"
grep -E '^(bench|device|skipped)' "$OUT/gpu_bench.txt" | tee -a "$SUM"
# yardsticks for the model benches below
COPY_GBS=$(sed -n 's/^bench d2d_copy .*read+write \([0-9.]*\) GB\/s.*/\1/p' "$OUT/gpu_bench.txt" | head -n 1)
GEMM_TFS=$(awk '/^bench cublas_f16_gemm_.*_T256 / { s += $3; n++ } END { if (n) printf "%.2f", s / n }' "$OUT/gpu_bench.txt")
note "yardsticks: d2d copy read+write ${COPY_GBS:-?} GB/s; cuBLAS fp16 GEMM at the 1.5B shapes, T 256, mean ${GEMM_TFS:-?} TFLOP/s"

# 3b. Whole models: rwkv-tui bench on random-weight models of real shapes in
#     every cuda strategy.  decode GB/s = weight bytes/token x tok/s, as a
#     share of the copy bandwidth (the issue's >= 70% target for 1.5b fp16);
#     prefill TFLOP/s = FLOPs per prompt token (bench's prefill_gflop_per_tok)
#     x tok/s, as a share of the cuBLAS rate above (target >= 50%).  Without
#     rwkv-tui (minimal build) tests/gpu/gpu_model_bench measures the same.
jnum() { sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p" "$2" | head -n 1; }
bench_one() {   # shape strategy limit prompt-tokens gen-tokens repeat
    local shape=$1 strat=$2 limit=$3; shift 3
    local f="$OUT/bench_${shape}_$(echo "$strat" | tr -c 'A-Za-z0-9' '_').json"
    local t0; t0=$(date +%s)
    if [ "$(elapsed)" -ge $(( TOTAL - 15 )) ]; then
        note "bench $shape '$strat': skipped (time budget spent)"; return
    fi
    if [ -x "$B/rwkv-tui" ]; then
        timeout "$(lim "$limit")" "$B/rwkv-tui" bench --shape "$shape" --strategy "$strat" --json \
            --prompt-tokens "$1" --gen-tokens "$2" --repeat "$3" > "$f" 2> "$f.err"
    else
        timeout "$(lim "$limit")" "$B/tests/gpu_model_bench" "$shape" "$strat" "$1" "$2" "$3" \
            > "$f" 2> "$f.err"
    fi
    local rc=$?
    if [ $rc != 0 ]; then
        note "bench $shape '$strat': exit $rc ($(( $(date +%s) - t0 )) s): $(tail -n 1 "$f.err")"
        return
    fi
    local wb dec pre gft
    wb=$(jnum weight_bytes "$f"); dec=$(jnum decode_tok_s "$f"); pre=$(jnum prefill_tok_s "$f")
    gft=$(jnum prefill_gflop_per_tok "$f")
    note "$(awk -v s="$shape" -v st="$strat" -v wb="$wb" -v dec="$dec" -v pre="$pre" -v gft="$gft" \
        -v bw="${COPY_GBS:-0}" -v tf="${GEMM_TFS:-0}" -v secs="$(( $(date +%s) - t0 ))" 'BEGIN {
        gbs = wb * dec / 1e9; tfl = gft * pre / 1e3;
        printf "bench %-5s %-28s decode %8.1f tok/s %7.1f GB/s", s, "\x27" st "\x27", dec, gbs;
        if (bw > 0) printf " (%3.0f%% of copy)", 100 * gbs / bw;
        printf "  prefill %9.1f tok/s %6.1f TFLOP/s", pre, tfl;
        if (tf > 0) printf " (%3.0f%% of cuBLAS)", 100 * tfl / tf;
        printf "  [%d s]", secs }')"
}
if [ -x "$B/rwkv-tui" ] || [ -x "$B/tests/gpu_model_bench" ]; then
    for st in "cuda fp16" "cuda fp16i8" "cuda fp16i4" "cuda bf16" "cuda fp16 *8 -> cpu fp32" \
              "cuda fp16i8 *6+" "cuda fp16i4 *6+"; do
        bench_one 0.1b "$st" 30 512 64 3
    done
    bench_one 1.5b "cuda fp16" 70 512 128 3
    bench_one 1.5b "cuda fp16i8" 60 512 128 3
    bench_one 1.5b "cuda fp16i4" 60 512 128 3
    bench_one 1.5b "cuda fp16i8 *12+" 60 256 32 2
    bench_one 1.5b "cuda fp16 *20 -> cpu fp32" 60 64 16 2
    bench_one 1.5b "cuda fp16i4 *20 -> cpu fp32i4" 45 64 16 2
    bench_one 1.5b "cuda bf16" 60 512 64 2
    if [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -ge 2 ]; then
        bench_one 1.5b "cuda:0 fp16 *12 -> cuda:1 fp16" 60 256 64 2
    fi
fi

# 4. (optional) memcheck of the kernel tests when the tool is installed and
#    there is time left: out-of-bounds and misaligned accesses.
if command -v compute-sanitizer > /dev/null && [ "$(elapsed)" -lt $(( TOTAL - 90 )) ]; then
    t0=$(date +%s)
    timeout "$(lim 80)" compute-sanitizer --tool memcheck --print-limit 20 \
        "$B/tests/test_gpu_block" > "$OUT/memcheck.txt" 2>&1
    note "memcheck: exit $? ($(( $(date +%s) - t0 )) s): $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.txt" | tail -n 1)"
fi

note "device_check: done in $(elapsed) s"
