/*
** cmd_generate.c -- placeholder: this subcommand is not built yet.
*/
#include "cli.h"

int
cmd_generate(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_errorf("'generate' is not implemented yet");
    return 1;
}
