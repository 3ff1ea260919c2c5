# tests/cli/lib.sh -- helpers for shell tests of the real binary.
# Source it; call ok/fail (or check CMD...), end with `finish`.
set -u
RWKV_TUI=${RWKV_TUI:-$PWD/rwkv-tui}
FX=${RWKV_FIXTURES:-../shared/fixtures}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rwkv-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
_pass=0
_fail=0
ok()   { _pass=$((_pass + 1)); }
fail() { _fail=$((_fail + 1)); echo "FAIL ${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]}: $*"; }
# expect_fail DESC PATTERN CMD... : CMD exits non-zero, stderr is exactly one
# line matching PATTERN (extended regex), and nothing crashed.
expect_fail() {
    local desc=$1 pat=$2; shift 2
    local err rc n
    err=$("$@" 2>&1 >/dev/null)
    rc=$?
    n=$(printf '%s' "$err" | grep -c '')
    if [ $rc -eq 0 ]; then fail "$desc: exit 0"; return; fi
    if [ $rc -ge 128 ]; then fail "$desc: crashed (exit $rc): $err"; return; fi
    if [ "$n" != 1 ]; then fail "$desc: $n stderr lines: $err"; return; fi
    if ! printf '%s' "$err" | grep -Eq -- "$pat"; then fail "$desc: stderr '$err' !~ /$pat/"; return; fi
    ok
}
finish() { echo "$_pass passed, $_fail failed"; [ $_fail = 0 ]; }
