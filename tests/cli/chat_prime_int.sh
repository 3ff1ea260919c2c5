#!/usr/bin/env bash
# tests/cli/chat_prime_int.sh -- Ctrl-C while a new line chat feeds its
# greeting (the prefill before the first prompt) ends the chat as Ctrl-C
# during a resume's open does: one line saying so, exit status 130, nothing
# saved.  It used to exit 0 without a word, as if the chat had ended
# normally.  gdb starts the chat and holds it in the greeting's first chunk
# (--chunk 4: more chunks follow, where the cancel is seen) while SIGINT is
# sent (holdlib.sh's way: the instant made on purpose).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/holdlib.sh"
T=$RWKV_TUI
N_CHECKS=4

if have_fixture models/tiny-7v0-fp32.pth $N_CHECKS; then
    hold_gdb $N_CHECKS "the Ctrl-C in the greeting"
    M=$(realpath "$FX/models/tiny-7v0-fp32.pth")
    cat >"$TMP/prime.gdb" <<EOF
gdb.execute("handle SIGINT nostop noprint pass")    # the test's kill -INT is the chat's
gdb.execute("break rwkv_eval")
gdb.execute("run chat --db %s/a.db --model $M --threads 1 --chunk 4 --max-tokens 2"
            " </dev/null >%s/out 2>%s/err" % (tmp, tmp, tmp))
# the greeting's first chunk (chat_prime's): its process id for the test
while gdb.selected_frame().older().name() != "feed_chunked":
    gdb.execute("continue")
open(os.path.join(tmp, "pid"), "w").write(str(gdb.selected_inferior().pid))
EOF
    hold_run_chat "$TMP/prime.gdb"      # the test sends SIGINT meanwhile
    g=$HOLD_RUN_PID
    if poll test -e "$TMP/hit"; then
        kill -INT "$(cat "$TMP/pid")"
        touch "$TMP/go"
        wait $g
        grep -q 'exited with code 0202' "$TMP/gdb.log" && ok ||
            fail "exit status not 130: $(grep -m1 'exited' "$TMP/gdb.log") $(cat "$TMP/err")"
        grep -qx 'rwkv-tui: chat: interrupted while the greeting was fed: nothing was saved' \
            "$TMP/err" && ok || fail "not said: '$(cat "$TMP/err")'"
        [ ! -s "$TMP/out" ] && ok || fail "stdout: $(cat "$TMP/out")"
        [ "$(n_sessions "$TMP/a.db")" = 0 ] && ok || fail "a session saved"
    else
        wait $g
        fail "the greeting was never fed: $(tail -5 "$TMP/gdb.log") $(cat "$TMP/err" 2>/dev/null)"
    fi
fi
finish
