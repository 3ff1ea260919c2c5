/*
** cmd_info.c -- `rwkv-tui info`: describe a checkpoint (version, sizes,
** parameter count, stored dtypes, file size, format) and what runs it (the
** CPU kernel set, the CUDA devices).
*/
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../core/io/ckpt_verify.h"
#include "../core/kernels/cpuid.h"
#include "../core/kernels/kernels.h"
#include "../core/model/strategy.h"
#include "../core/model/wcache.h"
#include "../core/rwkv.h"
#include "../gpu/gpu.h"

/* The machine's side: the CPU kernel set that runs the cpu layers and the
 * CUDA devices this build sees (for "is my GPU used?"). */
static void
info_machine(void)
{
    char feat[160];
    rwkv_err err;
    int n = 0;

    cpuid_feature_names(cpuid_features(), feat, sizeof feat);
    printf("kernels:     %s%s%s (cpu: %s)\n", simd_kernels_name(kern_default_kernels()),
           *kern_env_state() ? ", " : "", kern_env_state(), feat[0] ? feat : "-");
    rwkv_err_clear(&err);
    if (!gpu_compiled()) {
        printf("cuda:        not in this build (make CUDA=1 where nvcc is installed)\n");
        return;
    }
    if (gpu_device_count(&n, &err) != RWKV_OK || n == 0) {
        printf("cuda:        %s\n", err.msg[0] ? err.msg : "no CUDA device found");
        return;
    }
    for (int i = 0; i < n; i++) {
        gpu_device_info d;
        if (gpu_device_query(i, &d, &err) != RWKV_OK)
            printf("cuda:%-7d %s\n", i, err.msg);
        else
            printf("cuda:%-7d %s, sm_%d%d, %d SMs, %.1f GiB (%.1f free)\n", i, d.name,
                   d.cc_major, d.cc_minor, d.sm_count, (double)d.total_bytes / (1u << 30),
                   (double)d.free_bytes / (1u << 30));
    }
}

static void
info_help(FILE *f)
{
    fprintf(f, "usage: " PROG " info (--model PATH | --demo) [--strategy S] [--verify]\n"
               "                     [--clean-weight-cache stale|all]\n\n"
               "Load the checkpoint, validate every tensor and describe the model, then\n"
               "what runs it: the CPU kernel set (RWKV_KERNELS) and the CUDA devices this\n"
               "build sees, or why there are none.\n"
               "  --verify   read the whole file and check the CRC-32 of every entry of a\n"
               "             .pth (a load checks only what it reads); names a damaged tensor\n"
               "  --clean-weight-cache stale|all\n"
               "             remove the weight-cache files `info` lists that are stale (their\n"
               "             model deleted or changed since, another version's format), or\n"
               "             all of them but the one this load uses; only files " PROG "\n"
               "             wrote are touched\n\n");
    cli_opts_help(f, 0);
    cli_opts_help_client(f, 1);
}

/* --state and --vocab, when given, checked against the model as chat would
** load them (they were taken and never looked at: `info --state S` read as
** "S fits" whatever S was).  0, or 1 with the loader's line. */
static int
info_inputs(const struct cli_opts *o, rwkv_model *m, const rwkv_info *in)
{
    rwkv_state *s = NULL;
    rwkv_err err;
    tok *t = NULL;
    int rc = 0;

    if (o->state != NULL) {
        if (rwkv_state_create(m, &s, &err) != RWKV_OK ||
            rwkv_state_load_file(m, o->state, s, &err) != RWKV_OK)
            rc = cli_fail(&err);
        else
            printf("state file:  %s (fits this model)\n", o->state);
        rwkv_state_destroy(s);
    }
    if (rc == 0 && o->vocab != NULL && in->n_vocab == 256) {
        printf("vocabulary:  %s not used (the model's 256 outputs are bytes)\n", o->vocab);
    } else if (rc == 0 && o->vocab != NULL) {
        if ((rc = cli_open_tokenizer(o, in->n_vocab, &t)) == 0)
            printf("vocabulary:  %s (%zu tokens)\n", o->vocab, tok_vocab_size(t));
        tok_close(t);
    }
    return rc;
}

/* BYTES for a person: "512 KiB", "3.4 MiB", "1.21 GiB". */
static const char *
info_size(uint64_t bytes, char *buf, size_t cap)
{
    if (bytes < ((uint64_t)1 << 20))
        snprintf(buf, cap, "%llu KiB", (unsigned long long)((bytes + 1023) >> 10));
    else if (bytes < ((uint64_t)1 << 30))
        snprintf(buf, cap, "%.1f MiB", (double)bytes / (1 << 20));
    else
        snprintf(buf, cap, "%.2f GiB", (double)bytes / (1 << 30));
    return buf;
}

/*
** The other files of the weight-cache folders (wc_dirs: caches of other
** strategies, kernel sets and models, and stale ones: of a model deleted
** or changed since), one line each after a total; with CLEAN ("stale" or
** "all") those, or all of them, removed and said so.  INUSE: the cache this
** load used or wrote (never listed nor removed).  0, or 1 when a file
** could not be removed.
*/
static int
info_caches(const struct cli_opts *o, const char *inuse, const char *clean)
{
    char dirs[3][WC_FILE_PATH], a[32], b[32];
    int nd = wc_dirs(o->demo ? NULL : o->model, dirs, 3), all = clean && strcmp(clean, "all") == 0;
    int rc = 0;

    for (int d = 0; d < nd; d++) {
        wc_file *f;
        size_t n = wc_scan(dirs[d], o->demo ? NULL : o->model, inuse, &f), n_stale = 0;
        uint64_t bytes = 0, stale = 0;
        for (size_t i = 0; i < n; i++) {
            bytes += f[i].bytes;
            stale += f[i].stale ? f[i].bytes : 0;
            n_stale += f[i].stale != 0;
        }
        if (n > 0 && n_stale > 0)
            printf("other weight caches in %s: %zu file%s, %s (%zu stale, %s)%s\n", dirs[d], n,
                   n == 1 ? "" : "s", info_size(bytes, a, sizeof a), n_stale,
                   info_size(stale, b, sizeof b),
                   clean ? "" : ": --clean-weight-cache stale removes those");
        else if (n > 0)
            printf("other weight caches in %s: %zu file%s, %s (none stale)\n", dirs[d], n,
                   n == 1 ? "" : "s", info_size(bytes, a, sizeof a));
        for (size_t i = 0; i < n; i++) {
            const char *verb = "";
            if (clean != NULL && (all || f[i].stale)) {
                if (wc_remove(f[i].path) == 0) {
                    verb = "removed ";
                } else {
                    cli_errorf("info: cannot remove %s: %s", f[i].path, strerror(errno));
                    rc = 1;
                }
            }
            printf("  %s%s (%s): %s\n", verb, f[i].path, info_size(f[i].bytes, a, sizeof a),
                   f[i].what);
        }
        free(f);
    }
    return rc;
}

/* A strategy of several stages: the layers each gets on this model. */
static void
info_split(const rwkv_info *in)
{
    strat s;
    rwkv_err err;
    char split[512];

    if (strat_parse(in->strategy, &s, &err) == RWKV_OK && s.n_stages > 1) {
        strat_split(&s, in->n_layer, split, sizeof split);
        printf("split:       %s\n", split);
    }
}

int
cmd_info(int argc, char **argv)
{
    struct cli_opts o;
    rwkv_open_opts oo;
    rwkv_model *m;
    rwkv_err err;
    const rwkv_info *in;
    int verify = 0;
    uint64_t n_checked = 0;
    int r;
    const char *clean = NULL;
    char inuse[sizeof in->weight_cache_path];
    const struct cli_opt tab[] = {
        { "verify", CLI_OPT_FLAG, &verify, 0, 0 },
        { "clean-weight-cache", CLI_OPT_STR, &clean, 0, 0 },
        { NULL, CLI_OPT_FLAG, NULL, 0, 0 },
    };

    cli_opts_init(&o);
    o.samp_ok = 0;                 /* it runs nothing */
    if ((r = cli_parse_args(argc, argv, "info", info_help, tab, NULL, &o)) != CLI_ARGS_GO)
        return r;
    if (!o.demo && o.model == NULL) {
        cli_errorf("info: --model PATH (or --demo) is required");
        return 2;
    }
    if (clean != NULL && strcmp(clean, "stale") != 0 && strcmp(clean, "all") != 0) {
        cli_errorf("info: --clean-weight-cache '%s' is not stale or all", clean);
        return 2;
    }
    if (verify && !o.demo && ckpt_verify_file(o.model, o.threads, &n_checked, &err) != RWKV_OK)
        return cli_fail(&err);
    memset(&oo, 0, sizeof oo);
    oo.strategy = o.strategy;
    oo.n_threads = o.threads;
    if ((o.demo ? rwkv_model_open_demo(RWKV_DEMO_SEED, &oo, &m, &err)
                : rwkv_model_open(o.model, &oo, &m, &err)) != RWKV_OK)
        return cli_fail(&err);
    in = rwkv_model_info(m);
    cli_strategy_note(in);
    printf("model:       %s\n", o.demo ? "(demo)" : o.model);
    if (verify)
        printf("checksums:   %s (%" PRIu64 " entries checked)\n",
               o.demo ? "none (in-memory model)" : n_checked ? "every CRC-32 matches" : "none in this format",
               n_checked);
    printf("version:     RWKV %s\n", in->version);
    printf("layers:      %d\n", in->n_layer);
    printf("embedding:   %d\n", in->n_embd);
    if (in->n_head > 0)
        printf("heads:       %d x %d\n", in->n_head, in->head_size);
    else
        printf("heads:       - (RWKV-4 has no heads)\n");
    printf("ffn:         %d\n", in->n_ffn);
    printf("vocab:       %d\n", in->n_vocab);
    printf("parameters:  %" PRIu64 " (%.2f M)\n", in->n_params, (double)in->n_params / 1e6);
    printf("dtypes:      %s\n", in->dtypes);
    printf("file size:   %" PRIu64 " bytes\n", in->file_size);
    printf("format:      %s\n", in->format);
    printf("strategy:    %s\n", in->strategy);
    info_split(in);
    printf("weights:     %" PRIu64 " bytes read per token (embedding excluded)\n",
           in->weight_bytes);
    if (in->in_place_bytes > 0)
        printf("in place:    %" PRIu64 " bytes of matrices as the checkpoint stores them (%s)\n",
               in->in_place_bytes, in->in_place_read ? "read into memory" : "mapped");
    printf("state:       %zu floats\n", in->state_len);
    printf("threads:     %d\n", in->n_threads);
    printf("fingerprint: %016" PRIx64 "\n", in->fingerprint);
    if (in->weight_cache_why[0] != '\0')      /* nothing will be written: why */
        printf("weight cache: none (not written to %s: %s)\n", in->weight_cache_path,
               in->weight_cache_why);
    else if (in->weight_cache_path[0] != '\0')
        printf("weight cache: %s (%s%s)\n", in->weight_cache, in->weight_cache_path,
               strcmp(in->weight_cache, "hit") != 0 ? ""
               : in->weight_cache_read ? "; read into memory" : "; mapped");
    else
        printf("weight cache: %s\n", in->weight_cache[0] ? in->weight_cache : "off");
    info_machine();
    r = info_inputs(&o, m, in);
    snprintf(inuse, sizeof inuse, "%s", in->weight_cache_path);
    rwkv_model_close(m);           /* (a cache being written is then whole) */
    if (info_caches(&o, inuse, clean) != 0 && r == 0)
        r = 1;
    return cli_stdout_close(r);
}
