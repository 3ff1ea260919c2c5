#!/usr/bin/env bash
# tests/cli/chat_resume_model.sh -- `chat --session N --model OTHER` (or
# --strategy of another precision, or --resume with them): the session's
# row names one model and one strategy for all its turns, and a turn records
# neither, so the new turns must not be written there.  Before, they were:
# `sessions show N` went on naming the old model for turns another one
# computed, and a later plain `--session N` loaded the old model for them.
# Now the conversation goes on as a new session of the model and strategy
# in use, forked from the point resumed, said in one line; the old session
# is as it was.  A copy of the session's own model elsewhere is the same
# model (content, not path): it goes on in place, as a plain resume does.
# A model of another shape is refused, as before.  Real files in a temp
# dir, models written by the binary itself (`bench --save`).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
D=$TMP/s.db
A=$TMP/a.pth
B=$TMP/b.pth

"$T" bench --save "$A" --shape demo --seed 1 >/dev/null 2>&1 && ok || fail "bench --save a"
"$T" bench --save "$B" --shape demo --seed 2 >/dev/null 2>&1 && ok || fail "bench --save b"
cp "$A" "$TMP/a-copy.pth"

# chat LINES ARGS...: a line chat sending LINES; its stderr in $TMP/err
chat() {
    local lines=$1
    shift
    printf '%b' "$lines" | "$T" chat --db "$D" --max-tokens 4 --seed 1 "$@" >/dev/null 2>"$TMP/err"
}
# turns ID: the messages of session ID in the store, in order
turns() { "$T" sessions --db "$D" export "$1" --format md 2>/dev/null; }
# says PATTERN: the chat's stderr has exactly one line matching it
says() { [ "$(grep -cE -- "$1" "$TMP/err")" = 1 ]; }
model_of() { "$T" sessions --db "$D" show "$1" 2>/dev/null | grep -E '^(model|strategy) '; }

chat 'hello\n' --model "$A" --new one && ok || fail "chat with a: $(cat "$TMP/err")"
before=$(turns 1)
show1=$(model_of 1)

# another model: a new session, one line, the old session untouched
chat 'with b\n' --model "$B" --session 1 && ok || fail "resume with b: $(cat "$TMP/err")"
says "^session 1 was made with $A; with $B this conversation goes on as session 2$" && ok ||
    fail "another model: the note: $(cat "$TMP/err")"
grep -q '^new session' "$TMP/err" && fail "another model: two lines: $(cat "$TMP/err")" || ok
[ "$(turns 1)" = "$before" ] && ok || fail "another model: session 1 changed: $(turns 1)"
[ "$(model_of 1)" = "$show1" ] && ok || fail "session 1 names another model now: $(model_of 1)"
case $(model_of 2) in *"model $B "*"strategy cpu fp32"*) ok ;; *) fail "session 2: $(model_of 2)" ;; esac
case $(turns 2) in *hello*"with b"*) ok ;; *) fail "session 2 lacks the conversation: $(turns 2)" ;; esac

# a plain resume of each: its own model, in place, nothing said
chat 'plain a\n' --session 1 && ok || fail "plain resume: $(cat "$TMP/err")"
grep -q 'goes on as\|^new session' "$TMP/err" && fail "plain resume forked: $(cat "$TMP/err")" || ok
case $(turns 1) in *hello*"plain a"*) ok ;; *) fail "plain resume: not in session 1: $(turns 1)" ;; esac
chat 'plain b\n' --session 2 && ok || fail "plain resume of 2: $(cat "$TMP/err")"
grep -q 'goes on as\|^new session' "$TMP/err" && fail "resume of 2 forked: $(cat "$TMP/err")" || ok
case $(turns 2) in *"with b"*"plain b"*) ok ;; *) fail "resume of 2: $(turns 2)" ;; esac

# a copy of the session's model elsewhere is that model: in place
chat 'copy\n' --model "$TMP/a-copy.pth" --session 1 && ok || fail "copy: $(cat "$TMP/err")"
grep -q 'goes on as\|^new session' "$TMP/err" && fail "a copy forked: $(cat "$TMP/err")" || ok
case $(turns 1) in *"plain a"*copy*) ok ;; *) fail "copy: not in session 1: $(turns 1)" ;; esac
[ "$(model_of 1)" = "$show1" ] && ok || fail "copy: session 1 names another model: $(model_of 1)"

# another precision of the same model: a new session under that strategy
chat 'in bf16\n' --session 1 --strategy "cpu bf16" && ok || fail "bf16: $(cat "$TMP/err")"
says "^session 1 was made with strategy cpu fp32; with cpu bf16 this conversation goes on as session 3$" &&
    ok || fail "another precision: the note: $(cat "$TMP/err")"
case $(model_of 3) in *"model $A "*"strategy cpu bf16"*) ok ;; *) fail "session 3: $(model_of 3)" ;; esac
case $(turns 1) in *"in bf16"*) fail "bf16 turn in session 1: $(turns 1)" ;; *) ok ;; esac
case $(turns 3) in *copy*"in bf16"*) ok ;; *) fail "session 3: $(turns 3)" ;; esac

# --resume (the latest: 3) with another model
chat 'resumed\n' --resume --model "$B" && ok || fail "--resume --model: $(cat "$TMP/err")"
says "^session 3 was made with $A; with $B this conversation goes on as session 4$" && ok ||
    fail "--resume: the note: $(cat "$TMP/err")"
case $(turns 3) in *resumed*) fail "--resume: written into session 3" ;; *) ok ;; esac

# a regeneration after the switch: the fork holds the new reply, the old
# session its own
r1=$(turns 1)
chat '/regen\n' --model "$B" --session 1 && ok || fail "regen: $(cat "$TMP/err")"
says "^session 1 was made with $A; with $B this conversation goes on as session 5$" && ok ||
    fail "regen: the note: $(cat "$TMP/err")"
[ "$(turns 1)" = "$r1" ] && ok || fail "regen: session 1 changed"
case $(model_of 5) in *"model $B "*) ok ;; *) fail "regen: session 5: $(model_of 5)" ;; esac

# a model of another shape is refused, as before
"$T" bench --save "$TMP/v6.pth" --shape demo-v6 --seed 1 >/dev/null 2>&1 && ok || fail "bench v6"
expect_fail "another shape" "session 1 was made with .*not this model" \
    "$T" chat --db "$D" --session 1 --model "$TMP/v6.pth" --max-tokens 2
finish
