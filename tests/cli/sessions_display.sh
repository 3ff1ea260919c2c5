# tests/cli/sessions_display.sh -- one display rule for text in `rwkv-tui
# sessions` output:
#   - on a terminal (a real pty, script(1)), `show`, `list` and `search`
#     print text as the client's transcript shows it (utf8_sanitize_for_
#     terminal): an escape sequence goes whole ("a ESC[31m b" reads "ab",
#     not "a\uFFFD[31mb"), CR/BEL dropped, a tab four spaces, ill-formed
#     UTF-8 one U+FFFD;
#   - to a pipe or a file `show` prints the text as saved, byte for byte (as
#     git log and sqlite3 do); `search` prints its snippet (a view of the
#     text) by the display rule everywhere;
#   - `list --json` holds the real content, escaped (\u001b), valid JSON,
#     with no raw escape byte;
#   - an imported title is the title the client makes of the same text.
# Text with escape codes gets into the database as a chat saves a reply (the
# exact text); here through Python's sqlite3 module.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
DB=$TMP/s.db
ESC=$(printf '\033')
REPL=$(printf '\357\277\275')
# sql DB SQL HEX...: run SQL with the HEX strings as blob parameters.
sql() { python3 - "$@" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute(sys.argv[2], [bytes.fromhex(a) for a in sys.argv[3:]])
c.commit()
PY
}
# on_tty CMD...: CMD's stdout through a pseudo-terminal (script(1)), the
# pty's CR before each LF taken out (a CR from the text is dropped by the
# rule, so none is left to confuse).
on_tty() {
    local q="" a
    for a in "$@"; do q="$q '${a//\'/\'\\\'\'}'"; done
    script -qec "$q" /dev/null </dev/null | tr -d '\r'
}
command -v script >/dev/null || { echo "script(1) needed"; echo "0 passed, 1 failed"; exit 1; }

cat >"$TMP/s.json" <<'JSON'
{"format": "rwkv-tui-session", "version": 1, "title": "Display", "created_ms": 1700000000000,
 "strategy": "cpu fp32", "head": 2,
 "model": {"path": "/models/x.pth", "fingerprint": "00000000deadbeef", "version": "7.0"},
 "turns": [
  {"id": 1, "parent": null, "role": "user", "text": "placeholder one", "tokens": [85, 115, 101, 114, 58, 32, 112, 108, 97, 99, 101, 104, 111, 108, 100, 101, 114, 32, 111, 110, 101, 10, 10, 65, 115, 115, 105, 115, 116, 97, 110, 116, 58]},
  {"id": 2, "parent": 1, "role": "assistant", "text": "placeholder two", "tokens": [112, 108, 97, 99, 101, 104, 111, 108, 100, 101, 114, 32, 116, 119, 111]}
 ]}
JSON
out=$("$T" sessions --db "$DB" import "$TMP/s.json") && ok || fail "import: $out"
# the texts as a chat saves them: escape codes, CR, BEL, a tab, a bad byte
U1='a\033[31mb and \033]0;pwned\007c'
A1='plain \033[1mpangolin\033[0m tab\there\rCR \xffbad'
P1='/models/\033[2Jx.pth'
S1='cpu\033[5mfp32'
u1=$(printf "$U1" | od -An -tx1 | tr -d ' \n')
a1=$(printf "$A1" | od -An -tx1 | tr -d ' \n')
p1=$(printf "$P1" | od -An -tx1 | tr -d ' \n')
s1=$(printf "$S1" | od -An -tx1 | tr -d ' \n')
sql "$DB" "UPDATE turns SET text=CAST(? AS TEXT) WHERE id=(SELECT min(id) FROM turns)" "$u1" &&
sql "$DB" "UPDATE turns SET text=CAST(? AS TEXT) WHERE id=(SELECT max(id) FROM turns)" "$a1" &&
sql "$DB" "UPDATE models SET path=CAST(? AS TEXT)" "$p1" &&
sql "$DB" "UPDATE sessions SET strategy=CAST(? AS TEXT)" "$s1" && ok || fail "tamper"

# --- a terminal: the display rule ----------------------------------------------------
on_tty "$T" sessions --db "$DB" show 1 >"$TMP/tty.show"
grep -q '^#[0-9]* user' "$TMP/tty.show" && ok || fail "tty show ran: $(cat "$TMP/tty.show")"
LC_ALL=C grep -q "$ESC" "$TMP/tty.show" && fail "tty show: an escape byte reached the terminal" || ok
grep -qx 'ab and c' "$TMP/tty.show" && ok || fail "tty show: user text not by the rule: $(cat -v "$TMP/tty.show")"
grep -qx "plain pangolin tab    hereCR ${REPL}bad" "$TMP/tty.show" && ok ||
    fail "tty show: reply not by the rule: $(cat -v "$TMP/tty.show")"
grep -q '^model /models/x.pth (v7.0' "$TMP/tty.show" && ok || fail "tty show: model path: $(cat -v "$TMP/tty.show")"
grep -qx 'strategy cpufp32' "$TMP/tty.show" && ok || fail "tty show: strategy: $(cat -v "$TMP/tty.show")"
grep -q "$REPL\[" "$TMP/tty.show" && fail "tty show: a U+FFFD and the tail of a sequence" || ok

on_tty "$T" sessions --db "$DB" search pangolin >"$TMP/tty.search"
grep -q 'plain \[pangolin\] tab    hereCR' "$TMP/tty.search" && ok ||
    fail "tty search: $(cat -v "$TMP/tty.search")"
LC_ALL=C grep -q "$ESC" "$TMP/tty.search" && fail "tty search: escape byte" || ok

# --- a pipe or a file: the text as saved --------------------------------------------------
"$T" sessions --db "$DB" show 1 >"$TMP/pipe.show" && ok || fail "show to a file"
LC_ALL=C grep -qF "$(printf "$U1")" "$TMP/pipe.show" && ok || fail "pipe show: user text not as saved: $(cat -v "$TMP/pipe.show")"
LC_ALL=C grep -qF "$(printf "$A1")" "$TMP/pipe.show" && ok || fail "pipe show: reply not as saved: $(cat -v "$TMP/pipe.show")"
LC_ALL=C grep -qF "model $(printf "$P1") (v7.0" "$TMP/pipe.show" && ok || fail "pipe show: model path: $(cat -v "$TMP/pipe.show")"
"$T" sessions --db "$DB" search pangolin | grep -q 'plain \[pangolin\] tab    hereCR' && ok ||
    fail "pipe search: $("$T" sessions --db "$DB" search pangolin | cat -v)"

# --- JSON: the real content, escaped ---------------------------------------------------------
"$T" sessions --db "$DB" list --json >"$TMP/j" && ok || fail "list --json"
LC_ALL=C grep -q "$ESC" "$TMP/j" && fail "json: a raw escape byte" || ok
python3 - "$TMP/j" "$(printf "$P1")" "$(printf "$S1")" <<'PY' && ok || fail "json: $(cat -v "$TMP/j")"
import json, sys
v = json.load(open(sys.argv[1], encoding="utf-8"))
assert v[0]["model"] == sys.argv[2], v[0]["model"]
assert v[0]["strategy"] == sys.argv[3], v[0]["strategy"]
PY
grep -qF '"model": "/models/\u001b[2Jx.pth"' "$TMP/j" && ok || fail "json: not \\u001b: $(cat -v "$TMP/j")"
# a C1 CSI (U+009B) and a bidi override are escaped too, never raw
sql "$DB" "UPDATE sessions SET strategy=CAST(? AS TEXT)" "$(printf 'c\302\2331m\342\200\256x' | od -An -tx1 | tr -d ' \n')"
"$T" sessions --db "$DB" list --json >"$TMP/j2"
grep -qF '"strategy": "c\u009b1m\u202ex"' "$TMP/j2" && ok || fail "json: C1/bidi: $(cat -v "$TMP/j2")"

# --- an imported title is the client's ----------------------------------------------------------
printf '%s' '{"format": "rwkv-tui-session", "version": 1, "title": "a\u001b[31mb\u0000\u001b]0;t\u0007c\td", "model": null,
 "turns": [{"id": 1, "parent": null, "role": "user", "text": "hi", "tokens": [85, 115, 101, 114, 58, 32, 104, 105, 10, 10, 65, 115, 115, 105, 115, 116, 97, 110, 116, 58]}]}' >"$TMP/t.json"
out=$("$T" sessions --db "$DB" import "$TMP/t.json") && id=${out##* } && ok || fail "import title: $out"
"$T" sessions --db "$DB" rename 1 "$(printf 'a\033[31mb\033]0;t\007c\td')" && ok || fail "rename"
t_import=$("$T" sessions --db "$DB" show "$id" | head -1)
t_client=$("$T" sessions --db "$DB" show 1 | head -1)
[ "$t_import" = "session $id: abc d" ] && ok || fail "imported title: $(printf '%s' "$t_import" | cat -v)"
[ "${t_client#session 1: }" = "${t_import#session $id: }" ] && ok ||
    fail "import and client differ: '$t_import' vs '$t_client'"
on_tty "$T" sessions --db "$DB" list | grep -q " abc d$" && ok || fail "tty list: $(on_tty "$T" sessions --db "$DB" list | cat -v)"
finish
