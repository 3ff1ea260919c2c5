#!/usr/bin/env bash
# tests/cli/chat_resume_strategy.sh -- `chat --resume` / `--session` takes
# the session's strategy with its model, as the full-screen client does
# (one rule: sess_info_launch).  Before, the line chat resumed a `cpu bf16`
# session under the default `cpu fp32`: every saved state was refused as
# made with another precision and the whole conversation replayed from the
# start, then continued under another precision.  A strategy given wins; a
# strategy or model taken from the session that cannot load says so.
# Real files in a temp dir, the real binary.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/s.db

printf 'hello\nagain\n' | "$T" chat --demo --strategy "cpu bf16" --db "$D" --new bf --seed 1 \
    --max-tokens 5 >/dev/null 2>"$TMP/err" && ok || fail "chat: $(cat "$TMP/err")"
out=$(printf 'next\n' | "$T" chat --db "$D" --resume --max-tokens 3 2>&1) && ok || fail "resume: $out"
case $out in *"not used"*|*replayed*) fail "resume replayed under another strategy: $out" ;; *) ok ;; esac
case $out in *"resumed session 1: bf (4 turns)"*) ok ;; *) fail "resume line: $out" ;; esac
out=$(printf 'next\n' | "$T" chat --db "$D" --session 1 --max-tokens 3 2>&1) && ok \
    || fail "--session: $out"
case $out in *"not used"*|*replayed*) fail "--session replayed under another strategy: $out" ;; *) ok ;; esac
# a strategy given wins: the states of bf16 are not used, and it says so
out=$(printf 'next\n' | "$T" chat --db "$D" --resume --strategy "cpu fp32" --max-tokens 3 2>&1) \
    && ok || fail "resume --strategy: $out"
case $out in *"made with bf16, the strategy computes in fp32"*) ok ;; *) fail "given strategy: $out" ;; esac
# the session's strategy, unusable here: the line says where it came from
if command -v sqlite3 >/dev/null 2>&1; then
    sqlite3 "$D" "update sessions set strategy='cuda:7 fp16'"
    err=$(printf 'next\n' | "$T" chat --db "$D" --resume --max-tokens 3 2>&1 >/dev/null)
    if [ $? = 0 ]; then
        skip 1 "(1) a cuda:7 strategy loads here"
    else
        case $err in *"(the strategy session 1 was saved with: --strategy S resumes it with another)") ok ;;
            *) fail "unusable session strategy: $err" ;; esac
    fi
else
    skip 1 "sqlite3 not found"
fi
# the session's model, gone: the line says it was the session's
if have_fixture models/tiny-7v0-fp32.pth 2; then
    cp "$FX/models/tiny-7v0-fp32.pth" "$TMP/m.pth"
    printf 'hello\n' | "$T" chat --model "$TMP/m.pth" --db "$TMP/m.db" --new m --max-tokens 3 \
        >/dev/null 2>&1 && ok || fail "chat with a copied model"
    rm "$TMP/m.pth"
    expect_fail "the session's model gone" \
        "m.pth: .*No such file.* \(the model session 1 was saved with: --model PATH resumes it with a copy of it elsewhere\)" \
        "$T" chat --db "$TMP/m.db" --resume
fi
finish
