#!/usr/bin/env bash
# tests/gpu/device_prep.sh -- on the machine without the GPU, before a device
# run: build what tests/gpu/device_check.sh runs into build-devcarry/ (CUDA
# for the device's sm_90, stripped, with the shared libraries the device
# image lacks in build-devcarry/lib) and make build-fixtures/models the
# fixture models the GPU tests read (copied to /tmp/gpufx, outside the
# repository; build-fixtures is a link to it).  Then, on the device:
#
#   run:   PREBUILT=build-devcarry RWKV_FIXTURES=$PWD/build-fixtures TOTAL=390 \
#              bash tests/gpu/device_check.sh
#   carry: ["build-devcarry", "build-fixtures/models"]     timeout_s: 460
#
# Environment: RWKV_FIXTURES (default ../shared/fixtures), CUDA_ARCH.
set -eu
cd "$(dirname "$0")/../.."
FX=${RWKV_FIXTURES:-../shared/fixtures}
B=build-devcheck
C=build-devcarry
ARCH=${CUDA_ARCH:--gencode arch=compute_90,code=sm_90}
CU=${CUDA_HOME:-/usr/local/cuda}
TESTS=$(cd tests/gpu && ls test_gpu_*.c | sed "s/\.c$//")

make -j"$(nproc)" WERROR=1 CUDA=1 "CUDA_ARCH=$ARCH" BUILD=$B BIN=$B/rwkv-tui $B/rwkv-tui \
    $(for t in $TESTS; do echo "$B/tests/$t"; done) $B/tests/gpu_bench $B/tests/gpu_model_bench
rm -rf "$C"
mkdir -p "$C/tests" "$C/lib"
cp $B/rwkv-tui "$C/"
for t in $TESTS gpu_bench gpu_model_bench; do cp "$B/tests/$t" "$C/tests/"; done
strip "$C/rwkv-tui" "$C"/tests/*
for l in $(ldd $B/rwkv-tui | awk '/sqlite|cyaml|yaml|ncurses|tinfo/ { print $3 }'); do
    cp -L "$l" "$C/lib/"
done
echo "built $(date -u '+%F %T') at $(git rev-parse --short HEAD)$(git diff --quiet || echo +changes)" \
     "on $(. /etc/os-release; echo "$PRETTY_NAME")" > "$C/BUILT"

mkdir -p /tmp/gpufx/models
for m in tiny-5v1-fp32 rand-v5.1-fp32 tiny-5v2-fp32 tiny-6v0-bf16 tiny-7v0-fp32 rand-7v0-h2-bf16 \
         world-7v0-rand-bf16 tiny-4v0-fp32; do
    cp "$FX/models/$m.pth" /tmp/gpufx/models/
done
ln -sfn /tmp/gpufx build-fixtures
echo "device_prep: $(du -sh "$C" | cut -f1) of binaries in $C, $(du -shL build-fixtures/models | cut -f1) of models in build-fixtures/models"
