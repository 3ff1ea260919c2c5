# tests/tui/tmuxlib.sh -- helpers for the tmux scenarios (sourced; the name
# ends in lib.sh so tests/run.sh does not run it as a test).
#
#   tui_start [args...]   start the real binary in a private tmux server
#                         (120x40, --demo, a temp --db, XDG_CONFIG_HOME and
#                         XDG_STATE_HOME: the input history's file)
#   wait_for PATTERN [S]  poll the screen until an extended regex matches
#   screen                the screen as text
#   keys KEYS...          tmux send-keys
#   send [N]              Enter, wait until the client took the message, then
#                         until the reply is done (wait_idle N)
#   tui_resize W H        resize the window and wait until the client's
#                         terminal has that size (keys sent after it come
#                         after the client's KEY_RESIZE)
#   wait_exit CODE [S]    poll until the command line printed EXIT=CODE
#   tui_quit              F10, then wait for the process to exit 0
#   f2_find TEXT          F2, TEXT typed: the sessions menu shows it (a check)
#   tui_finish            sanitizer/crash check of every run, then `finish`
. "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh"
SOCK=rwkvtest-$$
RUNS=0
export XDG_CONFIG_HOME=$TMP/config
mkdir -p "$XDG_CONFIG_HOME"
# the input history file goes here, never to the developer's own
export XDG_STATE_HOME=$TMP/state
DB=$TMP/sessions.db
export LANG=C.UTF-8 LC_ALL=C.UTF-8
# English, whatever the developer's desktop language (LANGUAGE would win
# over LC_ALL); a test of the Chinese interface sets its own in TUI_ENV
unset LANGUAGE LC_MESSAGES
# (what a developer's shell may set that the client reads: the tests set
# their own where they need one)
unset NO_COLOR COLORTERM RWKV_TUI_MODELS RWKV_TUI_STATES
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$TMP"' EXIT

if ! command -v tmux >/dev/null 2>&1; then
    echo "tmux not found: skipping"
    echo "0 passed, 0 failed"
    exit 0
fi

tmx() { tmux -L "$SOCK" "$@"; }

# tmx_fresh CMD: a new private server running the shell command CMD in a
# 120x40 window.  The server just killed may still be going away, so a
# failed start is retried (a busy machine makes that race likely).
tmx_fresh() {
    local try
    tmx kill-server 2>/dev/null
    for try in 1 2 3 4 5 6 7 8 9 10; do
        sleep 0.2
        tmx -f /dev/null new-session -d -x "${W:-120}" -y "${H:-40}" "$1" 2>/dev/null && return 0
    done
    fail "tmux: could not start a server"
    return 1
}

# tui_start [args]: the binary gets --demo --db $DB unless NODEMO=1; it waits
# until the start is idle unless NOWAIT=1.
tui_start() {
    RUNS=$((RUNS + 1))
    local extra="--demo --db $DB"
    local san=""
    [ "${NODEMO:-0}" = 1 ] && extra=""
    # a sanitizer build under TERM=linux: ncurses' mouse set-up loads libgpm,
    # which keeps 10 bytes for good; it is unloaded by exit, so only a full
    # unwind at malloc names the stack tests/lsan.supp matches
    case "${RWKV_ASAN:-}:${TUI_ENV:-}" in
    ?*:*TERM=linux*) san="LSAN_OPTIONS='${LSAN_OPTIONS:+$LSAN_OPTIONS:}fast_unwind_on_malloc=0'" ;;
    esac
    tmx_fresh "env XDG_CONFIG_HOME='$XDG_CONFIG_HOME' XDG_STATE_HOME='$XDG_STATE_HOME' LANG=C.UTF-8 LC_ALL=C.UTF-8 $san ${TUI_ENV:-} \
             '$RWKV_TUI' $extra $* 2>'$TMP/stderr.$RUNS'; echo EXIT=\$?; sleep 600"
    tmx set-option -g window-size manual >/dev/null 2>&1
    wait_for 'F1 help|F1 帮助|terminal too small|终端太小|EXIT=' 10
    # the greeting is prefilled at start (NOWAIT=1: a test that watches the
    # start itself, e.g. a replay's progress)
    [ "${NOWAIT:-0}" = 1 ] || wait_idle 100
}

screen() { tmx capture-pane -p -J 2>/dev/null; }
# screen_rows: the screen a row a line, wrapped rows not joined.  The
# client's exit marker (tui_start: "EXIT=N" echoed where endwin left the
# cursor, column 0) starts a row, but a row above it that tmux still flags
# as wrapped (text drawn at an older, narrower size, reflowed on a resize)
# is joined in front of it by `screen`.
screen_rows() { tmx capture-pane -p 2>/dev/null; }
keys() { tmx send-keys "$@"; }
type_text() { tmx send-keys -l -- "$1"; }

# wait_for PATTERN [SECONDS]: 0 when the screen matches.
wait_for() {
    local pat=$1 t=${2:-10} i=0 n
    n=$((t * 10))
    while [ $i -lt $n ]; do
        if screen | grep -Eq -- "$pat"; then return 0; fi
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# check DESC PATTERN [SECONDS]: a test that the screen shows PATTERN.
check() {
    if wait_for "$2" "${3:-10}"; then ok; else fail "$1: /$2/ not on screen"; screen | sed 's/^/    | /' | head -45; fi
}
# check_not DESC PATTERN [SECONDS]: PATTERN leaves the screen (polls).
check_not() {
    local i=0 n=$(( ${3:-5} * 10 ))
    while [ $i -lt $n ]; do
        if ! screen | grep -Eq -- "$2"; then ok; return; fi
        sleep 0.1
        i=$((i + 1))
    done
    fail "$1: /$2/ is on screen"; screen | sed 's/^/    | /'
}

# check_overwrite OPEN PATH DONE: a prompt that writes the existing file
# PATH (OPEN: the keys that open it, its text cleared with C-u) asks first;
# Esc keeps the file as it was, the question comes again, and a second
# Enter writes it (DONE: the notice's pattern).
check_overwrite() {
    local name kept="$TMP/.overwrite-kept"
    name=$(basename "$2" | sed 's/\./\\./g')
    cp "$2" "$kept"
    keys $1 C-u
    type_text "$2"
    keys Enter
    check "an existing file: asks first" "file exists: Enter replaces it, Esc keeps it: .*$name"
    keys Escape
    check_not "Esc: the question goes" 'file exists'
    cmp -s "$2" "$kept" && ok || fail "Esc: $2 was replaced"
    keys $1 C-u
    type_text "$2"
    keys Enter
    check "asked again after Esc" 'file exists: Enter replaces it'
    keys Enter
    check "second Enter: written" "$3"
    rm -f "$kept"
}

# Wait until the reply in progress has finished (status shows no activity).
# Right after a key that starts one use `send` (or wait for what the key
# shows first): on a busy machine the client may not have read the key yet
# when wait_idle looks, and then it returns at once.
wait_idle() {
    local i=0
    sleep 0.2
    while [ $i -lt ${1:-300} ]; do
        if ! screen | head -1 | grep -Eq 'prefilling|generating|replaying|预填充中|生成中|重放中'; then return 0; fi
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# send [N]: Enter sends the message in the input box; wait until the client
# has taken it (the box shows its placeholder again: the reply has started)
# and then until the reply has finished (wait_idle N).
send() {
    keys Enter
    wait_for '^> (Type a message|输入消息)' 10 ||
        fail "send at ${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]}: the message was not sent: $(screen | tail -3 | tr '\n' '|')"
    wait_idle "$@"
}
f2_find() {
    keys F2
    type_text "$1"
    check "the sessions menu" "$1"
}
# wait_exit CODE [SECONDS]: 0 when the client has ended with status CODE
# (tui_start's marker at the start of a row: screen_rows).
wait_exit() {
    local i=0 n=$(( ${2:-10} * 10 ))
    while [ $i -lt $n ]; do
        if screen_rows | grep -Eq -- "^EXIT=$1([^0-9]|$)"; then return 0; fi
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
# (30 s: under the sanitizers on a loaded machine the leak check at exit takes a while)
tui_quit() {
    keys F10
    if wait_exit 0 30; then ok; else
        fail "quit at ${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]}: no clean exit"
        screen_rows | grep -v '^ *$' | tail -5 | sed 's/^/    | /'
    fi
}

# tui_resize W H: the window resized to WxH, then polled until the client's
# terminal has that size.  tmux sets a pane's terminal size (and so sends
# the client its SIGWINCH) up to ~250 ms after a resize-window that follows
# another one; once the terminal has the size, the client's ncurses returns
# KEY_RESIZE before any key sent after it.  What the client draws at the
# new size is for the caller's checks to wait for.  One check on failure.
tui_resize() {
    local tty i=0
    tmx resize-window -x "$1" -y "$2"
    tty=$(tmx display -p '#{pane_tty}')
    while [ $i -lt 100 ]; do
        [ "$(stty -F "$tty" size 2>/dev/null)" = "$2 $1" ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    fail "resize to $1x$2: the terminal is $(stty -F "$tty" size 2>&1) (rows cols) after 10 s"
    return 1
}

tui_finish() {
    local f
    for f in "$TMP"/stderr.*; do
        [ -f "$f" ] || continue
        if grep -Eq 'Sanitizer|runtime error|LeakSanitizer|Segmentation' "$f"; then
            fail "sanitizer/crash report in run ${f##*.}:"
            head -30 "$f"
        fi
    done
    tmx kill-server 2>/dev/null
    finish
}

# saved_user_text DB: the user turns saved in DB, in order, joined by spaces.
saved_user_text() {
    sqlite3 "$1" "select group_concat(text, ' ') from (select text from turns where role=1 order by depth)" 2>/dev/null
}

# keep_one_out DB: in the running client, "first words" is sent and saved,
# then another program holds DB's write lock (hold_lock; release_lock lets
# it go) and "kept words" is sent: its exchange fails to save and is kept
# out, the client idle again.  Two checks.
keep_one_out() {
    type_text "first words"
    send
    [ "$(saved_user_text "$1")" = "first words" ] && ok || fail "the first message was not saved"
    hold_lock "$1" || fail "no lock taken"
    type_text "kept words"
    keys Enter
    check "the message waits for the lock, then fails to save" 'saving your message: .*database is locked' 40
    wait_idle 300
}

# A message that names a path under $TMP breaks its rows where the path's
# length puts them (a long TMPDIR: in the path itself, cut at the width):
# checked on its rows joined, every space left out.
#   log_flat    the message log's (M-l) box
#   main_flat   the screen left of the sidebar (the transcript, no menu open)
#   flat_has DESC FN TEXT   FN's text comes to hold TEXT (its spaces left
#                           out too) within 5 s (ok / fail)
log_flat() {
    screen | sed -n '/Messages (newest first)/,/Esc close/p' | sed 's/^[^│]*│//; s/│.*$//' |
        tr -d ' \n'
}
main_flat() { screen | sed 's/│.*$//' | tr -d ' \n'; }
flat_has() {
    local i=0 want
    want=$(printf '%s' "$3" | tr -d ' ')
    while [ $i -lt 50 ]; do
        case $($2) in *"$want"*) ok; return ;; esac
        sleep 0.1
        i=$((i + 1))
    done
    fail "$1: not on screen: '$3' (rows joined, no spaces: $($2))"
}

# dialog_text: the error dialog's text, its rows joined (the Chinese
# interface's: from 错误 to "Esc 放弃")
dialog_text() { screen | sed -n '/错误/,/Esc 放弃/p' | sed 's/^[^│]*│ *//; s/ *│.*$//' | tr -d '\n'; }
# dialog_has WHAT TEXT: the dialog comes to hold TEXT within 5 s (ok / fail)
dialog_has() {
    local i=0
    while [ $i -lt 50 ]; do
        case $(dialog_text) in *$2*) ok; return ;; esac
        sleep 0.1
        i=$((i + 1))
    done
    fail "$1: the dialog lacks '$2': $(dialog_text)"
}

# copied DESC PREFIX: the clipboard (tmux's buffer) comes to start with
# PREFIX within 3 s (an OSC 52 copy reaches tmux's buffer)
copied() {
    local i got
    for i in $(seq 30); do
        got=$(tmx show-buffer 2>/dev/null | head -c ${#2})
        [ "$got" = "$2" ] && { ok; return; }
        sleep 0.1
    done
    fail "$1: the clipboard holds '$(tmx show-buffer 2>/dev/null | head -c 40)...', want '$2...'"
}

# long_chat WORDS [CODE_EVERY]: session 2 of $DB, "long chat": 60 exchanges
# "question I please" / " Answer I. word<I>-0 ... word<I>-<WORDS-1>" (every
# CODE_EVERY-th reply, from the first, ending in a fenced code block "code of
# I"), made by importing a demo chat's export with its turns replaced
long_chat() {
    printf 'hello\n' | "$RWKV_TUI" chat --demo --db "$DB" --max-tokens 4 --seed 1 >/dev/null 2>&1 ||
        fail "line chat"
    "$RWKV_TUI" sessions --db "$DB" export 1 --format json > "$TMP/s.json" || fail "export"
    python3 - "$TMP/s.json" "$1" "${2:-0}" <<'PY' || fail "make the long chat"
import json, sys
p, words, every = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
d = json.load(open(p))
turns, tid = [d["turns"][0]], d["turns"][0]["id"]
for i in range(60):
    u = "question %d please" % i
    r = " Answer %d. " % i + " ".join("word%d-%d" % (i, k) for k in range(words))
    if every and i % every == 0:
        r += "\n```\ncode of %d\n```\nend" % i
    turns.append({"id": tid + 1, "parent": tid, "role": "user", "text": u,
                  "tokens": list(("User: %s\n\nAssistant:" % u).encode())})
    turns.append({"id": tid + 2, "parent": tid + 1, "role": "assistant", "text": r,
                  "tokens": list((r + "\n\n").encode())})
    tid += 2
d["turns"], d["head"], d["title"] = turns, tid, "long chat"
json.dump(d, open(p, "w"))
PY
    "$RWKV_TUI" sessions --db "$DB" import "$TMP/s.json" >/dev/null 2>&1 || fail "import"
}

# shell_start: a bare interactive bash in the pane (empty environment, HOME
# $TMP, prompt "SHELL$ "), for a test that types the command line itself
# (the line chat on a real terminal, job control); 1 when no prompt came
shell_start() {
    tmx_fresh "env -i PATH='$PATH' HOME='$TMP' TERM=screen-256color LANG=C.UTF-8 PS1='SHELL\$ ' bash --norc --noprofile -i"
    wait_for 'SHELL\$' 10
}
