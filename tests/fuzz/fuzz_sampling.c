/*
** fuzz_sampling.c -- libFuzzer harness: the sampling strings the session
** store keeps in its rows ("temperature=1 top_p=0.3 ...", storage
** store_sampling_parse), which a damaged or hand-edited database controls.
**
**   make fuzz && build-fuzz/fuzz_sampling -dict=tests/fuzz/sampling.dict tests/fuzz/corpus/sampling
**
** Invariants: parsing succeeds or fails with one line; what parses formats
** (store_sampling_format) to text that parses again to the same text (a
** fixed point after one round), with every value finite.
*/
#include <math.h>
#include <stdint.h>

#include "../../core/chat/params.h"
#include "../../storage/store.h"
#include "fuzz_tmp.h"

#include "fuzz_entry.h"

/* Longer strings are not worth the time (a row holds a few hundred bytes). */
#define FUZZ_SAMP_MAX 4096

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    char text[FUZZ_SAMP_MAX + 1], a[1024], b[1024];
    rwkv_sampling s, s2;
    rwkv_err err;

    if (size > FUZZ_SAMP_MAX)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    params_defaults(&s);   /* a row's text is parsed over the defaults */
    memset(&err, 0, sizeof err);
    if (store_sampling_parse(text, &s, &err) != RWKV_OK) {
        FUZZ_CHECK(fuzz_one_line(err.msg));
        return 0;
    }
    FUZZ_CHECK(isfinite(s.temperature) && isfinite(s.top_p));
    store_sampling_format(&s, a, sizeof a);
    FUZZ_CHECK(memchr(a, '\0', sizeof a) != NULL);
    params_defaults(&s2);
    FUZZ_CHECK(store_sampling_parse(a, &s2, &err) == RWKV_OK);
    store_sampling_format(&s2, b, sizeof b);
    FUZZ_CHECK(strcmp(a, b) == 0);
    return 0;
}
