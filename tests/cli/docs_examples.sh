#!/usr/bin/env bash
# tests/cli/docs_examples.sh -- the command examples of README.md run as
# written: every line of its ```sh blocks that runs a command (not make, not
# the full-screen client, which needs a terminal), in a folder holding the
# World vocabulary, with $M a World fixture model named without its .pth (as
# the README's M=...), `rwkv-tui` and `./rwkv-tui` the binary under test.
# What the examples say about their output is checked too: eval --out holds
# one row of n_vocab float32 logits, --all --rnn one per token.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)

# the lines, their comments ("  # ...") cut
lines=$(awk '/^```sh/ { s = 1; next } /^```/ { s = 0 } s' "$SRC/README.md" |
        sed -E 's/[[:blank:]]{2,}#.*$//; s/[[:blank:]]+$//' | grep -vE '^(make |M=|$)')
# (the full-screen client, `rwkv-tui --OPTION ...`, is left out)
lines=$(printf '%s\n' "$lines" | grep -vE '^(\./)?rwkv-tui -')
nrun=$(printf '%s\n' "$lines" | grep -c .)
[ "$nrun" -ge 8 ] && ok || fail "cannot read README's examples"
if have_fixture models/world-7v0-rand-bf16.pth $((nrun + 6)) &&
   have_fixture rwkv_vocab_v20230424.txt $((nrun + 6)); then
    W=$TMP/work
    mkdir -p "$W/bin" "$TMP/home" "$TMP/config"
    ln -s "$(realpath "$FX/models/world-7v0-rand-bf16.pth")" "$W/model.pth"
    ln -s "$(realpath "$FX/rwkv_vocab_v20230424.txt")" "$W/rwkv_vocab_v20230424.txt"
    ln -s "$RWKV_TUI" "$W/rwkv-tui"
    ln -s "$RWKV_TUI" "$W/bin/rwkv-tui"
    n=0
    while IFS= read -r line; do
        n=$((n + 1))
        (cd "$W" && HOME=$TMP/home XDG_CONFIG_HOME=$TMP/config PATH="$W/bin:$PATH" M=model \
            timeout 120 bash -c "$line" </dev/null >"$TMP/out.$n" 2>"$TMP/err.$n") && ok ||
            fail "README example '$line': exit $?: $(head -3 "$TMP/err.$n")"
    done <<<"$lines"
    [ $n = "$nrun" ] && ok || fail "$n examples run of $nrun"
    # what they wrote: the logits of the last call (65536 float32), of each of
    # the 3 tokens with --all --rnn, and a state
    [ "$(stat -c %s "$W/logits.bin" 2>/dev/null)" = $((65536 * 4)) ] && ok ||
        fail "logits.bin: $(stat -c %s "$W/logits.bin" 2>&1) bytes, not one row of 65536 floats"
    [ "$(stat -c %s "$W/per-token.bin" 2>/dev/null)" = $((3 * 65536 * 4)) ] && ok ||
        fail "per-token.bin: $(stat -c %s "$W/per-token.bin" 2>&1) bytes, not 3 rows"
    [ -s "$W/state.bin" ] && ok || fail "state.bin not written"
    # the saved chat the README resumes: 2 exchanges, then a third
    out=$(cd "$W" && "$RWKV_TUI" sessions list 2>&1)
    case $out in *arithmetic*) ok ;; *) fail "sessions list after the examples: $out" ;; esac
    out=$(cd "$W" && "$RWKV_TUI" sessions show 1 2>&1)
    [ "$(printf '%s\n' "$out" | grep -c 'and 3+3?')" = 1 ] && ok || fail "the resumed chat: $out"
fi
finish
