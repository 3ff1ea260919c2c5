/*
** cmd_eval.c -- placeholder: this subcommand is not built yet.
*/
#include "cli.h"

int
cmd_eval(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_errorf("'eval' is not implemented yet");
    return 1;
}
