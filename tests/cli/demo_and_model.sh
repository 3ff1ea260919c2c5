#!/usr/bin/env bash
# tests/cli/demo_and_model.sh -- --demo and --model name two different
# models: given together they are refused (exit 2, one line) by every
# command that loads one, as bench always did, instead of the built-in
# random model silently winning over the checkpoint asked for (a script's
# logits, completions or replies then came from random weights, exit 0).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
PAT='--model and --demo exclude each other'

# no checkpoint is read before the refusal: any path does
for cmd in "generate --prompt hi --max-tokens 2" "eval --tokens 1 --out $TMP/o.bin" "info" \
           "bench --prompt-tokens 4 --gen-tokens 1 --repeat 1"; do
    set -- $cmd
    expect_fail "$1 --demo --model" "^rwkv-tui: $1: ($PAT|give one of --model PATH, --demo)" \
        "$T" $cmd --demo --model "$TMP/m.pth"
    expect_fail "$1 --model --demo" "^rwkv-tui: $1: ($PAT|give one of --model PATH, --demo)" \
        "$T" $cmd --model "$TMP/m.pth" --demo
done
[ ! -e "$TMP/o.bin" ] && ok || fail "a refused eval wrote --out"
expect_fail "chat --demo --model" "^rwkv-tui: chat: $PAT" \
    "$T" chat --demo --model "$TMP/m.pth" --max-tokens 2 </dev/null

# each alone still works
"$T" generate --demo --prompt hi --max-tokens 2 --seed 1 >/dev/null 2>"$TMP/err" && ok ||
    fail "generate --demo: $(cat "$TMP/err")"
echo hi | "$T" chat --demo --max-tokens 2 --seed 1 >/dev/null 2>"$TMP/err" && ok ||
    fail "chat --demo: $(cat "$TMP/err")"
finish
