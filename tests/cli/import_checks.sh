#!/usr/bin/env bash
# tests/cli/import_checks.sh -- what `sessions import` took without a word:
#   - id 0 in a turn's tokens: in the World vocabulary the end of a text,
#     no token (a replay fed 112 tokens for a text of 111), in the
#     byte-level one the byte 00, which no text holds (" ab\u0000cd" came
#     in as " abcd" with the NUL still fed) -- refused, naming the turn;
#   - "created_ms" (and a turn's "time_ms") of the year 3170843, negative
#     (made now), or no number; "interrupted": "yes" (taken as false); a key
#     written twice ("title" kept its first value); a "strategy" the
#     program's parser refuses (taken, failing at the resume) -- each
#     refused in one line naming the field, nothing imported.
# Every refusal: exit 1, one line "rwkv-tui: FILE: ...", the database as it
# was.  A genuine export still imports, and so does a strategy this build
# cannot run (a GPU one from another computer: the resume names it).
# And the database a full disk stopped at its creation: removed (it was
# left, 64 KiB without a table), and a listing of such a file says it holds
# nothing yet rather than "disk full (nothing was saved)".
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
case $FX in /*) ;; *) FX=$PWD/$FX ;; esac   # (the test runs in $TMP)
cd "$TMP" || exit 1
export HOME=$TMP/home XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/cfg
unset RWKV_VOCAB

# edit IN OUT PYTHON: OUT is IN's JSON (d) after the Python statements
edit() {
    python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
EOF
}
# refused DESC FILE PATTERN [ARGS]: the import of FILE into one.db is refused
# in one line matching "^rwkv-tui: FILE: PATTERN"; one.db gains no session
refused() {
    local desc=$1 f=$2 pat=$3 n; shift 3
    n=$(n_sessions one.db)
    expect_fail "$desc" "^rwkv-tui: $f: $pat" "$T" sessions --db one.db import "$f" "$@"
    [ "$(n_sessions one.db)" = "$n" ] && ok || fail "$desc: something was imported"
}
imports() {
    local desc=$1 f=$2 out; shift 2
    out=$("$T" sessions --db one.db import "$f" "$@" 2>&1) && ok || fail "$desc: refused: $out"
}

# a byte-level session (the demo model): greeting 1, message 2, reply 3
printf 'hello there\n' | "$T" chat --demo --db d.db --seed 1 >/dev/null 2>"$TMP/e" ||
    fail "chat --demo: $(cat "$TMP/e")"
"$T" sessions --db d.db export 1 --format json --out d.json 2>"$TMP/e" || fail "export: $(cat "$TMP/e")"
imports "the demo's own export" d.json

# ---- id 0 in the tokens -----------------------------------------------------
# the tester's reply: " ab\u0000cd", its tokens its bytes, the NUL's too
edit d.json nul.json 'd["turns"][2]["text"] = " ab\0cd"; d["turns"][2]["tokens"] = [32, 97, 98, 0, 99, 100]'
refused "byte-level: a reply with a NUL" nul.json \
    'turn 3 \(assistant\): its tokens are not its text: token 3 is id 0 '
edit d.json nul2.json 't = d["turns"][1]; i = t["tokens"].index(104); t["tokens"].insert(i, 0)'
refused "byte-level: id 0 in a message" nul2.json 'turn 2 \(user\): its tokens are not its text: token [0-9]+ is id 0 '
edit d.json nul3.json 'd["turns"][0]["tokens"].append(0)'
refused "byte-level: id 0 after the greeting" nul3.json 'turn 1 \(system\): its tokens are not its text'

V=$FX/rwkv_vocab_v20230424.txt
if have_fixture rwkv_vocab_v20230424.txt 11; then
    # the same session in the World vocabulary: its tokens as the chat
    # makes them (the greeting's text, "User: T\n\nAssistant:", the reply's)
    edit d.json w.json "
import subprocess
def tk(s): return [int(x) for x in subprocess.check_output(['$T', 'tokenize', '--vocab', '$V', '--text', s]).decode().replace(',', ' ').split()]
d['model'] = None
d['turns'][0]['tokens'] = tk(d['turns'][0]['text'])
d['turns'][1]['tokens'] = tk('User: ' + d['turns'][1]['text'] + '\n\nAssistant:')
d['turns'][2]['tokens'] = tk(d['turns'][2]['text'])
"
    [ -s w.json ] && python3 -c 'import json,sys; sys.exit(0 if max(json.load(open("w.json"))["turns"][1]["tokens"]) > 255 else 1)' &&
        ok || fail "the World file was not made"
    imports "World: the file as the chat makes it" w.json --vocab "$V"
    edit w.json w0.json 'd["turns"][1]["tokens"].insert(2, 0)'
    refused "World: id 0 in a message" w0.json 'turn 2 \(user\): its tokens are not its text: token 2 is id 0 ' --vocab "$V"
    edit w.json w1.json 'd["turns"][2]["tokens"].insert(1, 0)'
    refused "World: id 0 in a reply" w1.json 'turn 3 \(assistant\): its tokens are not its text: token 1 is id 0 ' --vocab "$V"
    # an id without bytes: a reply's sampler can pick one of a World model's
    # 65536 head rows (the chat's own export must import); no message holds one
    edit w.json w2.json 'd["turns"][1]["tokens"].insert(2, 65535)'
    refused "World: an id outside the vocabulary" w2.json 'turn 2: token id 65535 is outside the World vocabulary' --vocab "$V"
    edit w.json w3.json 'd["turns"][2]["tokens"].insert(1, 65535)'
    imports "World: a reply holding an id its sampler can pick" w3.json --vocab "$V"
    edit w.json w4.json 'd["turns"][2]["tokens"].insert(1, 65536)'
    refused "World: a reply's id past the head" w4.json 'turn 3: token id 65536 is outside the World vocabulary' --vocab "$V"
fi

# ---- the session's fields --------------------------------------------------
edit d.json c1.json 'd["created_ms"] = 99999999999999999'
refused "created_ms in the year 3170843" c1.json '"created_ms": 99999999999999999 is not a time from 2000-01-01 to now'
edit d.json c2.json 'd["created_ms"] = -5'
refused "a negative created_ms" c2.json '"created_ms": -5 is not a time from 2000-01-01 to now'
edit d.json c3.json 'd["created_ms"] = "yesterday"'
refused "created_ms not a number" c3.json '"created_ms" must be a time in unix milliseconds'
edit d.json c4.json 'd["turns"][2]["time_ms"] = 99999999999999999'
refused "a turn's time_ms in the year 3170843" c4.json 'turn 3: "time_ms": 99999999999999999 is not a time'
edit d.json c5.json 'del d["created_ms"]'
imports "no created_ms (made now)" c5.json
edit d.json i1.json 'd["turns"][2]["interrupted"] = "yes"'
refused '"interrupted": "yes"' i1.json 'turn 3: "interrupted" must be true, false or null'
# a key written twice: the title, a turn's text
sed 's/^  "title": "hello there",/  "title": "first", "title": "second",/' d.json >k1.json
grep -q '"title": "second"' k1.json && ok || fail "k1.json not made"
refused "a title written twice" k1.json '"title" is written twice in one object'
python3 - <<'EOF'
s = open("d.json").read()
i = s.index('"role": "user", "text": ')
open("k2.json", "w").write(s[:i] + '"text": "other", ' + s[i:])
EOF
refused "a turn's text written twice" k2.json 'turn 2: "text" is written twice in one object'
edit d.json s1.json 'd["strategy"] = "cuda fp16 *"'
refused "a malformed strategy" s1.json "\"strategy\": invalid strategy 'cuda fp16 \\*': layer count expected"
edit d.json s2.json 'd["strategy"] = "gpu fp16"'
refused "a strategy of no device" s2.json "\"strategy\": invalid strategy 'gpu fp16'"
edit d.json s3.json 'd["strategy"] = 7'
refused "a strategy not a string" s3.json '"strategy" must be a string or null'
edit d.json s4.json 'd["strategy"] = "cuda fp16 *999"'
imports "a GPU strategy (another computer's)" s4.json
rows_are one.db "SELECT strategy FROM sessions ORDER BY id DESC LIMIT 1" "cuda fp16 *999" && ok ||
    fail "the GPU strategy was not kept: $(sql_rows one.db 'SELECT strategy FROM sessions')"

# ---- a full disk at the database's creation ---------------------------------
if ! is_root || ! mkdir -p full || ! mount -t tmpfs -o size=100k tmpfs full 2>/dev/null; then
    skip 5 "a full disk needs a tmpfs: not root, or mount failed"
else
    trap 'umount "$TMP/full" 2>/dev/null; rm -rf "$TMP"' EXIT
    # the chat answers (README: a disk full at the start is a failed save,
    # not a failed start), exit 1 with the leaving line
    printf 'hello\n' | "$T" chat --demo --db full/f.db --max-tokens 2 >out.txt 2>err.txt
    rc=$?
    [ $rc = 1 ] && grep -q '^Assistant:' out.txt &&
        grep -q '^rwkv-tui: leaving with 1 exchange not saved (full/f\.db: disk full' err.txt && ok \
        || fail "chat on a full disk: exit $rc: $(cat out.txt err.txt)"
    [ ! -e full/f.db ] && [ -z "$(ls full)" ] && ok || fail "a database without a table was left: $(ls -l full)"
    # an unfinished database (its first page, no table), the disk full
    python3 -c 'import sqlite3; c = sqlite3.connect("full/g.db"); c.execute("PRAGMA page_size=65536"); c.execute("PRAGMA journal_mode=WAL"); c.close()'
    dd if=/dev/zero of=full/fill bs=1k count=200 2>/dev/null
    rc_is "a listing of an unfinished database" 1 \
        '^rwkv-tui: full/g\.db: no session saved in it yet \(an empty database, which could not be set up here: ' \
        "$T" sessions --db full/g.db list
    [ -e full/g.db ] && ok || fail "a reader removed a database it did not make"
    umount "$TMP/full" 2>/dev/null
fi
finish
