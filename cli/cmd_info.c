/*
** cmd_info.c -- placeholder: this subcommand is not built yet.
*/
#include "cli.h"

int
cmd_info(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_errorf("'info' is not implemented yet");
    return 1;
}
