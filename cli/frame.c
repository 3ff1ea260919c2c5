/*
** frame.c -- the chat's framing options, shared by `chat` and the
** full-screen client: --greeting, --no-greeting, --user, --bot, --think,
** --stop, --ban.  The framing value, its checks and escapes are storage/framing.h's.
*/
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* The framing setter's result as a usage error: -1 (printed) or 1. */
static int
took(int rc, const char *opt, const rwkv_err *err)
{
    const char *m = err->msg;
    size_t n = strlen(opt);

    if (rc == RWKV_OK)
        return 1;
    if (strncmp(m, opt, n) == 0 && strstr(m, ": ") != NULL)
        m = strstr(m, ": ") + 2;        /* "ban: ..." after "option --ban: " */
    cli_errorf("option --%s: %s", opt, m);
    return -1;
}

/* --OPT V (greeting, stop) with its \n, \t and \\ escapes, given to SET. */
static int
set_unescaped(struct cli_frame *f, const char *opt, const char *v,
              int (*set)(framing *fr, const char *text, rwkv_err *err))
{
    rwkv_err err;
    char *s = strdup(v);
    int rc;

    if (s == NULL)
        return took(rwkv_errf(&err, RWKV_ENOMEM, "out of memory"), opt, &err);
    framing_unescape(s, 0);
    rc = set(&f->fr, s, &err);
    free(s);
    return took(rc, opt, &err);
}

int
cli_frame_parse(struct cli_frame *f, int argc, char **argv, int *i)
{
    rwkv_err err;
    const char *v;
    int r;

    if (strcmp(argv[*i], "--no-greeting") == 0) {
        (*i)++;
        return took(framing_set_greeting(&f->fr, "", &err), "no-greeting", &err);
    }
    if ((r = cli_take(argc, argv, i, "greeting", &v)) != 0)
        return r < 0 ? -1 : set_unescaped(f, "greeting", v, framing_set_greeting);
    /* an empty name is "the default" in the UI and config, an error here */
    if ((r = cli_take(argc, argv, i, "user", &v)) != 0)
        return r < 0 ? -1 : took(v[0] ? framing_set_user(&f->fr, v, &err)
                                       : chat_name_check("user name", v, &err), "user", &err);
    if ((r = cli_take(argc, argv, i, "bot", &v)) != 0)
        return r < 0 ? -1 : took(v[0] ? framing_set_bot(&f->fr, v, &err)
                                       : chat_name_check("bot name", v, &err), "bot", &err);
    /* "" clears the mode in a saved framing; given here it is a mistake */
    if ((r = cli_take(argc, argv, i, "think", &v)) != 0) {
        int mode;
        return r < 0 ? -1 : took(v[0] ? framing_set_think(&f->fr, v, &err)
                                       : chat_think_parse(v, &mode, &err), "think", &err);
    }
    if ((r = cli_take(argc, argv, i, "stop", &v)) != 0)
        return r < 0 ? -1 : set_unescaped(f, "stop", v, framing_add_stop);
    if ((r = cli_take(argc, argv, i, "ban", &v)) != 0)
        return r < 0 ? -1 : took(framing_add_ban(&f->fr, v, &err), "ban", &err);
    return 0;
}

void
cli_frame_apply(const struct cli_frame *f, chat_config *cfg)
{
    framing_to_config(&f->fr, cfg);
}

void
cli_frame_fini(struct cli_frame *f)
{
    framing_fini(&f->fr);
}

void
cli_frame_help(FILE *f)
{
    fprintf(f,
            "Chat framing (a saved session keeps its own; see the man page):\n"
            "  --greeting TEXT     text fed before the first message, \\n escapes, ended\n"
            "                      with a blank line if it is not (default: the demo's\n"
            "                      \"User: hi ... Assistant: Hi. I am your assistant ...\",\n"
            "                      with the names of --user and --bot)\n"
            "  --no-greeting       feed no greeting\n"
            "  --user NAME         the user's role name in the prompt (default \"User\":\n"
            "                      \"NAME: MSG\\n\\nBOT:\")\n"
            "  --bot NAME          the bot's role name (default \"Assistant\")\n"
            "  --think MODE        think mode of G1 (reasoning) models: off (default: the\n"
            "                      prompt above), on (\"BOT: <think\"), short (also \"MSG\n"
            "                      think a bit\"), long (\"MSG think a lot\"), skip\n"
            "                      (\"BOT: <think>\\n</think\": no reasoning); the reply\n"
            "                      starts with what follows \"BOT:\"\n"
            "  --stop S            stop string (repeatable, default \"\\n\\n\" as the demo,\n"
            "                      whatever the names; \\n escapes); the next message then\n"
            "                      starts after a blank line (the \\n it lacks added)\n"
            "  --ban IDS           comma-separated token ids never to sample\n");
}
