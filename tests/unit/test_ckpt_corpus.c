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
#include "../harness.h"
#include "corpus_replay.h"

#define FUZZ_ENTRY fuzz_zipr_one
#include "../fuzz/fuzz_zipr.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_pickle_one
#include "../fuzz/fuzz_pickle.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_st_one
#include "../fuzz/fuzz_st.c"
#undef FUZZ_ENTRY

int
main(void)
{
    const char *root = corpus_root();

    corpus_replay(root, "zipr", fuzz_zipr_one, 1, 8);
    corpus_replay(root, "pickle", fuzz_pickle_one, 1, 14);
    corpus_replay(root, "st", fuzz_st_one, 1, 4);
    return TEST_REPORT();
}
