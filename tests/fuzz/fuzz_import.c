/*
** fuzz_import.c -- libFuzzer harness: `sessions import` JSON
** (storage store_import) into a real database in a temporary directory.
**
**   make fuzz && build-fuzz/fuzz_import -dict=tests/fuzz/import.dict tests/fuzz/corpus/import
**
** Invariants: the import succeeds or fails with one line, and a failed
** import changes nothing (same sessions and turns).  An imported session
** exports as JSON that is valid UTF-8 and imports again, and as Markdown
** without terminal control characters (ESC, C1); both are then deleted so
** the database stays small.
*/
#include <stdint.h>

#include "../../core/text/utf8.h"
#include "../../storage/store.h"
#include "fuzz_tmp.h"

#include "fuzz_entry.h"

/* Inputs above this are skipped (import is linear; the fuzzer wants speed). */
#define FI_MAX (1u << 20)

/* Sessions and turns in the database. */
static void
fi_count(store *st, size_t *sessions, int64_t *turns)
{
    store_session *l = NULL;
    size_t n = 0;
    rwkv_err err;

    *sessions = 0;
    *turns = 0;
    FUZZ_CHECK(store_session_list(st, &l, &n, &err) == RWKV_OK);
    *sessions = n;
    for (size_t i = 0; i < n; i++)
        *turns += l[i].n_turns;
    free(l);
}

/* No ESC, no C1 control (U+0080..U+009F), no C0 other than \t \n. */
static int
fi_clean(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
            return 0;
        if (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 && (unsigned char)s[i + 1] <= 0x9f)
            return 0;
    }
    return 1;
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    static store *st;
    char path[512];
    rwkv_err err;
    int64_t id = 0, id2 = 0, turns0, turns1;
    size_t sess0, sess1, len = 0;
    char *buf = NULL, *md = NULL;

    if (size > FI_MAX)
        return 0;
    if (st == NULL) {
        fuzz_path(path, sizeof path, "import.db");
        if (store_open(path, &st, &err) != RWKV_OK)
            abort();
    }
    fi_count(st, &sess0, &turns0);
    memset(&err, 0, sizeof err);
    if (store_import(st, (const char *)data, size, "fuzz.json", &id, &err) != RWKV_OK) {
        FUZZ_CHECK(fuzz_one_line(err.msg));
        fi_count(st, &sess1, &turns1);
        FUZZ_CHECK(sess1 == sess0 && turns1 == turns0);
        return 0;
    }
    FUZZ_CHECK(store_export(st, id, STORE_FMT_JSON, &buf, &len, &err) == RWKV_OK);
    FUZZ_CHECK(buf != NULL && utf8_valid(buf, len));
    FUZZ_CHECK(store_import(st, buf, len, "export.json", &id2, &err) == RWKV_OK);
    FUZZ_CHECK(store_export(st, id, STORE_FMT_MD, &md, &len, &err) == RWKV_OK);
    FUZZ_CHECK(md != NULL && fi_clean(md, len));
    free(buf);
    free(md);
    FUZZ_CHECK(store_session_delete(st, id, &err) == RWKV_OK);
    if (id2 != 0)
        FUZZ_CHECK(store_session_delete(st, id2, &err) == RWKV_OK);
    return 0;
}
