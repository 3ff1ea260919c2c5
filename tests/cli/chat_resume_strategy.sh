#!/usr/bin/env bash
# tests/cli/chat_resume_strategy.sh -- `chat --resume` / `--session` takes
# the session's strategy with its model, as the full-screen client does
# (one rule: sess_info_launch).  Before, the line chat resumed a `cpu bf16`
# session under the default `cpu fp32`: every saved state was refused as
# made with another precision and the whole conversation replayed from the
# start, then continued under another precision.  A strategy given wins; a
# strategy or model taken from the session that cannot load says so (a
# strategy that cannot load here is named, not the model).  States made
# under int8 or 4-bit weights are used only under the same plan.
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
        # (session 2: the one the fp32 run above went on in, the latest;
        # chat_resume_model.sh)
        case $err in *"(the strategy session 2 was saved with: --strategy S resumes it with another)") ok ;;
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
    # a session with a model that loads and a strategy that cannot load
    # here: the hint names the strategy (it named the model, whose file is
    # fine)
    M=$FX/models/tiny-7v0-fp32.pth
    printf 'hello\n' | "$T" chat --model "$M" --db "$TMP/c.db" --new c --max-tokens 3 \
        >/dev/null 2>&1 && ok || fail "chat with the model"
    for bad in 'cuda:7 fp16' 'total garbage'; do
        sqlite3 "$TMP/c.db" "update sessions set strategy='$bad'"
        err=$(printf 'next\n' | "$T" chat --db "$TMP/c.db" --resume --max-tokens 3 2>&1 >/dev/null)
        if [ $? = 0 ]; then
            skip 1 "(1) '$bad' loads here"
        else
            case $err in
                *"(the strategy session 1 was saved with: --strategy S resumes it with another)") ok ;;
                *) fail "session strategy '$bad': $err" ;;
            esac
        fi
    done
    # int8 and 4-bit weights are other weights: the fp32 states are not
    # used (they were, and the chat went on from them), the tokens are
    # replayed under the new plan, and that is what a session without
    # states gives under it
    sqlite3 "$TMP/c.db" "update sessions set strategy='cpu fp32'"
    "$T" sessions --db "$TMP/c.db" export 1 --format json --out "$TMP/c.json" && ok || fail "export"
    for q in "cpu fp32i8" "cpu fp32i4" "cpu fp32i4 *3 -> cpu fp32"; do
        rm -f "$TMP/q.db"*
        "$T" sessions --db "$TMP/q.db" import "$TMP/c.json" >/dev/null && ok || fail "import"
        cp "$TMP/c.db" "$TMP/c2.db"
        a=$(printf 'next\n' | "$T" chat --db "$TMP/c2.db" --session 1 --strategy "$q" \
            --max-tokens 8 --temperature 0 2>"$TMP/ea")
        b=$(printf 'next\n' | "$T" chat --db "$TMP/q.db" --session 1 --strategy "$q" \
            --max-tokens 8 --temperature 0 2>/dev/null)
        grep -Eq "not used: made with fp32, the strategy computes in fp32 with (int8|4-bit) weights" \
            "$TMP/ea" && ok || fail "$q: no note of the states not used: $(cat "$TMP/ea")"
        [ -n "$a" ] && [ "$a" = "$b" ] && ok || fail "$q: resumed '$a', replayed '$b'"
    done
    # two 4-bit plans with other layers: the states of one are not the other's
    printf 'hello\n' | "$T" chat --model "$M" --strategy "cpu fp32i4 *3 -> cpu fp32" \
        --db "$TMP/p.db" --new p --max-tokens 3 >/dev/null 2>&1 && ok || fail "chat 4-bit *3"
    cp "$TMP/p.db" "$TMP/p2.db"
    err=$(printf 'next\n' | "$T" chat --db "$TMP/p.db" --resume --max-tokens 3 2>&1 >/dev/null)
    case $err in *"not used"*|*replayed*) fail "the same 4-bit plan replayed: $err" ;; *) ok ;; esac
    err=$(printf 'next\n' | "$T" chat --db "$TMP/p2.db" --resume --strategy "cpu fp32i4 *5 -> cpu fp32" \
        --max-tokens 3 2>&1 >/dev/null)
    case $err in *"made with fp32 with 4-bit weights on other layers than the strategy's"*) ok ;;
        *) fail "4-bit on other layers: $err" ;; esac
fi
finish
