#!/usr/bin/env bash
# tests/cli/out_over_input.sh -- an output file never replaces an input of
# the same command: `eval --out/--state-out` naming the model (with or
# without .pth, through another path or a symlink), the --state file or each
# other, and the line chat's `/save FILE` naming the model in use, are
# refused with one line, the file untouched (rwkv_same_file).  Before, the
# model was renamed over by 1 kB of logits (or a state file), and
# `--out F --state-out F` kept only the state, all with exit 0.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
case $FX in /*) ;; *) FX=$PWD/$FX ;; esac   # the checks below run in $TMP

if have_fixture models/tiny-7v0-fp32.pth 26 && have_fixture states/state-7v0-A.pth 26; then
    # fresh: each case starts from the model whole (a failure stays its own)
    fresh() { cp -f "$FX/models/tiny-7v0-fp32.pth" "$TMP/m.pth"; }
    fresh
    sum=$(cksum <"$TMP/m.pth")
    intact() { [ "$(cksum <"$TMP/m.pth")" = "$sum" ]; }
    cd "$TMP" || exit 1
    ln -s m.pth link.pth

    # eval: --out / --state-out over the model, however it is named
    for spec in "m --out m.pth" "m --out ./m.pth" "link.pth --out m.pth" \
                "m.pth --state-out m.pth --out o.bin"; do
        expect_fail "eval --model $spec" "^rwkv-tui: eval: --(state-)?out (\\./)?m\\.pth is the model \\(--model .*\\): not written over$" \
            "$T" eval --tokens 1,2 --model $spec
        intact && ok || fail "eval --model $spec: the model was written over"
        fresh
    done
    [ ! -e o.bin ] && ok || fail "a refused eval wrote its other output"
    # a symlink to it as --out: refused (a link is written through, fileio.h)
    "$T" eval --model m --tokens 1 --out link.pth 2>err; rc=$?
    [ $rc != 0 ] && grep -qx 'rwkv-tui: eval: --out link.pth is the model (--model m): not written over' err &&
        ok || fail "--out link: exit $rc, $(cat err)"
    intact && [ -L link.pth ] && ok || fail "--out link: the model was written over"
    # --out / --state-out over the --state file
    cp "$FX/states/state-7v0-A.pth" st.pth
    ssum=$(cksum <st.pth)
    for o in "--out st.pth" "--out o.bin --state-out st.pth"; do
        expect_fail "eval --state st.pth $o" "^rwkv-tui: eval: --(state-)?out st\\.pth is the state file \\(--state st\\.pth\\): not written over$" \
            "$T" eval --model m --state st.pth --tokens 1 $o
        [ "$(cksum <st.pth)" = "$ssum" ] && ok || fail "eval $o: the state file was written over"
    done

    # a model that is not there is the loader's error, not this one
    expect_fail "eval --model gone --out gone.pth" "^rwkv-tui: gone\\.pth: cannot open" \
        "$T" eval --model gone --tokens 1 --out gone.pth

    # the two outputs are one file: refused, nothing written
    expect_fail "eval --out F --state-out F" "^rwkv-tui: eval: --state-out .*same file as --out" \
        "$T" eval --model m.pth --tokens 1,2 --out same.bin --state-out ./same.bin
    [ ! -e same.bin ] && ok || fail "--out F --state-out F wrote F"
    : >old.bin
    expect_fail "eval --out F --state-out F (F exists)" "same file as --out" \
        "$T" eval --model m.pth --tokens 1,2 --out old.bin --state-out old.bin
    [ ! -s old.bin ] && ok || fail "--out F --state-out F wrote over F"

    # ... and '-' twice is stdout twice, as documented: logits then state
    n=$("$T" eval --model m.pth --tokens 1 --out - --state-out - | wc -c)
    [ "$n" -gt 1024 ] && ok || fail "--out - --state-out -: $n bytes"

    # distinct files still work
    "$T" eval --model m.pth --tokens 1,2 --out a.bin --state-out b.bin 2>err && [ -s a.bin ] &&
        [ -s b.bin ] && ok || fail "eval --out a --state-out b: $(cat err)"

    # /save over the model in use: refused, the chat goes on
    printf 'hi\n/save m.pth\n/save ./m.pth\n/save p.pth\n' |
        "$T" chat --model m --seed 1 --max-tokens 3 >out 2>err
    rc=$?
    [ $rc = 0 ] && ok || fail "chat: exit $rc: $(cat err)"
    [ "$(grep -c '^rwkv-tui: /save: .* is the model in use: not written over' err)" = 2 ] && ok ||
        fail "/save over the model: $(cat err)"
    intact && ok || fail "/save wrote over the model in use"
    [ -s p.pth ] && grep -q 'state saved to p.pth' err && ok || fail "/save p.pth: $(cat err)"
fi
finish
