#!/bin/sh
# bench/run.sh -- the `make bench` set: random-weight RWKV-7 models of real
# shapes built in memory (rwkv-tui bench --shape, no download), each CPU
# strategy, 2 threads; prints one line per run with prefill and decode
# medians and decode as a share of the memory-bandwidth bound measured in
# the same run.
#
# usage: bench/run.sh BINARY [SHAPES] [STRATEGIES]
#   SHAPES      default "0.1b"   (also: 0.4b 1.5b 3b)
#   STRATEGIES  default "cpu fp32,cpu bf16,cpu fp32i8" (comma-separated)
# env: BENCH_THREADS (2), BENCH_PROMPT (512), BENCH_GEN (32), BENCH_REPEAT (3)
set -eu
bin=${1:?usage: bench/run.sh BINARY [SHAPES] [STRATEGIES]}
shapes=${2:-0.1b}
strategies=${3:-cpu fp32,cpu bf16,cpu fp32i8}
threads=${BENCH_THREADS:-2}
prompt=${BENCH_PROMPT:-512}
gen=${BENCH_GEN:-32}
repeat=${BENCH_REPEAT:-3}

printf '%-6s %-12s %8s %10s %10s %9s %10s %8s %8s\n' shape strategy "MB/tok" "prefill/s" "decode/s" "bound/s" "share" "GB/s" "load s"
for shape in $shapes; do
    old_ifs=$IFS
    IFS=,
    for s in $strategies; do
        IFS=$old_ifs
        json=$("$bin" bench --shape "$shape" --strategy "$s" --threads "$threads" \
               --prompt-tokens "$prompt" --gen-tokens "$gen" --repeat "$repeat" --json)
        echo "$json" | awk -v shape="$shape" -v strat="$s" '
            function num(k,   m) { if (match($0, "\"" k "\": [0-9.eE+-]+")) {
                                       m = substr($0, RSTART, RLENGTH); sub(/.*: /, "", m); return m + 0 }
                                   return -1 }
            { printf "%-6s %-12s %8.1f %10.1f %10.2f %9.2f %9.0f%% %8.1f %8.2f\n", shape, strat,
                     num("weight_bytes") / 1e6, num("prefill_tok_s"), num("decode_tok_s"),
                     num("decode_bound_tok_s"), 100 * num("decode_share_of_bound"),
                     num("read_bandwidth_gb_s"), num("load_s") }'
        IFS=,
    done
    IFS=$old_ifs
done
