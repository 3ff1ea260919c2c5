/*
** test_store_blob_corpus.c -- replays tests/fuzz/corpus/blob/ through the
** fuzz harness (tests/fuzz/fuzz_blob.c) without libFuzzer, plus every
** single-byte corruption and every truncation of each seed: all of those
** must be refused (the checksum covers header and payload), none may crash.
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
#define FUZZ_ENTRY fuzz_blob_one
#include "../fuzz/fuzz_blob.c"

static uint8_t *
slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    uint8_t *p = NULL;

    *n = 0;
    if (f == NULL)
        return NULL;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (p = malloc((size_t)st.st_size + 1)) != NULL)
        *n = fread(p, 1, (size_t)st.st_size, f);
    fclose(f);
    return p;
}

static int
accepted(const uint8_t *p, size_t n)
{
    store_state_meta m;
    size_t nf;
    rwkv_err err;
    return store_blob_decode(p, n, &m, &nf, NULL, 0, &err) == RWKV_OK;
}

int
main(void)
{
    const char *root = getenv("RWKV_CORPUS") ? getenv("RWKV_CORPUS") : "tests/fuzz/corpus";
    char dpath[1024], path[2048];
    DIR *d;
    struct dirent *e;
    int files = 0, flips_accepted = 0, cuts_accepted = 0;

    snprintf(dpath, sizeof dpath, "%s/blob", root);
    if ((d = opendir(dpath)) == NULL) {
        printf("FAIL %s: no corpus\n", dpath);
        return TEST_REPORT() + 1;
    }
    while ((e = readdir(d)) != NULL) {
        size_t n;
        uint8_t *p;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dpath, e->d_name);
        if ((p = slurp(path, &n)) == NULL)
            continue;
        files++;
        fuzz_blob_one(p, n);
        if (strncmp(e->d_name, "seed", 4) == 0) {
            TEST_CONDF(accepted(p, n), "%s: seed refused", e->d_name);
            for (size_t i = 0; i < n; i++) {
                for (int mask = 1; mask < 256; mask <<= 3) {
                    p[i] ^= (uint8_t)mask;
                    fuzz_blob_one(p, n);
                    flips_accepted += accepted(p, n);
                    p[i] ^= (uint8_t)mask;
                }
            }
            for (size_t k = 0; k < n; k++) {
                fuzz_blob_one(p, k);
                cuts_accepted += accepted(p, k);
            }
        }
        free(p);
    }
    closedir(d);
    TEST_CONDF(files >= 4, "%d corpus files", files);
    TEST_CONDF(flips_accepted == 0, "%d corrupted blobs accepted", flips_accepted);
    TEST_CONDF(cuts_accepted == 0, "%d truncated blobs accepted", cuts_accepted);
    TEST_CONDF(fuzz_check_failures == 0, "%d harness invariant failures", fuzz_check_failures);
    return TEST_REPORT();
}
