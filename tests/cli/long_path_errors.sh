#!/usr/bin/env bash
# tests/cli/long_path_errors.sh -- an error about a file with a long path
# still says why.  Messages are built in a 512-byte buffer (core/status.c);
# a path of 600+ bytes in front used to push the reason ("cannot open: No
# such file or directory") out, leaving a line of path and nothing else.
# Now the middle of the path gives way to "...": the line keeps the path's
# start, the file name and the reason.  The demo model; no fixtures.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
export XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/config HOME=$TMP/home
mkdir -p "$TMP/home"
seg() { printf "$1%.0s" $(seq 200); }
L=$TMP/$(seg d)/$(seg e)/$(seg f)
mkdir -p "$L"
printf 'not a model' >"$L/bad.pth"

# expect_reason DESC TAIL CMD...: exit status 1 or 2, one stderr line that
# starts with "rwkv-tui: $TMP/dd", is shorter than the buffer and ends in TAIL
expect_reason() {
    local desc=$1 tail=$2 err rc n
    shift 2
    err=$("$@" 2>&1 >/dev/null </dev/null)
    rc=$?
    n=$(printf '%s' "$err" | grep -c '')
    if [ $rc = 0 ] || [ $rc -ge 128 ]; then fail "$desc: exit $rc"; return; fi
    if [ "$n" != 1 ]; then fail "$desc: $n stderr lines: $err"; return; fi
    case $err in
    "rwkv-tui: $TMP/dd"*"$tail") ;;
    *) fail "$desc: the reason is lost: ...${err: -120}"; return ;;
    esac
    [ ${#err} -lt 560 ] && ok || fail "$desc: ${#err} bytes"
}

expect_reason "info: missing model" "/model.pth: cannot open: No such file or directory" \
    "$T" info --model "$L/model.pth"
expect_reason "info: not a checkpoint" \
    "/bad.pth: not a checkpoint (neither a torch.save zip archive nor safetensors)" \
    "$T" info --model "$L/bad.pth"
expect_reason "chat: missing state file" "/x.pth: cannot open: No such file or directory" \
    "$T" chat --demo --state "$L/x.pth"
expect_reason "tokenize: missing vocabulary" "/v.txt: cannot open: No such file or directory" \
    "$T" tokenize --vocab "$L/v.txt" --text hi
expect_reason "eval: --out in a missing directory" \
    "/nodir/x.bin: cannot create: No such file or directory" \
    "$T" eval --demo --tokens 1 --out "$L/nodir/x.bin"
finish
