/*
** cmd_sessions.c -- placeholder: this subcommand is not built yet.
*/
#include "cli.h"

int
cmd_sessions(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_errorf("'sessions' is not implemented yet");
    return 1;
}
