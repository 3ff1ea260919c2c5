/*
** test_fuzz_corpus.c -- replays the corpora of the harnesses added for
** issue 14 through the harnesses themselves, without libFuzzer, so `make
** test` (and `make asan`) checks every seed and regression input:
**   config   tests/fuzz/fuzz_config.c    YAML config (tui/config.c)
**   theme    tests/fuzz/fuzz_theme.c     YAML themes (tui/theme.c)
**   sampling tests/fuzz/fuzz_sampling.c  sampling strings from the database
**   state    tests/fuzz/fuzz_state.c     state-tuning files (core/state.c)
**   wcache   tests/fuzz/fuzz_wcache.c    weight-cache files (core/wcache.c)
**   import   tests/fuzz/fuzz_import.c    `sessions import` JSON
**   db       tests/fuzz/fuzz_db.c        row edits of a session database
** (The checkpoint, blob and tokenizer corpora have their own replays:
** test_ckpt_corpus.c, test_store_blob_corpus.c, test_tokenizer_fuzz.c.)
** Hand-written seeds of the small text formats (config, theme, sampling)
** are also replayed truncated at every length and with each byte flipped.
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

#define FUZZ_ENTRY fuzz_config_one
#include "../fuzz/fuzz_config.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_theme_one
#include "../fuzz/fuzz_theme.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_sampling_one
#include "../fuzz/fuzz_sampling.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_state_one
#include "../fuzz/fuzz_state.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_wcache_one
#include "../fuzz/fuzz_wcache.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_import_one
#include "../fuzz/fuzz_import.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_db_one
#include "../fuzz/fuzz_db.c"
#undef FUZZ_ENTRY

typedef int (*fuzz_fn)(const uint8_t *, size_t);

static uint8_t *
corpus_slurp(const char *path, size_t *n)
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

/* Replay every file in ROOT/DIR through FN (MUTATE: plus truncations and
** byte flips of hand-written seeds); TEST_COND per corpus. */
static void
replay(const char *root, const char *dir, fuzz_fn fn, int mutate_seeds, int min_files)
{
    char path[1024];
    DIR *d;
    struct dirent *de;
    int count = 0;

    fuzz_check_failures = 0;
    snprintf(path, sizeof path, "%s/%s", root, dir);
    if ((d = opendir(path)) == NULL) {
        TEST_CONDF(0, "cannot open corpus directory %s", path);
        return;
    }
    while ((de = readdir(d)) != NULL) {
        size_t n;
        uint8_t *p;
        int before = fuzz_check_failures, mutate;
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/%s", root, dir, de->d_name);
        if ((p = corpus_slurp(path, &n)) == NULL)
            continue;
        count++;
        fn(p, n);
        mutate = mutate_seeds && strncmp(de->d_name, "fz-", 3) != 0 && n <= 4096;
        for (size_t k = 0; mutate && k < n; k++) {
            uint8_t *q = malloc(k ? k : 1);   /* exact size: ASan sees overreads */
            memcpy(q, p, k);
            fn(q, k);
            free(q);
        }
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
    TEST_CONDF(fuzz_check_failures == 0, "%s corpus: %d invariant failures", dir, fuzz_check_failures);
    TEST_CONDF(count >= min_files, "%s corpus: %d files, expected at least %d", dir, count, min_files);
    TEST_INFO("%s: replayed %d inputs%s", dir, count, mutate_seeds ? " (+ truncations and byte flips)" : "");
}

int
main(void)
{
    const char *root = getenv("RWKV_CORPUS");

    if (root == NULL || *root == 0)
        root = "tests/fuzz/corpus";
    replay(root, "config", fuzz_config_one, 1, 4);
    replay(root, "theme", fuzz_theme_one, 1, 4);
    replay(root, "sampling", fuzz_sampling_one, 1, 4);
    replay(root, "state", fuzz_state_one, 0, 3);
    replay(root, "wcache", fuzz_wcache_one, 0, 2);
    replay(root, "import", fuzz_import_one, 0, 3);
    replay(root, "db", fuzz_db_one, 0, 3);
    return TEST_REPORT();
}
