#!/usr/bin/env bash
# tests/cli/export_out.sh -- `sessions export ID --out PATH`: "-" is
# stdout (it wrote a file named "-"), and PATH is never one of the files the
# exported session names -- its model, vocabulary or state file (they were
# written over with Markdown): refused with one line, exit 2, the file as
# it was.  Copies of the fixture files in a temp dir, real databases.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
case $FX in /*) ;; *) FX=$PWD/$FX ;; esac   # the checks below run in $TMP
D=$TMP/e.db
cd "$TMP" || exit 1
have_fixture models/tiny-7v0-fp32.pth 15 || { finish; exit; }
have_fixture states/state-7v0-A.pth 15 || { finish; exit; }
cp "$FX/models/tiny-7v0-fp32.pth" m.pth
cp "$FX/states/state-7v0-A.pth" s.pth
chmod u+w m.pth s.pth    # the user's own files, writable (the fixtures are read-only)
printf 'hi\n' | "$T" chat --model m.pth --state s.pth --db "$D" --new one --seed 1 --max-tokens 3 \
    >/dev/null 2>err && ok || fail "chat: $(cat err)"

# --- "-" is stdout ------------------------------------------------------------------
"$T" sessions --db "$D" export 1 --out - >o.md 2>err && ok || fail "export --out -: $(cat err)"
[ ! -e ./- ] && ok || fail "export --out - wrote a file named '-'"
head -1 o.md | grep -q '^# one' && ok || fail "export --out - stdout: $(head -3 o.md)"
"$T" sessions --db "$D" export 1 --out - --format json >o.json 2>err && ok || fail "json to -: $(cat err)"
grep -q '"format": "rwkv-tui-session"' o.json && [ ! -e ./- ] && ok || fail "json to -: $(head -3 o.json)"

# --- never the session's model or state file ----------------------------------------
for f in m.pth s.pth; do
    cp "$f" "$f.orig"
    case $f in m.pth) w=model ;; *) w='state file' ;; esac
    expect_fail "--out $f" "^rwkv-tui: sessions export: --out $f is the $w of session 1: not written over\$" \
        "$T" sessions --db "$D" export 1 --out "$f"
    cmp -s "$f" "$f.orig" && ok || fail "$f was written over"
done
# under another name (a hard link) too
ln m.pth link.pth
"$T" sessions --db "$D" export 1 --out link.pth >/dev/null 2>err; rc=$?
[ $rc = 2 ] && cmp -s m.pth m.pth.orig && ok || fail "a hard link to the model: exit $rc, $(cat err)"

# --- nor its vocabulary -------------------------------------------------------------
if have_fixture models/world-7v0-rand-bf16.pth 4; then
    cp "$FX/models/world-7v0-rand-bf16.pth" w.pth
    cp "$FX/rwkv_vocab_v20230424.txt" v.txt
    chmod u+w w.pth v.txt
    printf 'hi\n' | "$T" chat --model w.pth --vocab v.txt --db "$D" --new two --seed 1 --max-tokens 3 \
        >/dev/null 2>err && ok || fail "chat with a vocabulary: $(cat err)"
    cp v.txt v.orig
    expect_fail "--out v.txt" "^rwkv-tui: sessions export: --out v\\.txt is the vocabulary of session 2: not written over\$" \
        "$T" sessions --db "$D" export 2 --out v.txt
    cmp -s v.txt v.orig && ok || fail "the vocabulary was written over"
    # a new name is fine
    "$T" sessions --db "$D" export 2 --out new.md 2>err && [ -s new.md ] && ok || fail "export to a new file: $(cat err)"
fi
finish
