#!/usr/bin/env bash
# tests/tui/sessions_io.sh -- F2: export the selected session (C-e: Markdown,
# or JSON for a .json name, the same bytes as `rwkv-tui sessions export`),
# import a session file (C-o, as `sessions import`; a bad file is one line),
# an existing file replaced only after a second Enter (Esc keeps it), a
# notice before an import's wait,
# and the list filtered by model: C-t cycles through the models present, a
# typed "model:NAME" word does the same.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 6 --seed 2
type_text "apples are red"
send
check "saved" 'session: apples are red'

# export as Markdown (the default name is offered)
keys F2
check "sessions menu" ' Sessions '
check "the row shows model and id" 'apples are red +[0-9]+ turns +#1 [^│]*\(demo\)'
keys C-e
check "export prompt with a default name" 'export to .*: rwkv-session-1\.md'
keys C-u
type_text "$TMP/s1.md"
keys Enter
check "exported (Markdown)" 'session 1 exported to .*s1\.md \(Markdown\)'
"$RWKV_TUI" sessions export 1 --db "$DB" >"$TMP/cli.md" 2>/dev/null
if cmp -s "$TMP/s1.md" "$TMP/cli.md"; then ok; else fail "F2 export differs from 'sessions export'"; fi

# and as JSON
keys F2 C-e C-u
type_text "$TMP/s1.json"
keys Enter
check "exported (JSON)" 'exported to .*s1\.json \(JSON\)'
grep -q '"format": "rwkv-tui-session"' "$TMP/s1.json" && ok || fail "not a JSON export"
"$RWKV_TUI" sessions export 1 --format json --db "$DB" >"$TMP/cli.json" 2>/dev/null
if cmp -s "$TMP/s1.json" "$TMP/cli.json"; then ok; else fail "F2 JSON export differs from the CLI's"; fi

# an existing file is replaced only after a second Enter; Esc keeps it
echo "my notes" >"$TMP/notes.md"
check_overwrite "F2 C-e" "$TMP/notes.md" 'session 1 exported to .*notes\.md \(Markdown\)'
cmp -s "$TMP/notes.md" "$TMP/cli.md" && ok || fail "notes.md not the export"

# the session database itself (or one of its files): refused, never written
# over, however many times Enter is pressed (it replaced the open database)
keys F2 C-e C-u
type_text "$DB"
keys Enter
check "the database: refused" 'is the session database: not written over'
# the path typed is kept (prompt_retry.sh): Enter again, refused again
check "the prompt is open again, holding it" "^export to .*sessions\.db *\$" 2
keys Enter
check "refused again" 'is the session database: not written over'
check_not "no replace question" 'exists: Enter replaces it'
keys Escape
check_not "Esc: the prompt goes" '^export to'
[ "$(head -c 15 "$DB")" = "SQLite format 3" ] && ok || fail "F2 C-e wrote over the database"
"$RWKV_TUI" sessions list --db "$DB" >/dev/null 2>&1 && ok || fail "the database no longer opens"

# a file that cannot be written: one line, nothing else changes
keys F2 C-e C-u
type_text "$TMP/no/such/dir/x.md"
keys Enter
check "unwritable path: one line" 'no/such/dir/x\.md: '
check_not "no crash" 'EXIT='
check "the path kept for Enter again" '^export to .*no/such/dir/x\.md *$' 2
keys Escape
check_not "Esc: the prompt goes" '^export to'

# import the same conversation as another model's session
sed -E 's|"path": "\(demo\)", "fingerprint": "[0-9a-f]+"|"path": "/models/other-7.pth", "fingerprint": "00000000000000ff"|' \
    "$TMP/s1.json" >"$TMP/other.json"
grep -q 'other-7.pth' "$TMP/other.json" && ok || fail "sed: no other model in the copy"
keys F2 C-o
check "import prompt" 'import the session file'
type_text "$TMP/other.json"
keys Enter
check "imported" 'imported .*other\.json as session 2'
check "listed, selected, with its model" '#2 [^│]*other-7\.pth'
check "the first one too" '#1 [^│]*\(demo\)'

# a bad file is refused with one line
keys C-o
type_text "$TMP/s1.md"
keys Enter
check "bad file: one line" 's1\.md: a Markdown export, which cannot be imported'
check "the path kept for Enter again" '^import the session file.*s1\.md *$' 2
keys Escape
check "still two sessions" '#2 [^│]*other-7\.pth'

# a file whose message's text is not its tokens (a hidden prompt) is refused,
# as `sessions import` refuses it: nothing imported
python3 - "$TMP/s1.json" "$TMP/hidden.json" <<'PYEOF2'
import json, sys
d = json.load(open(sys.argv[1]))
u = [t for t in d["turns"] if t["role"] == "user"][0]
u["text"] = "hello"
json.dump(d, open(sys.argv[2], "w"))
PYEOF2
keys C-o
type_text "$TMP/hidden.json"
keys Enter
check "tokens not their text: refused" 'turn 2 \(user\): its tokens are not its'
keys Escape
check "still two sessions after it" '#2 [^│]*other-7\.pth'
check_not "... no third" '#3 ' 1

# C-t: one model, the next, then all again
keys C-t
check "first model" 'search: model:\(demo\)'
check "its session" '#1 [^│]*\(demo\)'
check_not "the other model's session hidden" '#2 [^│]*other-7'
keys C-t
check "next model" 'search: model:other-7\.pth'
check "its session" '#2 [^│]*other-7'
check_not "the demo's hidden" '#1 [^│]*\(demo\)'
keys C-t
check "all models again" '#1 [^│]*\(demo\)'
check "both" '#2 [^│]*other-7'
check_not "no model word" 'search: model:'

# typed: model:NAME (a prefix of the file name) with other words
type_text "model:other apples"
check "typed model filter" '#2 [^│]*other-7'
check_not "typed: the demo's hidden" '#1 [^│]*\(demo\)'
# the bottom line keeps "Esc close" when the hints do not fit; F1 lists them all
check "hint: more in F1, Esc close kept" 'F1 more  Esc close'
# C-u clears a menu's search, as it clears the message box
keys C-u
check_not "C-u: the search is gone" 'search: model:other'
check "C-u: every session again" '#1 [^│]*\(demo\)'
check "the menu stays open" 'F1 more  Esc close'
keys F1
type_text "Sessions: C-"
check "help lists C-e" 'Sessions: C-e +export'
check "help lists C-o" 'Sessions: C-o +import'
check "help lists C-t" 'Sessions: C-t +show only the sessions of the next model'
keys Escape
check_not "help closed" 'Help: every key'
keys F1
type_text "Branches: C-d"
check "help lists the branch delete" 'Branches: C-d +delete the selected turn'
keys Escape
check_not "help closed again" 'Help: every key'
keys F1
type_text "click"
check "help lists clicks" 'Menus: click +select a row'
keys Escape
check_not "help closed a third time" 'Help: every key'
# the import said what it was doing before the wait (a large file takes
# seconds), as the message log keeps
keys M-l
check "log: importing, said first" 'importing .*other\.json\.\.\.'
keys Escape
tui_quit
tui_finish
