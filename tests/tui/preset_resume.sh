#!/usr/bin/env bash
# tests/tui/preset_resume.sh -- the config file's preset is a default, not a
# launch value: it holds for a new chat, but a resumed session keeps its own
# sampling values; values given on the command line still win over the
# session's; a preset chosen with F4 applies at once.
. "$(dirname "$0")/tmuxlib.sh"
mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"

# a session saved with temperature 1.7
printf 'hi\n' | "$RWKV_TUI" chat --demo --db "$DB" --temperature 1.7 --seed 1 --max-tokens 3 \
    >/dev/null 2>"$TMP/e1" && ok || fail "chat: $(cat "$TMP/e1")"
# a preset 'cool' (temperature 0.3), the config's default preset
"$RWKV_TUI" sessions --db "$DB" list >/dev/null 2>&1
if command -v sqlite3 >/dev/null 2>&1; then
    sqlite3 "$DB" "INSERT INTO presets(name, builtin, sampling) VALUES ('cool', 0, 'temperature=0.3')" &&
        ok || fail "preset row"
else
    skip 33 "sqlite3 not found"
    tui_finish
    exit
fi
printf 'preset: cool\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"

# a new chat: the config's preset
tui_start
check "new chat: the config's preset" 'temperature +0\.3 *$'
tui_quit

# resumed: the session's own value, not the config's preset
tui_start --resume
check "resumed" 'session: hi'
check "resumed: the session's temperature" 'temperature +1\.7 *$'
# F4: a preset chosen now applies
keys F4
check "presets menu" ' Presets '
type_text 'cool'
check "preset found" 'cool'
keys Enter
check "preset loaded" "preset 'cool' loaded"
check "F4 preset applies" 'temperature +0\.3 *$'
tui_quit

# the command line wins over the session's value
tui_start --resume --temperature 0.9
check "command line wins" 'temperature +0\.9 *$'
tui_quit

# framing: a session saved with think short and the default stop string
printf 'hi\n' | "$RWKV_TUI" chat --demo --db "$DB" --new framed --think short --seed 1 \
    --max-tokens 3 >/dev/null 2>"$TMP/e2" && ok || fail "chat --think: $(cat "$TMP/e2")"
printf 'think: on\nstop: ["xyz"]\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
tui_start
check "new chat: the config's think mode" '\| think: on \|'
tui_quit
tui_start --resume
check "resumed the framed session" 'session: framed'
check "resumed: the session's think mode" '\| think: short \|'
check_not "resumed: its saved state is used (same demo model)" 'not used|replayed'
keys F8
check "framing menu" ' Framing of this session'
check "resumed: the session's stop string" "stop +.n.n \(the demo's\)"
keys Escape
check_not "framing menu closed" ' Framing of this session'
tui_quit
fr=$(sqlite3 "$DB" "SELECT framing FROM sessions WHERE title = 'framed'")
case "$fr" in
    *'"think": "short"'*xyz* | *xyz*'"think": "short"'*) fail "config framing saved over the session: $fr" ;;
    *'"think": "short"'*) ok ;;
    *) fail "session framing after a resume: $fr" ;;
esac
tui_start --resume --think off
check "--think with --resume wins" 'session: framed'
check_not "think off shown as off" '\| think: '
tui_quit
# a preset's framing is whole: saved with think off, it beats the config's think: on
sqlite3 "$DB" "INSERT INTO presets(name, builtin, sampling, framing) VALUES ('plain', 0,
    'temperature=0.5', '{\"greeting\": null, \"user\": \"User\", \"bot\": \"Assistant\", \"stop\": [], \"ban\": []}')" &&
    ok || fail "preset row with a framing"
printf 'think: on\nstop: ["xyz"]\npreset: plain\n' > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
tui_start
check "the config's preset" 'temperature +0\.5 *$'
check_not "its framing's think off wins" '\| think: '
keys F8
check "framing menu (preset)" ' Framing of this session'
check "its framing's default stop wins" "stop +.n.n \(the demo's\)"
keys Escape
check_not "framing menu closed (preset)" ' Framing of this session'
tui_quit
tui_finish
