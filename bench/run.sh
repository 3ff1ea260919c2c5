#!/bin/sh
# bench/run.sh -- the `make bench` set: random-weight model FILES of real
# shapes, written once by rwkv-tui's own .pth writer (`bench --shape NAME
# --save PATH`, bf16 like released checkpoints) into a cache directory, then
# `rwkv-tui bench --model FILE` in each CPU strategy with 2 threads, plus a
# 1-thread prefill for the 2-vs-1 scaling.  One table row per run; every
# share is against a limit measured in the same run (read bandwidth for
# decode, arithmetic peak for prefill), see bench/README.md.
#
# usage: bench/run.sh BINARY [SHAPES] [STRATEGIES]
#   SHAPES      default "0.1b 1.5b 1.6b-v6"  (also 0.4b, 3b; demo, demo-v6 are tiny)
#   STRATEGIES  default "cpu fp32,cpu bf16,cpu fp16,cpu fp32i8,cpu bf16i8,cpu fp32i4"
#               (comma-separated)
# env:
#   RWKV_BENCH_DIR   model files (default ${XDG_CACHE_HOME:-$HOME/.cache}/rwkv-tui/bench)
#   BENCH_THREADS (2), BENCH_PROMPT (512), BENCH_GEN (32), BENCH_REPEAT (1)
#   BENCH_SCALING    strategies that also get the 1-thread prefill run
#                    (default: all of STRATEGIES; "none" skips it)
#   BENCH_INMEM=1    bench the in-memory --shape models instead of files (RWKV-7 only)
#   BENCH_JSON=FILE  also append every run's JSON line to FILE
#   BENCH_AVX2       1 (default): on a CPU whose best kernel set is not avx2
#                    (AVX-512), run the whole table again with RWKV_KERNELS=avx2,
#                    the set most CPUs get; 0 skips it
#   BENCH_BUSY       strategies measured with one core busy (bench --busy 1:
#                    a spinning process beside the run), 2 threads and 1 thread,
#                    on the LAST shape, for each kernel set (default
#                    "cpu bf16,cpu fp32i4"; "none" skips it)
#   BENCH_BUSY_PAIRS (3) 2-thread/1-thread pairs per busy strategy, the order
#                    alternating; the table gives medians
#   RWKV_WEIGHT_CACHE is set to "off" unless already set, so converting
#   strategies are measured converting (and no GB-sized caches are written).
set -eu
bin=${1:?usage: bench/run.sh BINARY [SHAPES] [STRATEGIES]}
shapes=${2:-0.1b 1.5b 1.6b-v6}
strategies=${3:-cpu fp32,cpu bf16,cpu fp16,cpu fp32i8,cpu bf16i8,cpu fp32i4}
threads=${BENCH_THREADS:-2}
prompt=${BENCH_PROMPT:-512}
gen=${BENCH_GEN:-32}
repeat=${BENCH_REPEAT:-1}
scaling=${BENCH_SCALING:-$strategies}
busy_strats=${BENCH_BUSY:-cpu bf16,cpu fp32i4}
busy_pairs=${BENCH_BUSY_PAIRS:-3}
dir=${RWKV_BENCH_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rwkv-tui/bench}
RWKV_WEIGHT_CACHE=${RWKV_WEIGHT_CACHE:-off}
export RWKV_WEIGHT_CACHE

# num KEY: the number after "KEY": in the JSON line on stdin (-1 if absent)
num() {
    awk -v k="$1" '{ if (match($0, "\"" k "\": -?[0-9.eE+]+")) {
                         m = substr($0, RSTART, RLENGTH); sub(/.*: /, "", m); print m + 0 }
                     else print -1 }'
}

if [ "${BENCH_INMEM:-0}" != 1 ]; then
    mkdir -p "$dir"
    for shape in $shapes; do
        f="$dir/$shape-bf16.pth"
        if [ ! -f "$f" ]; then
            echo "writing $f ..."
            "$bin" bench --shape "$shape" --save "$f" --dtype bf16 --seed 1
        fi
    done
fi

echo "load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')  (1/5/15-min load average before the runs; $(nproc 2>/dev/null || echo '?') cores)"

# table: the main table for the kernel set in $RWKV_KERNELS (unset: the best)
table() {
    json=$("$bin" bench --demo --gen-tokens 1 --prompt-tokens 2 --repeat 1 --json)
    echo "kernels: $(echo "$json" | sed -n 's/.*"kernels": "\([^"]*\)".*/\1/p')" \
         "(cpu: $(echo "$json" | sed -n 's/.*"cpu_features": "\([^"]*\)".*/\1/p'))"
    printf '%-8s %-11s %6s %6s %9s %6s %8s %5s %8s %6s %6s %5s %6s %6s %7s %9s\n' \
        shape strategy "load s" RSS/f "prefill/s" "pre%" "1thr/s" "2v1" "decode/s" "dec%" "pair%" \
        "mv%" "mvpr%" "GB/s" "GFLOP/s" "cores p/d"
    for shape in $shapes; do
        if [ "${BENCH_INMEM:-0}" = 1 ]; then
            set -- --shape "$shape"
        else
            set -- --model "$dir/$shape-bf16.pth"
            cat "$dir/$shape-bf16.pth" > /dev/null   # a warm page cache, as the issue asks
        fi
        old_ifs=$IFS
        IFS=,
        for s in $strategies; do
            IFS=$old_ifs
            json=$("$bin" bench "$@" --strategy "$s" --threads "$threads" \
                   --prompt-tokens "$prompt" --gen-tokens "$gen" --repeat "$repeat" --json)
            [ -n "${BENCH_JSON:-}" ] && echo "$json" >> "$BENCH_JSON"
            one=-1
            case ",$scaling," in
            *",$s,"*)
                json1=$("$bin" bench "$@" --strategy "$s" --threads 1 \
                        --prompt-tokens "$prompt" --gen-tokens 0 --repeat "$repeat" --json)
                [ -n "${BENCH_JSON:-}" ] && echo "$json1" >> "$BENCH_JSON"
                one=$(echo "$json1" | num prefill_tok_s) ;;
            esac
            pre=$(echo "$json" | num prefill_tok_s)
            if echo "$json" | grep -q '"prefill_peak": "bf16dot"'; then
                peak=$(echo "$json" | num peak_bf16dot_gflop_s)
            else
                peak=$(echo "$json" | num peak_fma_gflop_s)
            fi
            awk -v shape="$shape" -v strat="$s" -v one="$one" -v pre="$pre" -v peak="$peak" \
                -v load="$(echo "$json" | num load_s)" -v ratio="$(echo "$json" | num rss_file_ratio)" \
                -v psh="$(echo "$json" | num prefill_share_of_bound)" \
                -v dec="$(echo "$json" | num decode_tok_s)" \
                -v dsh="$(echo "$json" | num decode_share_of_bound)" \
                -v qsh="$(echo "$json" | num decode_share_paired)" \
                -v msh="$(echo "$json" | num decode_products_share)" \
                -v mpr="$(echo "$json" | num decode_products_paired)" \
                -v bw="$(echo "$json" | num read_bandwidth_gb_s)" \
                -v pc="$(echo "$json" | num prefill_cores)" -v dc="$(echo "$json" | num decode_cores)" 'BEGIN {
                r = ratio > 0 ? sprintf("%.2f", ratio) : "-"
                o = one > 0 ? sprintf("%.1f", one) : "-"
                s = one > 0 ? sprintf("%.2f", pre / one) : "-"
                q = qsh > 0 ? sprintf("%.0f%%", 100 * qsh) : "-"
                m = msh > 0 ? sprintf("%.0f%%", 100 * msh) : "-"
                mp = mpr > 0 ? sprintf("%.0f%%", 100 * mpr) : "-"
                printf "%-8s %-11s %6.2f %6s %9.1f %5.0f%% %8s %5s %8.2f %5.0f%% %6s %5s %6s %6.1f %7.0f %4.2f/%4.2f\n",
                       shape, strat, load, r, pre, 100 * psh, o, s, dec, 100 * dsh, q, m, mp, bw, peak, pc, dc }'
            IFS=,
        done
        IFS=$old_ifs
    done
    # one core busy: 2 threads against 1 thread, both beside a spinning
    # process, in pairs whose order alternates (2 then 1, 1 then 2, ...):
    # which run of a pair goes first moves the figures on a shared machine
    # as much as anything measured here, so each column is a median over the
    # pairs and each ratio the median of the pairs' own ratios
    [ "$busy_strats" = none ] && return 0
    echo "one core busy (bench --busy 1), shape $shape, median of $busy_pairs pairs (order alternating):"
    printf '%-8s %-11s %11s %11s %6s %10s %10s %6s\n' shape strategy "prefill 2t" "prefill 1t" "2v1" \
        "decode 2t" "decode 1t" "2v1"
    old_ifs=$IFS
    IFS=,
    for s in $busy_strats; do
        IFS=$old_ifs
        rows=""
        i=0
        while [ "$i" -lt "$busy_pairs" ]; do
            if [ $((i % 2)) = 0 ]; then order="2 1"; else order="1 2"; fi
            for t in $order; do
                j=$("$bin" bench "$@" --strategy "$s" --threads "$t" --busy 1 \
                    --prompt-tokens "$prompt" --gen-tokens "$gen" --repeat "$repeat" --json)
                [ -n "${BENCH_JSON:-}" ] && echo "$j" >> "$BENCH_JSON"
                if [ "$t" = 2 ]; then j2=$j; else j1=$j; fi
            done
            rows="$rows$(echo "$j2" | num prefill_tok_s) $(echo "$j1" | num prefill_tok_s)"
            rows="$rows $(echo "$j2" | num decode_tok_s) $(echo "$j1" | num decode_tok_s)
"
            i=$((i + 1))
        done
        printf '%s' "$rows" | awk -v shape="$shape" -v strat="$s" '
            function med(v, n,   i, j, t) {
                for (i = 2; i <= n; i++)
                    for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
                return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
            { n++; p2[n] = $1; p1[n] = $2; d2[n] = $3; d1[n] = $4
              pr[n] = $2 > 0 ? $1 / $2 : 0; dr[n] = $4 > 0 ? $3 / $4 : 0 }
            END { printf "%-8s %-11s %11.1f %11.1f %6.2f %10.2f %10.2f %6.2f\n", shape, strat,
                         med(p2, n), med(p1, n), med(pr, n), med(d2, n), med(d1, n), med(dr, n) }'
        IFS=,
    done
    IFS=$old_ifs
}

table
# the AVX2 set too, on a CPU whose best set is another (AVX-512): most users run it
if [ "${BENCH_AVX2:-1}" = 1 ] && [ -z "${RWKV_KERNELS:-}" ] &&
   ! "$bin" bench --demo --gen-tokens 1 --prompt-tokens 2 --repeat 1 --json |
       grep -q '"kernels": "avx2"' &&
   RWKV_KERNELS=avx2 "$bin" bench --demo --gen-tokens 1 --prompt-tokens 2 --repeat 1 --json |
       grep -q '"kernels": "avx2"'; then
    echo
    RWKV_KERNELS=avx2
    export RWKV_KERNELS
    table
    unset RWKV_KERNELS
fi
echo "load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')  (after)"
