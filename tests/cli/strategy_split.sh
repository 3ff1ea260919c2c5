#!/usr/bin/env bash
# tests/cli/strategy_split.sh -- a strategy's layer split on the model
# loaded.  A `*N` past the model's layer count leaves the later stages no
# layers (as in the reference, which accepts it), and nothing said so: now
# one line on stderr names the split (a warning: the load goes on, exit 0),
# for every command that loads a model; `info` shows the split of a
# strategy of several stages ("split:").  The demo model has 2 layers.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI

split() { sed -n 's/^split: *//p' "$TMP/out"; }
info() { "$T" info --demo --strategy "$1" >"$TMP/out" 2>"$TMP/err"; }

info "cpu fp32i8 *1 -> cpu fp32"
[ $? = 0 ] && [ "$(split)" = "cpu fp32i8 *1: layer 0; cpu fp32: layer 1 and the head" ] && [ ! -s "$TMP/err" ] &&
    ok || fail "*1: '$(split)' / $(cat "$TMP/err")"
info "cpu fp32i8 *2 -> cpu fp32"
[ "$(split)" = "cpu fp32i8 *2: layers 0-1; cpu fp32: the head" ] && [ ! -s "$TMP/err" ] && ok ||
    fail "*2: '$(split)' / $(cat "$TMP/err")"
info "cpu fp32 *0 -> cpu fp32i8"     # none asked for: nothing to say
[ "$(split)" = "cpu fp32 *0: no layers; cpu fp32i8: layers 0-1 and the head" ] && [ ! -s "$TMP/err" ] && ok ||
    fail "*0: '$(split)' / $(cat "$TMP/err")"
info "cpu fp32"
grep -q '^split:' "$TMP/out" && fail "one stage: $(cat "$TMP/out")" || ok

want="rwkv-tui: strategy 'cpu fp32i8 *5 -> cpu fp32' gives a stage no layers of this model (2 layers and the head): cpu fp32i8 *5: layers 0-1 and the head; cpu fp32: no layers"
info "cpu fp32i8 *5 -> cpu fp32"
[ $? = 0 ] && [ "$(split)" = "cpu fp32i8 *5: layers 0-1 and the head; cpu fp32: no layers" ] && ok ||
    fail "*5: '$(split)'"
[ "$(cat "$TMP/err")" = "$want" ] && ok || fail "*5 not said: $(cat "$TMP/err")"
# the other commands that load a model say it too, once, and go on
out=$("$T" generate --demo --strategy "cpu fp32i8 *5 -> cpu fp32" --prompt hi --max-tokens 2 2>"$TMP/err")
[ $? = 0 ] && [ "$(grep -cxF "$want" "$TMP/err")" = 1 ] && ok || fail "generate: $(cat "$TMP/err")"
printf 'hi\n' | "$T" chat --demo --strategy "cpu fp32i8 *5 -> cpu fp32" --max-tokens 2 >/dev/null 2>"$TMP/err"
[ $? = 0 ] && [ "$(grep -cxF "$want" "$TMP/err")" = 1 ] && ok || fail "chat: $(cat "$TMP/err")"
"$T" eval --demo --strategy "cpu fp32i8 *5 -> cpu fp32" --text hi --out "$TMP/l.bin" >/dev/null 2>"$TMP/err"
[ $? = 0 ] && [ "$(grep -cxF "$want" "$TMP/err")" = 1 ] && ok || fail "eval: $(cat "$TMP/err")"
finish
