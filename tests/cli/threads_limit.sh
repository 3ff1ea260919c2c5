#!/usr/bin/env bash
# tests/cli/threads_limit.sh -- --threads N: 0 (every CPU online) to 256, the
# thread pool's ceiling.  Over it is a usage error (exit 2, one line) where
# the pool used to cut it to 256 without a word (--threads 999 ran 256
# threads on a 2-core machine); more than the CPUs online is allowed but
# says so in one line on stderr.  The demo model.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
export XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/config HOME=$TMP/home
mkdir -p "$TMP/home"
CPUS=$(getconf _NPROCESSORS_ONLN)
RANGE="option --threads: '%s' is not an integer in \[0, 256\]$"

# --- over the ceiling: a usage error, in every command that takes --threads ----------
for n in 257 999; do
    pat="^rwkv-tui: $(printf "$RANGE" "$n")"
    for cmd in "info --demo" "generate --demo --prompt hi --max-tokens 1" \
               "eval --demo --tokens 1 --out $TMP/o.f32" "chat --demo --max-tokens 1" \
               "--demo --no-db --max-frames 1"; do
        err=$(timeout 60 "$T" $cmd --threads $n 2>&1 >/dev/null </dev/null)
        rc=$?
        [ $rc = 2 ] && [ "$(printf '%s' "$err" | grep -c '')" = 1 ] && printf '%s' "$err" | grep -Eq "$pat" \
            && ok || fail "$cmd --threads $n: exit $rc (want 2), stderr: $(printf '%s' "$err" | head -c 300)"
    done
done

# --- the ceiling itself is taken (info says how many the pool has) ---------------------
"$T" info --demo --threads 256 >"$TMP/out" 2>/dev/null
grep -q '^threads: *256$' "$TMP/out" && ok || fail "--threads 256: $(grep threads "$TMP/out")"

# --- more than the CPUs: runs, one line says so ---------------------------------------
N=$((CPUS + 1))
"$T" info --demo --threads $N >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc = 0 ] && grep -q "^threads: *$N$" "$TMP/out" && [ "$(grep -c '' "$TMP/err")" = 1 ] \
    && grep -q "^rwkv-tui: --threads $N: more than the $CPUS CPUs\{0,1\} online" "$TMP/err" \
    && ok || fail "--threads $N on $CPUS CPUs: exit $rc, stderr: $(head -c 300 "$TMP/err")"
# up to the CPUs, and 0 (all of them): nothing said
for n in "$CPUS" 0; do
    "$T" info --demo --threads $n >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ $rc = 0 ] && [ ! -s "$TMP/err" ] && grep -q "^threads: *$CPUS$" "$TMP/out" \
        && ok || fail "--threads $n on $CPUS CPUs: exit $rc, stderr: $(head -c 300 "$TMP/err")"
done
finish
