/*
** cmd_bench.c -- `rwkv-tui bench`: prefill and decode speed of a model, with
** a memory-bandwidth baseline measured in the same invocation.
**
** Numbers are medians over --repeat runs.  Decode streams every weight once
** per token, so its ceiling is (bandwidth / weight bytes per token); the
** report gives decode tok/s both absolute and as a share of that ceiling
** measured right now, which is what stays comparable on a noisy shared
** machine.  Prefill is reported as tok/s for a --prompt-tokens prompt fed in
** chunks of --chunk (the chat demo's CHUNK_LEN, default 256).
*/
#include "cli.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/mem.h"
#include "../core/rwkv.h"

static double
now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double
median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Resident set size in MiB from /proc/self/status (0 if unavailable). */
static double
rss_mib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = 0;

    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = strtod(line + 6, NULL);
    fclose(f);
    return kb / 1024.0;
}

/*
** Read bandwidth in bytes/s: THREADS threads each sum their slice of a
** buffer much larger than the caches, as decode streams its weights; median
** of 5 passes.  (A memcpy on one thread, the usual yardstick, measures
** well below what two cores reading can pull, so it overstates the share
** of the bound that decode reaches.)
*/
#define BW_BYTES ((size_t)512 << 20)
#define BW_PASSES 5

struct bw_job {
    const uint64_t *p;
    size_t          n;     /* words */
    uint64_t        sum;   /* OUT: stored, so the reads cannot be elided */
};

static void *
bw_sum(void *arg)
{
    struct bw_job *j = arg;
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;

    for (; i + 4 <= j->n; i += 4) {
        s0 += j->p[i];
        s1 += j->p[i + 1];
        s2 += j->p[i + 2];
        s3 += j->p[i + 3];
    }
    for (; i < j->n; i++)
        s0 += j->p[i];
    j->sum = s0 + s1 + s2 + s3;
    return NULL;
}

static double
read_bandwidth(int threads)
{
    size_t words = BW_BYTES / sizeof(uint64_t);
    uint64_t *buf = mem_alloc(BW_BYTES);
    struct bw_job job[64];
    pthread_t tid[64];
    double t[BW_PASSES];

    if (buf == NULL)
        return 0;
    if (threads < 1)
        threads = 1;
    if (threads > 64)
        threads = 64;
    for (size_t i = 0; i < words; i++)
        buf[i] = i;
    for (int r = 0; r < BW_PASSES; r++) {
        double t0 = now_s();
        int created[64] = { 0 };
        for (int k = 0; k < threads; k++) {
            job[k].p = buf + words / (size_t)threads * (size_t)k;
            job[k].n = k == threads - 1 ? words - words / (size_t)threads * (size_t)k
                                        : words / (size_t)threads;
            if (k > 0)
                created[k] = pthread_create(&tid[k], NULL, bw_sum, &job[k]) == 0;
        }
        bw_sum(&job[0]);
        for (int k = 1; k < threads; k++) {
            if (created[k])
                pthread_join(tid[k], NULL);
            else
                bw_sum(&job[k]);   /* no thread could be made: do it here */
        }
        t[r] = now_s() - t0;
    }
    mem_free(buf);
    return (double)BW_BYTES / median(t, BW_PASSES);
}

static int32_t
argmax(const float *v, int n)
{
    int32_t best = 0;

    for (int i = 1; i < n; i++)
        if (v[i] > v[best])
            best = i;
    return best;
}

static void
usage(FILE *f)
{
    fprintf(f, "usage: " PROG " bench (--model PATH | --demo | --shape NAME) [--strategy S]\n"
               "          [--threads N] [--prompt-tokens N] [--gen-tokens N] [--chunk N]\n"
               "          [--repeat R] [--json]\n\n"
               "--shape builds a random-weight RWKV-7 model of a real shape in memory (no\n"
               "download): demo, 0.1b (L12 C768), 0.4b (L24 C1024), 1.5b (L24 C2048),\n"
               "3b (L32 C2560), vocab 65536.\n\n"
               "Measure prefill (a prompt of --prompt-tokens, default 512, fed in chunks of\n"
               "--chunk, default 256) and decode (--gen-tokens, default 64, one token at a time)\n"
               "speed; medians over --repeat runs (default 3). Also measures memory copy\n"
               "bandwidth in the same run and reports decode as a share of the bandwidth\n"
               "bound (weight bytes per token / bandwidth).\n\n");
    cli_opts_help(f, 0);
}

int
cmd_bench(int argc, char **argv)
{
    struct cli_opts o;
    long prompt_n = 512, gen_n = 64, repeat = 3, chunk = 256;
    int json = 0, rc = 1;
    const char *shape = NULL;
    rwkv_model *m = NULL;
    rwkv_state *s = NULL;
    int32_t *toks = NULL;
    float *logits = NULL;
    double *tp = NULL, *td = NULL;
    rwkv_err err;
    rwkv_open_opts oo;
    double t_load;

    cli_opts_init(&o);
    for (int i = 1; i < argc;) {
        const char *v;
        int r;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
            i++;
            continue;
        }
        if ((r = cli_take(argc, argv, &i, "prompt-tokens", &v)) != 0) {
            if (r < 0 || cli_int("prompt-tokens", v, 1, 1 << 20, &prompt_n) < 0)
                return 2;
            continue;
        }
        if ((r = cli_take(argc, argv, &i, "gen-tokens", &v)) != 0) {
            if (r < 0 || cli_int("gen-tokens", v, 1, 1 << 20, &gen_n) < 0)
                return 2;
            continue;
        }
        if ((r = cli_take(argc, argv, &i, "shape", &v)) != 0) {
            if (r < 0)
                return 2;
            shape = v;
            continue;
        }
        if ((r = cli_take(argc, argv, &i, "repeat", &v)) != 0) {
            if (r < 0 || cli_int("repeat", v, 1, 1000, &repeat) < 0)
                return 2;
            continue;
        }
        r = cli_opts_parse(&o, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r == 0) {
            cli_errorf("bench: unknown option '%s' (see '" PROG " bench --help')", argv[i]);
            return 2;
        }
    }
    if (o.samp_set & PARAMS_BIT(params_find("chunk")))
        chunk = o.samp.chunk;
    if ((o.model != NULL) + (o.demo != 0) + (shape != NULL) != 1) {
        cli_errorf("bench: give one of --model PATH, --demo, --shape NAME");
        return 2;
    }
    memset(&oo, 0, sizeof oo);
    oo.strategy = o.strategy;
    oo.n_threads = o.threads;
    t_load = now_s();
    if ((shape ? rwkv_model_open_shape(shape, 1, &oo, &m, &err)
         : o.demo ? rwkv_model_open_demo(1, &oo, &m, &err)
                  : rwkv_model_open(o.model, &oo, &m, &err)) != RWKV_OK)
        return cli_fail(&err);
    t_load = now_s() - t_load;

    const rwkv_info *info = rwkv_model_info(m);
    toks = malloc(sizeof *toks * (size_t)prompt_n);
    logits = malloc(sizeof *logits * (size_t)info->n_vocab);
    tp = malloc(sizeof *tp * (size_t)repeat);
    td = malloc(sizeof *td * (size_t)repeat);
    if (toks == NULL || logits == NULL || tp == NULL || td == NULL) {
        cli_errorf("bench: out of memory");
        goto out;
    }
    if (rwkv_state_create(m, &s, &err) != RWKV_OK) {
        rc = cli_fail(&err);
        goto out;
    }
    /* A fixed pseudo-random prompt: the speed does not depend on the ids. */
    for (long i = 0; i < prompt_n; i++)
        toks[i] = (int32_t)(1 + (uint32_t)(i * 2654435761u) % (uint32_t)(info->n_vocab - 1));

    for (long r = 0; r < repeat; r++) {
        double t0;
        rwkv_state_reset(m, s);
        t0 = now_s();
        for (long at = 0; at < prompt_n; at += chunk) {
            size_t n = (size_t)(prompt_n - at < chunk ? prompt_n - at : chunk);
            if (rwkv_eval(m, toks + at, n, s, logits, &err) != RWKV_OK) {
                rc = cli_fail(&err);
                goto out;
            }
        }
        tp[r] = (double)prompt_n / (now_s() - t0);
        t0 = now_s();
        for (long g = 0; g < gen_n; g++) {
            int32_t t = argmax(logits, info->n_vocab);
            if (rwkv_eval(m, &t, 1, s, logits, &err) != RWKV_OK) {
                rc = cli_fail(&err);
                goto out;
            }
        }
        td[r] = (double)gen_n / (now_s() - t0);
    }

    double bw = read_bandwidth(info->n_threads);
    double prefill = median(tp, (int)repeat), decode = median(td, (int)repeat);
    /* Weight bytes read per decoded token: every prepared weight in the
    ** dtype the strategy stores it in, except the embedding table (one row
    ** is read). */
    double wbytes = (double)info->weight_bytes;
    const char *mname = shape ? shape : o.demo ? "demo" : o.model;
    double bound = wbytes > 0 ? bw / wbytes : 0;
    if (json) {
        printf("{\"model\": \"%s\", \"version\": \"%s\", \"strategy\": \"%s\", \"threads\": %d, "
               "\"params\": %llu, \"load_s\": %.3f, \"prompt_tokens\": %ld, \"chunk\": %ld, "
               "\"gen_tokens\": %ld, \"repeat\": %ld, \"weight_bytes\": %llu, \"prefill_tok_s\": %.2f, "
               "\"decode_tok_s\": %.2f, \"read_bandwidth_gb_s\": %.2f, "
               "\"decode_bound_tok_s\": %.2f, \"decode_share_of_bound\": %.3f, \"rss_mib\": %.1f}\n",
               mname, info->version, info->strategy, info->n_threads,
               (unsigned long long)info->n_params, t_load, prompt_n, chunk, gen_n, repeat,
               (unsigned long long)info->weight_bytes, prefill,
               decode, bw / 1e9, bound, bound > 0 ? decode / bound : 0, rss_mib());
    } else {
        printf("model      %s%s (RWKV v%s, %d layers, %d embd, %llu params, %.1f MB of weights "
               "per token)\n", mname, info->is_demo ? " (random weights)" : "", info->version,
               info->n_layer, info->n_embd, (unsigned long long)info->n_params, wbytes / 1e6);
        printf("strategy   %s, %d threads; load %.3f s; RSS %.1f MiB\n", info->strategy,
               info->n_threads, t_load, rss_mib());
        printf("prefill    %.2f tok/s (%ld tokens, chunk %ld, median of %ld)\n", prefill,
               prompt_n, chunk, repeat);
        printf("decode     %.2f tok/s (%ld tokens, median of %ld)\n", decode, gen_n, repeat);
        printf("baseline   read bandwidth %.2f GB/s (%d threads) -> decode bound %.2f tok/s; "
               "decode at %.0f%%\n",
               bw / 1e9, info->n_threads, bound, bound > 0 ? 100.0 * decode / bound : 0.0);
    }
    rc = 0;
out:
    free(toks);
    free(logits);
    free(tp);
    free(td);
    rwkv_state_destroy(s);
    rwkv_model_close(m);
    return rc;
}
