/*
** harness.h -- a tiny test harness in the spirit of redis' testhelp.h.
**
** Each test binary includes this once, calls the macros, and returns
** TEST_REPORT() from main: it prints "N passed, N failed" as the last line,
** followed by ", N skipped" when checks were skipped; tests/run.sh (and CI)
** read that line.
**
** Skipping: checks that need the reference fixtures ($RWKV_FIXTURES, see
** docs/testing.md) ask test_have_fixture() first.  When a fixture is
** missing the checks it guards are counted as skipped, with one "SKIP"
** line, unless the environment variable CI is set (non-empty): then a
** missing fixture is a failure, so CI never passes by skipping.
*/
#ifndef RWKV_TEST_HARNESS_H
#define RWKV_TEST_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>

static int test_passed, test_failed, test_skipped;

#define TEST_COND(descr, cond)                                                 \
    do {                                                                       \
        if (cond) {                                                            \
            test_passed++;                                                     \
        } else {                                                               \
            test_failed++;                                                     \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, (descr));           \
        }                                                                      \
    } while (0)

/* Like TEST_COND with a printf-style detail line on failure. */
#define TEST_CONDF(cond, ...)                                                  \
    do {                                                                       \
        if (cond) {                                                            \
            test_passed++;                                                     \
        } else {                                                               \
            test_failed++;                                                     \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                        \
            printf(__VA_ARGS__);                                               \
            putchar('\n');                                                     \
        }                                                                      \
    } while (0)

/* Print a progress/info line that is not a result. */
#define TEST_INFO(...)                                                         \
    do {                                                                       \
        printf("     ");                                                       \
        printf(__VA_ARGS__);                                                   \
        putchar('\n');                                                         \
    } while (0)

/* Count N checks as skipped, saying why on one "SKIP" line. */
#define TEST_SKIP(n, ...)                                                      \
    do {                                                                       \
        test_skipped += (n);                                                   \
        printf("SKIP (%d) ", (int)(n));                                        \
        printf(__VA_ARGS__);                                                   \
        putchar('\n');                                                         \
    } while (0)

#define TEST_REPORT()                                                          \
    (test_skipped ? printf("%d passed, %d failed, %d skipped\n", test_passed,  \
                           test_failed, test_skipped)                          \
                  : printf("%d passed, %d failed\n", test_passed, test_failed), \
     test_failed ? 1 : 0)

/* Root of the reference fixtures: $RWKV_FIXTURES, else ../shared/fixtures
** (the layout of the development machines; a clone has none). */
static inline const char *
test_fixtures(void)
{
    const char *p = getenv("RWKV_FIXTURES");
    return p && *p ? p : "../shared/fixtures";
}

/* 1 when CI is set (non-empty): missing fixtures fail instead of skipping. */
static inline int
test_ci(void)
{
    const char *c = getenv("CI");
    return c != NULL && *c != '\0';
}

/* 1 if the fixture REL (a file or directory under test_fixtures()) can be
** read; silent (for tests that fall back to a model of their own). */
static inline int
test_fixture_exists(const char *rel)
{
    char path[1024];

    snprintf(path, sizeof path, "%s/%s", test_fixtures(), rel);
    return access(path, R_OK) == 0;
}

/*
** 1 if the fixture REL (a file or directory under test_fixtures()) exists.
** If not, the N checks that need it are counted as skipped, with one SKIP
** line naming it -- or, when CI is set, as one failure -- and 0 is
** returned: the caller then leaves those checks out.
*/
static inline int
test_have_fixture(const char *rel, int n)
{
    char path[1024];

    if (test_fixture_exists(rel))
        return 1;
    snprintf(path, sizeof path, "%s/%s", test_fixtures(), rel);
    if (test_ci()) {
        test_failed++;
        printf("FAIL fixture %s is missing and CI is set (set RWKV_FIXTURES=DIR)\n", path);
    } else {
        TEST_SKIP(n, "fixture %s not found (reference fixtures come from RWKV_FIXTURES)",
                  path);
    }
    return 0;
}

/* 1 when running as root: permission checks cannot fail for root, so the
** tests that rely on them skip (saying so). */
static inline int
test_is_root(void)
{
    return geteuid() == 0;
}

/* Join the fixtures root and REL into BUF. */
static inline const char *
test_fixture_path(char *buf, size_t cap, const char *rel)
{
    snprintf(buf, cap, "%s/%s", test_fixtures(), rel);
    return buf;
}

/* The bytes of the regular file PATH (malloc'ed, one spare byte for a
** NUL), *N of them; NULL if it cannot be read whole. */
static inline unsigned char *
test_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    unsigned char *p = NULL;

    *n = 0;
    if (f == NULL)
        return NULL;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
        (p = (unsigned char *)malloc((size_t)st.st_size + 1)) != NULL &&
        fread(p, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        free(p);
        p = NULL;
    }
    fclose(f);
    if (p != NULL)
        *n = (size_t)st.st_size;
    return p;
}

/* Read a whole little-endian float32 .bin; *N floats; malloc'ed or NULL. */
static inline float *
test_read_f32(const char *path, size_t *n)
{
    size_t bytes;
    float *buf = (float *)(void *)test_slurp(path, &bytes);

    *n = buf != NULL ? bytes / sizeof(float) : 0;
    return buf;
}

static inline double
test_max_abs_diff(const float *a, const float *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (!(d <= m)) /* NaN counts as a huge difference */
            m = isnan(d) ? INFINITY : d;
    }
    return m;
}

/* ---- a private temporary directory ---------------------------------------- */

/* The directory test_tmpdir made ("" before). */
static inline char *
test_tmp_dir(void)
{
    static char dir[512];
    return dir;
}

/* Make this test's temporary directory, $TMPDIR (or /tmp)/PREFIX.XXXXXX:
** its path, or NULL after printing why. */
static inline const char *
test_tmpdir(const char *prefix)
{
    const char *t = getenv("TMPDIR");
    char *dir = test_tmp_dir();

    snprintf(dir, 512, "%s/%s.XXXXXX", t != NULL && *t != 0 ? t : "/tmp", prefix);
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        dir[0] = 0;
        return NULL;
    }
    return dir;
}

/* NAME inside the temporary directory, in BUF. */
static inline const char *
test_tmp_path(char *buf, size_t cap, const char *name)
{
    if (snprintf(buf, cap, "%s/%s", test_tmp_dir(), name) < 0)
        buf[0] = 0;
    return buf;
}

/* Write TEXT to NAME inside the temporary directory: its path, in a buffer
** of its own (valid until the next call); an unwritten file is the
** caller's test failing on it. */
static inline const char *
test_write_tmp(const char *name, const char *text)
{
    static char path[512];
    FILE *f = fopen(test_tmp_path(path, sizeof path, name), "w");

    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

/* rm -rf PATH (not following links); 0 or -1. */
static inline int
test_rm_rf(const char *path)
{
    struct stat sb;
    struct dirent *e;
    char sub[1024];
    DIR *d;
    int rc = 0;

    if (lstat(path, &sb) != 0)
        return -1;
    if (!S_ISDIR(sb.st_mode))
        return unlink(path);
    if ((d = opendir(path)) == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) >= (int)sizeof sub ||
            test_rm_rf(sub) != 0)
            rc = -1;
    }
    closedir(d);
    return rmdir(path) != 0 ? -1 : rc;
}

/* Text a callback streams (chat text, JSON writers), kept while it fits in
** BUF, NUL-terminated: test_text_put is the callback, UD a test_text. */
typedef struct test_text {
    char   buf[16384];
    size_t len;
} test_text;

static inline void
test_text_put(void *ud, const char *text, size_t len)
{
    test_text *s = (test_text *)ud;

    if (s->len + len < sizeof s->buf) {
        memcpy(s->buf + s->len, text, len);
        s->len += len;
        s->buf[s->len] = '\0';
    }
}

/* Remove the temporary directory and all in it (kept when KEEP_TMP is set,
** to look at). */
static inline void
test_tmpdir_remove(void)
{
    const char *dir = test_tmp_dir();

    if (dir[0] == 0 || getenv("KEEP_TMP") != NULL)
        return;
    if (test_rm_rf(dir) != 0)
        printf("could not remove %s\n", dir);
}

#endif
