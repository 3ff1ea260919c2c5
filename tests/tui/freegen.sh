#!/usr/bin/env bash
# tests/tui/freegen.sh -- ChatRWKV's free generation in the full-screen
# client: M-g generates from a prompt without the chat framing, M-+ goes on
# where it stopped, Esc stops it; nothing of it is saved; "\n" in the prompt
# is a newline as in the line chat's +gen, and a pasted newline is one.
. "$(dirname "$0")/tmuxlib.sh"

tui_start --max-tokens 16 --seed 3
keys M-+
check "nothing to continue yet" 'nothing to continue'
# every notice stays in the message log (M-l), whole
keys M-l
check "message log" 'Messages \(newest first\)'
check "the notice, marked an error" '[0-9:]{8}  error: nothing to continue: M-g starts a free generation'
keys Escape
check_not "log closed" 'Messages \(newest first\)'
sleep 0.3              # (an Esc and then M-g at once would read as one key)
keys M-g
check "prompt" 'generate from \(\\n = newline\):'
type_text "Once upon a time"
send
check "shown, marked not saved" 'free generation \(not saved\): Once upon a time'
check "done notice" 'M-\+ continues it'
keys M-+
wait_idle
check "continued" '\(continued\)'
tui_quit
n=$(sqlite3 "$DB" 'select count(*) from turns' 2>/dev/null)
[ "${n:-0}" = 0 ] && ok || fail "free generation saved $n turns"

# "\n" in the prompt is a newline, as in the line chat's +gen: the same
# seed gives the same text there and here; a newline pasted into the
# prompt is written "\n" (it is one line), so a pasted two-line prompt is
# generated from as it was
want=$(printf '+gen ab\\ncd\n' |
       "$RWKV_TUI" chat --demo --db "$TMP/gen.db" --max-tokens 16 --seed 7 2>/dev/null | head -1)
[ ${#want} -ge 8 ] && ok || fail "+gen in the line chat: '$want'"
for how in typed pasted; do
    tui_start --max-tokens 16 --seed 7
    keys M-g
    check "$how: prompt" 'generate from'
    if [ $how = typed ]; then
        type_text 'ab\ncd'
    else
        printf 'ab\ncd' > "$TMP/two-lines"
        tmx load-buffer "$TMP/two-lines"
        tmx paste-buffer -p -r
        check "pasted: the newline written \\n" 'generate from \(\\n = newline\): ab\\ncd'
    fi
    keys Enter
    check "$how: done" 'M-\+ continues it'
    screen | grep -qF -- "ab\ncd$want" && ok || fail "$how: not the +gen text '$want': $(screen | grep -F 'free generation')"
    tui_quit
done

# a long one is stopped with Esc and continues with M-+
tui_start --max-tokens 1000000 --seed 4
keys M-g
type_text "go"
keys Enter
check "generating" 'generating'
sleep 1
keys Escape
check "stopped" 'generation stopped; M-\+ continues it'
tui_quit
tui_finish
