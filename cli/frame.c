/*
** frame.c -- the chat's framing options, shared by `chat` and the
** full-screen client: --greeting, --no-greeting, --stop, --ban.
*/
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* "\n" and "\t" and "\\" escapes, in place. */
static void
unescape(char *s)
{
    char *o = s;

    for (; *s; s++) {
        if (*s == '\\' && (s[1] == 'n' || s[1] == 't' || s[1] == '\\')) {
            s++;
            *o++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : '\\';
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

static int
parse_ban(struct cli_frame *f, const char *v)
{
    const char *p = v;

    while (*p) {
        char *end;
        long id;
        errno = 0;
        id = strtol(p, &end, 10);
        if (errno || end == p || id < 0 || id > 0x7fffffff || (*end != ',' && *end != '\0')) {
            cli_errorf("option --ban: '%s' is not a comma-separated list of token ids", v);
            return -1;
        }
        if (f->n_ban == CLI_FRAME_MAX_BAN) {
            cli_errorf("option --ban: more than %d ids", CLI_FRAME_MAX_BAN);
            return -1;
        }
        f->ban[f->n_ban++] = (int32_t)id;
        p = *end ? end + 1 : end;
    }
    return 0;
}

static int
add_stop(struct cli_frame *f, const char *v)
{
    char *s;

    if (f->n_stop == CHAT_MAX_STOP) {
        cli_errorf("option --stop: at most %d stop strings", CHAT_MAX_STOP);
        return -1;
    }
    s = strdup(v);
    if (s == NULL)
        return -1;
    unescape(s);
    if (s[0] == '\0' || strlen(s) > CHAT_MAX_STOP_LEN) {
        cli_errorf("option --stop: a stop string must have 1..%d bytes", CHAT_MAX_STOP_LEN);
        free(s);
        return -1;
    }
    f->stop[f->n_stop++] = s;
    return 0;
}

int
cli_frame_parse(struct cli_frame *f, int argc, char **argv, int *i)
{
    const char *v;
    int r;

    if (strcmp(argv[*i], "--no-greeting") == 0) {
        f->no_greeting = 1;
        (*i)++;
        return 1;
    }
    if ((r = cli_take(argc, argv, i, "greeting", &v)) != 0) {
        if (r > 0)
            f->greeting = v;
        return r;
    }
    if ((r = cli_take(argc, argv, i, "stop", &v)) != 0)
        return r < 0 || add_stop(f, v) < 0 ? -1 : 1;
    if ((r = cli_take(argc, argv, i, "ban", &v)) != 0)
        return r < 0 || parse_ban(f, v) < 0 ? -1 : 1;
    return 0;
}

void
cli_frame_apply(const struct cli_frame *f, chat_config *cfg)
{
    cfg->greeting = f->no_greeting ? "" : f->greeting;
    for (size_t i = 0; i < f->n_stop; i++)
        cfg->stop[i] = f->stop[i];
    cfg->n_stop = f->n_stop;
    cfg->banned = f->ban;
    cfg->n_banned = f->n_ban;
}

void
cli_frame_fini(struct cli_frame *f)
{
    for (size_t i = 0; i < f->n_stop; i++)
        free(f->stop[i]);
    f->n_stop = 0;
}

void
cli_frame_help(FILE *f)
{
    fprintf(f,
            "Chat framing:\n"
            "  --greeting TEXT     text fed before the first message (default: the demo's\n"
            "                      \"User: hi ... Assistant: Hi. I am your assistant ...\")\n"
            "  --no-greeting       feed no greeting\n"
            "  --stop S            stop string (repeatable, default \"\\n\\n\"; \\n escapes)\n"
            "  --ban IDS           comma-separated token ids never to sample\n");
}
