/*
** test_store_blob_corpus.c -- replays tests/fuzz/corpus/blob/ through the
** fuzz harness (tests/fuzz/fuzz_blob.c) without libFuzzer, plus every
** single-byte corruption and every truncation of each seed: all of those
** must be refused (the checksum covers header and payload), none may crash.
** Run from the repo root (tests/run.sh does); RWKV_CORPUS overrides the path.
*/
#include "../harness.h"
#include "corpus_replay.h"

#define FUZZ_ENTRY fuzz_blob_one
#include "../fuzz/fuzz_blob.c"

static int
accepted(const uint8_t *p, size_t n)
{
    store_state_meta m;
    size_t nf;
    rwkv_err err;
    return store_blob_decode(p, n, &m, &nf, NULL, 0, &err) == RWKV_OK;
}

struct blob_counts {
    int flips_accepted, cuts_accepted;
};

/* One corpus file through the harness; a seed must be accepted, and each
** of its corruptions and truncations refused. */
static void
blob_one(const char *name, uint8_t *p, size_t n, void *ud)
{
    struct blob_counts *c = ud;

    fuzz_blob_one(p, n);
    if (strncmp(name, "seed", 4) != 0)
        return;
    TEST_CONDF(accepted(p, n), "%s: seed refused", name);
    for (size_t i = 0; i < n; i++) {
        for (int mask = 1; mask < 256; mask <<= 3) {
            p[i] ^= (uint8_t)mask;
            fuzz_blob_one(p, n);
            c->flips_accepted += accepted(p, n);
            p[i] ^= (uint8_t)mask;
        }
    }
    for (size_t k = 0; k < n; k++) {
        fuzz_blob_one(p, k);
        c->cuts_accepted += accepted(p, k);
    }
}

int
main(void)
{
    struct blob_counts c = { 0, 0 };
    int files = corpus_each(corpus_root(), "blob", blob_one, &c);

    TEST_CONDF(files >= 4, "%d corpus files", files);
    TEST_CONDF(c.flips_accepted == 0, "%d corrupted blobs accepted", c.flips_accepted);
    TEST_CONDF(c.cuts_accepted == 0, "%d truncated blobs accepted", c.cuts_accepted);
    TEST_CONDF(fuzz_check_failures == 0, "%d harness invariant failures", fuzz_check_failures);
    return TEST_REPORT();
}
