#!/usr/bin/env bash
# tests/cli/generate.sh -- `rwkv-tui generate`: plain and --chat completion,
# determinism, max tokens, reference greedy output, bad input.
. "$(dirname "$0")/lib.sh"

# a byte-level model: the fixture, or the demo model without the fixtures
TINY="--model $FX/models/tiny-7v0-fp32.pth"
[ -e "$FX/models/tiny-7v0-fp32.pth" ] || [ -n "${CI:-}" ] || TINY=--demo

"$RWKV_TUI" generate --demo --prompt Hello --seed 5 --max-tokens 30 >"$TMP/a" 2>"$TMP/a.err"
rc=$?
[ $rc = 0 ] && [ -s "$TMP/a" ] && ok || fail "generate --demo: exit $rc $(cat "$TMP/a.err")"
"$RWKV_TUI" generate --demo --prompt Hello --seed 5 --max-tokens 30 >"$TMP/b" 2>/dev/null
cmp -s "$TMP/a" "$TMP/b" && ok || fail "same seed, different output"
"$RWKV_TUI" generate --demo --prompt Hello --seed 6 --max-tokens 30 >"$TMP/c" 2>/dev/null
cmp -s "$TMP/a" "$TMP/c" && fail "different seeds, same output" || ok

# max tokens: byte model, 12 tokens -> at most 12 bytes (+ U+FFFD growth) + newline
"$RWKV_TUI" generate $TINY --prompt "The" --seed 1 --max-tokens 12 >"$TMP/m" 2>/dev/null
n=$(wc -c <"$TMP/m")
[ "$n" -ge 2 ] && [ "$n" -le $((12 * 3 + 1)) ] && ok || fail "max-tokens 12: $n bytes"

# greedy plain completion == the same prompt through the chat framing by hand
if have_fixture models/tiny-5v2-fp32.pth 2; then
"$RWKV_TUI" generate --model "$FX/models/tiny-5v2-fp32.pth" --temperature 0 --presence 0 --frequency 0 \
    --max-tokens 32 --prompt "$(printf 'User: hi\n\nAssistant: Hi. I am your assistant and I will provide expert full response in full details. Please feel free to ask any question and I will always answer it.\n\nUser: hi\n\nAssistant:')" >"$TMP/p" 2>/dev/null
# reference: fixtures/generation gen-5v2-nopen (greeting and prompt fed as one text here, so
# the chunking differs from the demo's two calls; greedy margins >= 0.02 keep the tokens)
[ "$(head -c 32 "$TMP/p")" = " The first step in the stress an" ] && ok || fail "plain greedy: '$(head -c 40 "$TMP/p")'"
"$RWKV_TUI" generate --chat --model "$FX/models/tiny-5v2-fp32.pth" --temperature 0 --presence 0 \
    --frequency 0 --max-tokens 32 --prompt hi >"$TMP/q" 2>/dev/null
[ "$(head -c 32 "$TMP/q")" = " The first step in the stress an" ] && ok || fail "--chat greedy: '$(head -c 40 "$TMP/q")'"
fi

# --chat with a state file (the generation fixture gen-6v0-state, greedy, penalties 0.3)
if have_fixture states/state-6v0-A.pth 1; then
"$RWKV_TUI" generate --chat --model "$FX/models/tiny-6v0-fp32.pth" --state "$FX/states/state-6v0-A.pth" \
    --temperature 0 --presence 0.3 --frequency 0.3 --max-tokens 16 --prompt hi >"$TMP/s" 2>/dev/null
[ "$(head -c 16 "$TMP/s")" = "  aitnreosuhliit" ] && ok || fail "state greedy: '$(head -c 20 "$TMP/s" | od -c | head -2)'"
fi

# --stats and the random seed report go to stderr
"$RWKV_TUI" generate $TINY --prompt x --max-tokens 3 --stats >/dev/null 2>"$TMP/e"
grep -q 'random seed' "$TMP/e" && grep -q 'decode 3 tok' "$TMP/e" && ok || fail "stderr: $(cat "$TMP/e")"

expect_fail "no prompt" 'prompt' "$RWKV_TUI" generate $TINY
expect_fail "empty prompt" 'empty' "$RWKV_TUI" generate $TINY --prompt ""
expect_fail "blank chat prompt" 'say something' "$RWKV_TUI" generate $TINY --chat --prompt "   "
expect_fail "no model" 'model' "$RWKV_TUI" generate --prompt hi
expect_fail "bad temperature" 'temperature' "$RWKV_TUI" generate $TINY --prompt hi --temperature -1
expect_fail "unknown option" 'unknown option' "$RWKV_TUI" generate $TINY --prompt hi --bogus
"$RWKV_TUI" generate --help | grep -q -- '--chat' && ok || fail "--help"

finish
