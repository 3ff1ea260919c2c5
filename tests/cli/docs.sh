#!/usr/bin/env bash
# tests/cli/docs.sh -- the manual keeps up with the program: every option that
# any --help prints (the full-screen client's --help-ui and each command's
# --help) is described in rwkv-tui(1) and every key in its KEYS section,
# every help fits 79 columns, and every configurable action of the
# full-screen client (the F1/--help-ui rows) is in rwkv-tui-config(5); and
# every option the documents (README.md, docs/, bench/README.md,
# themes/README, the man pages) name exists.  Each command takes exactly
# the options its --help lists; a command the documents show (quoted, or in
# the synopses) takes the options shown with it; every environment variable
# the program reads is in rwkv-tui(1)'s ENVIRONMENT.
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
# the other way: every option the documents name is one
# the program has (some --help prints it), or another program's (named here)
helps=$( { "$RWKV_TUI" --help; "$RWKV_TUI" --help-ui
           for c in chat generate eval tokenize info bench sessions; do "$RWKV_TUI" $c --help; done; } 2>&1)
others=" --remove-destination "   # cp(1)
for o in $( { cat "$SRC/README.md" "$SRC"/docs/*.md "$SRC/bench/README.md" "$SRC/themes/README"
              sed 's/\\-/-/g' "$MAN1" "$MAN5"; } | grep -oE -- '(^|[ `("])--[a-z][a-z0-9-]+' |
           grep -oE -- '--[a-z][a-z0-9-]+' | sort -u); do
    case $others in *" $o "*) ok; continue ;; esac
    printf '%s\n' "$helps" | grep -qE -- "(^|[^a-z0-9-])$o([^a-z0-9-]|$)" && ok ||
        fail "the documents name $o, which no --help has"
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
# --- each command takes exactly the options its own --help lists -----------
# Every option name any help or the manual has is tried on every command,
# after --help, so that nothing runs: the help (a switch it takes), "needs a
# value" (an option with a value), or "unknown option" (not one of its).
# (eval, info and bench took every sampling option and ignored it, bench
# --state and --vocab too, and the commands without sessions took --db
# without their help saying so.)
names=$( { printf '%s\n' "$helps"; sed 's/\\-/-/g' "$MAN1"; } | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u)
# takes CMD OPT: 0 when command CMD ("" the full-screen client) takes --OPT
takes() {
    local err
    if [ -z "$1" ]; then err=$("$RWKV_TUI" --demo --help "$2" </dev/null 2>&1 >/dev/null)
    else err=$("$RWKV_TUI" "$1" --help "$2" </dev/null 2>&1 >/dev/null); fi
    case $err in *"unknown option '$2'"*) return 1 ;; esac
    return 0
}
# cmd_help CMD: the options part of its help (the client's without the keys)
cmd_help() {
    if [ -z "$1" ]; then "$RWKV_TUI" --help-ui 2>&1 | sed '/^Keys of the full-screen client/,$d'
    else "$RWKV_TUI" "$1" --help 2>&1; fi
}
for cmd in "" chat generate eval tokenize info bench sessions; do
    h=$(cmd_help "$cmd")
    for o in $names; do
        case $o in --help|--version) continue ;; esac
        printf '%s\n' "$h" | grep -qE -- "(^|[^a-z0-9-])$o([^a-z0-9-]|\$)" && listed=1 || listed=0
        if takes "$cmd" "$o"; then
            [ $listed = 1 ] && ok || fail "${cmd:-client} takes $o, which its --help does not list"
        else
            [ $listed = 0 ] && ok || fail "${cmd:-client} --help lists $o, which it does not take"
        fi
    done
done

# --- the commands the documents show take the options they show them with ---
# every `rwkv-tui CMD ... --OPT` (or `CMD ... --OPT`) in backquotes, and the
# synopses of README.md and rwkv-tui(1): CMD takes --OPT
# doc_cmds FILE...: "CMD OPTION" lines ("-" for the client) from the quoted commands
doc_cmds() {
    grep -hoE '`(\./)?(rwkv-tui )?[a-z][^`]*`' "$@" | tr -d '`' | tr '|' '\n' |
    awk '{ sub(/^ +/, ""); sub(/^\.\//, "")
           cmd = ""
           if ($1 == "rwkv-tui") { if ($2 ~ /^--/) cmd = "-"; else cmd = $2 } else cmd = $1
           if (cmd !~ /^(-|chat|generate|eval|tokenize|info|bench|sessions)$/) next
           for (i = 1; i <= NF; i++) if ($i ~ /^--[a-z][a-z0-9-]+/) {
               o = $i; sub(/[^a-z0-9-].*/, "", o); sub(/-+$/, "", o); print cmd, o } }'
}
# the README's synopsis: its code block under "## Commands and options", a
# line with leading blanks continuing the command above it
readme_syn=$(awk '/^## Commands and options/ { s = 1 } s && /^```/ { n++; if (n == 2) exit; next }
                  s && n == 1 { if ($1 == "rwkv-tui") cmd = ($2 ~ /^(\[|--)/) ? "-" : $2
                                for (i = 1; i <= NF; i++) if ($i ~ /--[a-z]/) {
                                    o = $i; sub(/^[^-]*/, "", o); sub(/[^a-z0-9-].*/, "", o); print cmd, o } }' "$SRC/README.md")
# rwkv-tui(1)'s SYNOPSIS: ".B rwkv-tui CMD" up to the next .br
man_syn=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$MAN1" | sed 's/\\-/-/g' |
          awk '/^\.B rwkv-tui/ { cmd = (NF > 2) ? $3 : "-"; next } /^\.br/ { next }
               { for (i = 1; i <= NF; i++) if ($i ~ /--[a-z]/) {
                     o = $i; sub(/^[^-]*/, "", o); sub(/[^a-z0-9-].*/, "", o); print cmd, o } }')
[ "$(printf '%s\n' "$readme_syn" | grep -c .)" -ge 10 ] && ok || fail "cannot read README's synopsis"
[ "$(printf '%s\n' "$man_syn" | grep -c .)" -ge 10 ] && ok || fail "cannot read rwkv-tui(1)'s synopsis"
while read -r cmd o; do
    [ -n "$o" ] || continue
    case $o in --help|--version) continue ;; esac   # (main's, before any command)
    [ "$cmd" = - ] && cmd=
    takes "$cmd" "$o" && ok || fail "the documents show '${cmd:-rwkv-tui} $o', which ${cmd:-the client} does not take"
done < <( { doc_cmds "$SRC/README.md" "$SRC"/docs/*.md "$SRC/bench/README.md"
            printf '%s\n' "$readme_syn" "$man_syn"; } | sort -u)

# --- every environment variable the program reads is in ENVIRONMENT ---------
env_sec=$(awk '/^\.SH / { s = ($0 == ".SH ENVIRONMENT") } s' "$MAN1")
vars=$(cat "$SRC"/cli/*.c "$SRC"/core/*.c "$SRC"/core/*/*.c "$SRC"/tui/*.c "$SRC"/storage/*.c "$SRC"/gpu/*.c |
       grep -oE 'getenv\("[A-Z_0-9]+"\)|"(RWKV|XDG|LC)_[A-Z0-9_]+"|"LANG(UAGE)?"' | grep -oE '[A-Z][A-Z_0-9]+' | sort -u)
[ "$(printf '%s\n' "$vars" | grep -c .)" -ge 10 ] && ok || fail "cannot read the variables"
for v in $vars; do
    printf '%s\n' "$env_sec" | grep -qE "(^|[^A-Z_])$v([^A-Z0-9_]|\$)" && ok ||
        fail "\$$v (read by the program): not in rwkv-tui(1) ENVIRONMENT"
done
# the editor row names the variable the client reads first (tui/app.c)
printf '%s\n' "$helps" | grep -qF 'in $VISUAL or $EDITOR' && ok ||
    fail "--help-ui: the editor row does not name \$VISUAL"
finish
