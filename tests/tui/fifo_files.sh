#!/usr/bin/env bash
# tests/tui/fifo_files.sh -- a FIFO given (or found) where the client reads
# a file is refused with one line and never blocks in open(2) waiting for a
# writer (it did for the config and theme): --config, a usage error (exit 2,
# the line on stderr, as every subcommand: config_refused.sh); --theme and
# the default config.yaml, in the UI, the client starting with the
# defaults; F3 leaves out a FIFO or a folder named like a state file.
. "$(dirname "$0")/tmuxlib.sh"

mkfifo "$TMP/fifo"
NOWAIT=1 W=160 H=24 tui_start --config "$TMP/fifo"
check "--config FIFO: exit 2" '^EXIT=2'
grep -q 'fifo: not a regular file (a FIFO)' "$TMP/stderr.$RUNS" && ok ||
    fail "--config FIFO: stderr: $(cat "$TMP/stderr.$RUNS")"

W=160 H=24 tui_start --theme "$TMP/fifo"
check "--theme FIFO: refused, default theme" 'fifo: not a regular file \(a FIFO\); using the'
tui_quit

mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"
mkfifo "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
W=160 H=24 tui_start
check "a FIFO as the default config.yaml: refused" 'config.yaml: not a regular file \(a FIFO\)'
tui_quit
rm -f "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"

# F3 lists only what can be loaded: a FIFO or a folder named like a state
# file is left out ($RWKV_TUI_STATES)
mkdir -p "$TMP/st/folder.pth"
mkfifo "$TMP/st/pipe.pth"
python3 "$(dirname "$0")/mkstate.py" "$TMP/st/real.safetensors" 2 7 13 >/dev/null 2>&1 ||
    : >"$TMP/st/real.safetensors"
TUI_ENV="RWKV_TUI_STATES=$TMP/st" W=160 H=24 tui_start
keys F3
check "F3 lists the state file" 'real\.safetensors'
check_not "no folder named .pth" 'folder\.pth'
check_not "no FIFO" 'pipe\.pth'
keys Escape
tui_quit
tui_finish
