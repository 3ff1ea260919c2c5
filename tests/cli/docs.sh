#!/usr/bin/env bash
# tests/cli/docs.sh -- the manual keeps up with the program: every option that
# any --help prints (the full-screen client's --help-ui and each command's
# --help) is described in rwkv-tui(1) and every key in its KEYS section,
# every help fits 79 columns, and every configurable action of the
# full-screen client (the F1/--help-ui rows) is in rwkv-tui-config(5); and
# every option README.md and docs/full-screen.md name exists.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
MAN1=$SRC/man/rwkv-tui.1
MAN5=$SRC/man/rwkv-tui-config.5

for cmd in "" chat generate eval tokenize info bench sessions; do
    if [ -z "$cmd" ]; then h=$("$RWKV_TUI" --help-ui 2>&1); else h=$("$RWKV_TUI" $cmd --help 2>&1); fi
    [ -n "$h" ] || { fail "${cmd:-client}: no --help text"; continue; }
    long=$(printf '%s\n' "$h" | awk 'length($0) > 79' | head -1)
    [ -z "$long" ] && ok || fail "${cmd:-client} --help: a line over 79 columns: $long"
    for o in $(printf '%s\n' "$h" | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u); do
        # in roff every '-' of an option is written '\-'
        grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" "$MAN1" && ok ||
            fail "${cmd:-client} $o: not in man/rwkv-tui.1"
    done
done
# the other way: every option README.md and docs/full-screen.md name is one
# the program has (some --help prints it), or another program's (named here)
helps=$( { "$RWKV_TUI" --help; "$RWKV_TUI" --help-ui
           for c in chat generate eval tokenize info bench sessions; do "$RWKV_TUI" $c --help; done; } 2>&1)
others=" --remove-destination "   # cp(1)
for o in $(cat "$SRC/README.md" "$SRC/docs/full-screen.md" | grep -oE -- '(^|[ `(])--[a-z][a-z0-9-]+' |
           grep -oE -- '--[a-z][a-z0-9-]+' | sort -u); do
    case $others in *" $o "*) ok; continue ;; esac
    printf '%s\n' "$helps" | grep -qE -- "(^|[^a-z0-9-])$o([^a-z0-9-]|$)" && ok ||
        fail "README/docs name $o, which no --help has"
done
# every action the config's keys: section can rebind (tui/config.h's table)
names=$(grep -oE '^ *X\([A-Z_]+, *"[a-z_]+"' "$SRC/tui/config.h" | sed -E 's/.*"([a-z_]+)"/\1/')
[ "$(printf '%s\n' "$names" | grep -c .)" -ge 10 ] && ok || fail "cannot read the action table"
for n in $names; do
    grep -qE "(^|[^a-z_])$n([^a-z_]|$)" "$MAN5" && ok ||
        fail "action $n: not in man/rwkv-tui-config.5"
done
# the KEYS section of rwkv-tui(1) is the --help-ui rows (man/keys.py)
out=$(python3 "$SRC/man/keys.py" "$RWKV_TUI" 2>&1) && ok || fail "$out"
h=$("$RWKV_TUI" --help 2>&1) && ok || fail "--help exit $?"
long=$(printf '%s\n' "$h" | awk 'length($0) > 79' | head -1)
[ -z "$long" ] && ok || fail "--help: a line over 79 columns: $long"
finish
