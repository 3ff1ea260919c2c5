/*
** corpus_replay.h -- replaying a fuzz corpus (tests/fuzz/corpus/DIR/)
** through its harness without libFuzzer, for the unit tests that do it
** (test_fuzz_corpus.c, test_ckpt_corpus.c, test_store_blob_corpus.c).
**
** Include it after tests/harness.h and before the harnesses
** (tests/fuzz/fuzz_*.c): it defines FUZZ_CHECK to count a broken invariant
** (and print it) instead of aborting.  The corpus root is $RWKV_CORPUS, else
** tests/fuzz/corpus (the tests run from the repo root).
*/
#ifndef RWKV_TEST_CORPUS_REPLAY_H
#define RWKV_TEST_CORPUS_REPLAY_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fuzz_check_failures;
#define FUZZ_CHECK(c)                                                          \
    do {                                                                       \
        if (!(c)) {                                                            \
            fuzz_check_failures++;                                             \
            printf("     FUZZ_CHECK failed: %s (%s:%d)\n", #c, __FILE__, __LINE__); \
        }                                                                      \
    } while (0)

/* A harness's entry point (LLVMFuzzerTestOneInput renamed by FUZZ_ENTRY). */
typedef int (*fuzz_fn)(const uint8_t *, size_t);

static inline const char *
corpus_root(void)
{
    const char *root = getenv("RWKV_CORPUS");

    return root != NULL && *root != 0 ? root : "tests/fuzz/corpus";
}

/* Call EACH(name, bytes, size, UD) for every file of ROOT/DIR (not the
** hidden ones); the bytes are the callee's to change, freed after.  Returns
** the number of files; a missing directory is a failed check. */
static inline int
corpus_each(const char *root, const char *dir,
            void (*each)(const char *name, uint8_t *p, size_t n, void *ud), void *ud)
{
    char path[1024];
    DIR *d;
    struct dirent *de;
    int count = 0;

    snprintf(path, sizeof path, "%s/%s", root, dir);
    if ((d = opendir(path)) == NULL) {
        TEST_CONDF(0, "cannot open corpus directory %s", path);
        return 0;
    }
    while ((de = readdir(d)) != NULL) {
        size_t n;
        uint8_t *p;
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/%s", root, dir, de->d_name);
        if ((p = test_slurp(path, &n)) == NULL)
            continue;
        count++;
        each(de->d_name, p, n, ud);
        free(p);
    }
    closedir(d);
    return count;
}

struct corpus_run {
    const char *dir;
    fuzz_fn     fn;
    int         mutate;
};

/* One file through the harness; hand-written seeds (not the fuzzer-found
** "fz-*" inputs, which are many) also truncated at every length (an
** exact-size heap copy, so ASan sees overreads) and with each byte flipped. */
static inline void
corpus_one(const char *name, uint8_t *p, size_t n, void *ud)
{
    const struct corpus_run *r = ud;
    int before = fuzz_check_failures;
    int mutate = r->mutate && strncmp(name, "fz-", 3) != 0 && n <= 4096;

    r->fn(p, n);
    for (size_t k = 0; mutate && k < n; k++) {
        uint8_t *q = malloc(k ? k : 1);
        memcpy(q, p, k);
        r->fn(q, k);
        free(q);
    }
    for (size_t k = 0; mutate && k < n; k++) {
        p[k] ^= 0xa5;
        r->fn(p, n);
        p[k] ^= 0xa5;
    }
    if (fuzz_check_failures != before)
        printf("     %s/%s: %d invariant failures\n", r->dir, name, fuzz_check_failures - before);
}

/*
** Replay ROOT/DIR through FN (MUTATE: plus the seeds' truncations and byte
** flips).  Checks: no invariant failed, at least MIN_FILES files.  Returns
** the number of files.
*/
static inline int
corpus_replay(const char *root, const char *dir, fuzz_fn fn, int mutate, int min_files)
{
    struct corpus_run r = { dir, fn, mutate };
    int count;

    fuzz_check_failures = 0;
    count = corpus_each(root, dir, corpus_one, &r);
    TEST_CONDF(fuzz_check_failures == 0, "%s corpus: %d invariant failures", dir,
               fuzz_check_failures);
    TEST_CONDF(count >= min_files, "%s corpus: %d files, expected at least %d", dir, count,
               min_files);
    TEST_INFO("%s: replayed %d inputs%s", dir, count,
              mutate ? " (+ truncations and byte flips)" : "");
    return count;
}

#endif
