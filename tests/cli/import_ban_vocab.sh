#!/usr/bin/env bash
# tests/cli/import_ban_vocab.sh -- `sessions import` of a file whose framing
# bans a token id past the model's vocabulary (256 ids byte-level, 65536
# World): refused in one line naming the id and the vocabulary, no database
# made.  It was imported, and the session then never resumed: every
# `chat --session ID` stopped at "banned token id 70000 is outside the
# vocabulary (0..255)", exit status 1.  The last id of each vocabulary is
# still taken, and such a session resumes.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
case $FX in /*) ;; *) FX=$PWD/$FX ;; esac
cd "$TMP" || exit 1
export HOME=$TMP/home XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/cfg
unset RWKV_VOCAB

# ban FILE OUT IDS: OUT is FILE with the framing's bans IDS (a JSON list)
ban() {
    python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["framing"] = dict(d.get("framing") or {}, ban=json.loads(sys.argv[3]))
json.dump(d, open(sys.argv[2], "w"))
EOF
}

# byte-level: the demo model
printf 'hello there\n' | "$T" chat --demo --db d.db --seed 1 >/dev/null 2>e || fail "chat --demo: $(cat e)"
"$T" sessions --db d.db export 1 --format json --out d.json 2>e || fail "export: $(cat e)"
ban d.json b256.json '[5, 256]'
expect_fail "byte-level: ban 256" \
    '^rwkv-tui: b256.json: framing "ban": token id 256 is outside the byte-level vocabulary \(0\.\.255\)' \
    "$T" sessions --db one.db import b256.json
[ ! -e one.db ] && ok || fail "a refused import made a database"
ban d.json b255.json '[255]'
"$T" sessions --db one.db import b255.json >/dev/null 2>e && ok || fail "ban 255 refused: $(cat e)"
printf 'again\n' | "$T" chat --demo --db one.db --session 1 --max-tokens 3 >/dev/null 2>e && ok ||
    fail "the session banning 255 does not resume: $(cat e)"

# World: the random World model with the vocabulary
if have_fixture models/world-7v0-rand-bf16.pth 2 && have_fixture rwkv_vocab_v20230424.txt 2; then
    V=$FX/rwkv_vocab_v20230424.txt
    printf 'hello\n' | "$T" chat --model "$FX/models/world-7v0-rand-bf16.pth" --vocab "$V" --db w.db \
        --seed 1 --max-tokens 3 >/dev/null 2>e || fail "chat (World): $(cat e)"
    "$T" sessions --db w.db export 1 --format json --out w.json 2>e || fail "export: $(cat e)"
    ban w.json w65536.json '[65536]'
    expect_fail "World: ban 65536" \
        '^rwkv-tui: w65536.json: framing "ban": token id 65536 is outside the World vocabulary \(0\.\.65535\)' \
        "$T" sessions --db two.db import w65536.json --vocab "$V"
    ban w.json w65535.json '[65535]'
    "$T" sessions --db two.db import w65535.json --vocab "$V" >/dev/null 2>e && ok ||
        fail "ban 65535 refused: $(cat e)"
fi
finish
