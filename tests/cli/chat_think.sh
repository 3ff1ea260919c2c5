#!/usr/bin/env bash
# tests/cli/chat_think.sh -- the think mode of G1 models in the line chat:
# `--think on` writes "User: MSG\n\nAssistant: <think" (the prompt tokens
# saved in the database are those of that text, World tokenizer) and the
# saved reply starts with " <think"; /think shows the mode and changes it in
# place (the same session, the next prompt "... think a bit\n\nAssistant:
# <think"); /framing and `sessions show` name it; a resumed session keeps
# it and a --think given with --resume wins; the export carries it; a bad
# mode is one line and exit 2.  The random-weight World model: the plumbing
# is tested, not the reasoning.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
M=$FX/models/world-7v0-rand-bf16.pth
V=$FX/rwkv_vocab_v20230424.txt

# the token ids of the ROLE turn number N (1-based) of export FILE, space-separated
turn_ids() {
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ts = [t for t in d["turns"] if t["role"] == sys.argv[2]]
print(" ".join(str(i) for i in ts[int(sys.argv[3]) - 1]["tokens"]))' "$@"
}
# the text of the ROLE turn number N of export FILE
turn_text() {
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ts = [t for t in d["turns"] if t["role"] == sys.argv[2]]
sys.stdout.write(ts[int(sys.argv[3]) - 1]["text"])' "$@"
}
# the ids of TEXT (printf escapes) with the World vocabulary
ids_of() {
    printf "$1" >"$TMP/tok.txt"
    "$T" tokenize --vocab "$V" --file "$TMP/tok.txt"
}

# --- help and bad values ------------------------------------------------------------
out=$("$T" chat --help)
for w in '--think MODE' '/think [MODE]'; do
    case $out in *"$w"*) ok ;; *) fail "chat --help lacks '$w'" ;; esac
done
expect_fail "bad --think" "^rwkv-tui: option --think: 'deep' is not off, on, short, long or skip" \
    "$T" chat --demo --think deep

if ! have_fixture models/world-7v0-rand-bf16.pth 18 || ! command -v python3 >/dev/null 2>&1; then
    finish
    exit
fi

# --- --think on: the prompt, the reply, /think, /think short in place ----------------
D=$TMP/t.db
printf 'hi\n/think\n/think short\nmore\n/framing\n/think maybe\n' |
    "$T" chat --model "$M" --vocab "$V" --db "$D" --think on --seed 1 --max-tokens 4 \
    >"$TMP/o1" 2>"$TMP/e1" && ok || fail "think chat: $(cat "$TMP/e1")"
grep -q '^Assistant: <think' "$TMP/o1" && ok || fail "reply starts with the head: $(cat "$TMP/o1")"
grep -q '^think     on$' "$TMP/o1" && ok || fail "/think: $(cat "$TMP/o1")"
grep -q '^think     short$' "$TMP/o1" && ok || fail "/framing think: $(cat "$TMP/o1")"
grep -q "^rwkv-tui: /think: 'maybe' is not off, on, short, long or skip" "$TMP/e1" && ok \
    || fail "/think bad: $(cat "$TMP/e1")"
[ "$("$T" sessions --db "$D" list --json | grep -c '"id"')" = 1 ] && ok \
    || fail "/think made another session: $("$T" sessions --db "$D" list)"
"$T" sessions --db "$D" export 1 --format json >"$TMP/x1.json" && ok || fail "export"
[ "$(turn_ids "$TMP/x1.json" user 1)" = "$(ids_of 'User: hi\n\nAssistant: <think')" ] && ok \
    || fail "prompt 1: $(turn_ids "$TMP/x1.json" user 1)"
# the first reply ended at max-tokens: the separator first, as ever
[ "$(turn_ids "$TMP/x1.json" user 2)" = \
  "$(ids_of '\n\nUser: more think a bit\n\nAssistant: <think')" ] && ok \
    || fail "prompt 2: $(turn_ids "$TMP/x1.json" user 2)"
case $(turn_text "$TMP/x1.json" assistant 1) in " <think"?*) ok ;;
    *) fail "saved reply: $(turn_text "$TMP/x1.json" assistant 1)" ;; esac
[ "$(turn_text "$TMP/x1.json" user 2)" = more ] && ok \
    || fail "the message is saved as typed: $(turn_text "$TMP/x1.json" user 2)"
grep -q '"think": "short"}' "$TMP/x1.json" && ok || fail "framing in the export: $(grep framing "$TMP/x1.json")"
"$T" sessions --db "$D" show 1 | grep -q '^framing: .*; think short;' && ok \
    || fail "sessions show: $("$T" sessions --db "$D" show 1 | grep framing)"

# --- resume: the session's mode; one given with --resume wins --------------------------
printf '/think\n' | "$T" chat --db "$D" --resume --vocab "$V" >"$TMP/o2" 2>"$TMP/e2" && ok \
    || fail "resume: $(cat "$TMP/e2")"
grep -q '^think     short$' "$TMP/o2" && ok || fail "resumed mode: $(cat "$TMP/o2")"
printf 'again\n' | "$T" chat --db "$D" --resume --vocab "$V" --think skip --seed 2 --max-tokens 2 \
    >"$TMP/o3" 2>"$TMP/e3" && ok || fail "resume --think skip: $(cat "$TMP/e3")"
"$T" sessions --db "$D" export 1 --format json >"$TMP/x3.json"
[ "$(turn_ids "$TMP/x3.json" user 3)" = \
  "$(ids_of '\n\nUser: again\n\nAssistant: <think>\n</think')" ] && ok \
    || fail "prompt 3 (skip): $(turn_ids "$TMP/x3.json" user 3)"
case $(turn_text "$TMP/x3.json" assistant 3) in " <think>"$'\n'"</think"*) ok ;;
    *) fail "skip reply: $(turn_text "$TMP/x3.json" assistant 3)" ;; esac
finish
