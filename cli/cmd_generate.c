/*
** cmd_generate.c -- `rwkv-tui generate --prompt T`: one completion to
** stdout through core/chat/chat.h.
**
** Plain mode feeds the prompt verbatim (no greeting, no framing, no stop
** string) and samples --max-tokens tokens with the same sampler and
** penalties as the chat.  --chat frames the prompt as one chat turn
** ("User: T\n\nAssistant:", after the demo's greeting unless --state or
** --no-greeting) and stops at "\n\n" like `chat`.  Ctrl-C stops early and
** keeps what was printed.
**
** --prompt-file F ('-' = stdin) takes the prompt from F, byte for byte.
** Text is never cut short silently: a prompt holding a NUL byte is refused
** with one line giving its offset (NUL is not text; the C string APIs
** below would drop what follows it).  A failed write to stdout (a full
** disk) stops the generation and exits 1 with one line (cli_stdout_close).
*/
#include "cli.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/chat/chat.h"
#include "../core/clock.h"
#include "../core/text/utf8.h"

/* --prompt-file larger than this is refused (a prompt, not a corpus). */
#define GEN_MAX_PROMPT_FILE (64u << 20)

static chat *volatile sig_chat;
/* stdout failed: the generation was stopped for it */
static int out_failed;

static void
on_sigint(int sig)
{
    (void)sig;
    if (sig_chat != NULL)
        chat_cancel(sig_chat);
}

static void
usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " generate (--model PATH | --demo)\n"
            "                         (--prompt TEXT | --prompt-file F) [options]\n"
            "Print one completion of TEXT to stdout (the prompt itself is not echoed).\n\n"
            "Generate options:\n"
            "  --prompt TEXT       the text to continue (this or --prompt-file is required)\n"
            "  --prompt-file F     read the text from file F ('-' = stdin), byte for byte;\n"
            "                      a NUL byte in it is refused\n"
            "  --chat              use the chat framing \"User: TEXT\\n\\nAssistant:\" after the\n"
            "                      demo's greeting, and stop at \"\\n\\n\" (like `chat`)\n"
            "  --no-greeting       with --chat: feed no greeting\n"
            "  --stats             print prefill/decode speed on stderr\n\n");
    cli_opts_help(f, 1);
    cli_opts_help_client(f, 1);
}

/* Model text to F; on a terminal through the model-text sanitiser
** (utf8_sanitize_for_terminal: no escape sequences from the model). */
static void
write_text(FILE *f, const char *text, size_t len)
{
    cli_write_text(f, text, len);
    /* nobody reads the rest: stop generating (reported at the end) */
    if (cli_stdout_flush() < 0 && !out_failed) {
        out_failed = 1;
        if (sig_chat != NULL)
            chat_cancel(sig_chat);
    }
}

/*
** Read the prompt from PATH ("-" = stdin) into *OUT (malloc'ed, NUL-
** terminated, *LEN bytes).  Refuses a NUL byte inside.  0, or 1 with one
** line printed.
*/
static int
read_prompt_file(const char *path, char **out, size_t *len)
{
    const char *name = strcmp(path, "-") == 0 ? "stdin" : path;
    char *b, *z;
    size_t n;

    if (cli_read_input(path, GEN_MAX_PROMPT_FILE, "a prompt", &b, &n) != 0)
        return 1;
    if ((z = memchr(b, '\0', n)) != NULL) {
        size_t at = (size_t)(z - b), line = 1;
        for (size_t k = 0; k < at; k++)
            line += b[k] == '\n';
        cli_errorf("%s: NUL byte at offset %zu (line %zu); a prompt must be text", name, at,
                   line);
        free(b);
        return 1;
    }
    *out = b;
    *len = n;
    return 0;
}

static void
out_text(void *ud, const char *text, size_t len)
{
    (void)ud;
    write_text(stdout, text, len);
}

int
cmd_generate(int argc, char **argv)
{
    struct cli_opts o;
    const char *prompt = NULL, *prompt_file = NULL;
    char *file_text = NULL;
    size_t prompt_len = 0;
    int chat_mode = 0, no_greeting = 0, stats = 0, rc = 0, was_random;
    rwkv_model *m = NULL;
    tok *t = NULL;
    chat *c = NULL;
    chat_config cfg;
    rwkv_open_opts oo = { 0 };
    rwkv_err err;
    struct sigaction sa, old_sa;
    const chat_turn *turn;
    const struct cli_opt tab[] = {
        { "chat", CLI_OPT_FLAG, &chat_mode, 0, 0 },
        { "no-greeting", CLI_OPT_FLAG, &no_greeting, 0, 0 },
        { "stats", CLI_OPT_FLAG, &stats, 0, 0 },
        { "prompt", CLI_OPT_STR, &prompt, 0, 0 },
        { "prompt-file", CLI_OPT_PATH, &prompt_file, 0, 0 },
        { NULL, CLI_OPT_FLAG, NULL, 0, 0 },
    };

    cli_opts_init(&o);
    if ((rc = cli_parse_args(argc, argv, "generate", usage, tab, NULL, &o)) != CLI_ARGS_GO)
        return rc;
    rc = 0;
    if (!o.demo && o.model == NULL) {
        cli_errorf("generate: --model PATH (or --demo) is required");
        return 2;
    }
    if (no_greeting && !chat_mode) {
        /* plain mode feeds no greeting anyway: the user meant --chat */
        cli_errorf("generate: --no-greeting is an option of --chat (plain generate feeds no "
                   "greeting)");
        return 2;
    }
    if ((prompt == NULL) == (prompt_file == NULL)) {
        cli_errorf("generate: give exactly one of --prompt TEXT and --prompt-file F");
        return 2;
    }
    if (prompt_file != NULL) {
        if (read_prompt_file(prompt_file, &file_text, &prompt_len) != 0)
            return 1;
        prompt = file_text;
    } else {
        prompt_len = strlen(prompt);
    }
    if (prompt_len == 0) {
        /* "-" is no file name: say where the prompt was read from */
        cli_errorf("generate: %s is empty",
                   prompt_file == NULL ? "--prompt"
                   : strcmp(prompt_file, "-") == 0 ? "stdin (--prompt-file -)" : prompt_file);
        free(file_text);
        return 2;
    }
    oo.strategy = o.strategy;
    oo.n_threads = o.threads;
    rc = o.demo ? rwkv_model_open_demo(RWKV_DEMO_SEED, &oo, &m, &err)
                : rwkv_model_open(o.model, &oo, &m, &err);
    if (rc != RWKV_OK) {
        rc = cli_fail(&err);
        goto out;
    }
    cli_strategy_note(rwkv_model_info(m));
    if (cli_open_tokenizer(&o, rwkv_model_info(m)->n_vocab, &t) != 0) {
        rc = 1;
        goto out;
    }
    chat_config_init(&cfg);
    cfg.samp = o.samp;
    cfg.samp_set = o.samp_set;
    cfg.state_path = o.state;
    cfg.greeting = chat_mode && !no_greeting ? NULL : "";
    cfg.no_stop = !chat_mode;
    {
        chat_callbacks cb = { .text = out_text };
        if (chat_create(m, t, &cfg, &cb, &c, &err) != RWKV_OK) {
            rc = cli_fail(&err);
            goto out;
        }
    }
    if ((chat_mode ? chat_submit(c, prompt, prompt_len, &err)
                   : chat_submit_raw(c, prompt, prompt_len, &err)) != RWKV_OK) {
        cli_errorf("generate: %s", err.msg);
        rc = 2;
        goto out;
    }
    chat_seed(c, &was_random);
    if (was_random)
        fprintf(stderr, "(random seed %llu; --seed %llu repeats this output)\n",
                (unsigned long long)chat_seed(c, NULL), (unsigned long long)chat_seed(c, NULL));
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_sa);
    mono_catch_stops();         /* Ctrl-Z's minutes are not in --stats */
    sig_chat = c;
    if (chat_run(c, &err) != RWKV_OK)
        rc = cli_fail(&err);
    sig_chat = NULL;
    sigaction(SIGINT, &old_sa, NULL);
    turn = chat_n_turns(c) > 0 ? chat_turn_at(c, chat_n_turns(c) - 1) : NULL;
    if (turn != NULL && rc == 0 && !out_failed) {
        fputc('\n', stdout);
        if (turn->stop == CHAT_STOP_CANCEL)
            fprintf(stderr, "(interrupted after %zu tokens)\n", turn->n_reply);
        if (stats)
            fprintf(stderr,
                    "[stats] prefill %llu tok in %.3f s (%.1f tok/s), decode %llu tok in %.3f s "
                    "(%.1f tok/s)\n",
                    (unsigned long long)turn->stats.prefill_tokens, turn->stats.prefill_s,
                    turn->stats.prefill_tps, (unsigned long long)turn->stats.gen_tokens,
                    turn->stats.gen_s, turn->stats.decode_tps);
    }
out:
    chat_destroy(c);
    tok_close(t);
    rwkv_model_close(m);
    free(file_text);
    return cli_stdout_close(rc);
}
