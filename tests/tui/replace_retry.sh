#!/usr/bin/env bash
# tests/tui/replace_retry.sh -- a replace confirmed, then a write that
# fails: the prompt opens again holding the path (prompt_retry.sh), and
# Enter there tries the write again -- it does not ask "file exists: Enter
# replaces it" a second time (it did: the confirmation was forgotten as the
# write began, so the retry asked, and only a third Enter wrote).  Another
# name typed in the reopened prompt is asked about as ever.  F2's export
# (C-e) and F3's state save (C-w).  The write fails in a folder the client
# may not create files in (under root the client runs as nobody, as
# tests/cli/files.sh does); the folder is opened up before the retry.
. "$(dirname "$0")/tmuxlib.sh"
export XDG_DATA_HOME=$TMP/data
TUI_ENV="XDG_DATA_HOME='$XDG_DATA_HOME'"
RO=$TMP/ro
mkdir -p "$RO" "$XDG_DATA_HOME"
printf 'old export\n' >"$RO/x.md"
printf 'old state\n' >"$RO/s.pth"
printf 'other\n' >"$RO/other.md"
# the files themselves writable by the client (a file it may not write is
# refused before any write: store_output_check); only the folder says no
chmod 666 "$RO/x.md" "$RO/s.pth" "$RO/other.md"

if is_root; then
    if ! setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
        fail "cannot run the binary as nobody (setpriv)"
        finish
        exit
    fi
    # the client's own files (database, history, states) where nobody may write
    chmod 1777 "$TMP"
    chmod 777 "$XDG_CONFIG_HOME" "$XDG_DATA_HOME"
    printf '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups "%s" "$@"\n' \
        "$RWKV_TUI" >"$TMP/as-nobody"
    chmod 755 "$TMP/as-nobody"
    RWKV_TUI=$TMP/as-nobody
    chmod 755 "$RO"          # root's: nobody cannot create files in it
else
    chmod 555 "$RO"
fi
shut() { chmod 755 "$RO"; is_root || chmod 555 "$RO"; }
open_up() { chmod 777 "$RO"; }

tui_start --max-tokens 5 --seed 3
type_text "first words"
send

# --- F2 C-e: export over an existing file ------------------------------------------
keys F2
check "F2 open" 'Sessions'
keys C-e C-u
type_text "$RO/x.md"
keys Enter
check "export: asked first" 'file exists: Enter replaces it, Esc keeps it: .*ro/x\.md'
keys Enter
check "export: the confirmed write fails" 'x\.md: cannot create: Permission denied' 10
check "... in the retry dialog" 'Enter tries again  Esc gives up'
check "... the prompt holds the path" "export to .*ro/x\\.md|file exists: .*ro/x\\.md" 2
open_up
keys Enter
check "export: Enter retried the write, not asked again" \
    'session 1 exported to .*ro/x\.md \(Markdown\)' 10
grep -q 'first words' "$RO/x.md" && ok || fail "export: x.md not replaced: $(cat "$RO/x.md")"
check_not "export: the retry dialog went" 'Enter tries again'

# another name typed in the reopened prompt is asked about
shut
printf 'old export\n' >"$RO/x.md"
keys F2
check "F2 open again" 'Sessions'
keys C-e C-u
type_text "$RO/x.md"
keys Enter
check "export again: asked first" 'file exists: Enter replaces it'
keys Enter
check "export again: the write fails" 'x\.md: cannot create: Permission denied' 10
keys C-u
type_text "$RO/other.md"
open_up
keys Enter
check "another existing name: asked" 'file exists: Enter replaces it, Esc keeps it: .*ro/other\.md'
grep -qx 'other' "$RO/other.md" && ok || fail "other.md written without asking"
keys Escape
check_not "Esc: the question goes" 'file exists'
keys Escape

# --- F3 C-w: a state file over an existing one ----------------------------------------
shut
keys F3
check "F3 open" 'State files'
keys C-w C-u
type_text "$RO/s.pth"
keys Enter
check "state: asked first" 'file exists: Enter replaces it, Esc keeps it: .*ro/s\.pth'
keys Enter
check "state: the confirmed write fails" 's\.pth: cannot create: Permission denied' 10
check "... in the retry dialog" 'Enter tries again  Esc gives up'
open_up
keys Enter
check "state: Enter retried the write, not asked again" 'state saved to .*ro/s\.pth' 10
grep -q 'old state' "$RO/s.pth" && fail "state: s.pth not replaced" || ok
keys Escape
tui_quit
tui_finish
