#!/usr/bin/env bash
# tests/tui/progress.sh -- progress bars in the status line: while a model
# loads (the screen is up first; the frames are read from the raw terminal
# output, since a tiny checkpoint loads in milliseconds) and while a long
# pasted prompt is prefilled (count, percentage and bar checked against the
# prompt's length: the tiny models use the byte tokenizer, one token a byte,
# and the demo's prompt format "User: MSG\n\nAssistant:" adds 18).
. "$(dirname "$0")/tmuxlib.sh"

# a byte-level checkpoint: the fixture, or one written by `bench --save`
MF=$FX/models/tiny-7v0-fp32.pth
if [ ! -f "$MF" ] && [ -z "${CI:-}" ]; then
    MF=$TMP/gen-v7.pth
    "$RWKV_TUI" bench --shape demo --dtype fp32 --save "$MF" >/dev/null 2>&1 || fail "bench --save"
fi
if [ -n "${CI:-}" ]; then have_fixture models/tiny-7v0-fp32.pth 0; fi   # CI: a failure
NAME=${MF##*/}
NAME_RE=${NAME//./\\.}

# ---- model load: record everything the program writes to the terminal
# (the program starts once the pipe is in place: $TMP/go; a fixed pause
# could end first on a busy machine)
RUNS=$((RUNS + 1))
tmx_fresh \
    "while [ ! -e '$TMP/go' ]; do sleep 0.1; done; \
     env XDG_CONFIG_HOME='$XDG_CONFIG_HOME' LANG=C.UTF-8 LC_ALL=C.UTF-8 \
     '$RWKV_TUI' --model '$MF' --db '$DB' 2>'$TMP/stderr.$RUNS'; \
     echo EXIT=\$?; sleep 600"
tmx pipe-pane -o "cat >> '$TMP/raw'"
: > "$TMP/go"
wait_for 'F1 help' 10 || fail "client did not start"
# the pipe's cat may write the last frames a little after the screen shows them
for i in $(seq 50); do grep -aq 'preparing weights' "$TMP/raw" && grep -aq '100%' "$TMP/raw" && break; sleep 0.1; done
if grep -aq "Loading $NAME_RE" "$TMP/raw"; then ok; else
    fail "no loading frame in the terminal output"; head -c 600 "$TMP/raw" | od -c | head; fi
if grep -aq 'loading \[' "$TMP/raw"; then ok; else fail "no loading bar in the status line"; fi
if grep -aq '100%' "$TMP/raw"; then ok; else fail "loading bar never reached 100%"; fi
if grep -aq 'preparing weights' "$TMP/raw"; then ok; else fail "loader step not shown"; fi
check_not "no bar once loaded" 'loading \['
check "model in the status line" "$NAME_RE \\| cpu fp32"
tui_quit

# a checkpoint that fails to load: the screen goes, one clear line remains
RUNS=$((RUNS + 1))
printf 'not a checkpoint' > "$TMP/bad.pth"
tmx_fresh \
    "env XDG_CONFIG_HOME='$XDG_CONFIG_HOME' LANG=C.UTF-8 LC_ALL=C.UTF-8 \
     '$RWKV_TUI' --model '$TMP/bad.pth' --db '$DB' 2>'$TMP/stderr.$RUNS'; \
     echo EXIT=\$?; sleep 600"
check "bad checkpoint: non-zero exit" '^EXIT=[1-9]'
if [ "$(grep -c . "$TMP/stderr.$RUNS")" = 1 ] && grep -q 'bad\.pth' "$TMP/stderr.$RUNS"; then ok
else fail "bad checkpoint: want one stderr line naming the file"; cat "$TMP/stderr.$RUNS"; fi

# ---- prefill of a long pasted prompt
N=200000
# words, no newline, no space at either end: normalisation keeps N bytes
yes 'alpha message river token' | tr '\n' ' ' | head -c $((N - 1)) > "$TMP/long.txt"
printf 'x' >> "$TMP/long.txt"
[ "$(wc -c < "$TMP/long.txt")" = $N ] || fail "test setup: message size"
TOTAL=$((N + 18))

NODEMO=1 tui_start --model "$MF" --db "$DB" --max-tokens 4 --chunk 32
check_not "idle: no bar" 'prefilling \['
tmx load-buffer "$TMP/long.txt"
tmx paste-buffer -p
check "paste landed in the input box" '^>(↑| )alpha message river' 10
keys Enter
BAR='prefilling \[[█▏▎▍▌▋▊▉░]+\] +[0-9]+% [0-9]+/'$TOTAL' tok'
check "prefill bar with the prompt's token count" "$BAR" 10
check "time left shown" "$TOTAL tok +[0-9]+ tok/s +[0-9hms]+ left" 10

# the count grows, and the percentage and bar agree with it
line1=$(screen | head -1)
sleep 1.5
line2=$(screen | head -1)
d1=$(printf '%s' "$line1" | sed -nE "s|.* ([0-9]+)/$TOTAL tok.*|\1|p")
d2=$(printf '%s' "$line2" | sed -nE "s|.* ([0-9]+)/$TOTAL tok.*|\1|p")
p2=$(printf '%s' "$line2" | sed -nE "s|.*\] +([0-9]+)% [0-9]+/$TOTAL.*|\1|p")
if [ -n "$d1" ] && [ -n "$d2" ] && [ "$d2" -gt "$d1" ] && [ "$d2" -lt $TOTAL ]; then ok
else fail "prefill count does not advance: '$d1' -> '$d2'"; echo "$line2"; fi
if [ -n "$p2" ] && [ "$p2" = $((d2 * 100 / TOTAL)) ]; then ok
else fail "percentage $p2 does not match $d2/$TOTAL"; fi
# bar cells: 20, filled in eighths to round(frac * 160)
bar=$(printf '%s' "$line2" | sed -nE 's|.*prefilling \[([^]]*)\].*|\1|p')
if [ "$(printf '%s' "$bar" | wc -m)" = 20 ]; then ok; else fail "bar is not 20 cells: '$bar'"; fi
full=$(printf '%s' "$bar" | grep -o '█' | wc -l)
want=$(( (d2 * 160 * 2 / TOTAL + 1) / 2 / 8 ))
if [ "$full" = "$want" ]; then ok; else fail "bar has $full full cells, want $want for $d2/$TOTAL"; fi

# a narrow terminal keeps the bar (the labels go first)
tmx resize-window -x 50 -y 20
check "narrow: bar still shown" 'prefilling \[[█▏▎▍▌▋▊▉░]+\] +[0-9]+%' 5
tmx resize-window -x 120 -y 40

# Esc cancels the prefill: the bar goes, the client is idle again
keys Escape
wait_idle 100 || fail "still busy after cancel"
check_not "bar gone after cancel" 'prefilling \['
check "idle status" 'prefill [0-9]+ tok/s +[0-9]+ MiB'
tui_quit
tui_finish
