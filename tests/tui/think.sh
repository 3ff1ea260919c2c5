#!/usr/bin/env bash
# tests/tui/think.sh -- the think mode of G1 models in the full-screen client:
# M-t steps the mode (a notice; the status line names it when it is not
# off; F8 shows it and edits it), a message sent in it is written
# "User: MSG think a bit\n\nAssistant: <think" (saved prompt, demo model:
# a token id is its byte) in the same session, and the reply starts with
# "<think"; F1 lists the keys.  A saved reply with a reasoning block,
# imported and opened: the block is drawn in the theme's think style
# (capture-pane -e), the tags as written, the answer's Markdown rendered;
# M-z folds it to one line "thought (N lines)" and back; M-c copies the
# reply as stored.  The config's think: key sets the mode at start (a bad
# value is reported with its line).
. "$(dirname "$0")/tmuxlib.sh"
SGR="python3 $(dirname "$0")/sgr.py"

if ! command -v python3 >/dev/null 2>&1 || ! command -v sqlite3 >/dev/null 2>&1; then
    echo "python3 or sqlite3 not found: skipping"
    echo "0 passed, 0 failed"
    exit 0
fi

# --- the mode: M-t, the status line, F8 --------------------------------------------------
tui_start --max-tokens 4 --seed 3
keys F1
check "F1 lists the think key" 'M-t +think mode of G1 models'
type_text "fold the"     # F1's own search: the list is longer than the screen
check "F1 lists the fold key" 'M-z +fold the reasoning'
keys Escape
wait_for ' Help: every key' 1 && keys Escape
check_not "help closed" ' Help: every key'
check_not "off: not on the status line" 'think:'
type_text "first"
send
check "a session" 'session: first'
keys M-t
check "M-t: on" 'think: on \(from the next message on\)'
check "status names it" '^ .*\| think: on \| state:'
keys M-t
check "M-t again: short" 'think: short \(from the next message on\)'
check "status: short" '\| think: short \|'
keys F8
check "F8 think row" 'think +short \(MSG think a bit, BOT: <think\)'
keys Escape
check_not "F8 closed" ' Framing of this session'
type_text "why"
send
check "same session" 'session: first'
check "the reply starts with the tag" '^  <think'
tui_quit
ids=$(sqlite3 "$DB" "SELECT hex(tokens) FROM turns WHERE role = 1 ORDER BY id DESC LIMIT 1")
want=$(python3 -c 'import sys, struct; t = sys.argv[1].encode()
print(struct.pack("<%di" % len(t), *t).hex().upper())' "$(printf '\n\nUser: why think a bit\n\nAssistant: <think')")
[ "$ids" = "$want" ] && ok || fail "prompt saved: $ids, want $want"
txt=$(sqlite3 "$DB" "SELECT text FROM turns WHERE role = 2 ORDER BY id DESC LIMIT 1")
case $txt in " <think"*) ok ;; *) fail "reply saved: $txt" ;; esac
[ "$(sqlite3 "$DB" "SELECT count(*) FROM sessions")" = 1 ] && ok || fail "the mode made a new session"
fr=$(sqlite3 "$DB" "SELECT framing FROM sessions")
case $fr in *'"think": "short"'*) ok ;; *) fail "framing saved: $fr" ;; esac

# F8 edits it: the next one on
tui_start --session 1
check "resumed: status" '\| think: short \|'
keys F8
check "F8 think row again" 'think +short'
keys Down Down Down Down Down
keys Enter
check "think prompt" 'think \(off, on, short, long, skip\)'
keys C-u
type_text 'skip'
keys Enter
check "edited in place" 'framing changed'
check "status: skip" '\| think: skip \|'
keys F8
keys Down Down Down Down Down
keys Enter
keys C-u
type_text 'lots'
keys Enter
check "a bad mode: one line" "framing: think: 'lots' is not off, on, short, long or skip"
check "... its prompt open to correct it" 'lots'
keys Escape Escape
tui_quit

# --- a reply with reasoning: dimmed, folded, copied ---------------------------------------
printf 'hi\n' | "$RWKV_TUI" chat --demo --db "$TMP/src.db" --new think --think on --max-tokens 2 \
    --seed 1 >/dev/null 2>&1
"$RWKV_TUI" sessions export 1 --format json --db "$TMP/src.db" > "$TMP/s.json" || fail "export"
python3 - "$TMP/s.json" <<'EOF'
import json, sys
reply = (" <think>\nThe user says hi.\nI should greet them **back**.\n</think>\n"
         "Hello, **friend**!")
d = json.load(open(sys.argv[1]))
t = [t for t in d["turns"] if t["role"] == "assistant"][-1]
t["text"] = reply
t["tokens"] = list(reply[len(" <think"):].encode())
json.dump(d, open(sys.argv[1], "w"))
EOF
grep -q '"think": "on"' "$TMP/s.json" && ok || fail "export carries the mode"
"$RWKV_TUI" sessions import "$TMP/s.json" --db "$DB" >/dev/null 2>&1 || fail "import"
sid=$("$RWKV_TUI" sessions list --db "$DB" | awk 'NR == 2 {print $1}')

tui_start --session "$sid"
check "open tag as written" '^  <think>( |$)'
check "reasoning as written" '^  I should greet them \*\*back\*\*\.'
check "close tag" '^  </think>( |$)'
check "the answer's Markdown" '^  Hello, friend!'
cap=$(tmx capture-pane -p -e)
st() { printf '%s\n' "$cap" | $SGR "$1"; }
# the default theme's think style: bright black and dim
if st 'The user says hi' | grep -q 'fg=90 .*dim=1'; then ok; else
    fail "reasoning not dimmed: $(st 'The user says hi')"; fi
if st '</think>' | grep -q 'dim=1'; then ok; else fail "tag not dimmed: $(st '</think>')"; fi
if st 'Hello' | grep -q 'dim=0'; then ok; else fail "answer dimmed: $(st 'Hello')"; fi
keys M-z
check "folded" '^  ▸ thought \(4 lines\)( |$)'
check_not "folded: the reasoning is hidden" 'The user says hi'
check "folded: the answer stays" '^  Hello, friend!'
cap=$(tmx capture-pane -p -e)
if st 'thought (4' | grep -q 'dim=1'; then ok; else fail "fold line not dimmed: $(st 'thought (4')"; fi
keys M-c
check "copied as stored" 'copied the reply \(83 bytes\)'
keys M-z
check "unfolded" '^  The user says hi\.'
check_not "no fold line" 'thought \('
tui_quit

# the config's think: key; a bad value is one problem with its place
mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"
printf 'think: long\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
tui_start
check "config think" '\| think: long \|'
tui_quit
printf 'think: hard\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
tui_start
check "config: a bad think" "config.yaml:1:8: field 'think': 'hard'"
check_not "config: off" '\| think:'
tui_quit
rm "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"

# NO_COLOR: the reasoning stays dim
TUI_ENV="NO_COLOR=1" tui_start --session "$sid"
check "NO_COLOR: shown" '^  The user says hi\.'
cap=$(tmx capture-pane -p -e)
if st 'The user says hi' | grep -q 'fg=39 .*dim=1'; then ok; else
    fail "NO_COLOR: reasoning not dim: $(st 'The user says hi')"; fi
tui_quit
tui_finish
