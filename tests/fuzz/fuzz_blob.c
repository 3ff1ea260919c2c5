/*
** fuzz_blob.c -- libFuzzer harness: the snapshot blob decoder
** (storage/store_blob.c), the bytes a session database hands back.
**
**   clang -fsanitize=fuzzer,address,undefined -Istorage tests/fuzz/fuzz_blob.c \
**       storage/store_blob.c core/status.c -o build-fuzz/fuzz_blob
**   mkdir -p build-fuzz/blob && build-fuzz/fuzz_blob build-fuzz/blob tests/fuzz/corpus/blob
** (or `make fuzz`).
**
** Invariants: decoding never reads outside the input; a refusal leaves one
** line; an accepted blob re-encodes to exactly the same bytes.
** tests/unit/test_store_blob_corpus.c replays the corpus under `make test`.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../storage/store.h"

#include "fuzz_entry.h"

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    store_state_meta meta;
    rwkv_err err;
    size_t n;

    if (store_blob_decode(data, size, &meta, &n, NULL, 0, &err) != RWKV_OK) {
        FUZZ_CHECK(err.code == RWKV_EFORMAT && strchr(err.msg, '\n') == NULL && err.msg[0] != '\0');
        return 0;
    }
    FUZZ_CHECK(store_blob_size(n) == size);
    float *v = malloc(n ? n * sizeof *v : 1);
    unsigned char *again = malloc(size);
    if (v != NULL && again != NULL) {
        FUZZ_CHECK(store_blob_decode(data, size, &meta, &n, v, n, &err) == RWKV_OK);
        store_blob_encode(v, n, &meta, again);
        FUZZ_CHECK(memcmp(again, data, size) == 0);
    }
    free(v);
    free(again);
    return 0;
}
