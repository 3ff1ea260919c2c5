#!/usr/bin/env bash
# tests/tui/library.sh -- the state-file library: F3 lists the database's
# state files beside the state directory; C-s imports a file (its bytes go
# into the database, checked against the model first); an imported state
# still works, and a session made from it still resumes, after the file on
# disk is gone.
. "$(dirname "$0")/tmuxlib.sh"

command -v sqlite3 >/dev/null 2>&1 || { echo "sqlite3 not found: skipping"; echo "0 passed, 0 failed"; exit 0; }

# State-tuning files for the demo model (RWKV-7, 2 layers, 2 heads of 64)
mkdir -p "$TMP/states" "$XDG_CONFIG_HOME/rwkv-tui"
python3 "$(dirname "$0")/mkstate.py" "$TMP/states/keeper.safetensors" 2 5 11 \
    || { echo "python3 needed"; echo "0 passed, 1 failed"; exit 1; }
python3 "$(dirname "$0")/mkstate.py" "$TMP/states/alien.safetensors" 3 5 11 \
    || { echo "python3 needed"; echo "0 passed, 1 failed"; exit 1; }
SIZE=$(wc -c < "$TMP/states/keeper.safetensors")
printf 'state_dir: %s\n' "$TMP/states" > "$XDG_CONFIG_HOME/rwkv-tui/config.yaml"
# the client's temporary files go to a folder of this test's own (checked at
# the end: another run on the machine may have its own in /tmp meanwhile)
mkdir -p "$TMP/tmp"
TUI_ENV="TMPDIR='$TMP/tmp'"

tui_start --max-tokens 6 --seed 2
keys F1
type_text "library"
check "help lists the import key" 'State files: C-s +import the file into the library'
keys Escape
keys F3
check "state menu" 'State files'
check "directory file listed" 'keeper\.safetensors +'"$TMP"'/states'
check "import key in the hint" 'C-s import into the library'
type_text "keeper"
keys C-s
check "import notice" 'imported keeper\.safetensors into the library \(([0-9]+) KiB\)'
check "listed as imported" 'keeper\.safetensors +library, imported, [0-9]+ KiB'
# the database holds the file's bytes, exactly
n=$(sqlite3 "$DB" "SELECT count(*) FROM state_files WHERE name='keeper.safetensors' AND length(data)=$SIZE AND path=''")
if [ "$n" = 1 ]; then ok; else fail "state_files row with the file's $SIZE bytes: got $n"; fi
got=$(sqlite3 "$DB" "SELECT hex(data) FROM state_files WHERE name='keeper.safetensors'" | head -c 64)
want=$(od -An -tx1 -N32 "$TMP/states/keeper.safetensors" | tr -d ' \n' | tr a-f A-F)
if [ "$got" = "$want" ]; then ok; else fail "imported bytes differ: $got vs $want"; fi

# a file for another model is refused, nothing imported
keys C-u
keys Escape
keys F3
type_text "alien"
keys C-s
check "other model refused" '3 layers, the model has 2'
n=$(sqlite3 "$DB" "SELECT count(*) FROM state_files WHERE name='alien.safetensors'")
if [ "$n" = 0 ]; then ok; else fail "alien imported anyway"; fi
keys Escape
tui_quit

# the file is gone from disk: the library still has it
rm -f "$TMP/states/keeper.safetensors"
tui_start --max-tokens 6 --seed 2
keys F3
check "library entry survives the file" 'keeper\.safetensors +library, imported'
type_text "keeper"
keys Enter
check "new session from the imported state" 'state: keeper\.safetensors'
check "state defaults applied (top-p 0.2)" 'top-p +0\.2'
type_text "from the library"
send
check "reply under the imported state" '^RWKV'
# the session points at the imported row, not at a temporary file
n=$(sqlite3 "$DB" "SELECT count(*) FROM sessions s JOIN state_files f ON f.id=s.state_file_id WHERE f.name='keeper.safetensors' AND f.path=''")
if [ "$n" = 1 ]; then ok; else fail "session not linked to the imported row ($n)"; fi
n=$(sqlite3 "$DB" "SELECT count(*) FROM state_files WHERE path LIKE '%rwkv-tui-state-%'")
if [ "$n" = 0 ]; then ok; else fail "a temporary path was saved as a state file"; fi
keys F3
check "in use" 'keeper\.safetensors +\(in use\) library, imported'
keys Escape
tui_quit

# resume that session: its state comes from the database (a wide window:
# beside the resumed reply's speeds, the status line's labels give way)
W=180 tui_start --max-tokens 6 --seed 2
keys F2
type_text "from the library"
keys Enter
check "resumed" '^  from the library'
check "state of the resumed session" 'state: keeper\.safetensors'
check_not "no state error" 'state file of this session'
type_text "and again"
send
check "continues" '^  and again'
tui_quit
ls "$TMP/tmp"/rwkv-tui-state-* >/dev/null 2>&1 && fail "temporary state files left behind" || ok
tui_finish
