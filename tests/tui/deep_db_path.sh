#!/usr/bin/env bash
# tests/tui/deep_db_path.sh -- a message naming the session database is
# shown the same way whatever folder the database is in.  The leaving
# rule's refusal (C-n while an exchange a failed save kept out still cannot
# be written: storage/session.h) ends with the reason, the database's path
# in it; the client decided footer or error dialog on the whole line, so
# the folder's depth did: at 120 columns the line fit the footer from a
# short folder and opened the dialog from a deep one (or from the tests'
# own temp folder).  Now the footer names the database by its file name
# ("…/sessions.db"), says the whole is in the log (M-l), and the choice is
# made on that form; the dialog (an error too wide for the footer as
# shown) and the log have the message whole, the path included.  120x40
# and 80x24 from a short folder and a deep one; 20x6 does not break.  The
# real binary under tmux, real files; another program (python3's sqlite3)
# holds the database's write lock past the busy time (10 s).
. "$(dirname "$0")/tmuxlib.sh"

if ! command -v sqlite3 >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    skip 33 "sqlite3 or python3 not found"
    finish
    exit
fi

refused='1 exchange is not saved, so this chat stays: try again, or quit with F10'
footer="^$refused \(…/sessions\.db: database is locked\) \(M-l: log\) *$"
dialog='│ +Error +│'
nospace() { tr -d ' \n'; }

# the text of the box whose title row has $1, down to its row with $2:
# between its borders (the transcript shows beside a menu), the rows
# joined (the wrap breaks the path anywhere: no spaces kept)
box_text() {
    screen | python3 -c '
import sys
rows, title, last = sys.stdin.read().split("\n"), sys.argv[1], sys.argv[2]
top = next(i for i, r in enumerate(rows) if title in r)
l = rows[top].rfind("\u2502", 0, rows[top].index(title))
r = rows[top].index("\u2502", rows[top].index(title))
for row in rows[top:]:
    print(row[l + 1:r])
    if last in row:
        break
' "$1" "$2" 2>/dev/null | nospace
}
# has_whole WHAT TEXT: TEXT (a box's joined rows) holds the refusal's
# reason whole, the database's path in it.  One check.
has_whole() {
    case $2 in
    *"$(printf '%s' "($DB: database is locked)" | nospace)"*) ok ;;
    *) fail "$1: the path is not there whole: '$2'"; screen | sed 's/^/    | /' ;;
    esac
}

# refuse_at W H: the window resized to WxH, then C-n under the lock: it
# tries to save, waits for the lock, then is refused.  One check: the
# footer's "saving the exchange ..." (drawn once, at once replaced by the
# wait's line) or "waiting for the lock ..." (the 10 s of the wait).
refuse_at() {
    tui_resize "$1" "$2"
    keys C-n          # (also closes an error dialog open now)
    check "$1x$2: C-n tries to save first" '^(saving the exchange|waiting for the lock|waiting …)' 20
}

# at_120 WHERE: the refusal in the footer, its form the same from any
# folder, no dialog; the log has it whole.  Six checks.
at_120() {
    refuse_at 120 40
    check "$1, 120 columns: the refusal in the footer, the folder left out" "$footer" 40
    check_not "$1, 120 columns: no dialog" "$dialog" 1
    keys M-l
    check "$1: the message log" 'Messages \(newest first\)'
    has_whole "$1: the log" "$(box_text 'Messages (newest first)' 'Esc close')"
    keys Escape
    check_not "$1: the log closed" 'Messages \(newest first\)'
}

# at_80 WHERE: too wide for 80 columns even so: the dialog, the path
# whole in it, the footer pointing to the log.  Five checks.
at_80() {
    refuse_at 80 24
    check "$1, 80 columns: the refusal too wide: the dialog" "$dialog" 40
    check "$1, 80 columns: ... its text" 'so this chat stays: try again, or quit with F10'
    has_whole "$1, 80 columns: the dialog" "$(box_text ' Error ' 'any key closes')"
    check "$1, 80 columns: the footer points to the log" '… \(M-l: log\) *$'
}

# --- from the tests' own temp folder -------------------------------------------------------
tui_start --seed 1 --max-tokens 6
keep_one_out "$DB"
at_120 "a short folder"
at_80 "a short folder"
release_lock
tui_resize 120 40
tui_quit

# --- from a deep folder ------------------------------------------------------------------------
DB=$TMP$(printf '/a-rather-deep-folder-%02d' $(seq 1 8))/sessions.db
mkdir -p "${DB%/*}"
tui_start --seed 1 --max-tokens 6
keep_one_out "$DB"
at_120 "a deep folder"
at_80 "a deep folder"
# 20x6: the dialog cannot hold it, and says so; nothing breaks
refuse_at 20 6
check "20x6: the dialog" 'Error' 40
check "20x6: more in the log" '\(more in the log\)|more in the'
screen | grep -q '^EXIT=' && fail "20x6: the client ended: $(screen)" || ok
release_lock
tui_resize 120 40
keys x BSpace     # (a key closes the dialog)
tui_quit
[ "$(saved_user_text "$DB")" = "first words kept words" ] && ok || fail "saved: '$(saved_user_text "$DB")'"
tui_finish
