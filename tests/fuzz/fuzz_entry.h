/*
** fuzz_entry.h -- the opening every harness shares; include it in the
** harness after its other headers:
**   FUZZ_CHECK(cond)  aborts, so that libFuzzer reports the input, unless
**                     the includer (a unit test replaying a corpus, e.g.
**                     tests/unit/corpus_replay.h) defines it to count;
**   FUZZ_ENTRY        the entry point's name, LLVMFuzzerTestOneInput unless
**                     the includer renames it (test_fuzz_corpus.c builds
**                     several harnesses into one program), declared here.
** No include guard on purpose: each harness declares its own entry point.
*/
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#ifndef FUZZ_CHECK
#define FUZZ_CHECK(c)                                                          \
    do {                                                                       \
        if (!(c))                                                              \
            abort();                                                           \
    } while (0)
#endif
#ifndef FUZZ_ENTRY
#define FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif

int FUZZ_ENTRY(const uint8_t *data, size_t size);
