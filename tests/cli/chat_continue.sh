#!/usr/bin/env bash
# tests/cli/chat_continue.sh -- `/continue` in the line chat: a reply cut by
# --max-tokens goes on as if never cut (the new block printed equals one
# uncut run's, same --seed), in one process and after --resume (the same
# reply row extended, not a new turn); refusals say why and change nothing.
# Real database files in a temp dir, the real binary, the tiny fixture model
# (or the demo model without it).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
TINY="--model $FX/models/tiny-7v0-fp32.pth"
[ -e "$FX/models/tiny-7v0-fp32.pth" ] || [ -n "${CI:-}" ] || TINY=--demo
HAVE_SQLITE=0
command -v sqlite3 >/dev/null 2>&1 && HAVE_SQLITE=1
msg='Tell me a story.'

# the file A ends with the bytes of the file B
ends_with() { [ "$(tail -c "$(wc -c <"$2")" "$1" | od -An -tx1)" = "$(od -An -tx1 <"$2")" ]; }

# --- help -------------------------------------------------------------------------
"$T" chat --help | grep -q '^ */continue ' && ok || fail "chat --help lacks /continue"
printf '/help\n' | "$T" chat $TINY 2>/dev/null | grep -q '^ */continue ' && ok || fail "/help lacks /continue"

# --- one process: cut at 5, /continue 5 more == uncut 10 (several seeds) ------------
for seed in 1 2 3 5 8; do
    printf '%s\n' "$msg" | "$T" chat $TINY --seed $seed --max-tokens 10 >"$TMP/u$seed" 2>/dev/null
    printf '%s\n/continue\n' "$msg" | "$T" chat $TINY --seed $seed --max-tokens 5 \
        >"$TMP/c$seed" 2>"$TMP/c$seed.err"
    [ "$(grep -c '^Assistant:' "$TMP/c$seed")" = 2 ] && ok || fail "seed $seed: $(cat "$TMP/c$seed" "$TMP/c$seed.err")"
    ends_with "$TMP/c$seed" "$TMP/u$seed" && ok ||
        fail "seed $seed: continued reply differs from the uncut one: $(od -c "$TMP/c$seed" | head -5) vs $(od -c "$TMP/u$seed" | head -3)"
done

# --- saved, then --resume and /continue: the same reply row, the same text -------------
D=$TMP/c.db
printf '%s\n' "$msg" | "$T" chat $TINY --db "$D" --new cut --seed 2 --max-tokens 5 >"$TMP/s1" 2>/dev/null
printf '/continue\n' | "$T" chat --db "$D" --resume --max-tokens 5 >"$TMP/s2" 2>"$TMP/s2.err"
rc=$?
[ $rc = 0 ] && ok || fail "--resume /continue exit $rc: $(cat "$TMP/s2.err")"
cmp -s "$TMP/s2" "$TMP/u2" && ok || fail "resumed continue differs: $(od -c "$TMP/s2" | head -3) vs $(od -c "$TMP/u2" | head -3)"
if [ $HAVE_SQLITE = 1 ]; then
    [ "$(sqlite3 "$D" 'select count(*) from turns where role=2')" = 1 ] && ok ||
        fail "reply rows: $(sqlite3 "$D" 'select id, role, interrupted, text from turns')"
    [ "$(sqlite3 "$D" 'select interrupted from turns where role=2')" = 0 ] && ok || fail "continued reply marked interrupted"
    [ "$(sqlite3 "$D" 'select count(*) from snapshots s join turns t on t.id=s.turn_id where t.role=2')" = 1 ] &&
        ok || fail "continued reply has no state saved"
    [ "$(sqlite3 "$D" "select sampling like '%max_tokens=10%' from turns where role=2")" = 1 ] && ok ||
        fail "max_tokens not the total: $(sqlite3 "$D" 'select sampling from turns where role=2')"
fi
# the state saved with it is the state after the longer reply: one more message
# goes on exactly as in one process
printf '%s\nand then?\n' "$msg" | "$T" chat $TINY --seed 2 --max-tokens 10 >"$TMP/u2b" 2>/dev/null
printf 'and then?\n' | "$T" chat --db "$D" --resume --max-tokens 10 --seed 2 >"$TMP/s3" 2>"$TMP/s3.err"
ends_with "$TMP/u2b" "$TMP/s3" && ok || fail "the message after a continued reply differs: $(cat "$TMP/s3.err")"

# --- refusals: one line, nothing changed -------------------------------------------
out=$(printf '/continue\n' | "$T" chat $TINY 2>&1 >/dev/null)
case $out in *"/continue: no reply to continue yet"*) ok ;; *) fail "no reply: $out" ;; esac
# a reply that ended at its stop string: the stop string is a letter of the uncut reply
ch=$(sed -n 's/^Assistant://p' "$TMP/u1" | grep -o '[a-z]' | head -1)
if [ -n "$ch" ]; then
    printf '%s\n/continue\n' "$msg" | "$T" chat $TINY --seed 1 --max-tokens 10 --stop "$ch" >"$TMP/r1" 2>"$TMP/r1.err"
    grep -q '/continue: the reply is complete (it ended at its stop string)' "$TMP/r1.err" && ok ||
        fail "stop string: $(cat "$TMP/r1.err")"
    [ "$(grep -c '^Assistant:' "$TMP/r1")" = 1 ] && ok || fail "refused continue printed a reply"
else
    skip 2 "no letter in the reply"
fi
# a reply with turns after it (forked there): refused, saying what to do instead
D2=$TMP/f.db
printf '%s\nmore\n' "$msg" | "$T" chat $TINY --db "$D2" --new f --seed 3 --max-tokens 5 >/dev/null 2>&1
reply=$("$T" sessions --db "$D2" show 1 | sed -n 's/^#\([0-9]*\) assistant.*/\1/p' | head -1)
printf '/fork %s\n/continue\n' "$reply" | "$T" chat --db "$D2" --resume >/dev/null 2>"$TMP/f.err"
grep -q "/continue: this reply (turn $reply) has turns after it in another branch" "$TMP/f.err" && ok ||
    fail "reply with turns after it: $(cat "$TMP/f.err")"
if [ $HAVE_SQLITE = 1 ]; then
    [ "$(sqlite3 "$D2" "select count(*) from turns")" = 5 ] && ok || fail "refused continue changed the tree"
fi
finish
