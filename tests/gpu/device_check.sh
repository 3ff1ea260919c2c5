#!/usr/bin/env bash
# tests/gpu/device_check.sh -- THE script for a machine with a CUDA GPU (a
# lent H200, 15 minutes of device time in all): build with CUDA=1, run the
# GPU kernel tests, measure copy bandwidth, cuBLAS fp16 GEMM rate at the 1.5B
# shapes and our kernels' speeds.  Everything goes under $OUT (default
# ./device-check-out); summary.txt holds the lines to read first.
# Every step runs under `timeout`, bounded so the whole script ends within
# TOTAL = 420 s (7 minutes) even when steps hang; a normal run takes ~2 min.
#
#   bash tests/gpu/device_check.sh            # from the repository root
#   JOBS=16 OUT=/tmp/out bash tests/gpu/device_check.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/device-check-out}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 4)}
B=build-devcheck
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
note "device_check: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname)"
{ timeout 10 nvidia-smi; timeout 10 nvidia-smi -q -d CLOCK,MEMORY; } > "$OUT/nvidia-smi.txt" 2>&1
nvcc --version > "$OUT/nvcc.txt" 2>&1
note "gpu: $(timeout 10 nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | head -n 1)"

# 1. Build.  The full build (rwkv-tui + tests) needs sqlite/ncurses/cyaml;
#    if those are missing here, fall back to building just the GPU layer and
#    its two programs by hand (they need nothing but CUDA and libc).
TESTS=$(cd tests/gpu && ls test_gpu_*.c | sed "s/\.c$//" | tr "\n" " ")
t0=$(date +%s)
if timeout "$(lim 200)" make -j"$JOBS" WERROR=1 CUDA=1 BUILD=$B BIN=$B/rwkv-tui $B/rwkv-tui \
        $(for t in $TESTS; do echo "$B/tests/$t"; done) $B/tests/gpu_bench \
        > "$OUT/build.log" 2>&1; then
    note "build: make CUDA=1 ok ($(( $(date +%s) - t0 )) s)"
else
    note "build: make CUDA=1 FAILED (see build.log, last lines below); trying the minimal build"
    tail -n 15 "$OUT/build.log" | tee -a "$SUM"
    M=$B/min; mkdir -p $M $B/tests
    CU=/usr/local/cuda
    if timeout "$(lim 120)" bash -c "
        set -e
        nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -c gpu/gpu_kernels.cu -o $M/k.o
        for f in gpu/gpu_device.c gpu/gpu_blas.c core/status.c; do
            cc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -isystem $CU/include \
               -c \$f -o $M/\$(basename \$f .c).o
        done
        for p in $TESTS gpu_bench; do
            cc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -o $B/tests/\$p \
               tests/gpu/\$p.c $M/*.o -L$CU/lib64 -Wl,-rpath,$CU/lib64 -lcublas -lcudart \
               -lstdc++ -lm
        done" >> "$OUT/build.log" 2>&1; then
        note "build: minimal build ok"
    else
        note "build: minimal build FAILED too"; tail -n 15 "$OUT/build.log" | tee -a "$SUM"
        note "device_check: done in $(elapsed) s (nothing ran)"; exit 1
    fi
fi

# 2. The GPU tests (each kernel, then two whole v7 layers, GPU vs CPU).
for t in $TESTS; do
    t0=$(date +%s)
    timeout "$(lim 90)" "$B/tests/$t" > "$OUT/$t.txt" 2>&1
    rc=$?
    note "$t: $(grep -E '^[0-9]+ passed, [0-9]+ failed' "$OUT/$t.txt" | tail -n 1) (exit $rc, $(( $(date +%s) - t0 )) s)"
    grep -E '^(FAIL|skipped)|device 0' "$OUT/$t.txt" | head -n 40 | tee -a "$SUM"
done

# 3. Bandwidth, cuBLAS rate, kernel speeds.
t0=$(date +%s)
timeout "$(lim 120)" "$B/tests/gpu_bench" > "$OUT/gpu_bench.txt" 2>&1
note "bench: exit $? ($(( $(date +%s) - t0 )) s)"
grep -E '^(bench|device|skipped)' "$OUT/gpu_bench.txt" | tee -a "$SUM"

# 4. (optional) memcheck of the kernel tests when the tool is installed and
#    there is time left: out-of-bounds and misaligned accesses.
if command -v compute-sanitizer > /dev/null && [ "$(elapsed)" -lt $(( TOTAL - 90 )) ]; then
    t0=$(date +%s)
    timeout "$(lim 80)" compute-sanitizer --tool memcheck --print-limit 20 \
        "$B/tests/test_gpu_block" > "$OUT/memcheck.txt" 2>&1
    note "memcheck: exit $? ($(( $(date +%s) - t0 )) s): $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.txt" | tail -n 1)"
fi

note "device_check: done in $(elapsed) s"
