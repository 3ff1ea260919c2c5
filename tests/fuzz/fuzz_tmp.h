/*
** fuzz_tmp.h -- shared by the harnesses that need files (fuzz_config.c,
** fuzz_theme.c, fuzz_state.c, fuzz_wcache.c, fuzz_import.c, fuzz_db.c) and
** by tests/unit/test_fuzz_corpus.c, which includes them all.
**
** fuzz_dir() is one private temporary directory per process (made on first
** use, removed at exit); fuzz_put() writes an input to a file in it.
** FUZZ_CHECK(cond) aborts (libFuzzer reports the input) unless the includer
** defines it.
*/
#ifndef FUZZ_TMP_H
#define FUZZ_TMP_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_entry.h"

static char fuzz_dir_buf[256];

static void
fuzz_dir_rm(void)
{
    char cmd[300];

    if (fuzz_dir_buf[0] != '\0') {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir_buf);
        if (system(cmd) != 0)
            fprintf(stderr, "fuzz: could not remove %s\n", fuzz_dir_buf);
    }
}

/* The process's temporary directory (abort if it cannot be made). */
static inline const char *
fuzz_dir(void)
{
    if (fuzz_dir_buf[0] == '\0') {
        const char *t = getenv("TMPDIR");
        snprintf(fuzz_dir_buf, sizeof fuzz_dir_buf, "%s/rwkv-fuzz-XXXXXX",
                 t && *t == '/' && strlen(t) < 200 ? t : "/tmp");
        if (mkdtemp(fuzz_dir_buf) == NULL)
            abort();
        atexit(fuzz_dir_rm);
    }
    return fuzz_dir_buf;
}

/* PATH (CAP bytes) := fuzz_dir()/NAME. */
static inline void
fuzz_path(char *path, size_t cap, const char *name)
{
    snprintf(path, cap, "%s/%s", fuzz_dir(), name);
}

/* Write DATA[0..N) to PATH (replacing it); 1 on success. */
static inline int
fuzz_put(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok;

    if (f == NULL)
        return 0;
    ok = n == 0 || fwrite(data, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* An error message is one non-empty line. */
static inline int
fuzz_one_line(const char *msg)
{
    return msg[0] != '\0' && strchr(msg, '\n') == NULL;
}

#endif
