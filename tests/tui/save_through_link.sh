#!/usr/bin/env bash
# tests/tui/save_through_link.sh -- the full-screen client writes through a
# symlink the user keeps (rwkv_output_target, core/io/fileio.h): F3's C-w to
# current.pth -> persona-v3.pth writes persona-v3.pth, the link stays a
# link and the notice names the file written; a dangling link's target is
# made without a "replace?" question (nothing is replaced); a link to the
# session database is refused; the input history file behind a link (a
# dotfiles folder) is written there, the link kept.  Before, each save
# replaced the link with a plain file, the file it named never written.
. "$(dirname "$0")/tmuxlib.sh"

mkdir -p "$TMP/st" "$TMP/dots" "$XDG_STATE_HOME/rwkv-tui"
echo old >"$TMP/st/persona-v3.pth"
ln -s persona-v3.pth "$TMP/st/current.pth"
ln -s fresh.pth "$TMP/st/dangling.pth"
ln -s "$DB" "$TMP/st/db.pth"
printf 'rwkv-tui history 1\n' >"$TMP/dots/history"
ln -s "$TMP/dots/history" "$XDG_STATE_HOME/rwkv-tui/history"

tui_start --max-tokens 4 --seed 3
type_text "hello"
send
check "a reply" "^RWKV +[0-9]+ tok"
wait_idle
keys F3 C-w C-u
type_text "$TMP/st/current.pth"
keys Enter
check "the target there: asked" 'exists: Enter replaces it'
keys Enter
check "saved: the file written named" 'persona-v3\.pth through the link'
[ -L "$TMP/st/current.pth" ] && [ "$(readlink "$TMP/st/current.pth")" = persona-v3.pth ] && ok ||
    fail "C-w: the link was replaced: $(ls -l "$TMP/st")"
[ "$(wc -c <"$TMP/st/persona-v3.pth")" -gt 100 ] && ok || fail "C-w: the link's target not written"
keys Escape
keys F3 C-w C-u
type_text "$TMP/st/dangling.pth"
keys Enter
check "a dangling link: saved at once, its target named" 'fresh\.pth through the link'
[ -L "$TMP/st/dangling.pth" ] && cmp -s "$TMP/st/fresh.pth" "$TMP/st/persona-v3.pth" && ok ||
    fail "C-w to a dangling link: $(ls -l "$TMP/st")"
keys Escape
keys F3 C-w C-u
type_text "$TMP/st/db.pth"
keys Enter
check "a link to the database: refused" 'db\.pth is the session database'
[ -L "$TMP/st/db.pth" ] && ok || fail "the link to the database was replaced"
keys Escape
wait_for '^save the current state as:' 1 && keys Escape
tui_quit
# the input history: written through its link
[ -L "$XDG_STATE_HOME/rwkv-tui/history" ] && grep -q hello "$TMP/dots/history" && ok ||
    fail "history behind a link: $(ls -l "$XDG_STATE_HOME/rwkv-tui"); $(cat "$TMP/dots/history")"
tui_finish
