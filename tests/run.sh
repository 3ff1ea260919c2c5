#!/usr/bin/env bash
# tests/run.sh -- run every test runner and add up their "N passed, N failed"
# lines.  A runner that crashes or prints no such line counts as one failure.
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
total_pass=0
total_fail=0
failed_runners=()

run_one() {
    local name=$1; shift
    local out rc line p f
    out=$("$@" 2>&1)
    rc=$?
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
    if [ -z "$line" ]; then
        printf '%s\n' "$out" | tail -n 30
        echo "FAIL $name: no result line (exit $rc)"
        total_fail=$((total_fail + 1))
        failed_runners+=("$name")
        return
    fi
    p=${line%% passed*}
    f=${line#*, }; f=${f%% failed*}
    if [ "$f" != 0 ] || [ $rc != 0 ]; then
        printf '%s\n' "$out" | grep -E '^(FAIL|not ok)|ERROR|Sanitizer|runtime error' | head -n 40
        [ "$f" = 0 ] && f=1
        failed_runners+=("$name")
    fi
    printf '%-34s %s\n' "$name" "$line"
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
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
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
