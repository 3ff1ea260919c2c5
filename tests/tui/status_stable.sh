#!/usr/bin/env bash
# tests/tui/status_stable.sh -- the status line's fields stay put while a
# reply streams: what it drops at a width is chosen from the widest its
# changing numbers (token counts, speeds) can get, not from this frame's
# digits, and while a job runs each of its fields keeps that room.  It
# dropped "session:" or the strategy and moved "generating" / "decode" as
# the digits grew (80 columns, a real model; beside the demo label; 8
# colours; wide).  20x6 still draws a line that fits.
. "$(dirname "$0")/tmuxlib.sh"

# column (1-based) of the first "$2" in "$1", 0 = none
col_of() { awk -v s="$1" -v t="$2" 'BEGIN { print index(s, t) }'; }
# the left part of a status line: up to the count of the session's tokens
# (the count itself grows; its room is kept) or "generating"
left_labels() { printf '%s' "$1" | sed -E 's/generating.*//; s/\| [0-9]+ tok.*//'; }

# stream_stable DESC [LABELS...]: send a long message, capture the status
# line while "generating" is on it, then stop the reply (Esc); every frame
# has the same labels at the same columns and the same left part.
stream_stable() {
    local desc=$1 f first="" firstl="" n=0 bad="" lab c c0 i
    shift
    type_text "long one"
    keys Enter
    wait_for '^ .*generating [0-9]+ tok' 30 || { fail "$desc: no reply streamed"; return; }
    : > "$TMP/frames"
    for i in $(seq 1 300); do
        f=$(screen | head -n 1)
        printf '%s\n' "$f" >> "$TMP/frames"
        printf '%s' "$f" | grep -q 'generating [0-9]' || break
        [ "$(grep -c 'generating [0-9]' "$TMP/frames")" -ge 40 ] && break
        sleep 0.03
    done
    keys Escape
    wait_idle 300
    while IFS= read -r f; do
        printf '%s' "$f" | grep -q 'generating [0-9]' || continue
        n=$((n + 1))
        if [ -z "$first" ]; then first=$f; firstl=$(left_labels "$f"); continue; fi
        for lab in "$@"; do
            c=$(col_of "$f" "$lab"); c0=$(col_of "$first" "$lab")
            [ "$c" = "$c0" ] || bad="'$lab' at column $c, was $c0"
        done
        [ "$(left_labels "$f")" = "$firstl" ] || bad="left part '$(left_labels "$f")', was '$firstl'"
        [ -n "$bad" ] && break
    done < "$TMP/frames"
    # the digits must have grown while it was watched (else nothing was tried)
    local d0 d1
    d0=$(grep -o 'generating [0-9]*' "$TMP/frames" | head -n 1 | tr -cd 0-9)
    d1=$(grep -o 'generating [0-9]*' "$TMP/frames" | tail -n 1 | tr -cd 0-9)
    echo "# $desc: $n frames, generating $d0 .. $d1; first: $first"
    if [ -n "$bad" ]; then
        fail "$desc: the status line moved: $bad
    first: $first
    then:  $f"
    elif [ "$n" -lt 5 ]; then
        skip 1 "$desc: only $n frames while it streamed"
    else
        ok "$desc: $n frames, the fields stayed put"
    fi
    [ "${#d0}" -lt "${#d1}" ] && ok || skip 1 "$desc: the count kept its width ($d0 .. $d1)"
}

# a long reply (no stop string in it, no end token) on one thread: the
# screen is read many times while it streams
SLOW="--stop QQQQQQQQ --ban 0 --threads 1"

# 80x24 with a real model (no demo label): the labels beside the speeds
M=$FX/models
if have_fixture models/tiny-7v0-fp32.pth 3; then
    NODEMO=1 W=80 H=24 tui_start --model "$M/tiny-7v0-fp32.pth" --db "$DB" \
        --max-tokens 150000 --seed 3 $SLOW
    stream_stable "80x24, a real model" 'session:' 'generating' 'decode'
    # idle, laid out from the real numbers: what fits beside them depends
    # on the speed's digits (a sanitizer build's 925.4 leaves room for more)
    check "80x24: the title and count after it" '^ .*session: long one \| [0-9]+ tok +decode [0-9.]+ tok/s $'
    tui_quit
fi

# 80x24 beside the demo label, 8 colours: "generating" and the speed
TUI_ENV="TERM=screen" W=80 H=24 tui_start --max-tokens 150000 --seed 3 $SLOW
stream_stable "80x24, demo, TERM=screen" 'generating' 'decode'
tui_quit

# wide: every field, the labels beside them
W=200 H=24 tui_start --max-tokens 150000 --seed 3 $SLOW
stream_stable "200 columns" 'cpu' 'session:' 'generating' 'prefill' 'decode' 'MiB'
tui_quit

# 20x6: the line fits (the running reply first)
W=20 H=6 tui_start --max-tokens 150000 --seed 3
type_text "x"
keys Enter
check "20x6: generating" '^ DEMO MODEL \(rando|generating' 20
s=$(screen | head -n 1)
[ "${#s}" -le 20 ] && ok || fail "20x6: the status line is ${#s} columns: '$s'"
keys Escape
wait_idle 300
s=$(screen | head -n 1)
[ "${#s}" -le 20 ] && ok || fail "20x6 idle: the status line is ${#s} columns: '$s'"
tui_quit
tui_finish
