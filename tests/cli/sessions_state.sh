#!/usr/bin/env bash
# tests/cli/sessions_state.sh -- `sessions state ID TURN [--vs TURN2]`: the
# per-layer norms and the change between two saved states, checked against
# the floats read from the database by Python (the blob's header is 64
# bytes, then little-endian float32s in the layout core/rwkv.h documents),
# for a v7 state (--demo) and a v4 one (a fixture model: aa and bb only).
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/s.db

printf 'hello\nhow are you\n' |
    "$T" chat --demo --db "$DB" --new t --max-tokens 6 --seed 3 >/dev/null 2>&1 || fail "chat"

# the Python side: norms per layer (or the change |a-b|/|b| and the cosine)
# from the blobs, compared with the command's JSON to 1e-6 relative
cat > "$TMP/check.py" <<'PY'
import json, math, sqlite3, struct, sys
db, out, turn, vs = sys.argv[1], json.load(open(sys.argv[2])), int(sys.argv[3]), int(sys.argv[4])
con = sqlite3.connect(db)
def floats(t):
    # the bytes inline (before schema v8) or in the shared row
    b = con.execute("select coalesce((select b.blob from state_blobs b where b.id=n.blob_id),"
                    " n.blob) from snapshots n where turn_id=?", (t,)).fetchone()[0]
    n = struct.unpack_from("<Q", b, 16)[0]
    return struct.unpack_from("<%df" % n, b, 64)
C, H, N, L = out["n_embd"], out["n_head"], out["head_size"], out["n_layer"]
v4 = out["version"] == "4"
per = 5 * C if v4 else 2 * C + H * N * N
parts = {"att_shift": (0, C), "wkv": (C, 2 * C if v4 else H * N * N),
         "ffn_shift": (4 * C if v4 else C + H * N * N, C)}
a = floats(turn)
b = floats(vs) if vs else None
assert len(a) == L * per, (len(a), L, per)
def cell(layers, p):
    o, n = parts[p]
    aa = bb = dd = 0.0
    for l in layers:
        for i in range(l * per + o, l * per + o + n):
            x = a[i]; y = b[i] if b else 0.0
            aa += x * x; bb += y * y; dd += (x - y) ** 2
    return math.sqrt(dd / bb) if b else math.sqrt(aa)
def close(x, y):
    return abs(x - y) <= 1e-6 * max(abs(x), abs(y), 1e-30)
rows = out["vs"]["change"] if b else out["layers"]
tot = out["vs"]["all"] if b else out["all"]
bad = []
for l in range(L):
    for p in parts:
        if not close(rows[l][p], cell([l], p)): bad.append((l, p, rows[l][p], cell([l], p)))
for p in parts:
    if not close(tot[p], cell(range(L), p)): bad.append(("all", p, tot[p], cell(range(L), p)))
if b:
    cos = sum(x * y for x, y in zip(a, b)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))
    if not close(out["vs"]["cosine"], cos): bad.append(("cosine", out["vs"]["cosine"], cos))
if any(v > 0 for r in out["layers"] for v in r.values()) is False: bad.append("all norms zero")
print(bad if bad else "ok")
PY
# the last reply and the message before it (both kept: the last 6 turns)
ids=$(sqlite3 "$DB" "select id from turns order by id" 2>/dev/null | tr '\n' ' ')
set -- $ids
[ $# = 5 ] && ok || fail "turns: $ids"
last=$5 prev=$4
"$T" sessions --db "$DB" state 1 "$last" --json > "$TMP/a.json" && ok || fail "state --json"
r=$(python3 "$TMP/check.py" "$DB" "$TMP/a.json" "$last" 0) && [ "$r" = ok ] && ok || fail "norms: $r"
"$T" sessions --db "$DB" state 1 "$last" --vs "$prev" --json > "$TMP/b.json" && ok || fail "--vs --json"
r=$(python3 "$TMP/check.py" "$DB" "$TMP/b.json" "$last" "$prev") && [ "$r" = ok ] && ok ||
    fail "change: $r"

# the text form: a header, one row a layer (2 for --demo) and "all"
out=$("$T" sessions --db "$DB" state 1 "$last")
case $out in *"(assistant) of session 1: v7.0, 2 layers x 128 channels (2 heads of 64), saved in fp32"*) ok ;;
    *) fail "header: $out" ;; esac
# its size as sessions prints sizes (16896 floats: "68 kB", was "0.1 MB")
case $out in *"saved in fp32, 68 kB; model fingerprint"*) ok ;; *) fail "size: $out" ;; esac
[ "$(printf '%s\n' "$out" | grep -cE '^ +[0-9]+ +[0-9.e+-]+ +[0-9.e+-]+ +[0-9.e+-]+$')" = 2 ] && ok ||
    fail "layer rows: $out"
printf '%s\n' "$out" | grep -qE '^ +all ' && ok || fail "no all row: $out"
out=$("$T" sessions --db "$DB" state 1 "$last" --vs "$last")
case $out in *"cosine of the whole states: 1.000000"*) ok ;; *) fail "self: $out" ;; esac

# refusals: one line each
expect_fail "no such turn" "no turn 999" "$T" sessions --db "$DB" state 1 999
expect_fail "turn of another session" "turn $last is in session 1, not 2" \
    "$T" sessions --db "$DB" state 2 "$last"
expect_fail "--vs elsewhere" "--vs is an option of 'sessions state'" \
    "$T" sessions --db "$DB" show 1 --vs 2
# every option belongs to the commands whose usage names it: none is taken and ignored
expect_fail "--out on list" "sessions list: --out is an option of 'sessions export'" \
    "$T" sessions --db "$DB" list --out "$TMP/never.md"
[ ! -e "$TMP/never.md" ] && ok || fail "list --out wrote a file"
expect_fail "--format on show" "--format is an option of 'sessions export'" \
    "$T" sessions --db "$DB" show 1 --format json
expect_fail "--title on export" "--title is an option of 'sessions fork'" \
    "$T" sessions --db "$DB" export 1 --title x
expect_fail "--json on export" "--json is an option of 'sessions list' and 'sessions state' \(export: --format json\)" \
    "$T" sessions --db "$DB" export 1 --json
expect_fail "--vs not an id" "'x' is not a turn id" "$T" sessions --db "$DB" state 1 "$last" --vs x
# a turn whose state the retention dropped (a long chat: the early turns)
yes 'more' | head -40 | "$T" chat --demo --db "$DB" --new long --max-tokens 2 >/dev/null 2>&1
t=$(sqlite3 "$DB" "select t.id from turns t join sessions s on s.id=t.session_id where s.title='long'
    and t.id not in (select turn_id from snapshots) order by t.id limit 1" 2>/dev/null)
sid=$(sqlite3 "$DB" "select id from sessions where title='long'" 2>/dev/null)
if [ -n "$t" ]; then
    expect_fail "dropped state" "turn $t has no saved state .*sessions show $sid" \
        "$T" sessions --db "$DB" state "$sid" "$t"
else
    fail "no turn without a state in a 40-message chat"
fi
# ... named by --vs: the session in the hint is the turn's own
if [ -n "$t" ]; then
    expect_fail "dropped state by --vs" "turn $t has no saved state .*last 6 turns .*every 8th; 'sessions show $sid'" \
        "$T" sessions --db "$DB" state 1 "$last" --vs "$t"
fi
# a reply cut by kill -9 before its state was saved (its partial text is
# saved every second): said so, not the retention's rule (leaves are kept);
# the first resume rebuilds the state and keeps it
printf 'go on\n' |
    "$T" chat --demo --db "$DB" --new cut --max-tokens 1000000 --stop QQQQQQQQQQ >/dev/null 2>&1 &
cpid=$!
q="select t.id, t.session_id from turns t join sessions s on s.id=t.session_id where s.title='cut'
   and t.role=2 and length(t.tokens) > 0"
for _ in $(seq 300); do row=$(sqlite3 "$DB" "$q" 2>/dev/null); [ -n "$row" ] && break; sleep 0.1; done
kill -9 $cpid 2>/dev/null
wait $cpid 2>/dev/null
ct=${row%%|*} cid=${row##*|}
if [ -n "$row" ]; then
    expect_fail "a cut reply" "turn $ct has no saved state: it was cut before its state was saved .*session $cid rebuilds it" \
        "$T" sessions --db "$DB" state "$cid" "$ct"
    # a resume replays the cut reply once and keeps the state it rebuilt
    "$T" chat --demo --db "$DB" --session "$cid" </dev/null >/dev/null 2>"$TMP/r1.err"
    grep -q "no saved state for turn $ct: replayed" "$TMP/r1.err" && ok ||
        fail "first resume: no replay: $(cat "$TMP/r1.err")"
    "$T" sessions --db "$DB" state "$cid" "$ct" >/dev/null 2>&1 && ok ||
        fail "the rebuilt state was not saved"
    "$T" chat --demo --db "$DB" --session "$cid" </dev/null >/dev/null 2>"$TMP/r2.err"
    ! grep -q "replayed" "$TMP/r2.err" && ok || fail "second resume replayed: $(cat "$TMP/r2.err")"
else
    fail "no partial reply saved within 30 s"
fi
# a damaged blob: one line
sqlite3 "$DB" "update state_blobs set blob=x'00'
              where id=(select blob_id from snapshots where turn_id=$prev)" 2>/dev/null
expect_fail "damaged blob" "saved state of turn $prev is unusable" \
    "$T" sessions --db "$DB" state 1 "$prev"

# a v4 state: the middle part is aa and bb
if have_fixture models/tiny-4v0-fp32.pth 3; then
    DB4=$TMP/v4.db
    printf 'hi\n' | "$T" chat --model "$FX/models/tiny-4v0-fp32.pth" \
        --vocab "$FX/rwkv_vocab_v20230424.txt" --db "$DB4" --new v4 --max-tokens 3 >/dev/null 2>&1
    t=$(sqlite3 "$DB4" "select max(turn_id) from snapshots" 2>/dev/null)
    "$T" sessions --db "$DB4" state 1 "$t" --json > "$TMP/c.json" && ok || fail "v4 --json"
    r=$(python3 "$TMP/check.py" "$DB4" "$TMP/c.json" "$t" 0) && [ "$r" = ok ] && ok || fail "v4: $r"
    "$T" sessions --db "$DB4" state 1 "$t" | grep -q 'v4: wkv = the aa and bb sums' && ok ||
        fail "v4 note"
fi

# one head (tiny-7v0: 64 channels, a head of 64): "1 head", not "1 heads"
if have_fixture models/tiny-7v0-fp32.pth 1; then
    DB7=$TMP/h1.db
    printf 'hi\n' | "$T" chat --model "$FX/models/tiny-7v0-fp32.pth" \
        --vocab "$FX/rwkv_vocab_v20230424.txt" --db "$DB7" --new h1 --max-tokens 3 >/dev/null 2>&1
    t=$(sqlite3 "$DB7" "select max(turn_id) from snapshots" 2>/dev/null)
    out=$("$T" sessions --db "$DB7" state 1 "$t" 2>&1 | head -1)
    case $out in *" layers x 64 channels (1 head of 64), saved in "*) ok ;;
        *) fail "one head: $out" ;; esac
fi
finish
