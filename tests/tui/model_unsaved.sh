#!/usr/bin/env bash
# tests/tui/model_unsaved.sh -- F5 (another model, or another strategy) in
# the full-screen client while an exchange a failed save kept out still
# cannot be written (the leaving rule, storage/session.h).  The switch tries
# to write it first, before it loads anything; when that fails the line
# says so at once -- how many, the quit key as the footer names it, why --
# no model is loaded (the message log has no "loading" line: a load always
# logs one first) and the chat stays on the model in use.  Once the lock
# is gone the same switch writes it, says so, and loads the model.
# Before, F5 loaded the new model whole (seconds and gigabytes on a real
# checkpoint) and only then was refused, the loaded model thrown away; and
# the line said "try again, or quit" without saying how.  The real binary
# under tmux, real checkpoints from the fixtures; another program
# (python3's sqlite3) holds the database's write lock past the busy time
# (10 s).
. "$(dirname "$0")/tmuxlib.sh"

saved() { saved_user_text "$1"; }
M=$FX/models
# (in the footer, the database named by its file name: the log has it whole)
refused='1 exchange is not saved, so this chat stays: try again, or quit with F10'
why='sessions\.db: database is locked\)'

if ! command -v sqlite3 >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    skip 25 "sqlite3 or python3 not found"
    finish
    exit
fi
if ! { have_fixture models/tiny-7v0-fp32.pth 25 && have_fixture models/tiny-6v0-fp32.pth 25; }; then
    tui_finish
    exit
fi

NODEMO=1 tui_start --model "$M/tiny-7v0-fp32.pth" --db "$DB" --max-tokens 6 --seed 1
keep_one_out "$DB"

# F5, another checkpoint, under the lock: refused before any load
keys F5
check "models menu" 'tiny-7v0-fp32\.pth \(in use\)'
type_text "tiny-6v0-fp32"
keys Enter
check "F5 under the lock: refused, how many, the quit key" "$refused" 40
check "... and why" "$why"
keys Escape
check_not "Esc: the line goes" 'so this chat stays'
check "the model in use stays" 'tiny-7v0-fp32\.pth \| cpu fp32'
screen | grep -q 'kept words' && screen | grep -q 'first words' && ok \
    || fail "the conversation left the screen: $(screen)"
# the strategy (F5 C-s): the same rule, the same model reloaded otherwise
keys F5 C-s C-u
type_text "cpu bf16"
keys Enter
check "C-s under the lock: refused too" "$refused" 40
check "... and why" "$why"
# (the prompt stays open holding the strategy, the refusal in its dialog:
# Esc gives up, back to F5; Esc again closes F5)
check "the prompt kept open" '^strategy: cpu bf16'
keys Escape
check "Esc: back in F5" ' Models'
keys Escape
check_not "Esc: the line goes again" 'so this chat stays'
check "the strategy in use stays" 'tiny-7v0-fp32\.pth \| cpu fp32'
keys M-l
check "message log" 'Messages \(newest first\)'
# (the log wraps its lines: the refusal's start on one)
[ "$(screen | grep -c 'error: 1 exchange is not saved, so this chat stays')" = 2 ] && ok \
    || fail "not both refusals in the log: $(screen)"
screen | grep -Eq 'loading .*tiny-6v0|loading .*tiny-7v0' \
    && fail "a model was loaded before the refusal: $(screen)" || ok
screen | grep -q 'stays in use' && fail "refused after a load: $(screen)" || ok
keys Escape
check_not "log closed" 'Messages \(newest first\)'
[ "$(saved "$DB")" = "first words" ] && ok || fail "saved under the lock: '$(saved "$DB")'"

# the lock gone: F5 writes it first, then loads the model, a new session
release_lock
keys F5
check "models menu again" 'tiny-7v0-fp32\.pth \(in use\)'
type_text "tiny-6v0-fp32"
keys Enter
check "switched once the lock was gone" 'tiny-6v0-fp32\.pth \| cpu fp32' 60
check "a new session" 'session: new'
check_not "the conversation left" 'kept words'
[ "$(saved "$DB")" = "first words kept words" ] && ok || fail "saved: '$(saved "$DB")'"
keys M-l
check "written first, said" 'saving works again: the earlier exchange not saved is in'
keys Escape
tui_quit
tui_finish
