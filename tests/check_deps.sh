#!/usr/bin/env bash
# tests/check_deps.sh [ROOT] -- the dependency arrows between the layers
# (docs/architecture.md), checked on every #include of every source file:
#
#   core/     includes only core/ and libc (libm, pthread): no curses,
#             sqlite, yaml or CUDA header
#   gpu/      core/ and its own files, plus the CUDA headers
#   storage/  core/ and its own files, plus sqlite3
#   tui/      core/, storage/ and its own files, plus curses and libcyaml
#   cli/      anything
#   nothing includes cli/ (it is the top)
#
# Inside core/ the folders are layers too (docs/architecture.md): the files
# at core/'s top (rwkv.h, status, mem, hash) are the base every folder may
# use, and
#
#   core/kernels/  base only
#   core/io/       kernels (dtype conversion, the thread pool)
#   core/text/     io (reading the vocabulary file)
#   core/model/    kernels, io
#   core/chat/     text (the public model API is rwkv.h, in the base)
#
# A quoted include is resolved against the including file's directory, so
# any folder depth inside a layer works.  `make check-deps` runs this; it
# prints every offending line and exits 1 if there is one.
set -u
cd "${1:-$(dirname "$0")/..}" || exit 2

# Layers each layer may include (besides itself), and system headers it
# must not include (extended regex on the name inside <>).
allowed() {
    case $1 in
    core) echo "" ;;
    gpu) echo "core" ;;
    storage) echo "core" ;;
    tui) echo "core storage" ;;
    cli) echo "core gpu storage tui" ;;
    esac
}
banned_sys() {
    case $1 in
    core) echo '^(n?cursesw?|ncursesw/.*|sqlite3|cyaml/.*|yaml|cuda.*|cublas.*)\.h$' ;;
    gpu) echo '^(n?cursesw?|ncursesw/.*|sqlite3|cyaml/.*|yaml)\.h$' ;;
    storage) echo '^(n?cursesw?|ncursesw/.*|cyaml/.*|yaml|cuda.*|cublas.*)\.h$' ;;
    tui) echo '^(cuda.*|cublas.*)\.h$' ;;
    cli) echo '^$' ;;
    esac
}

# normpath REL: NORM = REL with "." and ".." folded (relative to the root);
# fails if it climbs out of the root.  Pure bash, no subshell: this runs for
# every include.
normpath() {
    local IFS=/ part out=()
    for part in $1; do
        case $part in
        '' | .) ;;
        ..) [ ${#out[@]} -gt 0 ] || return 1; unset 'out[${#out[@]}-1]' ;;
        *) out+=("$part") ;;
        esac
    done
    NORM="${out[*]}"
}

# Folders of core/ a core/ folder may include (besides itself and the base).
core_allowed() {
    case $1 in
    base | kernels) echo "" ;;
    io) echo "kernels" ;;
    text) echo "io" ;;
    model) echo "kernels io" ;;
    chat) echo "text" ;;
    *) echo "?" ;;
    esac
}
# core_part PATH: the core/ folder of PATH ("base" for core/'s own files).
core_part() {
    local rest=${1#core/}
    case $rest in */*) PART=${rest%%/*} ;; *) PART=base ;; esac
}

bad=0
for layer in core gpu storage tui cli; do
    [ -d "$layer" ] || continue
    ok_layers=" $layer $(allowed "$layer") "
    sys_re=$(banned_sys "$layer")
    while IFS= read -r file; do
        dir=${file%/*}
        while IFS= read -r hit; do
            lineno=${hit%%:*}
            inc=${hit#*:}
            case $inc in
            *'<'*'>'*)
                name=${inc#*<}; name=${name%%>*}
                if [[ $name =~ $sys_re ]]; then
                    echo "check-deps: $file:$lineno: $layer/ must not include <$name>"
                    bad=1
                fi ;;
            *'"'*'"'*)
                name=${inc#*\"}; name=${name%%\"*}
                if ! normpath "$dir/$name"; then
                    echo "check-deps: $file:$lineno: \"$name\" is outside the tree"
                    bad=1; continue
                fi
                top=${NORM%%/*}
                case $top in core | gpu | storage | tui | cli) ;; *) continue ;; esac
                if [ "$layer" = core ] && [ "$top" = core ]; then
                    core_part "$file"; from=$PART
                    core_part "$NORM"; to=$PART
                    case " base $from $(core_allowed "$from") " in
                    *" $to "*) ;;
                    *)  echo "check-deps: $file:$lineno: core/$from must not include core/$to (\"$name\")"
                        bad=1 ;;
                    esac
                fi
                case $ok_layers in
                *" $top "*) ;;
                *)  echo "check-deps: $file:$lineno: $layer/ must not include $top/ (\"$name\")"
                    bad=1 ;;
                esac ;;
            esac
        done < <(grep -n -E '^[[:space:]]*#[[:space:]]*include' "$file" |
                 sed -E 's/^([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*/\1:/')
    done < <(find "$layer" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | sort)
done
if [ $bad = 0 ]; then
    echo "check-deps: ok (core <- gpu, storage <- tui <- cli; nothing includes cli;"
    echo "  inside core: kernels <- io <- text <- chat, kernels + io <- model)"
fi
exit $bad
