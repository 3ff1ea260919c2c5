#!/usr/bin/env bash
# tests/cli/args_positional.sh -- a model (or any word) given without its
# option is refused with one line saying which option takes it, the same in
# every command that reads the common options (cli/opts.c cli_bad_arg): a
# path is never taken as the model by guess.  Before, `info MODEL.pth` said
# "unknown option 'MODEL.pth'", as if it had been an option.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
touch "$TMP/m.pth"
M=$TMP/m.pth

for c in info generate eval bench chat; do
    expect_fail "$c PATH" "^rwkv-tui: $c: unexpected argument '$M': give the model with --model PATH\$" \
        "$T" $c "$M"
done
# after other options too, and a path that is not there yet
expect_fail "info --demo PATH" "^rwkv-tui: info: unexpected argument 'models/x.pth': give the model with --model PATH\$" \
    "$T" info --demo models/x.pth
# the full-screen client (no subcommand prefix)
expect_fail "client --demo PATH" "^rwkv-tui: unexpected argument '$M': give the model with --model PATH\$" \
    "$T" --demo "$M"
# a stray word is not called a model
expect_fail "a stray word" "^rwkv-tui: generate: unexpected argument 'world' \\(see 'rwkv-tui generate --help'\\)\$" \
    "$T" generate --demo --prompt hello world
# options keep their line
expect_fail "unknown option" "^rwkv-tui: info: unknown option '--frob' \\(see 'rwkv-tui info --help'\\)\$" \
    "$T" info --frob
expect_fail "chat: unknown option" "^rwkv-tui: chat: unknown option '--frob' \\(see 'rwkv-tui chat --help'\\)\$" \
    "$T" chat --demo --frob
# a state file given bare is pointed to --state
if have_fixture states/state-7v0-A.pth 1; then
    S=$FX/states/state-7v0-A.pth
    expect_fail "chat STATE" "^rwkv-tui: chat: unexpected argument '$S': give a state file with --state PATH\$" \
        "$T" chat --demo "$S"
fi
# and with the real model, the tester's case
if have_fixture models/tiny-7v0-fp32.pth 2; then
    P=$FX/models/tiny-7v0-fp32.pth
    expect_fail "info MODEL" "^rwkv-tui: info: unexpected argument '$P': give the model with --model PATH\$" \
        "$T" info "$P"
    "$T" info --model "$P" >/dev/null && ok || fail "info --model still works"
fi
finish
