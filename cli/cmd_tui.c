/*
** cmd_tui.c -- placeholder: this subcommand is not built yet.
*/
#include "cli.h"

int
cmd_tui(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_errorf("'tui' is not implemented yet");
    return 1;
}
