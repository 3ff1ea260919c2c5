#!/usr/bin/env bash
# tests/cli/state_save.sh -- the line chat's /save FILE: the current state as
# a state file (core/model/state_file.c).  The file passes ckpt_check.py, holds the
# fixture state file's time_state names and shapes (float32), loads with
# --state (chat and eval), and a state saved again right after loading it is
# the same file, byte for byte (the reload is exact); eval --state gives the
# same logits from both.  The bit-identity of logits against the live state
# is tests/unit/test_state_save.c.
. "$(dirname "$0")/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)

names_shapes() {  # FILE -> "name shape" lines of the time_state tensors
    python3 - "$1" <<'PY'
import sys, zipfile, re
z = zipfile.ZipFile(sys.argv[1])
pk = [n for n in z.namelist() if n.endswith("/data.pkl")][0]
import pickle, collections
class T:
    def __init__(self, st, off, size, *a): self.st, self.size = st, tuple(size)
class U(pickle.Unpickler):
    def find_class(self, m, n):
        if n == "OrderedDict": return collections.OrderedDict
        if n == "_rebuild_tensor_v2": return T
        return n
    def persistent_load(self, pid): return pid[1]
d = U(__import__("io").BytesIO(z.read(pk))).load()
for k, v in d.items():
    if k.endswith(".att.time_state"):
        print(k, list(v.size))
PY
}

for tag in 5v2 6v0 7v0; do
    model=models/tiny-$tag-fp32.pth
    have_fixture $model 9 || continue
    have_fixture states/state-$tag-A.pth 9 || continue
    M="--model $FX/$model"
    printf 'hi\nhow are you?\n/save %s\n' "$TMP/p-$tag.pth" |
        "$RWKV_TUI" chat $M --seed 3 --max-tokens 16 >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ $rc = 0 ] && ok || fail "$tag: chat exit $rc: $(cat "$TMP/err")"
    grep -q "state saved to $TMP/p-$tag.pth" "$TMP/err" && ok || fail "$tag: no notice: $(cat "$TMP/err")"
    python3 "$HERE/ckpt_check.py" "$TMP/p-$tag.pth" >"$TMP/ck" 2>&1 && ok || fail "$tag: ckpt_check: $(cat "$TMP/ck")"
    [ "$(names_shapes "$TMP/p-$tag.pth")" = "$(names_shapes "$FX/states/state-$tag-A.pth")" ] && ok ||
        fail "$tag: time_state names/shapes differ from the fixture's"
    # loaded by the chat, saved again at once: the same bytes
    printf '/save %s\n' "$TMP/q-$tag.pth" |
        "$RWKV_TUI" chat $M --state "$TMP/p-$tag.pth" --seed 3 >/dev/null 2>"$TMP/err2"
    cmp -s "$TMP/p-$tag.pth" "$TMP/q-$tag.pth" && ok || fail "$tag: saved again after loading it differs: $(cat "$TMP/err2")"
    # eval --state: same logits from both, other logits than from no state
    "$RWKV_TUI" eval $M --state "$TMP/p-$tag.pth" --tokens 72,105 --out "$TMP/a.bin" 2>"$TMP/e1" && ok ||
        fail "$tag: eval --state: $(cat "$TMP/e1")"
    "$RWKV_TUI" eval $M --state "$TMP/q-$tag.pth" --tokens 72,105 --out "$TMP/b.bin" 2>/dev/null
    cmp -s "$TMP/a.bin" "$TMP/b.bin" && ok || fail "$tag: logits differ between the two saves"
    "$RWKV_TUI" eval $M --tokens 72,105 --out "$TMP/c.bin" 2>/dev/null
    cmp -s "$TMP/a.bin" "$TMP/c.bin" && fail "$tag: the saved state changes nothing" || ok
    # a chat goes on from it
    printf 'and then?\n' | "$RWKV_TUI" chat $M --state "$TMP/p-$tag.pth" --seed 3 --max-tokens 8 \
        >"$TMP/o3" 2>"$TMP/e3"
    grep -q '^Assistant:' "$TMP/o3" && ok || fail "$tag: chat --state saved file: $(cat "$TMP/e3")"
done

# errors: no argument, a missing directory (one line, the chat goes on)
printf '/save\n/save %s\n/show\n' "$TMP/no/such/x.pth" |
    "$RWKV_TUI" chat --demo --seed 1 >"$TMP/o4" 2>"$TMP/e4"
rc=$?
[ $rc = 0 ] && ok || fail "errors: exit $rc"
grep -q 'usage: /save FILE' "$TMP/e4" && ok || fail "no usage line: $(cat "$TMP/e4")"
grep -q "/save: .*no/such/x.pth" "$TMP/e4" && ok || fail "missing dir not reported: $(cat "$TMP/e4")"
grep -Eq 'seed +1' "$TMP/o4" && ok || fail "chat did not go on after the errors"
[ ! -e "$TMP/no" ] && ok || fail "a directory was created"
# /help lists it
printf '/help\n' | "$RWKV_TUI" chat --demo --seed 1 2>/dev/null | grep -q '/save FILE' && ok ||
    fail "/help does not list /save"

# /save never writes over the session database in use: the chat goes on saving
D=$TMP/save.db
printf '/save %s\nhi\n' "$D" | "$RWKV_TUI" chat --demo --db "$D" --new keep --seed 1 --max-tokens 2 \
    >/dev/null 2>"$TMP/save.err"
grep -q "^rwkv-tui: /save: $D is the session database: not written over$" "$TMP/save.err" && ok ||
    fail "/save over the database: $(cat "$TMP/save.err")"
"$RWKV_TUI" sessions --db "$D" list 2>&1 | grep -q ' 2  keep$' && ok || fail "the database after /save over it"

finish
