/*
** harness.h -- a tiny test harness in the spirit of redis' testhelp.h.
**
** Each test binary includes this once, calls the macros, and returns
** TEST_REPORT() from main: it prints "N passed, N failed" as the last line,
** which tests/run.sh (and CI) read.
*/
#ifndef RWKV_TEST_HARNESS_H
#define RWKV_TEST_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_passed, test_failed;

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

#define TEST_REPORT()                                                          \
    (printf("%d passed, %d failed\n", test_passed, test_failed),               \
     test_failed ? 1 : 0)

/* Root of the fixtures (../shared/fixtures unless RWKV_FIXTURES says). */
static inline const char *
test_fixtures(void)
{
    const char *p = getenv("RWKV_FIXTURES");
    return p && *p ? p : "../shared/fixtures";
}

/* Join the fixtures root and REL into BUF. */
static inline const char *
test_fixture_path(char *buf, size_t cap, const char *rel)
{
    snprintf(buf, cap, "%s/%s", test_fixtures(), rel);
    return buf;
}

/* Read a whole little-endian float32 .bin; *N floats; malloc'ed or NULL. */
static inline float *
test_read_f32(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    float *buf;
    long sz;

    *n = 0;
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc(sz > 0 ? (size_t)sz : 1);
    if (buf && fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf)
        *n = (size_t)sz / sizeof(float);
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

#endif
