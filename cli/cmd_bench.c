/*
** cmd_bench.c -- placeholder: this subcommand is not built yet.
*/
#include "cli.h"

int
cmd_bench(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_errorf("'bench' is not implemented yet");
    return 1;
}
