/*
** cmd_chat.c -- placeholder: this subcommand is not built yet.
*/
#include "cli.h"

int
cmd_chat(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_errorf("'chat' is not implemented yet");
    return 1;
}
