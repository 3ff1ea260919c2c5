#!/usr/bin/env bash
# tests/run.sh -- run every test runner and add up their "N passed, N failed"
# lines (", N skipped" may follow on the same line).  A runner that crashes
# or prints no such line counts as one failure.
#
# Checks that need the reference fixtures ($RWKV_FIXTURES, default
# ../shared/fixtures; see docs/testing.md) are skipped and counted when the
# fixtures are missing -- a clone alone passes -- unless CI is set
# (non-empty): then every missing fixture is a failure and the run fails.
#
#   unit/reference tests: $BUILD/tests/test_*  (C, tests/unit/)
#   CLI tests:            tests/cli/*.sh       (shell, the real binary)
#   TUI tests:            tests/tui/*.sh       (tmux, the real binary)
#
# Environment: RWKV_TUI (binary), BUILD, RWKV_FIXTURES; TEST_FILTER=substring
# runs only matching runners.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export RWKV_TUI=${RWKV_TUI:-$PWD/rwkv-tui}
export RWKV_FIXTURES=${RWKV_FIXTURES:-../shared/fixtures}
# A cache of converted weights is never written next to a model the tests
# load (the fixtures may sit in a writable directory): unless a test names
# another place, it goes to a directory of this run's own.
WCDIR=$(mktemp -d "${TMPDIR:-/tmp}/rwkv-wcache.XXXXXX")
trap 'rm -rf "$WCDIR"' EXIT
export RWKV_WEIGHT_CACHE_DIR=$WCDIR
total_pass=0
total_fail=0
total_skip=0
failed_runners=()

if [ ! -d "$RWKV_FIXTURES" ]; then
    if [ -n "${CI:-}" ]; then
        echo "ERROR: reference fixtures not found at '$RWKV_FIXTURES' and CI is set:" \
             "every check that needs them fails (set RWKV_FIXTURES=DIR)"
    else
        echo "note: reference fixtures not found at '$RWKV_FIXTURES': the checks that" \
             "need them are skipped (set RWKV_FIXTURES=DIR; see docs/testing.md)"
    fi
fi

run_one() {
    local name=$1; shift
    local out rc line p f k
    out=$("$@" 2>&1)
    rc=$?
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' | tail -n 1)
    if [ -z "$line" ]; then
        printf '%s\n' "$out" | tail -n 30
        echo "FAIL $name: no result line (exit $rc)"
        total_fail=$((total_fail + 1))
        failed_runners+=("$name")
        return
    fi
    p=${line%% passed*}
    f=${line#*, }; f=${f%% failed*}
    k=0
    case $line in *skipped) k=${line##*failed, }; k=${k%% skipped} ;; esac
    if [ "$f" != 0 ] || [ $rc != 0 ]; then
        printf '%s\n' "$out" | grep -E '^(FAIL|not ok)|ERROR|Sanitizer|runtime error' | head -n 40
        [ "$f" = 0 ] && f=1
        failed_runners+=("$name")
    fi
    printf '%-34s %s\n' "$name" "$line"
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    total_skip=$((total_skip + k))
}

filter=${TEST_FILTER:-}
for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    case $(basename "$t") in *"$filter"*) ;; *) continue ;; esac
    run_one "$(basename "$t")" "$t"
done
for t in tests/cli/*.sh tests/tui/*.sh; do
    [ -f "$t" ] || continue
    case $t in *lib.sh) continue ;; esac
    case $t in *"$filter"*) ;; *) continue ;; esac
    run_one "$t" bash "$t"
done
if [ ${#failed_runners[@]} -gt 0 ]; then
    echo "failing runners: ${failed_runners[*]}"
fi
if [ "$total_skip" -gt 0 ]; then
    echo "$total_skip checks skipped: they need the reference fixtures, not found at" \
         "'$RWKV_FIXTURES' (set RWKV_FIXTURES=DIR; see docs/testing.md)"
    if [ -n "${CI:-}" ]; then
        echo "ERROR: CI is set and checks were skipped"
        total_fail=$((total_fail + 1))
    fi
    echo "$total_pass passed, $total_fail failed, $total_skip skipped"
else
    echo "$total_pass passed, $total_fail failed"
fi
[ "$total_fail" = 0 ]
