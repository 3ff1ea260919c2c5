#!/usr/bin/env bash
# tests/cli/check_deps.sh -- tests/check_deps.sh (`make check-deps`) passes on
# the tree and fails, naming the file and line, for every arrow the layering
# forbids: planted in a copy of the sources in a temp dir.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
CHK=$SRC/tests/check_deps.sh

out=$(bash "$CHK" "$SRC" 2>&1) && ok || fail "the tree itself: $out"

# a copy of the layers' sources
mkdir -p "$TMP/t"
(cd "$SRC" && find core gpu storage tui cli -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) -print0 |
    tar --null -cf - -T -) | tar -xf - -C "$TMP/t"
out=$(bash "$CHK" "$TMP/t" 2>&1) && ok || fail "the copy: $out"

# plant LINE in the new file FILE (relative to the copy), expect a failure
# matching RE, then remove the file again
plant() {
    local file=$1 line=$2 re=$3 out
    mkdir -p "$(dirname "$TMP/t/$file")"
    printf '%s\n' "$line" >"$TMP/t/$file"
    if out=$(bash "$CHK" "$TMP/t" 2>&1); then
        fail "'$line' in $file passed"
    elif printf '%s\n' "$out" | grep -Eq -- "$re"; then
        ok
    else
        fail "'$line' in $file: $out"
    fi
    rm -f "$TMP/t/$file"
    rmdir "$TMP/t/core/sub" 2>/dev/null
}
plant core/x.c '#include "../storage/store.h"' 'core/x.c:1: core/ must not include storage/'
plant core/x.c '#include <sqlite3.h>' 'core/x.c:1: core/ must not include <sqlite3.h>'
plant core/x.c '#include <ncursesw/curses.h>' 'core/x.c:1: core/ must not include <ncursesw/curses.h>'
plant core/x.c '#  include <cuda_runtime_api.h>' 'core/x.c:1: core/ must not include <cuda_runtime_api.h>'
plant core/sub/y.c '#include "../../gpu/gpu.h"' 'core/sub/y.c:1: core/ must not include gpu/'
plant gpu/x.c '#include "../storage/store.h"' 'gpu/x.c:1: gpu/ must not include storage/'
plant gpu/x.c '#include "../tui/app.h"' 'gpu/x.c:1: gpu/ must not include tui/'
plant storage/x.c '#include "../tui/app.h"' 'storage/x.c:1: storage/ must not include tui/'
plant storage/x.c '#include <curses.h>' 'storage/x.c:1: storage/ must not include <curses.h>'
plant tui/x.c '#include "../gpu/gpu.h"' 'tui/x.c:1: tui/ must not include gpu/'
plant tui/x.c '#include "../cli/cli.h"' 'tui/x.c:1: tui/ must not include cli/'
plant core/x.c '#include "../../outside.h"' 'outside the tree'
# the folders inside core/ (kernels <- io <- text <- chat, kernels + io <- model)
plant core/kernels/x.c '#include "../model/model.h"' 'core/kernels/x.c:1: core/kernels must not include core/model'
plant core/text/x.c '#include "../chat/chat.h"' 'core/text/x.c:1: core/text must not include core/chat'
plant core/chat/x.c '#include "../model/model.h"' 'core/chat/x.c:1: core/chat must not include core/model'
plant core/x.c '#include "io/zipr.h"' 'core/x.c:1: core/base must not include core/io'

# allowed arrows stay allowed (core from everywhere, storage from tui, all from cli)
printf '#include "../core/status.h"\n' >>"$TMP/t/gpu/x.c"
printf '#include "../core/status.h"\n#include "../storage/store.h"\n#include <curses.h>\n' >>"$TMP/t/tui/x.c"
printf '#include "../gpu/gpu.h"\n#include "../tui/app.h"\n' >>"$TMP/t/cli/x.c"
printf '#include "../text/tokenizer.h"\n#include "../rwkv.h"\n' >>"$TMP/t/core/chat/x.c"
printf '#include "../io/ckpt.h"\n#include "../kernels/simd.h"\n' >>"$TMP/t/core/model/x.c"
out=$(bash "$CHK" "$TMP/t" 2>&1) && ok || fail "allowed includes refused: $out"
finish
