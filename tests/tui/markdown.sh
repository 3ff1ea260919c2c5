#!/usr/bin/env bash
# tests/tui/markdown.sh -- Markdown in a reply, drawn by the real binary:
# a session whose reply holds a heading, emphasis, a list and a fenced code
# block is imported and opened; the markers are gone, the styles are on
# screen (capture-pane -e), code rows are inset, bullets hang, and prose
# stops at the readable width on a wide terminal.
. "$(dirname "$0")/tmuxlib.sh"
SGR="python3 $(dirname "$0")/sgr.py"

if ! command -v python3 >/dev/null 2>&1; then
    echo "python3 not found: skipping"
    echo "0 passed, 0 failed"
    exit 0
fi

# a saved chat (demo model), its reply replaced by Markdown and imported
printf 'hi\n' | "$RWKV_TUI" chat --demo --db "$TMP/src.db" --new md --max-tokens 2 --seed 1 >/dev/null 2>&1
"$RWKV_TUI" sessions export 1 --format json --db "$TMP/src.db" > "$TMP/s.json" || fail "export"
python3 - "$TMP/s.json" <<'EOF'
import json, sys
reply = (" ## Plan of work\n"
         "Some **bold words** and *slanted ones* with `ls -l` inline.\n"
         "- first item of a list that is long enough to wrap onto another row of the pane, "
         "which takes quite a few more words than one would think zzhang\n"
         "- second\n"
         "```python\n"
         "def f(x):  # add one\n"
         "    return x + 'one'\n"
         "```\n"
         "after the code " + "prose " * 40 + "end")
d = json.load(open(sys.argv[1]))
t = [t for t in d["turns"] if t["role"] == "assistant"][-1]
t["text"] = reply
t["tokens"] = list(reply.encode())
json.dump(d, open(sys.argv[1], "w"))
EOF
"$RWKV_TUI" sessions import "$TMP/s.json" --db "$DB" >/dev/null 2>&1 || fail "import"
sid=$("$RWKV_TUI" sessions list --db "$DB" | awk 'NR == 2 {print $1}')

W=160 H=40 tui_start --session "$sid"
check "reply shown" 'Plan of work'
check_not "heading marker gone" '## Plan'
check "strong markers gone" 'Some bold words and slanted ones with ls -l inline\.'
check "bullet" '^  • first item'
check "wrapped item hangs under its text" '^    [a-z ]*zzhang'
if screen | grep -B1 -E '^    [a-z ]*zzhang' | head -1 | grep -q '^  • first item'; then ok; else
    fail "the hanging row does not follow the item"; fi
check "code without fences" '^    def f\(x\):  # add one'
check_not "fence lines hidden" '```'
cap=$(tmx capture-pane -p -e)
st() { printf '%s\n' "$cap" | $SGR "$1"; }
if st 'Plan of work' | grep -q 'bold=1'; then ok; else fail "heading not bold: $(st 'Plan of work')"; fi
if st 'bold words' | grep -q 'bold=1'; then ok; else fail "strong not bold: $(st 'bold words')"; fi
if st 'Some' | grep -q 'bold=0'; then ok; else fail "plain text bold: $(st Some)"; fi
if [ "$(st 'ls -l')" != "$(st 'Some')" ]; then ok; else fail "inline code not styled"; fi
if [ "$(st 'def f')" != "$(st 'f(x)')" ]; then ok; else fail "keyword not highlighted"; fi
if [ "$(st "'one'")" != "$(st 'x +')" ]; then ok; else fail "string not highlighted"; fi
if [ "$(st '# add')" != "$(st 'f(x)')" ]; then ok; else fail "comment not highlighted"; fi
# prose at most 100 columns wide on a 160-column terminal (sidebar shown)
widest=$(screen | grep -E '^  (after|prose)' | awk '{ sub(/ *│.*$/, ""); print length($0) - 2 }' | sort -n | tail -1)
if [ -n "$widest" ] && [ "$widest" -le 100 ] && [ "$widest" -gt 90 ]; then ok; else
    fail "prose rows $widest columns wide, want 91-100"; fi
tui_quit
tui_finish
