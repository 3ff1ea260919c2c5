#!/usr/bin/env bash
# tests/cli/chat_display_rule.sh -- what the line chat prints from a session
# (its model path, title, messages: from a database or an imported file)
# reaches a terminal by the display rule, as `sessions list/show` and the
# client do: an escape sequence in an imported session's model path was
# written raw into the error line ("PATH: cannot open ..."), so opening the
# session retitled the terminal and turned its text red.  A pipe still gets
# the bytes.  The terminal is a pty (python3); the demo session is imported.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
export XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/config HOME=$TMP/home
mkdir -p "$TMP/home"
if ! command -v python3 >/dev/null 2>&1; then
    skip 3 "python3 not found"
    finish
    exit
fi

# a demo session, exported, its model path given an escape sequence, imported
echo hi | "$T" chat --demo --db "$TMP/a.db" --new t --seed 1 --max-tokens 3 >/dev/null 2>&1
"$T" sessions --db "$TMP/a.db" export 1 --format json >"$TMP/e.json" || fail "export"
python3 - "$TMP/e.json" "$TMP/evil.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d['model']['path'] = '/tmp/no-such-dir/x\x1b]0;PWNED\x07\x1b[31m.pth'
json.dump(d, open(sys.argv[2], 'w'))
EOF
"$T" sessions --db "$TMP/b.db" import "$TMP/evil.json" >/dev/null 2>&1 || fail "import"

# on a terminal: the line without the escape sequences
python3 - "$T" "$TMP/b.db" >"$TMP/pty" <<'EOF'
import os, pty, select, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "chat", "--db", sys.argv[2], "--session", "1"])
out = b""
while True:
    r, _, _ = select.select([fd], [], [], 30)
    if not r:
        break
    try:
        d = os.read(fd, 4096)
    except OSError:
        break
    if not d:
        break
    out += d
_, st = os.waitpid(pid, 0)
sys.stdout.write("%d %r\n" % (os.waitstatus_to_exitcode(st), out))
EOF
grep -q '^1 ' "$TMP/pty" && grep -q 'x.pth: cannot open: No such file or directory' "$TMP/pty" \
    && ok || fail "terminal: $(cat "$TMP/pty")"
grep -q 'x1b' "$TMP/pty" && fail "terminal: an escape sequence reached it: $(cat "$TMP/pty")" || ok

# to a pipe: the bytes (a program reading the line gets the real path)
echo hi | "$T" chat --db "$TMP/b.db" --session 1 2>&1 >/dev/null | grep -q $'x\e]0;PWNED' \
    && ok || fail "pipe: the path is not the stored one"
finish
