/*
** gpu_model_bench.c -- a whole-model benchmark that needs only core/ and
** gpu/ (no SQLite, ncurses or libcyaml): device_check.sh uses it when the
** device machine cannot build rwkv-tui itself.  It measures what `rwkv-tui
** bench --json` does (prefill of PROMPT tokens in chunks of 256, then GEN
** single tokens; medians of REPEAT runs) and prints the same JSON keys that
** device_check.sh reads.
**
**   gpu_model_bench SHAPE STRATEGY [PROMPT [GEN [REPEAT]]]
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../core/clock.h"
#include "../../core/rwkv.h"
#include "../../gpu/gpu.h"

#define CHUNK 256
#define MAX_REPEAT 16

int
main(int argc, char **argv)
{
    rwkv_open_opts o = { 0 };
    rwkv_model *m = NULL;
    rwkv_state *s = NULL;
    rwkv_err err;
    const rwkv_info *info;
    long prompt = argc > 3 ? atol(argv[3]) : 512, gen = argc > 4 ? atol(argv[4]) : 64;
    long repeat = argc > 5 ? atol(argv[5]) : 3;
    double tp[MAX_REPEAT], td[MAX_REPEAT], t0, load;
    int32_t *tok;
    float *logits;

    if (argc < 3 || prompt < 1 || gen < 1 || repeat < 1 || repeat > MAX_REPEAT) {
        fprintf(stderr, "usage: gpu_model_bench SHAPE STRATEGY [PROMPT [GEN [REPEAT<=%d]]]\n",
                MAX_REPEAT);
        return 2;
    }
    gpu_backend_register();
    o.strategy = argv[2];
    t0 = mono_now_s();
    if (rwkv_model_open_shape(argv[1], 1, &o, &m, &err) != RWKV_OK) {
        fprintf(stderr, "gpu_model_bench: %s\n", err.msg);
        return 1;
    }
    load = mono_now_s() - t0;
    info = rwkv_model_info(m);
    tok = malloc((size_t)(prompt > gen ? prompt : gen) * sizeof *tok);
    logits = malloc((size_t)info->n_vocab * sizeof *logits);
    if (tok == NULL || logits == NULL || rwkv_state_create(m, &s, &err) != RWKV_OK) {
        fprintf(stderr, "gpu_model_bench: out of memory\n");
        return 1;
    }
    for (long i = 0; i < (prompt > gen ? prompt : gen); i++)
        tok[i] = (int32_t)((i * 7919 + 13) % info->n_vocab);
    for (long r = 0; r < repeat; r++) {
        rwkv_state_reset(m, s);
        t0 = mono_now_s();
        for (long at = 0; at < prompt; at += CHUNK) {
            long n = prompt - at < CHUNK ? prompt - at : CHUNK;
            if (rwkv_eval(m, tok + at, (size_t)n, s, at + n == prompt ? logits : NULL, &err) !=
                RWKV_OK) {
                fprintf(stderr, "gpu_model_bench: %s\n", err.msg);
                return 1;
            }
        }
        tp[r] = (double)prompt / (mono_now_s() - t0);
        t0 = mono_now_s();
        for (long i = 0; i < gen; i++)
            if (rwkv_eval(m, tok + i, 1, s, logits, &err) != RWKV_OK) {
                fprintf(stderr, "gpu_model_bench: %s\n", err.msg);
                return 1;
            }
        td[r] = (double)gen / (mono_now_s() - t0);
    }
    {
        /* FLOPs per prompt token: every matrix but the head once per token,
         * the head once per call (as cmd_bench.c) */
        double head = (double)info->n_vocab * (double)info->n_embd;
        double calls = (double)((prompt + CHUNK - 1) / CHUNK);
        double gft = 2.0 * ((double)info->mat_params - head + head * calls / (double)prompt) / 1e9;
        printf("{\"model\": \"%s\", \"strategy\": \"%s\", \"load_s\": %.3f, "
               "\"mat_params\": %llu, \"weight_bytes\": %llu, \"prompt_tokens\": %ld, "
               "\"gen_tokens\": %ld, \"repeat\": %ld, \"prefill_tok_s\": %.2f, "
               "\"decode_tok_s\": %.2f, \"prefill_gflop_per_tok\": %.4f}\n",
               argv[1], info->strategy, load, (unsigned long long)info->mat_params,
               (unsigned long long)info->weight_bytes, prompt, gen, repeat,
               mono_median(tp, (size_t)repeat), mono_median(td, (size_t)repeat), gft);
    }
    rwkv_state_destroy(s);
    rwkv_model_close(m);
    free(tok);
    free(logits);
    return 0;
}
