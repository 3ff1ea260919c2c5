#!/usr/bin/env bash
# tests/cli/chat_gen.sh -- the line chat's free generation (cli/freegen.h),
# ChatRWKV's moves: "+gen TEXT" (no chat framing, from a fresh state),
# "+++" (continue it: 20 tokens + 20 more are exactly a 40-token
# generation), "++" (again from the prompt, a new draw); the same --seed
# gives the same text; the conversation is untouched (a reply after +gen is
# the reply without it); +++ before any +gen is one clear line.
. "$(dirname "$0")/lib.sh"
M="--model $FX/models/world-7v0-rand-bf16.pth --vocab $FX/rwkv_vocab_v20230424.txt"
[ -e "$FX/models/world-7v0-rand-bf16.pth" ] || [ -n "${CI:-}" ] || M=--demo

run() { printf "$1" | "$RWKV_TUI" chat $M --seed 7 --temperature 1 --top-p 0.9 2>"$TMP/err"; }

run '/set max_tokens 40\n+gen Once upon a time\n' >"$TMP/a40"
[ -s "$TMP/a40" ] && ok || fail "+gen printed nothing: $(cat "$TMP/err")"
grep -q 'Assistant:' "$TMP/a40" && fail "+gen used the chat framing" || ok
run '/set max_tokens 40\n+gen Once upon a time\n' >"$TMP/a40b"
cmp -s "$TMP/a40" "$TMP/a40b" && ok || fail "same seed, other text"
run '/set max_tokens 20\n+gen Once upon a time\n+++\n' >"$TMP/b"
python3 - "$TMP/a40" "$TMP/b" <<'PY' && ok || fail "+gen 20 then +++ 20 is not the 40-token generation"
import sys
a = open(sys.argv[1], "rb").read()
b = open(sys.argv[2], "rb").read()
# b = first part + "\n\n" + the continuation (+ "\n\n"), a = all of it + "\n\n"
ok = any(b[k:k + 2] == b"\n\n" and b[:k] + b[k + 2:] == a for k in range(len(b) - 1))
sys.exit(0 if ok else 1)
PY
run '/set max_tokens 20\n+gen Once upon a time\n++\n' >"$TMP/c"
python3 - "$TMP/c" <<'PY' && ok || fail "++ drew the same text again: $(cat "$TMP/c")"
import sys
parts = [p for p in open(sys.argv[1], "rb").read().split(b"\n\n") if p]
sys.exit(0 if len(parts) >= 2 and parts[0] != parts[-1] else 1)
PY
# the conversation is not touched by a free generation
run 'hello\n' >"$TMP/r1"
run '+gen something else\nhello\n' >"$TMP/r2"
[ "$(sed -n '/^Assistant:/,$p' "$TMP/r1")" = "$(sed -n '/^Assistant:/,$p' "$TMP/r2")" ] && ok ||
    fail "the reply after +gen differs from the reply without it"
# errors
run '+++\n' >/dev/null
grep -q 'nothing to continue: start with +gen TEXT' "$TMP/err" && ok || fail "+++ first: $(cat "$TMP/err")"
run '++\n/show\n' >"$TMP/o"
grep -q 'nothing to generate again' "$TMP/err" && grep -Eq 'seed +7' "$TMP/o" && ok ||
    fail "++ first: $(cat "$TMP/err")"
printf '/help\n' | "$RWKV_TUI" chat --demo 2>/dev/null | grep -q '+gen TEXT' && ok ||
    fail "/help does not list +gen"
finish
