#!/usr/bin/env bash
# tests/tui/config_refused.sh -- a --config the client cannot read is a
# usage error, as it is for every subcommand (cli_opts_check, the same
# reader): one line on stderr naming the file and why, exit 2, no screen.
# A FIFO (and a folder) used to be a note in the transcript while the client
# went on with the defaults, though a missing file exited 2 and `generate
# --config FIFO` was refused.  Checked in a real terminal (tmux): a FIFO, a
# folder, a missing file, an unreadable one (as nobody under root, as
# tests/cli/cli_opts.sh does), one larger than the limit; a config whose
# YAML is broken is still read (its problems shown with file:line, the
# client up: README, "Config file and themes"), and so is a default
# config.yaml that is a FIFO (not named: a note, the defaults).
. "$(dirname "$0")/tmuxlib.sh"

# refused DESC PATTERN ARGS...: the client started with ARGS exits 2 with
# one stderr line matching PATTERN.  Two checks.
refused() {
    local desc=$1 pat=$2 n
    shift 2
    NOWAIT=1 tui_start "$@"
    check "$desc: exit 2" '^EXIT=2' 10
    n=$(grep -c '' "$TMP/stderr.$RUNS")
    if [ "$n" = 1 ] && grep -Eq -- "$pat" "$TMP/stderr.$RUNS"; then ok; else
        fail "$desc: stderr ($n lines): $(cat "$TMP/stderr.$RUNS")"
    fi
}

mkfifo "$TMP/fifo"
refused "a FIFO" "^rwkv-tui: --config $TMP/fifo: not a regular file \\(a FIFO\\)\$" \
    --config "$TMP/fifo"
mkdir "$TMP/dir.yaml"
refused "a folder" "^rwkv-tui: --config $TMP/dir\\.yaml: not a regular file \\(a directory\\)\$" \
    --config "$TMP/dir.yaml"
refused "a missing file" "^rwkv-tui: --config $TMP/nope\\.yaml: cannot open: No such file" \
    --config "$TMP/nope.yaml"
head -c 300000 /dev/zero | tr '\0' '#' >"$TMP/big.yaml"
refused "too large" "^rwkv-tui: --config $TMP/big\\.yaml: file is larger than [0-9]+ bytes\$" \
    --config "$TMP/big.yaml"

# unreadable: root reads anyway, so under root the client runs as nobody
printf 'theme: dark\n' >"$TMP/noread.yaml"
chmod 000 "$TMP/noread.yaml"
if is_root; then
    if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
        chmod 755 "$TMP"
        printf '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups "%s" "$@"\n' \
            "$RWKV_TUI" >"$TMP/as-nobody"
        chmod 755 "$TMP/as-nobody"
        NODEMO=1 RWKV_TUI=$TMP/as-nobody refused "unreadable" \
            "^rwkv-tui: --config $TMP/noread\\.yaml: cannot open: Permission denied\$" \
            --demo --no-db --config "$TMP/noread.yaml"
    else
        fail "cannot run the binary as nobody (setpriv) for the unreadable check"
    fi
else
    refused "unreadable" "^rwkv-tui: --config $TMP/noread\\.yaml: cannot open: Permission denied\$" \
        --config "$TMP/noread.yaml"
fi

# broken YAML: read, its problems shown, the valid settings kept, the client up
printf 'sidebar_width: [\nhistory: off\n' >"$TMP/broken.yaml"
W=160 H=24 tui_start --config "$TMP/broken.yaml"
check "broken YAML: the client is up" 'F1 help'
check "broken YAML: its problem shown with file:line" 'broken\.yaml:[0-9]+'
tui_quit

# the default config.yaml (not named) as a FIFO: a note, the defaults
mkdir -p "$XDG_CONFIG_HOME/rwkv-tui"
mkfifo "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
W=160 H=24 tui_start
check "default config.yaml a FIFO: the client is up" 'F1 help'
check "... and says why it was not read" 'config\.yaml: not a regular file \(a FIFO\)'
tui_quit
rm -f "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
tui_finish
