#!/usr/bin/env bash
# tests/cli/empty_path.sh -- a path option given an empty string is a usage
# error that names the option: exit status 2, one line "rwkv-tui: --state:
# empty path".  Before, each path did its own thing: --state "" failed late
# with ": cannot open" (exit 1), --vocab "" was ignored (the search went on),
# --db "" opened SQLite's private temporary database (a chat "saved" into
# nothing).  One rule now (cli_path_arg): the common options, every
# command's own path options and `sessions import FILE`.  The demo model.
. "$(dirname "$0")/lib.sh"
T=$RWKV_TUI
export XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/config HOME=$TMP/home
mkdir -p "$TMP/home"

# empty OPT CMD...: CMD exits 2 with the one line "rwkv-tui: OPT: empty path"
empty() {
    local opt=$1 err rc
    shift
    err=$(timeout 60 "$@" 2>&1 >/dev/null </dev/null)
    rc=$?
    [ $rc = 2 ] && [ "$err" = "rwkv-tui: $opt: empty path" ] && ok \
        || fail "$*: exit $rc (want 2), stderr: $(printf '%s' "$err" | head -c 300)"
}

# --- the common options, in every command that takes them (and --opt= too) ----------
for o in model state vocab db config theme; do
    empty "--$o" "$T" generate --demo --prompt hi --max-tokens 1 --$o ""
    empty "--$o" "$T" eval --demo --tokens 1 --out "$TMP/o.f32" --$o=
    empty "--$o" "$T" info --demo --$o ""
    # (bench loads no state file or vocabulary: it takes no --state or --vocab)
    [ $o = state ] || [ $o = vocab ] ||
        empty "--$o" "$T" bench --demo --prompt-tokens 2 --gen-tokens 1 --$o ""
    empty "--$o" "$T" chat --demo --max-tokens 1 --$o ""
    empty "--$o" "$T" --demo --no-db --max-frames 1 --$o ""   # the full-screen client
done

# --- each command's own paths ---------------------------------------------------------
empty --out "$T" eval --demo --tokens 1 --out ""
empty --state-out "$T" eval --demo --tokens 1 --out "$TMP/o.f32" --state-out ""
empty --prompt-file "$T" generate --demo --prompt-file ""
empty --file "$T" tokenize --bytes --file ""
empty --vocab "$T" tokenize --vocab "" --text hi
empty --model "$T" tokenize --model "" --text hi
empty --save "$T" bench --shape tiny --save ""
empty --db "$T" sessions --db "" list
empty --out "$T" sessions --db "$TMP/s.db" export 1 --out ""
empty "sessions import" "$T" sessions --db "$TMP/s.db" import ""
[ ! -e "$TMP/s.db" ] && ok || fail "a refused command created $TMP/s.db"

# --- a path that is not empty is still taken ------------------------------------------
"$T" tokenize --bytes --text hi --model "$TMP/none.pth" >"$TMP/out" 2>"$TMP/err" \
    && [ "$(cat "$TMP/out")" = "104 105" ] && ok || fail "tokenize --model PATH: $(head -c 200 "$TMP/err")"
finish
