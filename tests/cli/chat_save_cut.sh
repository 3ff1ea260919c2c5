#!/usr/bin/env bash
# tests/cli/chat_save_cut.sh -- /save after a reply cut by --max-tokens
# saves the state the chat goes on from: the chat keeps the pending "\n\n"
# (the next message is fed after it), so the file must hold it too
# (chat_state_next, one rule for /save and the client's C-w).  The next
# reply of the chat it was saved from and the first reply of a chat started
# with --state FILE are the same text when both draw the same seed and
# values: each reply's seed is the next draw of the chat's seed sequence, so
# the chat saved from is re-seeded right after /save (/set seed 5, a value
# other than its --seed) and the other starts with --seed 5.  Without that
# re-seed the chat saved from is further along its sequence and the replies
# differ (checked too: the README says to re-seed, it promises no more).
. "$(dirname "$0")/lib.sh"

# the second reply of the chat (text after its last "Assistant:") == the reply
# of the chat from the file
same_reply() {
    python3 - "$1" "$2" <<'PY'
import sys
a = open(sys.argv[1], "rb").read().split(b"Assistant:")
b = open(sys.argv[2], "rb").read().split(b"Assistant:")
sys.exit(0 if len(a) == 3 and len(b) == 2 and a[-1] == b[-1] and len(a[-1]) > 20 else 1)
PY
}

# every value set, so --state's defaults (top-p 0.2, ...) change nothing
V="--temperature 1 --top-p 0.9 --presence 0.2 --frequency 0.2"
n=0
for model in models/tiny-6v0-fp32.pth models/tiny-7v0-fp32.pth models/world-7v0-rand-bf16.pth; do
    have_fixture $model 4 || continue
    M="--model $FX/$model"
    case $model in *world*) M="$M --vocab $FX/rwkv_vocab_v20230424.txt" ;; esac
    F=$TMP/s$n.pth
    # the first reply is cut at 12 tokens (no "\n\n" in 12 tokens of these
    # models at this seed: checked below), then /save, then a message
    printf 'hello there\n/save %s\n/set seed 5\n/set max_tokens 80\nwhat next?\n' "$F" |
        "$RWKV_TUI" chat $M --seed 3 $V --max-tokens 12 >"$TMP/a$n" 2>"$TMP/ea$n"
    grep -q "state saved to $F" "$TMP/ea$n" && ok || fail "$model: /save: $(cat "$TMP/ea$n")"
    python3 - "$TMP/a$n" <<'PY' && ok || fail "$model: the first reply was not cut at max-tokens"
import sys
r = open(sys.argv[1], "rb").read().split(b"Assistant:")[1]
sys.exit(0 if r.count(b"\n\n") == 1 and r.endswith(b"\n\n") else 1)
PY
    printf 'what next?\n' |
        "$RWKV_TUI" chat $M --state "$F" --seed 5 $V --max-tokens 80 >"$TMP/b$n" 2>"$TMP/eb$n"
    same_reply "$TMP/a$n" "$TMP/b$n" && ok ||
        fail "$model: the chat from the saved state goes on otherwise: $(tail -c 200 "$TMP/a$n") /// $(cat "$TMP/b$n" "$TMP/eb$n")"
    # no re-seed: the chat saved from draws its second seed, the other its first
    printf 'hello there\n/save %s\n/set max_tokens 80\nwhat next?\n' "$TMP/u$n.pth" |
        "$RWKV_TUI" chat $M --seed 5 $V --max-tokens 12 >"$TMP/c$n" 2>/dev/null
    printf 'what next?\n' |
        "$RWKV_TUI" chat $M --state "$TMP/u$n.pth" --seed 5 $V --max-tokens 80 >"$TMP/d$n" 2>/dev/null
    ! same_reply "$TMP/c$n" "$TMP/d$n" && ok ||
        fail "$model: the same next reply without a re-seed: the seed is not per reply any more?"
    n=$((n + 1))
done

# a reply that ended at the stop string has nothing pending: the file is the
# state as it is (saved twice, the second after loading it: the same bytes)
if have_fixture models/tiny-7v0-fp32.pth 1; then
    M="--model $FX/models/tiny-7v0-fp32.pth"
    printf '/save %s\n' "$TMP/g.pth" | "$RWKV_TUI" chat $M --seed 1 >/dev/null 2>&1
    printf '/save %s\n' "$TMP/g2.pth" | "$RWKV_TUI" chat $M --state "$TMP/g.pth" --seed 1 >/dev/null 2>&1
    cmp -s "$TMP/g.pth" "$TMP/g2.pth" && ok || fail "a state saved with nothing pending changed on reload"
fi
finish
