#!/usr/bin/env bash
# tests/cli/chat_plus_cmds.sh -- ChatRWKV's other "+" commands in the line
# chat (fgen_cmd_parse: one rule for both front ends): +reset is /reset, +
# is /regen, +i / +qq are free generations from ChatRWKV's exact prompts
# (the same text as +gen with that prompt typed out), +qa asks outside the
# conversation; names in any case; +prompt and a missing TEXT are one line.
# None of them reaches the model as a message; "+1 agreed" still does.
. "$(dirname "$0")/lib.sh"
M="--model $FX/models/world-7v0-rand-bf16.pth --vocab $FX/rwkv_vocab_v20230424.txt"
[ -e "$FX/models/world-7v0-rand-bf16.pth" ] || [ -n "${CI:-}" ] || M=--demo

run() { printf "$1" | "$RWKV_TUI" chat $M --seed 7 --temperature 1 --top-p 0.9 --max-tokens 12 2>"$TMP/err"; }
replies() { grep -c '^Assistant:' "$1"; }

# +reset / +RESET: the conversation is reset, nothing is sent
run 'hello\n+reset\n+RESET\n' >"$TMP/r"
[ "$(replies "$TMP/r")" = 1 ] && ok || fail "+reset was sent as a message: $(cat "$TMP/r")"
[ "$(grep -c '^(conversation reset)$' "$TMP/err")" = 2 ] && ok || fail "+reset: $(cat "$TMP/err")"
run '+reset now\n' >"$TMP/r2"
[ "$(replies "$TMP/r2")" = 0 ] && grep -q 'takes no argument' "$TMP/err" && ok ||
    fail "+reset with a word: $(cat "$TMP/err")"
# an ordinary message that starts with "+" is a message
run '+1 agreed\n+gentle words\n' >"$TMP/m"
[ "$(replies "$TMP/m")" = 2 ] && ok || fail "'+1 agreed' / '+gentle' not sent: $(cat "$TMP/err")"
# + is /regen: a second reply to the same message, the conversation goes on
run 'hello\n+\n' >"$TMP/g"
[ "$(replies "$TMP/g")" = 2 ] && ok || fail "+ did not regenerate: $(cat "$TMP/g" "$TMP/err")"

# +qq / +i: ChatRWKV's templates, the same text as +gen with them typed out
run '+qq what is 2+2?\n' >"$TMP/qq"
run '+gen Q: what is 2+2?\\nA:\n' >"$TMP/qq2"
[ -s "$TMP/qq" ] && cmp -s "$TMP/qq" "$TMP/qq2" && ok || fail "+qq is not \"\\nQ: TEXT\\nA:\""
grep -q 'Assistant:' "$TMP/qq" && fail "+qq used the chat framing" || ok
run '+i  write\\n\\na poem \n' >"$TMP/i"
run '+gen Below is an instruction that describes a task. Write a response that appropriately completes the request.\\n\\n# Instruction:\\nwrite\\na poem\\n\\n# Response:\\n\n' >"$TMP/i2"
[ -s "$TMP/i" ] && cmp -s "$TMP/i" "$TMP/i2" && ok || fail "+i is not ChatRWKV's instruction prompt"
# any case
run '+QQ what is 2+2?\n' >"$TMP/qq3"
cmp -s "$TMP/qq" "$TMP/qq3" && ok || fail "+QQ differs from +qq"
run '+Gen Once upon a time\n' >"$TMP/G1"
run '+gen Once upon a time\n' >"$TMP/G2"
[ -s "$TMP/G1" ] && cmp -s "$TMP/G1" "$TMP/G2" && ok || fail "+Gen differs from +gen"
# +qa: outside the conversation, which it does not touch; +++ continues it
run 'hello\n' >"$TMP/h1"
run '+qa who are you?\n+++\nhello\n' >"$TMP/h2"
[ "$(sed -n '/^Assistant:/,$p' "$TMP/h1")" = "$(sed -n '/^Assistant:/,$p' "$TMP/h2")" ] && ok ||
    fail "the reply after +qa differs from the reply without it"
[ "$(replies "$TMP/h2")" = 1 ] && ok || fail "+qa sent as a message"
grep -q 'nothing to continue' "$TMP/err" && fail "+++ after +qa: $(cat "$TMP/err")" || ok

# unsupported and incomplete: one line each, nothing sent, the chat goes on
run '+prompt x.py\n+gen\n+qa   \n/show\n' >"$TMP/u"
[ "$(replies "$TMP/u")" = 0 ] && ok || fail "sent as messages: $(cat "$TMP/u")"
grep -q '+prompt (a ChatRWKV prompt file) is not supported here, not sent' "$TMP/err" && ok ||
    fail "+prompt: $(cat "$TMP/err")"
grep -q 'usage: +gen TEXT (not sent)' "$TMP/err" && grep -q 'usage: +qa TEXT (not sent)' "$TMP/err" &&
    ok || fail "+gen / +qa without text: $(cat "$TMP/err")"
grep -Eq 'seed +7' "$TMP/u" && ok || fail "the chat did not go on"
# /help lists them
printf '/help\n' | "$RWKV_TUI" chat --demo 2>/dev/null >"$TMP/help"
for c in '+i TEXT' '+qq TEXT' '+qa TEXT' '+reset' '+prompt FILE'; do
    grep -qF -- "  $c " "$TMP/help" && ok || fail "/help does not list $c"
done
finish
