/*
** cmd_tokenize.c -- placeholder: this subcommand is not built yet.
*/
#include "cli.h"

int
cmd_tokenize(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_errorf("'tokenize' is not implemented yet");
    return 1;
}
