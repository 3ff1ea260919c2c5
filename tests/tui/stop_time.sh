#!/usr/bin/env bash
# stop_time.sh -- Ctrl-Z during a reply: the minutes the process spent
# stopped in the shell are in no speed it reports or saves (core/clock.h,
# mono_run_s).  `generate --stats` in a real shell in tmux, stopped with
# C-z mid-decode, left stopped PAUSE seconds, resumed with fg: its decode
# time must be under the wall time less the pause; counted, the pause would
# be in it.  Then the full-screen client's own C-z (suspend) the same way,
# its saved turn's decode time read back from the session's JSON export.
. "$(dirname "$0")/tmuxlib.sh"
PAUSE=4
N=120000
[ -n "${RWKV_ASAN:-}" ] && N=30000

# wall_of FILE: the seconds between the two stamps the script wrote
cat > "$TMP/run.sh" <<SH
s=\$(date +%s.%N)
'$RWKV_TUI' generate --demo --prompt hi --max-tokens $N --stats --threads 1 --seed 1 \
    > '$TMP/out.txt' 2> '$TMP/err.txt'
e=\$(date +%s.%N)
echo "\$s \$e" > '$TMP/wall'
echo GEN-DONE
SH
tmx_fresh "bash --norc --noprofile -i"
tmx send-keys "PS1='$ '; bash $TMP/run.sh" Enter
poll test -s "$TMP/out.txt" || fail "no output began"
tmx send-keys C-z
if poll sh -c "tmux -L '$SOCK' capture-pane -p | grep -q Stopped"; then ok
else fail "not stopped: $(tmx capture-pane -p | tail -3)"; fi
sleep "$PAUSE"   # the pause itself is what is measured: no condition to wait for
tmx send-keys "fg" Enter
poll sh -c "tmux -L '$SOCK' capture-pane -p | grep -q GEN-DONE" || fail "generate did not end"
dec=$(sed -n 's/.*decode [0-9]* tok in \([0-9.]*\) s.*/\1/p' "$TMP/err.txt")
read -r s e < "$TMP/wall"
if [ -n "$dec" ] && awk -v d="$dec" -v s="$s" -v e="$e" -v p="$PAUSE" \
        'BEGIN { exit !(d + p - 0.5 < e - s) }'; then ok
else fail "decode $dec s in a wall time of $(awk -v s="$s" -v e="$e" 'BEGIN{print e-s}') s with a ${PAUSE} s stop: $(cat "$TMP/err.txt")"; fi
grep -q "decode $N tok" "$TMP/err.txt" && ok || fail "the whole reply: $(cat "$TMP/err.txt")"

# the full-screen client: C-z mid-reply (its own suspend) from a shell with
# job control (a stop in an orphaned process group is discarded), fg.  Its
# wall time also holds the drawing of the reply's text after the decode (a
# few seconds, more on a busy machine): a shorter reply and a longer stop.
N=40000 PAUSE=10
[ -n "${RWKV_ASAN:-}" ] && N=10000
tmx send-keys "clear; '$RWKV_TUI' --demo --db '$DB' --max-tokens $N --seed 1 --threads 1" Enter
wait_for 'Type a message' 30 || fail "the client did not start"
type_text "hi"
s=$(date +%s.%N)
keys Enter
wait_for 'generating' 10 || fail "no reply began"
keys C-z
if poll sh -c "tmux -L '$SOCK' capture-pane -p | grep -q Stopped"; then ok
else fail "client not stopped: $(tmx capture-pane -p | tail -3)"; fi
sleep "$PAUSE"   # the pause itself is what is measured
tmx send-keys "fg" Enter
wait_idle 600 || fail "reply did not end"
e=$(date +%s.%N)
"$RWKV_TUI" sessions --db "$DB" export 1 --format json > "$TMP/s.json" || fail "export"
out=$(python3 - "$TMP/s.json" "$s" "$e" "$PAUSE" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["turns"][-1]
s, e, pause = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
gen = len(t["tokens"]) / t["decode_tps"]
print("ok" if gen + pause - 0.5 < e - s else
      "decode %.2f s of %d tokens in a wall time of %.2f s with a %g s stop" % (gen, len(t["tokens"]), e - s, pause))
PY
)
[ "$out" = ok ] && ok || fail "client: $out"
keys F10
poll sh -c "tmux -L '$SOCK' capture-pane -p | grep -q '^\\$ *\$'" || fail "client did not quit: $(screen | tail -3)"

finish
