#!/usr/bin/env bash
# tests/cli/chat_resume_vocab.sh -- resuming a World-vocabulary session
# whose vocabulary file was moved since: one line that says the path is the
# session's and that --vocab gives another (as a moved model's line does);
# before, only "PATH: cannot open vocabulary: No such file or directory",
# a path the user never typed.  --vocab with the file's new place resumes.
# Needs the World model and vocabulary of the reference fixtures.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
export XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/config HOME=$TMP/home
mkdir -p "$TMP/home"
unset RWKV_VOCAB

if have_fixture models/world-7v0-rand-bf16.pth 4 && have_fixture rwkv_vocab_v20230424.txt 4; then
    M=$FX/models/world-7v0-rand-bf16.pth
    cp "$FX/rwkv_vocab_v20230424.txt" "$TMP/v.txt"
    echo hi | timeout 60 "$T" chat --model "$M" --vocab "$TMP/v.txt" --new w --seed 1 --max-tokens 3 \
        >/dev/null 2>"$TMP/err" && ok || fail "first chat: $(cat "$TMP/err")"
    mv "$TMP/v.txt" "$TMP/v2.txt"
    expect_fail "vocabulary moved" \
        "^rwkv-tui: $TMP/v.txt: cannot open vocabulary: No such file or directory \(the vocabulary session 1 was saved with: --vocab PATH resumes it with a copy of it elsewhere\)$" \
        sh -c 'echo again | timeout 60 "$0" chat --resume --seed 1 --max-tokens 3' "$T"
    echo again | timeout 60 "$T" chat --resume --vocab "$TMP/v2.txt" --seed 1 --max-tokens 3 \
        >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ $rc = 0 ] && grep -q '^Assistant:' "$TMP/out" && ok || fail "--vocab NEW: exit $rc: $(cat "$TMP/err")"
    # a --vocab given that is missing is the user's own path: no hint
    expect_fail "--vocab missing" "^rwkv-tui: $TMP/nope.txt: cannot open vocabulary: No such file or directory$" \
        sh -c 'echo again | timeout 60 "$0" chat --resume --vocab "$1" --max-tokens 3' "$T" "$TMP/nope.txt"
fi
finish
