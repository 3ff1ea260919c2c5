/*
** test_sampler_temp.c -- a small temperature (core/chat/sampler.c).  The
** reference raises the kept probabilities to 1/T in float32; at T = 0.0001
** even the largest p ** 10000 is 0 there, so every draw failed with "no
** token can be sampled (all banned or NaN logits)" -- `--temperature
** 0.0001` ended every reply before its first token.  Now such a temperature
** gives the same distribution computed without the underflow: the most
** likely token (ties shared), the others by (p / pmax) ** (1/T).  Above the
** underflow the reference's float32 powers are unchanged.
*/
#include "../harness.h"

#include "../../core/chat/rng.h"
#include "../../core/chat/sampler.h"

#define NV 256

int
main(void)
{
    static float logits[NV], probs[NV];
    samp *s = NULL;
    rwkv_err err;
    rng r;
    int ok_draws = 1;
    size_t kept;

    if (samp_create(NV, &s, &err) != RWKV_OK) {
        printf("FAIL samp_create: %s\n", err.msg);
        return 1;
    }
    /* a spread of logits: token 7 the most likely, 9 close behind */
    for (int i = 0; i < NV; i++)
        logits[i] = (float)(i % 13) * 0.1f - 2.0f;
    logits[7] = 3.0f;
    logits[9] = 2.999f;

    /* T = 0.0001, top-p 0.9 (7, 9 and more kept): token 7 nearly always, never
    ** a failure */
    kept = samp_distribution(s, logits, 0.0001, 0.9, 0, probs);
    TEST_CONDF(kept > 2, "kept %zu", kept);
    TEST_CONDF(probs[7] > 0.99f && probs[7] <= 1.0f, "p[7] = %g", (double)probs[7]);
    /* (p9/p7) ** 10000 = exp(-0.001 * 10000) = exp(-10) */
    TEST_CONDF(fabs(probs[9] / probs[7] - exp(-10.0)) < 1e-5, "p[9]/p[7] = %g, want %g",
               (double)(probs[9] / probs[7]), exp(-10.0));
    rng_seed(&r, 1);
    for (int k = 0; k < 200; k++) {
        int32_t id = samp_sample(s, logits, 0.0001, 0.3, 0, &r);
        if (id != 7 && id != 9)
            ok_draws = 0;
    }
    TEST_COND("T = 0.0001: every draw is a token (7 or 9)", ok_draws);

    /* T = 1e-30 (1/T above float's range) and a tie: the tied tokens share */
    logits[9] = 3.0f;
    kept = samp_distribution(s, logits, 1e-30, 0.9, 0, probs);
    TEST_CONDF(kept > 2 && fabs(probs[7] - 0.5) < 1e-6 && fabs(probs[9] - 0.5) < 1e-6 &&
               probs[0] == 0.0f, "T = 1e-30, tie: p7 %g p9 %g p0 %g", (double)probs[7],
               (double)probs[9], (double)probs[0]);
    rng_seed(&r, 2);
    TEST_COND("T = 1e-30: a draw", samp_sample(s, logits, 1e-30, 0.3, 0, &r) >= 0);

    /* a temperature the reference handles: its powers, (p9/p7) ** 2 */
    logits[9] = 2.5f;
    kept = samp_distribution(s, logits, 0.5, 0.9, 0, probs);
    TEST_CONDF(kept > 2 && fabs(probs[9] / probs[7] - exp(-1.0)) < 1e-5,
               "T = 0.5: kept %zu, p9/p7 %g want %g", kept, (double)(probs[9] / probs[7]),
               exp(-1.0));
    samp_destroy(s);
    return TEST_REPORT();
}
