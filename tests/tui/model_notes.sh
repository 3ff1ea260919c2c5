#!/usr/bin/env bash
# tests/tui/model_notes.sh -- what is printed on stderr while a model loads
# under the screen is shown at the top of the transcript as that model's
# note.  F5 to another model replaces it: the new model's lines (caught the
# same way, not written over the screen), never the old one's, at once and
# after every later rebuild (a new session, a branch switch, a resume).
# The "loader" that prints is an LD_PRELOAD shim: every open(2) of a .pth
# file says so on stderr (the real loaders print nothing on a CPU build) --
# but while F5 fills its list ($TMP/listing exists): the menu opens each
# file to read its index (rwkv_ckpt_kind), which prints nothing for real.
. "$(dirname "$0")/tmuxlib.sh"

if ! command -v cc >/dev/null 2>&1; then
    echo "cc not found: skipping (the test builds an LD_PRELOAD shim)"
    echo "0 passed, 0 failed"
    exit 0
fi
cat > "$TMP/shim.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

int
open(const char *path, int flags, ...)
{
    static int (*real)(const char *, int, ...);
    static const char say[] = "loader says: reading ";
    const char *base = strrchr(path, '/');
    size_t n = strlen(path);
    mode_t mode = 0;

    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (real == NULL)
        real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    base = base ? base + 1 : path;
    if (n > 4 && strcmp(path + n - 4, ".pth") == 0 && access(LISTING, F_OK) != 0 &&
        (write(2, say, sizeof say - 1) < 0 || write(2, base, strlen(base)) < 0 ||
         write(2, "\n", 1) < 0))
        return -1;
    return real(path, flags, mode);
}
C
cc -shared -fPIC -DLISTING="\"$TMP/listing\"" -o "$TMP/shim.so" "$TMP/shim.c" -ldl 2>"$TMP/cc.err" || {
    fail "the shim did not build"; cat "$TMP/cc.err"; tui_finish; exit; }

# two checkpoints of the demo's shape in one folder (F5 lists them)
mkdir -p "$TMP/models"
for m in alpha beta; do
    "$RWKV_TUI" bench --shape demo --dtype fp32 --save "$TMP/models/$m.pth" >/dev/null 2>&1 ||
        fail "bench --save $m"
done

# (an ASan build refuses a preloaded library ahead of its runtime)
TUI_ENV="LD_PRELOAD='$TMP/shim.so' ASAN_OPTIONS='${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0'" \
    NODEMO=1 tui_start --model "$TMP/models/alpha.pth" --db "$DB" --max-tokens 3 --seed 2
check "start: the loader's line at the top" '^  loader says: reading alpha\.pth'
type_text "on alpha"
send
check "a message on alpha" '^  on alpha'

# F5 to beta: its line replaces alpha's, on the screen at once
touch "$TMP/listing"
keys F5
check "models menu" 'Models'
rm -f "$TMP/listing"
type_text "beta"
keys Enter
check "switched" 'beta\.pth \| cpu fp32'
wait_idle
check "F5: the new model's line" '^  loader says: reading beta\.pth'
check_not "F5: not the old model's" 'reading alpha\.pth'
if [ "$(screen | grep -c 'reading beta\.pth')" = 1 ]; then ok
else fail "F5: beta's line not once on the screen"; screen | sed 's/^/    | /'; fi

# a branch switch rebuilds the transcript
type_text "on beta"
send
keys C-r
check "regenerated" '< 2/2 >'
wait_idle
keys M-,
check "switched to the first reply" '< 1/2 >'
keys Home
check "branch switch: the new model's line" '^  loader says: reading beta\.pth'
check_not "branch switch: not the old model's" 'reading alpha\.pth'

# a new session, and a resume of the one made on alpha
keys C-n
check "new session" 'new session'
check "new session: the new model's line" '^  loader says: reading beta\.pth'
check_not "new session: not the old model's" 'reading alpha\.pth'
keys F2
type_text "on alpha"
keys Enter
check "resumed" "resumed 'on alpha"
wait_idle
keys Home
check "resume: the new model's line" '^  loader says: reading beta\.pth'
check_not "resume: not the old model's" 'reading alpha\.pth'

# F5 to a damaged file: one line naming it and the reason, the model in use
# kept; what the loader printed is in the message log, not the transcript
head -c 3000 "$TMP/models/beta.pth" > "$TMP/models/alpha.pth"
touch "$TMP/listing"
keys F5
check "models menu again" 'Models'
rm -f "$TMP/listing"
type_text "alpha"
keys Enter
check "failed load: the file and the reason" 'alpha\.pth: not loaded: not a zip archive or'
check "failed load: the model in use stays" 'beta\.pth stays in use'
check_not "failed load: no raw output in the transcript" '^  loader says: reading alpha\.pth'
check "still on beta" 'beta\.pth \| cpu fp32'
keys Escape
sleep 0.3              # (an Esc and then M-l at once would read as one key)
keys M-l
check "failed load: its output in the log" 'printed while loading .*alpha\.pth'
check "failed load: the loader's words in the log" 'loader says: reading alpha\.pth'
keys Escape
tui_quit
if grep -q 'loader says' "$TMP/stderr.$RUNS"; then
    fail "a loader line reached stderr after the screen"; cat "$TMP/stderr.$RUNS"; else ok; fi
tui_finish
