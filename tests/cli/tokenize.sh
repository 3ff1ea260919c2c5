# tests/cli/tokenize.sh -- `rwkv-tui tokenize` against the reference ids in
# fixtures/tokenizer/world_tokenizer_cases.jsonl, round trips, vocabulary
# discovery and the one-line errors.  The World vocabulary and the cases
# come with the fixtures: without them those checks are counted as skipped
# and the byte tokenizer and error checks still run.
. "$(dirname "$0")/lib.sh"

V=$FX/rwkv_vocab_v20230424.txt
CASES=$FX/tokenizer/world_tokenizer_cases.jsonl
T() { "$RWKV_TUI" tokenize "$@"; }

# hex string -> file (bash builtins only: this runs ~120 times)
unhex() {
    local esc="" k
    for ((k = 0; k < ${#1}; k += 2)); do esc+="\\x${1:k:2}"; done
    printf '%b' "$esc" >"$2"
}

# --- every non-single-byte fixture case, and every 32nd single byte -------
re_id='"id": "([^"]*)"'
re_hex='"bytes_hex": "([0-9a-f]*)"'
re_tok='"tokens": \[([0-9, ]*)\]'
n=0
HAVE_V=0
# the checks that need the vocabulary: 18 + the 170 of the cases below
have_fixture rwkv_vocab_v20230424.txt $((18 + 170)) && HAVE_V=1
if [ $HAVE_V = 1 ] && have_fixture tokenizer/world_tokenizer_cases.jsonl 170; then
while IFS= read -r line; do
    [[ $line =~ $re_id ]] && id=${BASH_REMATCH[1]}
    case $id in single_byte-*) [ $(( 10#${id#single_byte-} % 32 )) = 0 ] || continue ;; esac
    [[ $line =~ $re_hex ]] && hex=${BASH_REMATCH[1]}
    [[ $line =~ $re_tok ]] && want=${BASH_REMATCH[1]//,/}
    unhex "$hex" "$TMP/in"
    got=$(T --vocab "$V" --file "$TMP/in")
    if [ "$got" = "$want" ]; then ok; else fail "$id: encode '$got' != '$want'"; fi
    n=$((n + 1))
    # decode: the raw-byte cases and every third other case (the unit test
    # decodes them all; this keeps the runner quick)
    case $id in invalid_utf8-* | all_bytes-*) ;; *) [ $((n % 3)) = 0 ] || continue ;; esac
    T --vocab "$V" --decode --text "$want" >"$TMP/out"
    if cmp -s "$TMP/in" "$TMP/out"; then ok; else fail "$id: decode differs"; fi
done <"$CASES"
[ $n -ge 115 ] && ok || fail "only $n fixture cases run"
fi

if [ $HAVE_V = 1 ]; then

# --- --text, separators, stdin, exact bytes ---------------------------------
[ "$(T --vocab "$V" --text 'Hello world')" = "33155 40213" ] && ok || fail "--text Hello world"
[ "$(T --vocab="$V" --text=$'\n\n')" = "261" ] && ok || fail "--text \\n\\n (chat-000)"
out=$(T --vocab "$V" --decode --text $'33155,40213\n , 11')
[ "$out" = $'Hello world\n' ] || [ "$out" = "Hello world" ] && ok || fail "decode separators: '$out'"
T --vocab "$V" --decode --text '33155 40213' | od -An -c | grep -q 'd *$' && ok || fail "decode adds no newline"
printf 'def f(x):\n    return x * 2\n' | T --vocab "$V" --file - >"$TMP/ids"
[ "$(cat "$TMP/ids")" = "7334 337 41 121 501 28352 42178 355 277 285 11" ] && ok || fail "--file - (code-000)"
printf 'def f(x):\n    return x * 2' >"$TMP/nonl"
[ "$(T --vocab "$V" --file "$TMP/nonl")" = "7334 337 41 121 501 28352 42178 355 277 285" ] && ok \
    || fail "--file keeps the bytes exactly"
T --vocab "$V" --file "$TMP/ids" --decode >/dev/null && ok || fail "--decode --file"
: >"$TMP/empty"
[ "$(T --vocab "$V" --file "$TMP/empty")" = "" ] && ok || fail "empty input"
fi

# all 256 bytes round trip through ids, with both tokenizers
i=0; hex=""; while [ $i -lt 256 ]; do hex=$hex$(printf '%02x' $i); i=$((i + 1)); done
unhex "$hex" "$TMP/all"
if [ $HAVE_V = 1 ]; then
T --vocab "$V" --file "$TMP/all" >"$TMP/all.ids" && T --vocab "$V" --decode --file "$TMP/all.ids" >"$TMP/all.out"
cmp -s "$TMP/all" "$TMP/all.out" && ok || fail "world: 256 bytes round trip"
fi
T --bytes --file "$TMP/all" >"$TMP/allb.ids" && T --bytes --decode --file "$TMP/allb.ids" >"$TMP/allb.out"
cmp -s "$TMP/all" "$TMP/allb.out" && ok || fail "bytes: 256 bytes round trip"
[ "$(T --bytes --text 'hé')" = "104 195 169" ] && ok || fail "--bytes ids are byte values"
[ "$(T --bytes --decode --text '104 105')" = "hi" ] && ok || fail "--bytes --decode"

# --- discovery -------------------------------------------------------------
if [ $HAVE_V = 1 ]; then
[ "$(RWKV_VOCAB=$V T --text 'Hello world')" = "33155 40213" ] && ok || fail "\$RWKV_VOCAB"
mkdir -p "$TMP/xdg/rwkv-tui" "$TMP/models" "$TMP/home"
ln -s "$(cd "$(dirname "$V")" && pwd)/$(basename "$V")" "$TMP/xdg/rwkv-tui/rwkv_vocab_v20230424.txt"
[ "$(env -u RWKV_VOCAB XDG_DATA_HOME=$TMP/xdg "$RWKV_TUI" tokenize --text 'Hello world')" = "33155 40213" ] && ok \
    || fail "\$XDG_DATA_HOME/rwkv-tui/"
ln -s "$TMP/xdg/rwkv-tui/rwkv_vocab_v20230424.txt" "$TMP/models/rwkv_vocab_v20230424.txt"
[ "$(env -u RWKV_VOCAB XDG_DATA_HOME=$TMP/nowhere "$RWKV_TUI" tokenize --model "$TMP/models/m.pth" --text 'Hello world')" \
    = "33155 40213" ] && ok || fail "next to the model"
mkdir -p "$TMP/home/.local/share/rwkv-tui"
ln -s "$TMP/xdg/rwkv-tui/rwkv_vocab_v20230424.txt" "$TMP/home/.local/share/rwkv-tui/"
[ "$(env -u RWKV_VOCAB -u XDG_DATA_HOME HOME=$TMP/home "$RWKV_TUI" tokenize --text 'Hello world')" = "33155 40213" ] && ok \
    || fail "~/.local/share/rwkv-tui/"
fi
expect_fail "no vocabulary anywhere" "no World vocabulary: looked at .*pip package.*ChatRWKV" \
    env -u RWKV_VOCAB XDG_DATA_HOME=$TMP/nowhere HOME=$TMP/nowhere "$RWKV_TUI" tokenize --text hi
expect_fail "--vocab wins over env" "missing.txt: cannot open vocabulary" \
    env RWKV_VOCAB=$V "$RWKV_TUI" tokenize --vocab "$TMP/missing.txt" --text hi

# --- errors ------------------------------------------------------------------
expect_fail "missing vocab file" "^rwkv-tui: .*nope.txt: cannot open vocabulary: No such file" \
    "$RWKV_TUI" tokenize --vocab "$TMP/nope.txt" --text hi
{ i=0; while [ $i -lt 256 ]; do printf "%d b'\\\\x%02x' 1\n" $((i + 1)) $i; i=$((i + 1)); done
  printf "257 'abc' 2\n"; } >"$TMP/bad.txt"
expect_fail "malformed vocab" "bad.txt:257: literal decodes to 3 bytes but the line says 2" \
    "$RWKV_TUI" tokenize --vocab "$TMP/bad.txt" --text hi
head -n 256 "$TMP/bad.txt" >"$TMP/good.txt"
[ "$(T --vocab "$TMP/good.txt" --text hi)" = "105 106" ] && ok || fail "the generated vocab itself loads"
printf "1 'a\n" >"$TMP/bad2.txt"
expect_fail "unterminated literal" "bad2.txt:1: unterminated string literal" \
    "$RWKV_TUI" tokenize --vocab "$TMP/bad2.txt" --text hi
if [ $HAVE_V = 1 ]; then
expect_fail "bad id word" "--text: 'abc' \(item 2\) is not a token id \(1\.\.65529\)" \
    "$RWKV_TUI" tokenize --vocab "$V" --decode --text "1 abc 3"
expect_fail "id out of range" "'65530' \(item 1\) is not a token id" \
    "$RWKV_TUI" tokenize --vocab "$V" --decode --text "65530"
expect_fail "negative id" "'-1' \(item 1\) is not a token id" \
    "$RWKV_TUI" tokenize --vocab "$V" --decode --text "-1"
# id 0 ends a text (generation stops there): a World vocabulary has no bytes for it
expect_fail "World id 0" "--text: '0' \(item 2\) is not a token id \(1\.\.65529; 0 is the end of a text, not in the vocabulary\)" \
    "$RWKV_TUI" tokenize --vocab "$V" --decode --text "33155 0"
fi
[ "$(T --bytes --decode --text '0 104' | od -An -tx1 | tr -d ' ')" = 0068 ] && ok || fail "--bytes: 0 is a byte"
expect_fail "bytes id 256" "'256' \(item 1\) is not a token id \(0\.\.255\)" \
    "$RWKV_TUI" tokenize --bytes --decode --text "256"
printf '1 2\n3 x9\n' >"$TMP/ids.txt"
if [ $HAVE_V = 1 ]; then
expect_fail "bad id in a file" "ids.txt: 'x9' \(item 4\)" \
    "$RWKV_TUI" tokenize --vocab "$V" --decode --file "$TMP/ids.txt"
fi
expect_fail "missing --file" "nofile: cannot open" "$RWKV_TUI" tokenize --bytes --file "$TMP/nofile"
mkdir -p "$TMP/adir"
expect_fail "--file a directory" "adir: cannot read: Is a directory" \
    "$RWKV_TUI" tokenize --bytes --file "$TMP/adir"
expect_fail "no input" "exactly one of --text T or --file F" "$RWKV_TUI" tokenize --bytes
expect_fail "both inputs" "exactly one of" "$RWKV_TUI" tokenize --bytes --text a --file "$TMP/all"
expect_fail "--bytes and --vocab" "exclude each other" "$RWKV_TUI" tokenize --bytes --vocab "$V" --text a
expect_fail "unknown option" "tokenize: unknown option '--frob'" "$RWKV_TUI" tokenize --frob
expect_fail "option without value" "--text needs a value" "$RWKV_TUI" tokenize --bytes --text

# --- help ----------------------------------------------------------------------
h=$(T --help) && ok || fail "--help exit status"
case $h in *"--decode"*"--bytes"*"rwkv_vocab_v20230424.txt"*) ok ;; *) fail "--help text" ;; esac

finish
