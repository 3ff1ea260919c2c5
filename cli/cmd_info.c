/*
** cmd_info.c -- `rwkv-tui info`: describe a checkpoint (version, sizes,
** parameter count, stored dtypes, file size, format) and what runs it (the
** CPU kernel set, the CUDA devices).
*/
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../core/io/ckpt_verify.h"
#include "../core/kernels/cpuid.h"
#include "../core/kernels/kernels.h"
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
    fprintf(f, "usage: " PROG " info (--model PATH | --demo) [--strategy S] [--verify]\n\n"
               "Load the checkpoint, validate every tensor and describe the model, then\n"
               "what runs it: the CPU kernel set (RWKV_KERNELS) and the CUDA devices this\n"
               "build sees, or why there are none.\n"
               "  --verify   read the whole file and check the CRC-32 of every entry of a\n"
               "             .pth (a load checks only what it reads); names a damaged tensor\n\n");
    cli_opts_help(f, 0);
    cli_opts_help_client(f);
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
    const struct cli_opt tab[] = {
        { "verify", CLI_OPT_FLAG, &verify, 0, 0 },
        { NULL, CLI_OPT_FLAG, NULL, 0, 0 },
    };

    cli_opts_init(&o);
    if ((r = cli_parse_args(argc, argv, "info", info_help, tab, NULL, &o)) != CLI_ARGS_GO)
        return r;
    if (!o.demo && o.model == NULL) {
        cli_errorf("info: --model PATH (or --demo) is required");
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
    rwkv_model_close(m);
    return cli_stdout_close(r);
}
