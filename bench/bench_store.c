/*
** bench_store.c -- session store benchmark (`make bench-store`).
**
** 1. How real RWKV states compress: for each state file given (default: the
**    fixtures' real states), the raw size, a byte-plane shuffle + RLE (the
**    libc-only codec one would write), and the order-0 entropy bound of each
**    byte plane (what the best byte-wise entropy coder could reach).
** 2. Resume, fork and replay-plan times for a 1.5B-sized state (RWKV-7 1.5B:
**    24 layers, C 2048, 32 heads of 64 = 3,244,032 floats = 12.98 MB) in
**    conversations of 10 and 1000 turns (100 tokens a turn), on a real
**    database file in a temp dir.  Snapshots are written where the retention
**    policy keeps them (last 6 turns, every 100th for this run).
**
** usage: bench_store [--quick] [STATE.bin ...]
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/clock.h"
#include "../storage/store.h"

#define FLOATS_1B5 3244032u
#define TOKENS_PER_TURN 100

/* Bytes of a simple RLE of N bytes: runs >= 3 as (ctrl, byte), literals in
** blocks of <= 128 with one ctrl byte each. */
static size_t
rle_size(const unsigned char *p, size_t n)
{
    size_t out = 0, lit = 0, i = 0;

    while (i < n) {
        size_t j = i;
        while (j < n && p[j] == p[i] && j - i < 130)
            j++;
        if (j - i >= 3) {
            out += lit + (lit + 127) / 128;
            lit = 0;
            out += 2;
            i = j;
        } else {
            lit++;
            i++;
        }
    }
    return out + lit + (lit + 127) / 128;
}

static double
entropy_bytes(const unsigned char *p, size_t n)
{
    size_t h[256] = { 0 };
    double e = 0;

    for (size_t i = 0; i < n; i++)
        h[p[i]]++;
    for (int k = 0; k < 256; k++)
        if (h[k])
            e -= (double)h[k] * log2((double)h[k] / (double)n);
    return e / 8;
}

static void
compression(int argc, char **argv)
{
    static const char *defaults[] = {
        "tiny/7v0/fp32w-cpufp32-L-rnn-state.bin", "tiny/7v0/fp32w-cpufp32-ST1-rnn-state.bin",
        "tiny/rand7h2/bf16w-cpufp32-L-rnn-state.bin", "tiny/6v0/fp32w-cpufp32-L-rnn-state.bin",
        "tiny/5v2/fp32w-cpufp32-L-rnn-state.bin", "tiny/4v0/fp32w-cpufp32-L-rnn-state.bin",
        "world/world-7v0/chat_demo_flow-final-state.bin",
    };
    const char *fx = getenv("RWKV_FIXTURES") ? getenv("RWKV_FIXTURES") : "../shared/fixtures";
    int n = argc > 0 ? argc : (int)(sizeof defaults / sizeof defaults[0]);

    printf("state compression (stored/raw; lower is better)\n");
    printf("%-48s %9s %11s %11s  %s\n", "state", "floats", "shuffle+RLE", "entropy H0", "bits/byte per plane (lo..hi)");
    for (int i = 0; i < n; i++) {
        char path[1024];
        FILE *f;
        long sz;
        unsigned char *b, *pl;
        size_t nf, rle = 0;
        double h0 = 0, hp[4];
        if (argc > 0)
            snprintf(path, sizeof path, "%s", argv[i]);
        else
            snprintf(path, sizeof path, "%s/%s", fx, defaults[i]);
        if ((f = fopen(path, "rb")) == NULL) {
            printf("%-48s (missing)\n", path);
            continue;
        }
        fseek(f, 0, SEEK_END);
        sz = ftell(f);
        fseek(f, 0, SEEK_SET);
        nf = (size_t)sz / 4;
        b = malloc((size_t)sz);
        pl = malloc(nf);
        if (b == NULL || pl == NULL || fread(b, 1, (size_t)sz, f) != (size_t)sz) {
            fclose(f);
            free(b);
            free(pl);
            continue;
        }
        fclose(f);
        for (int k = 0; k < 4; k++) {
            for (size_t j = 0; j < nf; j++)
                pl[j] = b[4 * j + k];
            rle += rle_size(pl, nf);
            hp[k] = entropy_bytes(pl, nf);
            h0 += hp[k];
        }
        printf("%-48.48s %9zu %11.3f %11.3f  %.2f %.2f %.2f %.2f\n", argc > 0 ? path : defaults[i], nf,
               (double)rle / (double)sz, h0 / (double)sz, hp[0] * 8 / nf, hp[1] * 8 / nf, hp[2] * 8 / nf,
               hp[3] * 8 / nf);
        free(b);
        free(pl);
    }
    printf("\n");
}

static int
conversation(const char *dir, int turns)
{
    char db[512];
    store *st;
    rwkv_err err;
    store_session ss;
    store_state_meta meta = { 0x5eed, "7.0", 24, 2048, 32, 64, STORE_PREC_FP32, 0, 0 };
    store_retention ret = { 6, 100 };
    float *state = malloc(FLOATS_1B5 * sizeof *state), *back = malloc(FLOATS_1B5 * sizeof *back);
    int32_t tok[TOKENS_PER_TURN];
    int64_t sess = 0, parent = 0, *ids = malloc(turns * sizeof *ids);
    double t_put = 0, t0;
    int n_put = 0;
    struct stat sb;

    snprintf(db, sizeof db, "%s/bench-%d.db", dir, turns);
    if (state == NULL || back == NULL || ids == NULL || store_open(db, &st, &err) != RWKV_OK)
        return 1;
    store_set_retention(st, &ret);
    for (size_t k = 0; k < FLOATS_1B5; k++)
        state[k] = sinf((float)k * 0.001f) * 3.0f;
    for (int k = 0; k < TOKENS_PER_TURN; k++)
        tok[k] = 1000 + k;
    memset(&ss, 0, sizeof ss);
    snprintf(ss.title, sizeof ss.title, "bench %d", turns);
    store_session_new(st, &ss, &sess, &err);
    for (int i = 0; i < turns; i++) {
        store_turn t;
        int snap = i >= turns - ret.keep_last || i % ret.every == 0;
        memset(&t, 0, sizeof t);
        t.session_id = sess;
        t.parent_id = parent;
        t.role = i % 2 ? STORE_ROLE_ASSISTANT : STORE_ROLE_USER;
        t.text = "a turn of about a hundred tokens";
        t.tokens = tok;
        t.n_tokens = TOKENS_PER_TURN;
        state[0] = (float)i;
        t0 = mono_now_s();
        if (store_turn_append(st, &t, snap ? state : NULL, FLOATS_1B5, &meta, &err) != RWKV_OK) {
            fprintf(stderr, "append: %s\n", err.msg);
            return 1;
        }
        if (snap) {
            t_put += mono_now_s() - t0;
            n_put++;
        }
        ids[i] = parent = t.id;
    }
    store_close(st);

    /* open + resume (leaf) */
    store_plan p;
    t0 = mono_now_s();
    if (store_open(db, &st, &err) != RWKV_OK)
        return 1;
    double t_open = mono_now_s() - t0;
    t0 = mono_now_s();
    store_session_get(st, sess, &ss, &err);
    int rc = store_state_restore(st, ss.head_turn, &meta, back, FLOATS_1B5, &p, &err);
    double t_resume = mono_now_s() - t0;
    if (rc != RWKV_OK || p.base_turn != ids[turns - 1] || back[0] != (float)(turns - 1))
        fprintf(stderr, "resume failed: %s\n", err.msg);
    store_plan_fini(&p);

    /* plan for a turn in the middle (metadata only) and its restore */
    int mid = turns / 2 + 3 < turns ? turns / 2 + 3 : turns - 1;
    t0 = mono_now_s();
    store_replay_plan(st, ids[mid], &meta, &p, &err);
    double t_plan = mono_now_s() - t0;
    size_t cost = p.n_tokens;
    store_plan_fini(&p);
    t0 = mono_now_s();
    store_state_restore(st, ids[mid], &meta, back, FLOATS_1B5, &p, &err);
    double t_restore_mid = mono_now_s() - t0;
    store_plan_fini(&p);

    /* fork: in place (head moves) and as a new session */
    t0 = mono_now_s();
    store_session_set_head(st, sess, ids[mid], &err);
    double t_fork_inplace = mono_now_s() - t0;
    int64_t nsid;
    t0 = mono_now_s();
    rc = store_session_fork(st, sess, ids[turns - 1], NULL, &nsid, &err);
    double t_fork = mono_now_s() - t0;
    if (rc != RWKV_OK)
        fprintf(stderr, "fork: %s\n", err.msg);
    /* resume the fork */
    store_session_get(st, nsid, &ss, &err);
    t0 = mono_now_s();
    rc = store_state_restore(st, ss.head_turn, &meta, back, FLOATS_1B5, &p, &err);
    double t_resume_fork = mono_now_s() - t0;
    if (rc != RWKV_OK || p.n_tokens != 0)
        fprintf(stderr, "resume of the fork needed %zu tokens\n", p.n_tokens);
    store_plan_fini(&p);
    uint64_t bytes;
    int64_t count;
    store_snapshot_usage(st, 0, &bytes, &count, &err);
    store_close(st);
    stat(db, &sb);

    printf("%6d turns: put %.1f ms/snapshot, open %.2f ms, resume %.1f ms, plan(turn %d) %.2f ms = %zu tokens,"
           " restore(turn %d) %.1f ms, fork in place %.2f ms, fork to new session %.1f ms, resume fork %.1f ms;"
           " %lld snapshots %.0f MB, file %.0f MB\n",
           turns, n_put ? t_put / n_put * 1e3 : 0, t_open * 1e3, t_resume * 1e3, mid, t_plan * 1e3, cost, mid,
           t_restore_mid * 1e3, t_fork_inplace * 1e3, t_fork * 1e3, t_resume_fork * 1e3, (long long)count,
           (double)bytes / 1e6, (double)sb.st_size / 1e6);
    unlink(db);
    free(state);
    free(back);
    free(ids);
    return 0;
}

int
main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    char dir[256];

    if (quick) {
        argc--;
        argv++;
    }
    compression(argc - 1, argv + 1);
    snprintf(dir, sizeof dir, "%s/rwkv-bench.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(dir) == NULL)
        return 1;
    printf("1.5B-sized state (%u floats, %.2f MB a snapshot), %d tokens a turn\n", FLOATS_1B5,
           store_blob_size(FLOATS_1B5) / 1e6, TOKENS_PER_TURN);
    int rc = conversation(dir, 10);
    if (!quick && rc == 0)
        rc = conversation(dir, 1000);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return rc;
}
