#!/usr/bin/env bash
# tests/cli/cli_opts.sh -- options that used to be accepted and silently
# ignored: --config/--theme given to commands that do not use them,
# `sessions import -` (stdin), ids and numbers with leading blanks, and
# generate --no-greeting without --chat.  All on the demo model.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
# nothing here may touch the user's own files
export XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/config HOME=$TMP/home
mkdir -p "$TMP/home" "$TMP/db"

# one valid run of each command, the option under test appended ("$@");
# under a timeout: a FIFO given as a file must never be waited on
TO="timeout 60"
run_generate() { $TO "$T" generate --demo --prompt hi --seed 1 --max-tokens 2 "$@"; }
run_eval()     { $TO "$T" eval --demo --tokens 1,2 --out "$TMP/o.f32" "$@"; }
run_info()     { $TO "$T" info --demo "$@"; }
run_bench()    { $TO "$T" bench --demo --prompt-tokens 4 --gen-tokens 2 "$@"; }
run_chat()     { $TO "$T" chat --demo --seed 1 --max-tokens 2 "$@" </dev/null; }
CMDS="generate eval info bench chat"

# --- 1. --config and --theme: checked as the full-screen client reads them ---
mkfifo "$TMP/fifo"
mkdir "$TMP/dir.yaml"
printf 'name: broken\nroles:\n  user: { fg: purple }\n' >"$TMP/bad-theme.yaml"
for c in $CMDS; do
    expect_fail "$c --config missing" "^rwkv-tui: $c: --config $TMP/nope\.yaml: cannot open: No such file" \
        run_$c --config "$TMP/nope.yaml"
    # a FIFO is refused at once, never waited on
    expect_fail "$c --config FIFO" "^rwkv-tui: $c: --config $TMP/fifo: not a regular file \(a FIFO\)$" \
        run_$c --config "$TMP/fifo"
    expect_fail "$c --theme missing name" "^rwkv-tui: $c: --theme: theme 'nosuch' not found" \
        run_$c --theme nosuch
done
expect_fail "generate --config directory" "dir\.yaml: not a regular file \(a directory\)" \
    run_generate --config "$TMP/dir.yaml"
expect_fail "chat --theme FIFO" "--theme: $TMP/fifo: not a regular file \(a FIFO\)" \
    run_chat --theme "$TMP/fifo"
expect_fail "generate --theme bad file" "bad-theme\.yaml:3" run_generate --theme "$TMP/bad-theme.yaml"
# (root reads anyway: as root the binary runs as nobody, as files.sh does)
printf 'model: x\n' >"$TMP/noread.yaml"
chmod 000 "$TMP/noread.yaml"
as_other=()
if is_root; then
    chmod 755 "$TMP"
    as_other=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
expect_fail "eval --config unreadable" "noread\.yaml: cannot open: Permission denied" \
    $TO "${as_other[@]}" "$T" eval --demo --tokens 1,2 --out - --config "$TMP/noread.yaml"

# a readable config and a theme file are accepted; the config's settings are
# the full-screen client's: a db there is not opened or created by chat
printf 'db: %s\nmodel: %s\ntheme: nosuch\n' "$TMP/from-config.db" "$TMP/nomodel.pth" >"$TMP/c.yaml"
printf 'name: ok\nroles:\n  user: { fg: cyan }\n' >"$TMP/good-theme.yaml"
run_generate --config "$TMP/c.yaml" --theme "$TMP/good-theme.yaml" >/dev/null 2>"$TMP/e" && ok \
    || fail "generate with a valid config and theme: $(cat "$TMP/e")"
run_chat --config "$TMP/c.yaml" --theme "$TMP/good-theme.yaml" >/dev/null 2>"$TMP/e" && ok \
    || fail "chat with a valid config and theme: $(cat "$TMP/e")"
[ -e "$TMP/from-config.db" ] && fail "chat opened the config's db" || ok
# the default config.yaml (not named) is not read by the commands either
mkdir -p "$TMP/config/rwkv-tui" && cp "$TMP/c.yaml" "$TMP/config/rwkv-tui/config.yaml"
run_chat >/dev/null 2>"$TMP/e" && [ ! -e "$TMP/from-config.db" ] && ok \
    || fail "chat with a default config.yaml: $(cat "$TMP/e")"

# --db (a common option of the command-line contract) given to a command
# without sessions: taken, and nothing is created
for c in generate eval info bench; do
    run_$c --db "$TMP/db/$c.db" >/dev/null 2>"$TMP/e" && ok || fail "$c --db: $(cat "$TMP/e")"
done
[ -n "$(ls -A "$TMP/db")" ] && fail "--db made a file: $(ls "$TMP/db")" || ok

# --- 2. sessions import - reads stdin ---------------------------------------
cat >"$TMP/s.json" <<'JSON'
{"format": "rwkv-tui-session", "version": 1, "title": "From a pipe",
 "created_ms": 1700000000000, "strategy": "cpu fp32", "model": null, "head": 2,
 "turns": [
  {"id": 1, "parent": null, "role": "user", "text": "hello", "tokens": [85, 115, 101, 114, 58, 32, 104, 101, 108, 108, 111, 10, 10, 65, 115, 115, 105, 115, 116, 97, 110, 116, 58], "time_ms": 1700000000001},
  {"id": 2, "parent": 1, "role": "assistant", "text": " hi", "tokens": [32, 104, 105], "time_ms": 1700000000002}
 ]}
JSON
DB=$TMP/db/s.db
# (stderr: the one line saying the first open replays: sessions_export_states.sh)
out=$("$T" sessions --db "$DB" import - <"$TMP/s.json" 2>"$TMP/note") && [ "$out" = "imported stdin as session 1" ] && ok \
    || fail "import - : $out $(cat "$TMP/note")"
out=$(cat "$TMP/s.json" | "$T" sessions --db "$DB" import - 2>"$TMP/note") && [ "$out" = "imported stdin as session 2" ] && ok \
    || fail "import - from a pipe: $out $(cat "$TMP/note")"
out=$("$T" sessions --db "$DB" show 1 2>&1)
case $out in *"From a pipe"*hello*) ok ;; *) fail "show after import -: $out" ;; esac
# the round trip the help promises: export | import -
out=$("$T" sessions --db "$DB" export 1 --format json | "$T" sessions --db "$DB" import - 2>"$TMP/note") \
    && [ "$out" = "imported stdin as session 3" ] && ok || fail "export | import -: $out $(cat "$TMP/note")"
expect_fail "import - of bad JSON names stdin" "stdin" sh -c "echo '{' | '$T' sessions --db '$DB' import -"
expect_fail "import of a FIFO no program writes reads as empty, not a wait" "fifo: not a rwkv-tui session export \(the file is empty\)" \
    $TO "$T" sessions --db "$DB" import "$TMP/fifo"

# --- 3. ids and numbers: no leading blanks (as no trailing junk) ------------
DB=$TMP/db/ids.db
"$T" sessions --db "$DB" import "$TMP/s.json" >/dev/null && ok || fail "import for the id checks"
for id in " 1" "	1" "1x" "+ 1" ""; do
    expect_fail "sessions show '$id'" "'${id/+/\\+}' is not a session id" "$T" sessions --db "$DB" show "$id"
done
expect_fail "sessions fork turn ' 2'" "' 2' is not a turn id" "$T" sessions --db "$DB" fork 1 " 2"
expect_fail "sessions state --vs ' 1'" "' 1' is not a turn id" "$T" sessions --db "$DB" state 1 2 --vs " 1"
expect_fail "chat --session ' 1'" "option --session: ' 1' is not an integer in \[1, " \
    $TO "$T" chat --db "$DB" --session " 1" </dev/null
expect_fail "--threads ' 2'" "option --threads: ' 2' is not an integer" run_generate --threads " 2"
expect_fail "bench --gen-tokens ' 2'" "option --gen-tokens: ' 2' is not an integer" \
    "$T" bench --demo --prompt-tokens 4 --gen-tokens " 2"
expect_fail "eval --tokens with a tab" "option --tokens: .* is not a comma-separated list" \
    "$T" eval --demo --tokens "1,	2" --out "$TMP/o.f32"
# what was fine stays fine
"$T" sessions --db "$DB" show 1 >/dev/null 2>&1 && ok || fail "show 1"
"$T" eval --demo --tokens "1, 2" --out "$TMP/o.f32" 2>/dev/null && ok || fail "eval --tokens '1, 2'"
run_generate --threads 2 >/dev/null 2>&1 && ok || fail "--threads 2"

# --- 4. generate --no-greeting without --chat --------------------------------
expect_fail "generate --no-greeting alone" "^rwkv-tui: generate: --no-greeting is an option of --chat" \
    run_generate --no-greeting
run_generate --chat --no-greeting >/dev/null 2>&1 && ok || fail "generate --chat --no-greeting"
# the sampling options of a command that samples nothing (eval, info; bench
# decodes by argmax for --gen-tokens), and bench's --state and --vocab (it
# loads neither), were taken and ignored: `bench --max-tokens 8` ran its
# default 64 tokens without a word.  Unknown options now, as their --help says.
for o in "--temperature 0.5" "--top-p 0.5" "--top-k 5" "--presence 0" "--frequency 0" \
         "--decay 0.9" "--max-tokens 8" "--seed 3"; do
    set -- $o
    expect_fail "eval $o" "^rwkv-tui: eval: unknown option '$1' \(see 'rwkv-tui eval --help'\)$" run_eval $o
    expect_fail "info $o" "^rwkv-tui: info: unknown option '$1' " run_info $o
    [ "$1" = --seed ] ||
        expect_fail "bench $o" "^rwkv-tui: bench: unknown option '$1' " run_bench $o
done
expect_fail "info --chunk 8" "^rwkv-tui: info: unknown option '--chunk' " run_info --chunk 8
expect_fail "bench --state" "^rwkv-tui: bench: unknown option '--state' " run_bench --state "$TMP/s.pth"
expect_fail "bench --vocab" "^rwkv-tui: bench: unknown option '--vocab' " run_bench --vocab "$TMP/v.txt"
# what they use stays
run_eval --chunk 1 >/dev/null 2>&1 && ok || fail "eval --chunk 1"
run_bench --chunk 2 --seed 5 >/dev/null 2>&1 && ok || fail "bench --chunk 2 --seed 5"
run_info --state "$TMP/nostate.pth" >/dev/null 2>&1; [ $? = 1 ] && ok || fail "info --state: not a usage error"

# expect_usage DESC PATTERN CMD...: expect_fail, and the exit status is 2 (a
# usage error, rwkv-tui(1) EXIT STATUS)
expect_usage() {
    local desc=$1 pat=$2 rc; shift 2
    "$@" >/dev/null 2>&1
    rc=$?
    [ $rc = 2 ] || { fail "$desc: exit $rc, not 2"; return; }
    expect_fail "$desc" "$pat" "$@"
}

# --- 5. one rule for every integer option: plain decimal digits -------------
run_client() { $TO "$T" --demo "$@" </dev/null; }
# (--max-tokens 1e1 and 5. ran as 10 and 5, 2.7 "is not an integer", 0x10
# "is not a number", --seed 1e3 "is not a non-negative integer")
for v in 1e1 5. 2.7 0x10 +5 " 5" "5 " -0 1,0 ""; do
    for o in max-tokens top-k chunk seed threads; do
        expect_usage "generate --$o '$v'" \
            "^rwkv-tui: option --$o: '${v/+/\\+}' is not an integer in \[[0-9]+, [0-9]+\]$" \
            run_generate --$o "$v"
    done
done
expect_usage "chat --max-tokens 1e1" "^rwkv-tui: option --max-tokens: '1e1' is not an integer in \[1, 1000000\]$" \
    run_chat --max-tokens 1e1
expect_usage "chat --session 1e0" "^rwkv-tui: option --session: '1e0' is not an integer in \[1, 9223372036854775807\]$" \
    run_chat --session 1e0
expect_usage "client --session 1e0" "^rwkv-tui: option --session: '1e0' is not an integer in \[1, 9223372036854775807\]$" \
    run_client --session 1e0
expect_usage "client --top-k 1e1" "^rwkv-tui: option --top-k: '1e1' is not an integer in \[0, 65536\]$" \
    run_client --top-k 1e1
expect_usage "bench --repeat 1e0" "^rwkv-tui: option --repeat: '1e0' is not an integer in \[1, 1000\]$" \
    run_bench --repeat 1e0
expect_usage "bench --seed 1e3" "^rwkv-tui: option --seed: '1e3' is not an integer in \[0, 18446744073709551615\]$" \
    run_bench --seed 1e3
expect_usage "eval --chunk 1e1" "^rwkv-tui: option --chunk: '1e1' is not an integer in \[1, 65536\]$" \
    run_eval --chunk 1e1
expect_usage "--seed 2^64" "^rwkv-tui: option --seed: '18446744073709551616' is not an integer in \[0, 18446744073709551615\]$" \
    run_generate --seed 18446744073709551616
expect_usage "--max-tokens 0" "^rwkv-tui: option --max-tokens: '0' is not an integer in \[1, 1000000\]$" \
    run_generate --max-tokens 0
# the ends of the ranges, and the floats, stay fine
run_generate --seed 18446744073709551615 --top-k 0 --chunk 65536 >/dev/null 2>&1 && ok ||
    fail "--seed 2^64-1 --top-k 0 --chunk 65536"
run_generate --temperature 1e-1 --top-p .5 >/dev/null 2>&1 && ok || fail "float options 1e-1, .5"

# --- 6. generate --prompt-file - names stdin ---------------------------------
expect_usage "empty stdin prompt" "^rwkv-tui: generate: stdin \(--prompt-file -\) is empty$" \
    sh -c "'$T' generate --demo --prompt-file - </dev/null"
: >"$TMP/empty.txt"
expect_usage "empty prompt file" "^rwkv-tui: generate: $TMP/empty.txt is empty$" \
    $TO "$T" generate --demo --prompt-file "$TMP/empty.txt"

finish
