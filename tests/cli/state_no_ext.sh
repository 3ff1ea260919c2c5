#!/usr/bin/env bash
# tests/cli/state_no_ext.sh -- a state file is found by its name without
# ".pth", as the model is: the chat demo loads STATE_NAME + ".pth", so a
# ChatRWKV user gives --state .../rwkv-x060-...-ctx2048 (it said "cannot
# open: No such file or directory").  `--state NAME` and `/state NAME` take
# NAME.pth when NAME is not there; a file named NAME wins; a name found
# neither way is said as typed.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
export XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/config HOME=$TMP/home
mkdir -p "$TMP/home"
M=$TMP/m.safetensors
python3 "$(dirname "$0")/mkst.py" "$M" || fail "mkst.py"
# a state file of this model: the chat's /save
printf 'hello\n/save %s\n' "$TMP/persona.pth" |
    "$T" chat --model "$M" --seed 1 --max-tokens 4 >/dev/null 2>&1
[ -s "$TMP/persona.pth" ] && ok || fail "/save made no state file"

# reply MSG ARGS...: the chat's reply to MSG (stdout), stderr in $TMP/err
reply() {
    local msg=$1; shift
    printf '%s\n' "$msg" | timeout 60 "$T" chat --model "$M" --seed 7 --max-tokens 6 "$@" 2>"$TMP/err"
}
want=$(reply "hi" --state "$TMP/persona.pth")
[ -n "$want" ] && ok || fail "--state FILE.pth: no reply ($(cat "$TMP/err"))"
got=$(reply "hi" --state "$TMP/persona")
[ "$got" = "$want" ] && ok || fail "--state NAME: '$got' ($(cat "$TMP/err")), not '$want'"
# the full-screen client's option parser is the same (cli_opts_parse):
# generate and eval take it too
"$T" eval --model "$M" --state "$TMP/persona" --tokens 1,2 --out "$TMP/a.f32" 2>"$TMP/err" &&
    "$T" eval --model "$M" --state "$TMP/persona.pth" --tokens 1,2 --out "$TMP/b.f32" &&
    cmp -s "$TMP/a.f32" "$TMP/b.f32" && ok || fail "eval --state NAME: $(cat "$TMP/err")"

# /state NAME starts over from NAME.pth, said with the file's name
printf '/state %s\nhi\n' "$TMP/persona" |
    timeout 60 "$T" chat --model "$M" --seed 7 --max-tokens 6 >"$TMP/out" 2>"$TMP/err"
grep -qx "(started over from $TMP/persona.pth)" "$TMP/err" && ok ||
    fail "/state NAME: $(cat "$TMP/err")"
[ "$(cat "$TMP/out")" = "$want" ] && ok || fail "/state NAME: reply '$(cat "$TMP/out")', not '$want'"

# a file named NAME wins over NAME.pth (here: not a state file, said so)
echo "not a checkpoint" >"$TMP/persona"
reply "hi" --state "$TMP/persona" >/dev/null
grep -q "^rwkv-tui: $TMP/persona: " "$TMP/err" && ok || fail "NAME and NAME.pth: $(cat "$TMP/err")"
rm -f "$TMP/persona"
# neither there: the name as typed
expect_fail "--state missing" "^rwkv-tui: $TMP/nothing: cannot open: No such file or directory$" \
    sh -c 'printf "hi\n" | "$0" chat --model "$1" --state "$2" --max-tokens 2' "$T" "$M" "$TMP/nothing"
finish
