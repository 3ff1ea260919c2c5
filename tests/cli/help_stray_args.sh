#!/usr/bin/env bash
# tests/cli/help_stray_args.sh -- --help and --version hide no mistake: an
# unknown command, a stray word or an unknown option beside them is the
# usage error it is without them (one line, exit 2, nothing on stdout).
# `sessions prune --help` printed the sessions help with exit 0 (`prune`
# is no command), `--version extra` and `--version --bogus` printed the
# version, `generate --help extra` its help.  `help COMMAND` is COMMAND's
# --help.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI

rc_is "sessions prune --help" 2 "^rwkv-tui: sessions: unknown command 'prune'" "$T" sessions prune --help
rc_is "sessions --help prune" 2 "^rwkv-tui: sessions: unknown command 'prune'" "$T" sessions --help prune
rc_is "sessions list extra --help" 2 "^rwkv-tui: sessions list: usage: " "$T" sessions list extra --help
rc_is "sessions show 1 2 --help" 2 "^rwkv-tui: sessions show: usage: " "$T" sessions show 1 2 --help
rc_is "sessions --help --bogus" 2 "^rwkv-tui: sessions: unknown option '--bogus'" "$T" sessions --help --bogus
rc_is "sessions list --states --help" 2 "--states is an option of" "$T" sessions list --states --help
rc_is "--version extra" 2 "^rwkv-tui: --version takes no argument: unexpected 'extra'" "$T" --version extra
rc_is "--version --bogus" 2 "^rwkv-tui: --version takes no argument: unexpected '--bogus'" "$T" --version --bogus
rc_is "--help extra" 2 "^rwkv-tui: --help: unknown command 'extra'" "$T" --help extra
rc_is "help --bogus" 2 "^rwkv-tui: help: unexpected argument '--bogus'" "$T" help --bogus
rc_is "help chat extra" 2 "^rwkv-tui: help: unexpected argument 'extra'" "$T" help chat extra
rc_is "bogus --help" 2 "^rwkv-tui: unknown command 'bogus'" "$T" bogus --help
rc_is "client --help extra" 2 "^rwkv-tui: unexpected argument 'extra'" "$T" --demo --help extra
rc_is "client --help --bogus" 2 "^rwkv-tui: unknown option '--bogus'" "$T" --demo --help --bogus
for c in chat generate eval tokenize info bench; do
    rc_is "$c --help extra" 2 "^rwkv-tui: $c: unexpected argument 'extra'" "$T" $c --help extra
    rc_is "$c --help --bogus" 2 "^rwkv-tui: $c: unknown option '--bogus'" "$T" $c --help --bogus
    # the help itself, alone or after valid options: exit 0, on stdout
    "$T" $c --help >"$TMP/out" 2>"$TMP/err" && [ -s "$TMP/out" ] && [ ! -s "$TMP/err" ] && ok ||
        fail "$c --help: $(cat "$TMP/err")"
    "$T" help $c >"$TMP/h2" 2>"$TMP/err" && cmp -s "$TMP/out" "$TMP/h2" && ok ||
        fail "help $c is not $c --help: $(cat "$TMP/err")"
done
"$T" chat --demo --help >/dev/null 2>&1 && ok || fail "chat --demo --help: exit $?"
for args in "--help" "show --help" "search --help" "--help list"; do
    "$T" sessions $args >"$TMP/out" 2>"$TMP/err" && grep -q '^usage: rwkv-tui sessions' "$TMP/out" &&
        [ ! -s "$TMP/err" ] && ok || fail "sessions $args: $(cat "$TMP/err")"
done
"$T" --version >"$TMP/out" 2>&1 && grep -q '^rwkv-tui [0-9]' "$TMP/out" && ok || fail "--version"
"$T" --help >"$TMP/out" 2>&1 && grep -q '^usage: rwkv-tui' "$TMP/out" && ok || fail "--help"
finish
