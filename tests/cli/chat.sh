#!/usr/bin/env bash
# tests/cli/chat.sh -- `rwkv-tui chat` on stdin/stdout: replies, determinism,
# state files, commands, bad input, Ctrl-C.  Uses the fixture models; the
# checks that hold for any byte-level model run on the demo model without
# them, the others are counted as skipped (docs/testing.md).
. "$(dirname "$0")/lib.sh"

WORLD="--model $FX/models/world-7v0-rand-bf16.pth --vocab $FX/rwkv_vocab_v20230424.txt"
TINY="--model $FX/models/tiny-7v0-fp32.pth"
STATE="$FX/states/state-7v0-A.pth"
BYTE=$TINY
[ -e "$FX/models/tiny-7v0-fp32.pth" ] || [ -n "${CI:-}" ] || BYTE=--demo

count_replies() { grep -c '^Assistant:' "$1"; }

# --- two replies, World model, pipe -------------------------------------------
if have_fixture models/world-7v0-rand-bf16.pth 6; then
printf 'hi\nwhat is 2+2?\n' | "$RWKV_TUI" chat $WORLD --seed 1 --max-tokens 40 >"$TMP/w1" 2>"$TMP/w1.err"
rc=$?
[ $rc = 0 ] && ok || fail "world chat exit $rc: $(cat "$TMP/w1.err")"
[ "$(count_replies "$TMP/w1")" = 2 ] && ok || fail "world chat: $(count_replies "$TMP/w1") replies, want 2"
# no prompt/greeting noise in a pipe; the seed was given so nothing on stderr
[ ! -s "$TMP/w1.err" ] && ok || fail "world chat: unexpected stderr: $(cat "$TMP/w1.err")"
grep -q 'User:' "$TMP/w1" && fail "prompt printed in a pipe" || ok

# --- determinism: same seed -> same output; other seed -> other output -----
printf 'hi\nwhat is 2+2?\n' | "$RWKV_TUI" chat $WORLD --seed 1 --max-tokens 40 >"$TMP/w2" 2>/dev/null
cmp -s "$TMP/w1" "$TMP/w2" && ok || fail "same seed gave different output"
printf 'hi\nwhat is 2+2?\n' | "$RWKV_TUI" chat $WORLD --seed 2 --max-tokens 40 >"$TMP/w3" 2>/dev/null
cmp -s "$TMP/w1" "$TMP/w3" && fail "different seeds gave identical output" || ok
fi

# --- the same with a state file (byte model) ---------------------------------
if have_fixture states/state-7v0-A.pth 4; then
printf 'hi\nwhat is 2+2?\n' | "$RWKV_TUI" chat $TINY --state "$STATE" --seed 1 --max-tokens 60 >"$TMP/s1" 2>"$TMP/s1.err"
rc=$?
[ $rc = 0 ] && ok || fail "state chat exit $rc: $(cat "$TMP/s1.err")"
[ "$(count_replies "$TMP/s1")" = 2 ] && ok || fail "state chat: $(count_replies "$TMP/s1") replies"
printf 'hi\nwhat is 2+2?\n' | "$RWKV_TUI" chat $TINY --state "$STATE" --seed 1 --max-tokens 60 >"$TMP/s2" 2>/dev/null
cmp -s "$TMP/s1" "$TMP/s2" && ok || fail "state chat not deterministic"
# the state defaults (top-p 0.2, presence/frequency 0.3) unless set
printf '/show\n' | "$RWKV_TUI" chat $TINY --state "$STATE" --seed 1 --presence 0.7 >"$TMP/show" 2>&1
grep -Eq 'top_p +0\.2' "$TMP/show" && grep -Eq 'presence +0\.7' "$TMP/show" &&
    grep -Eq 'frequency +0\.3' "$TMP/show" && ok || fail "state defaults: $(cat "$TMP/show")"
fi
printf '/show\n' | "$RWKV_TUI" chat $BYTE --seed 1 --top-k 5 >"$TMP/show0" 2>&1
grep -Eq 'top_p +0\.3' "$TMP/show0" && grep -Eq 'seed +1' "$TMP/show0" && ok || fail "demo defaults: $(cat "$TMP/show0")"
# no trailing blanks; the value is padded only before a "(set)"
grep -q ' $' "$TMP/show0" && fail "/show: trailing blanks: $(cat -A "$TMP/show0")" || ok
grep -qx '  temperature  1' "$TMP/show0" && grep -qx '  seed         1' "$TMP/show0" &&
    grep -Eqx '  top_k +5 +\(set\)' "$TMP/show0" && ok ||
    fail "/show rows: $(cat -A "$TMP/show0")"

# --- greedy chat reproduces the reference (fixtures/generation gen-5v2-nopen) ---
if have_fixture models/tiny-5v2-fp32.pth 1; then
printf 'hi\n' | "$RWKV_TUI" chat --model "$FX/models/tiny-5v2-fp32.pth" --temperature 0 \
    --presence 0 --frequency 0 --max-tokens 32 >"$TMP/g" 2>/dev/null
[ "$(head -c 43 "$TMP/g")" = "Assistant: The first step in the stress an" ] && ok ||
    fail "greedy reply differs from the reference: $(head -c 60 "$TMP/g")"
fi

# --- World model, greedy: the chat demo flow of fixtures/world (printed_pieces) ----
if have_fixture models/world-7v0-rand-bf16.pth 1; then
printf 'What is RWKV?\n' | "$RWKV_TUI" chat $WORLD --temperature 0 --max-tokens 32 >"$TMP/wf" 2>/dev/null
want="Assistant: unconditionalので République Allah굴intendentNOW adaptation"
nbytes=$(printf '%s' "$want" | wc -c)
[ "$(head -c "$nbytes" "$TMP/wf")" = "$want" ] && ok || fail "world greedy flow: $(head -c 120 "$TMP/wf")"
fi

# --- greeting + greedy with penalties (fixtures/generation gen-7v0-chat printed_pieces),
#     then a custom stop string and banned tokens on the same run --------------------
if have_fixture models/tiny-7v0-fp32.pth 3; then
printf 'Tell me a story.\n' | "$RWKV_TUI" chat $TINY --temperature 0 --max-tokens 35 --seed 1 >"$TMP/t7" 2>/dev/null
[ "$(head -n 1 "$TMP/t7")" = "Assistant: the the the and romisy forucl, the" ] && ok ||
    fail "gen-7v0-chat greedy: $(head -n 1 "$TMP/t7")"
printf 'Tell me a story.\n' | "$RWKV_TUI" chat $TINY --temperature 0 --max-tokens 48 --stop and --seed 1 >"$TMP/t8" 2>/dev/null
[ "$(head -n 1 "$TMP/t8")" = "Assistant: the the the " ] && ok || fail "--stop and: $(head -n 1 "$TMP/t8")"
printf 'Tell me a story.\n' | "$RWKV_TUI" chat $TINY --temperature 0 --max-tokens 20 --ban 32,116 --seed 1 >"$TMP/t9" 2>/dev/null
line=$(head -n 1 "$TMP/t9"); reply=${line#Assistant:}
case $reply in *" "*|*t*) fail "--ban 32,116: '$reply'" ;; *) [ -n "$reply" ] && ok || fail "--ban: empty reply" ;; esac
fi

# --- commands and bad input: a message each, the chat goes on ------------------
printf '%s\n' '/set temperature 9' '/set nosuch 1' '/set top_p abc' '/set' '/bogus' '' '   ' \
    '/state /nonexistent.pth' "/state $FX/states/state-6v0-A.pth" 'hello' '/regen' \
    '/set max_tokens 5' '/reset' 'again' |
    "$RWKV_TUI" chat $BYTE --seed 3 --max-tokens 30 >"$TMP/c" 2>"$TMP/c.err"
rc=$?
[ $rc = 0 ] && ok || fail "commands: exit $rc"
[ "$(count_replies "$TMP/c")" = 3 ] && ok || fail "commands: $(count_replies "$TMP/c") replies, want 3 (hello, regen, again)"
grep -q 'temperature: 9 is out of range' "$TMP/c.err" && ok || fail "bad /set range: $(cat "$TMP/c.err")"
grep -q "unknown parameter 'nosuch'" "$TMP/c.err" && ok || fail "bad /set name"
grep -q "'abc' is not a number" "$TMP/c.err" && ok || fail "bad /set value"
grep -q 'usage: /set NAME VALUE' "$TMP/c.err" && ok || fail "bare /set"
grep -q "unknown command '/bogus'" "$TMP/c.err" && ok || fail "unknown command"
grep -q "cancelled" "$TMP/c.err" && fail "/regen reported as cancelled" || ok
[ "$(grep -c 'please say something' "$TMP/c.err")" = 2 ] && ok || fail "empty messages: $(cat "$TMP/c.err")"
grep -q 'nonexistent.pth' "$TMP/c.err" && ok || fail "missing state file message"
if have_fixture states/state-6v0-A.pth 1; then
grep -Eq 'state-6v0-A.pth.*(shape|layer|model|expected)' "$TMP/c.err" && ok ||
    fail "foreign state file message: $(grep 6v0 "$TMP/c.err")"
fi
# after /set max_tokens 5 the last reply is at most 5 byte tokens
last=$(grep '^Assistant:' "$TMP/c" | tail -n 1)
[ ${#last} -le $((10 + 5 * 3)) ] && ok || fail "max_tokens via /set not applied: '$last'"

# --- a word after a command without arguments: one line, nothing done ----------
printf '%s\n' '/quit now' '/exit now' '/reset now' '/show x' '/history x' '/set max-tokens 99999999999' \
    'hello' | "$RWKV_TUI" chat --demo --seed 1 --max-tokens 3 >"$TMP/na" 2>"$TMP/na.err"
rc=$?
[ $rc = 0 ] && [ "$(count_replies "$TMP/na")" = 1 ] && ok || fail "'/quit now' quit or no reply: exit $rc, $(cat "$TMP/na.err")"
for c in quit exit reset show history; do
    grep -qx "rwkv-tui: /$c takes no argument" "$TMP/na.err" && ok || fail "/$c WORD: $(cat "$TMP/na.err")"
done
grep -q '^ *top_p' "$TMP/na" && fail "'/show x' showed" || ok
grep -qx 'rwkv-tui: /set max-tokens: 99999999999 is out of range \[1, 1000000\]' "$TMP/na.err" && ok ||
    fail "an integer range: $(grep range "$TMP/na.err")"

# --- /quit stops reading; EOF exits 0 ----------------------------------------
printf '/quit\nhello\n' | "$RWKV_TUI" chat $BYTE --seed 1 >"$TMP/q" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(count_replies "$TMP/q")" = 0 ] && ok || fail "/quit: exit $rc, $(count_replies "$TMP/q") replies"
"$RWKV_TUI" chat --demo --seed 1 </dev/null >/dev/null 2>&1 && ok || fail "EOF at once: non-zero exit"

# --- invalid UTF-8 on stdin: replaced, the reply comes -------------------------
printf 'caf\xe9 \xff\xfe\n' | "$RWKV_TUI" chat $BYTE --seed 1 --max-tokens 10 >"$TMP/u" 2>"$TMP/u.err"
rc=$?
[ $rc = 0 ] && [ "$(count_replies "$TMP/u")" = 1 ] && ok || fail "invalid UTF-8 input: exit $rc"

# --- --stats: one line per reply on stderr ----------------------------------------
printf 'a\nb\n' | "$RWKV_TUI" chat $BYTE --seed 1 --max-tokens 8 --stats >/dev/null 2>"$TMP/st"
[ "$(grep -Ec 'prefill [0-9]+ tok .* tok/s\), decode [0-9]+ tok .* tok/s' "$TMP/st")" = 2 ] && ok ||
    fail "--stats: $(cat "$TMP/st")"

# --- random seed is reported -----------------------------------------------------
printf 'a\n' | "$RWKV_TUI" chat $BYTE --max-tokens 4 >/dev/null 2>"$TMP/rs"
grep -Eq 'random seed [0-9]+' "$TMP/rs" && ok || fail "random seed not reported: $(cat "$TMP/rs")"

# --- Ctrl-C during a reply stops it; Ctrl-C at the prompt exits 0 --------------
trap "" PIPE   # a dead child must fail a check, not kill this script
mkfifo "$TMP/in"
"$RWKV_TUI" chat --demo --seed 1 --max-tokens 1000000 --stop QQQQQQQQQQQQ <"$TMP/in" >"$TMP/i" 2>"$TMP/i.err" &
pid=$!
exec 7>"$TMP/in"
printf 'go on forever\n' >&7
# until the reply streams (a fixed pause could end before it started on a
# busy machine: the Ctrl-C then hit the prompt); at most ~20 s
for _ in $(seq 200); do [ "$(wc -c <"$TMP/i")" -gt 1000 ] && break; sleep 0.1; done
kill -INT $pid
sleep 0.3
printf '/set max_tokens 3\nshort\n' >&7
exec 7>&-
wait $pid
rc=$?
[ $rc = 0 ] && ok || fail "Ctrl-C in reply: exit $rc"
grep -q 'reply interrupted' "$TMP/i.err" && ok || fail "Ctrl-C in reply: $(cat "$TMP/i.err")"
[ "$(count_replies "$TMP/i")" = 2 ] && ok || fail "Ctrl-C in reply: $(count_replies "$TMP/i") replies, want 2"

"$RWKV_TUI" chat --demo --seed 1 <"$TMP/in" >"$TMP/p" 2>&1 &
pid=$!
exec 7>"$TMP/in"
# at the prompt: a command answered (not a fixed pause: the chat may still be
# starting, its handler not yet in place); at most ~20 s
printf '/show\n' >&7
for _ in $(seq 200); do grep -q 'seed' "$TMP/p" && break; sleep 0.1; done
kill -INT $pid
wait $pid
rc=$?
exec 7>&-
[ $rc = 0 ] && ok || fail "Ctrl-C at the prompt: exit $rc"

# --- bad command lines: one line, non-zero ---------------------------------------
expect_fail "no model" 'model' "$RWKV_TUI" chat
expect_fail "missing model file" 'nonexistent' "$RWKV_TUI" chat --model /nonexistent/m.pth
if have_fixture states/state-6v0-A.pth 1; then
expect_fail "foreign state file at start" 'state-6v0-A' "$RWKV_TUI" chat $TINY --state "$FX/states/state-6v0-A.pth"
fi
expect_fail "bad option value" 'top-p' "$RWKV_TUI" chat $BYTE --top-p 2
expect_fail "unknown option" 'unknown option' "$RWKV_TUI" chat $BYTE --frobnicate
expect_fail "resume without sessions" 'no saved sessions' env XDG_DATA_HOME="$TMP/xdg" "$RWKV_TUI" chat $BYTE --resume
"$RWKV_TUI" chat --help | grep -q '/regen' && ok || fail "--help lacks the commands"

# a line holding a NUL byte is refused whole (never cut at the NUL), the chat goes on
printf 'hel\0lo\nhi\n' | "$RWKV_TUI" chat --demo --seed 1 --max-tokens 3 >"$TMP/nul" 2>"$TMP/nul.err"
[ $? = 0 ] && grep -q 'NUL byte (at byte 4): not sent' "$TMP/nul.err" \
    && [ "$(grep -c '^Assistant:' "$TMP/nul")" = 1 ] && ok || fail "NUL line: $(cat "$TMP/nul.err")"
# a failed write to stdout is reported, exit 1
printf 'hi\n' | "$RWKV_TUI" chat --demo --seed 1 --max-tokens 3 >/dev/full 2>"$TMP/full.err"
[ $? = 1 ] && grep -q 'stdout: No space left on device' "$TMP/full.err" && ok \
    || fail "chat >/dev/full: $(cat "$TMP/full.err")"

# a command's answer reaches a pipe at once (a program reading the chat
# through a pipe waits for it before it sends more): each command, then its
# answer awaited with the input still open (at most ~20 s, then it fails)
"$RWKV_TUI" chat --demo --seed 1 --max-tokens 3 <"$TMP/in" >"$TMP/cmd" 2>"$TMP/cmd.err" &
pid=$!
exec 7>"$TMP/in"
for c in '/framing:^greeting ' '/think:^think  *off$' '/show:^  seed ' '/help:^  /quit '; do
    printf '%s\n' "${c%%:*}" >&7
    for _ in $(seq 200); do grep -q "${c#*:}" "$TMP/cmd" && break; sleep 0.1; done
    grep -q "${c#*:}" "$TMP/cmd" && ok || fail "${c%%:*}: its answer did not reach the pipe: $(cat "$TMP/cmd")"
done
exec 7>&-
wait $pid

finish
