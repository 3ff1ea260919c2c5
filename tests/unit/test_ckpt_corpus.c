/*
** test_ckpt_corpus.c -- replays the checkpoint fuzzers' seed corpus
** (tests/fuzz/corpus/{zipr,pickle,st}/) through the harnesses themselves
** (fuzz_zipr.c, fuzz_pickle.c, fuzz_st.c, i.e. through ckpt_open_mem), so
** `make test` (and `make asan`) checks every seed and regression input without
** libFuzzer.  Hand-written seeds are also replayed with every single byte
** flipped and truncated at every length: a cheap deterministic mutation pass;
** the "fz-*" files are fuzzer-found inputs (libFuzzer -merge) kept as is.
** Run from the repo root (tests/run.sh does); RWKV_CORPUS overrides the path.
*/
#include <dirent.h>
#include <stdint.h>
#include <sys/stat.h>

#include "../harness.h"

static int fuzz_check_failures;
#define FUZZ_CHECK(c)                                                          \
    do {                                                                       \
        if (!(c)) {                                                            \
            fuzz_check_failures++;                                             \
            printf("     FUZZ_CHECK failed: %s (%s:%d)\n", #c, __FILE__, __LINE__); \
        }                                                                      \
    } while (0)

#define FUZZ_ENTRY fuzz_zipr_one
#include "../fuzz/fuzz_zipr.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_pickle_one
#include "../fuzz/fuzz_pickle.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_st_one
#include "../fuzz/fuzz_st.c"
#undef FUZZ_ENTRY

typedef int (*fuzz_fn)(const uint8_t *, size_t);

static uint8_t *
slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    uint8_t *p = NULL;

    *n = 0;
    if (f == NULL)
        return NULL;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        p = malloc((size_t)st.st_size + 1);
        if (p != NULL)
            *n = fread(p, 1, (size_t)st.st_size, f);
    }
    fclose(f);
    return p;
}

/* Replay every file in DIR through FN (plus mutations); return the count. */
static int
replay(const char *root, const char *dir, fuzz_fn fn)
{
    char path[1024];
    DIR *d;
    struct dirent *de;
    int count = 0;

    snprintf(path, sizeof path, "%s/%s", root, dir);
    d = opendir(path);
    if (d == NULL) {
        TEST_CONDF(0, "cannot open corpus directory %s", path);
        return 0;
    }
    while ((de = readdir(d)) != NULL) {
        size_t n;
        uint8_t *p, *q;
        int before = fuzz_check_failures;
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/%s", root, dir, de->d_name);
        p = slurp(path, &n);
        if (p == NULL)
            continue;
        count++;
        fn(p, n);
        /* Hand-written seeds (not the fuzzer-found "fz-*" inputs, which are
        ** many) also get a deterministic mutation pass.  Truncations use an
        ** exact-size heap copy so ASan sees overreads. */
        int mutate = strncmp(de->d_name, "fz-", 3) != 0 && n <= 4096;
        for (size_t k = 0; mutate && k < n; k++) {
            q = malloc(k ? k : 1);
            memcpy(q, p, k);
            fn(q, k);
            free(q);
        }
        /* single-byte flips */
        for (size_t k = 0; mutate && k < n; k++) {
            p[k] ^= 0xa5;
            fn(p, n);
            p[k] ^= 0xa5;
        }
        if (fuzz_check_failures != before)
            printf("     %s/%s: %d invariant failures\n", dir, de->d_name, fuzz_check_failures - before);
        free(p);
    }
    closedir(d);
    return count;
}

int
main(void)
{
    const char *root = getenv("RWKV_CORPUS");

    if (root == NULL || *root == 0)
        root = "tests/fuzz/corpus";
    int nz = replay(root, "zipr", fuzz_zipr_one);
    TEST_CONDF(fuzz_check_failures == 0, "zipr corpus: %d invariant failures", fuzz_check_failures);
    fuzz_check_failures = 0;
    int np = replay(root, "pickle", fuzz_pickle_one);
    TEST_CONDF(fuzz_check_failures == 0, "pickle corpus: %d invariant failures", fuzz_check_failures);
    fuzz_check_failures = 0;
    int ns = replay(root, "st", fuzz_st_one);
    TEST_CONDF(fuzz_check_failures == 0, "st corpus: %d invariant failures", fuzz_check_failures);
    TEST_CONDF(nz >= 8 && np >= 14 && ns >= 4, "corpus sizes zipr %d pickle %d st %d", nz, np, ns);
    TEST_INFO("replayed %d zipr, %d pickle, %d safetensors seeds (+ truncations and byte flips)", nz, np, ns);
    return TEST_REPORT();
}
