#!/bin/sh
# bench/bench_import.sh -- time and peak memory of `rwkv-tui sessions import`
# (a benchmark, not a test: nothing here passes or fails on speed).
#
#   sh bench/bench_import.sh ./rwkv-tui [N ...]     (default N: 16000 64000)
#
# For each N it writes two exports into a temp dir -- N root turns (the shape
# that was quadratic: every root turn counted the session's turns) and a chain
# of N turns -- each turn with 64 token ids and a short text, imports each into
# a fresh database and prints seconds, peak RSS (/usr/bin/time) and RSS / file
# size.  Time should grow linearly with N and memory stay a small multiple of
# the file (the import parses one turn at a time).
set -eu
BIN=${1:?usage: bench_import.sh RWKV_TUI [N ...]}
shift
[ $# -gt 0 ] || set -- 16000 64000
D=$(mktemp -d "${TMPDIR:-/tmp}/rwkv-bench-import.XXXXXX")
trap 'rm -rf "$D"' EXIT
printf '%-8s %-6s %10s %8s %10s %7s\n' turns shape file_MB seconds max_RSS_MB RSS/file
for n in "$@"; do
    for shape in roots chain; do
        python3 - "$n" "$shape" "$D/s.json" <<'PY'
import json, sys
n, shape, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
toks = list(range(100, 164))
with open(out, "w") as f:
    f.write('{"format": "rwkv-tui-session", "version": 1, "title": "bench", "model": null, "turns": [')
    for i in range(1, n + 1):
        parent = None if shape == "roots" or i == 1 else i - 1
        t = {"id": i, "parent": parent, "role": "user" if i % 2 else "assistant",
             "text": "message number %d, some words to index" % i, "tokens": toks,
             "sampling": None, "time_ms": 1700000000000 + i}
        f.write(("," if i > 1 else "") + json.dumps(t))
    f.write("]}")
PY
        rm -f "$D/db.db" "$D/db.db-wal" "$D/db.db-shm"
        size=$(stat -c %s "$D/s.json")
        /usr/bin/time -f '%e %M' -o "$D/time" "$BIN" sessions --db "$D/db.db" import "$D/s.json" >/dev/null
        read -r secs kb <"$D/time"
        awk -v n="$n" -v sh="$shape" -v sz="$size" -v s="$secs" -v kb="$kb" 'BEGIN {
            printf "%-8d %-6s %10.1f %8.2f %10.1f %7.1f\n", n, sh, sz / 1e6, s, kb / 1024, kb * 1024 / sz }'
    done
done
