/*
** test_fuzz_corpus.c -- replays the corpora of the harnesses added for
** issue 14 through the harnesses themselves, without libFuzzer, so `make
** test` (and `make asan`) checks every seed and regression input:
**   config   tests/fuzz/fuzz_config.c    YAML config (tui/config.c)
**   theme    tests/fuzz/fuzz_theme.c     YAML themes (tui/theme.c)
**   sampling tests/fuzz/fuzz_sampling.c  sampling strings from the database
**   state    tests/fuzz/fuzz_state.c     state-tuning files (core/model/state.c)
**   wcache   tests/fuzz/fuzz_wcache.c    weight-cache files (core/model/wcache.c)
**   import   tests/fuzz/fuzz_import.c    `sessions import` JSON
**   db       tests/fuzz/fuzz_db.c        row edits of a session database
** (The checkpoint, blob and tokenizer corpora have their own replays:
** test_ckpt_corpus.c, test_store_blob_corpus.c, test_tokenizer_fuzz.c.)
** Hand-written seeds of the small text formats (config, theme, sampling)
** are also replayed truncated at every length and with each byte flipped.
** Run from the repo root (tests/run.sh does); RWKV_CORPUS overrides the path.
*/
#include "../harness.h"
#include "corpus_replay.h"

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

int
main(void)
{
    const char *root = corpus_root();

    corpus_replay(root, "config", fuzz_config_one, 1, 4);
    corpus_replay(root, "theme", fuzz_theme_one, 1, 4);
    corpus_replay(root, "sampling", fuzz_sampling_one, 1, 4);
    corpus_replay(root, "state", fuzz_state_one, 0, 3);
    corpus_replay(root, "wcache", fuzz_wcache_one, 0, 2);
    corpus_replay(root, "import", fuzz_import_one, 0, 3);
    corpus_replay(root, "db", fuzz_db_one, 0, 3);
    return TEST_REPORT();
}
