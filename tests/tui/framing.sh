#!/usr/bin/env bash
# tests/tui/framing.sh -- the chat's framing in the full-screen client: the
# F8 menu shows the session's greeting, role names, stop strings and bans;
# --user/--bot at launch; the framing is saved with the session and comes
# back when it is resumed (F2); a stop string changes in place, other names
# start a new session; the transcript's headers carry the names; a bad name is one clear line; a preset saved with F4
# carries the framing; config keys (user, bot, stop) and a config error with
# file:line:column; model_dir lists its checkpoints in F5, sorted, without a
# FIFO or an unreadable file.
. "$(dirname "$0")/tmuxlib.sh"

CONF=$XDG_CONFIG_HOME/rwkv-tui/config.yaml
mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"

close_menu() {
    keys Escape
    check_not "$1: menu closed" ' Framing of this session'
}

tui_start --max-tokens 6 --seed 4 --user Bob --bot Alice
keys F1
check "F1 lists F8" 'F8 +framing: greeting, role names'
keys Escape
check_not "help closed" ' Help: every key'
keys F8
check "framing menu" ' Framing of this session'
check "user name row" 'user name +Bob'
check "bot name row" 'bot name +Alice'
check "greeting follows the names" "greeting +\(the demo's\) Bob: hi.n.nAlice: Hi\."
check "default stop" "stop +.n.n \(the demo's\)"
# the values in one column, as F2's details (they followed each label;
# the list's rows, not the selected one whole under it)
cols=$(screen | sed -n '/Framing of this session/,/───/p' |
       grep -E '│  (user name|bot name|greeting|stop|ban|think) ' |
       sed -E 's/^(.*│  (user name|bot name|greeting|stop|ban|think) +).*/\1/' |
       while IFS= read -r l; do printf '%s\n' "${#l}"; done | sort -u | wc -l)
[ "$cols" = 1 ] && ok || { fail "F8's values start in $cols columns"; screen | sed 's/^/    | /'; }
close_menu "launch"
type_text "hello there"
send
check "session created" 'session: hello there'
check "the header names the user" '^Bob( |$)'
check "the header names the bot" '^Alice( |$)'
check_not "no default labels" '^(You|RWKV)( |$)'
tui_quit
if command -v sqlite3 >/dev/null 2>&1; then
    fr=$(sqlite3 "$DB" "SELECT framing FROM sessions ORDER BY id DESC LIMIT 1")
    case "$fr" in
        *'"user": "Bob"'*'"bot": "Alice"'*) ok ;;
        *) fail "framing saved with the session: $fr" ;;
    esac
fi

# resumed without --user/--bot: the session's own framing
tui_start --seed 4
keys F8
check "fresh start: default names" 'user name +User'
close_menu "fresh"
keys F2
check "sessions menu" ' Sessions '
keys Enter
check "resumed" "resumed 'hello there'"
keys F8
check "resumed: the session's names" 'user name +Bob'
# a stop string: changed in place, the session stays
keys Down Down Down
keys Enter
check "stop prompt" 'stop strings'
keys C-u
type_text '\n\nBob:,END'
keys Enter
check "stop changed in place" 'framing changed$|framing changed '
check "still the session" 'session: hello there'
keys F8
check "stop row shows both" 'stop +.n.nBob:,END'
# a bad name: one clear line, nothing changes
keys Down
keys Enter
check "user prompt" 'user name \(empty = User\)'
keys C-u
type_text 'Bo:b'
keys Enter
check "bad name refused" "framing: user name: no ':'"
check "session kept" 'session: hello there'
# other names: a new session, said clearly
keys F8
keys Down
keys Enter
keys C-u
type_text 'Carol'
keys Enter
check "names leave the session" 'next message starts a new session'
check "status: new session" 'session: new'
check_not "transcript cleared" '^  hello there'
# a preset carries the framing
keys F4
check "presets" ' Presets '
keys C-s
check "preset name prompt" 'save preset as:'
type_text 'carolfr'
keys Enter
check "preset saved" "preset 'carolfr' saved"
tui_quit
if command -v sqlite3 >/dev/null 2>&1; then
    fr=$(sqlite3 "$DB" "SELECT framing FROM presets WHERE name='carolfr'")
    case "$fr" in
        *'"user": "Carol"'*'"stop": ["\n\nBob:", "END"]'*) ok ;;
        *) fail "preset framing: $fr" ;;
    esac
fi

# the preset brings its framing back
tui_start --seed 4
keys F4
check "presets again" ' Presets '
type_text 'carolfr'
check "preset found" 'carolfr'
keys Enter
check "preset framing applied" 'framing changed|preset .carolfr. loaded'
keys F8
check "preset's user name" 'user name +Carol'
close_menu "preset"
tui_quit

# config keys and model_dir
mkdir -p "$TMP/models/sub"
: > "$TMP/models/b.pth"
: > "$TMP/models/a.pth"
: > "$TMP/models/notes.txt"
: > "$TMP/models/sub/deep.pth"
mkfifo "$TMP/models/fifo.pth" 2>/dev/null
: > "$TMP/models/locked.pth"
chmod 000 "$TMP/models/locked.pth"
printf 'user: Zed\nbot: Ann\nstop: ["\\n\\nZed:"]\nmodel_dir:\n  - %s\n  - %s/missing\n' \
    "$TMP/models" "$TMP" > "$CONF"
tui_start --seed 4
keys F8
check "config user" 'user name +Zed'
check "config stop" 'stop +.n.nZed:'
close_menu "config"
keys F5
check "models menu" ' Models '
check "model_dir file a" 'a\.pth +.*models'
check "model_dir file b" 'b\.pth +.*models'
a=$(screen | grep -n 'a\.pth' | head -1 | cut -d: -f1)
b=$(screen | grep -n 'b\.pth' | head -1 | cut -d: -f1)
if [ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]; then ok; else fail "a.pth before b.pth ($a, $b)"; fi
if [ "$(id -u)" != 0 ]; then check_not "unreadable file left out" 'locked\.pth' 1; fi
check_not "FIFO left out" 'fifo\.pth' 1
check_not "not recursive" 'deep\.pth' 1
check_not "other files left out" 'notes\.txt' 1
keys Escape
check "missing folder named" 'model folder .*missing: No such file'
tui_quit

# RWKV_TUI_MODELS: one more folder, like RWKV_TUI_STATES
mkdir -p "$TMP/more"
: > "$TMP/more/c.pth"
rm -f "$CONF"
TUI_ENV="RWKV_TUI_MODELS='$TMP/more'" tui_start --seed 4
keys F5
check "RWKV_TUI_MODELS listed" 'c\.pth +.*more'
keys Escape
tui_quit

# a bad framing key: file:line:column, the other settings kept
printf 'bot: Ann\nuser: "x:y"\n' > "$CONF"
tui_start --seed 4
check "config error with line and column" 'config\.yaml:2:7: field .user.: no .:., newline'
keys F8
check "the valid key kept" 'bot name +Ann'
check "the bad one not used" 'user name +User'
close_menu "bad config"
tui_quit
rm -f "$CONF"

# a two-line greeting pasted into its one-line field keeps its newline
# (written \n, as the field takes it)
tui_start --seed 4
keys F8
check "F8 for the paste" 'greeting +'
keys Enter
check "greeting prompt" 'greeting \(\\n = newline'
keys C-u
printf 'Carol: hi\nDave: hello' > "$TMP/greeting"
tmx load-buffer "$TMP/greeting"
tmx paste-buffer -p -r
check "pasted: the newline written \\n" 'newline, empty = none\): Carol: hi\\nDave: hello'
keys Enter
keys F8
# (shown as fed: with the blank line the chat adds at its end)
check "the greeting has two lines" 'greeting +Carol: hi\\nDave: hello\\n\\n'
close_menu "pasted greeting"
tui_quit

# bad options: one line, exit 2
expect_fail "--user with a colon" "option --user: .*no ':'" "$RWKV_TUI" --demo --no-db --user 'a:b'
expect_fail "--bot empty" "option --bot: .*1\.\.64 bytes" "$RWKV_TUI" --demo --no-db --bot ''
tui_finish
