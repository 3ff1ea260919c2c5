/*
** cli.h -- subcommand handlers and the common command-line options.
**
** Each subcommand lives in cli/cmd_<name>.c and has the signature
** `int cmd_<name>(int argc, char **argv)` where argv[0] is the subcommand
** name.  It returns the process exit status: 0 success, 1 runtime error
** (message already printed as one line on stderr), 2 usage error.
** Only cli/ and tui/ print or exit.
*/
#ifndef RWKV_CLI_H
#define RWKV_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "../core/chat/chat.h"
#include "../core/chat/params.h"
#include "../core/status.h"
#include "../core/text/tokenizer.h"
#include "../storage/framing.h"
#include "../storage/store.h"

#define PROG "rwkv-tui"

/* Options every model-using command accepts (DESIGN.md "common opts"). */
struct cli_opts {
    const char   *model;        /* --model P (with or without .pth) */
    const char   *strategy;     /* --strategy S, default "cpu fp32" */
    const char   *vocab;        /* --vocab P */
    const char   *state;        /* --state P (state-tuning file) */
    const char   *db;           /* --db P */
    const char   *config;       /* --config P */
    const char   *theme;        /* --theme NAME|P */
    int           threads;      /* --threads N, 0 = all cores */
    int           demo;         /* --demo: the in-memory random model */
    rwkv_sampling samp;         /* sampling values (params table) */
    unsigned      samp_set;     /* PARAMS_BIT(i) for each value given */
    /* What of the above the command takes (cli_opts_init: everything): the
    ** sampling values PARAMS_BIT(i) it uses, and --state and --vocab
    ** (files_ok); the others are not its options -- "unknown option", as
    ** any other, and its --help leaves them out (cli_opts_help) */
    unsigned      samp_ok;
    int           files_ok;
};

void cli_opts_init(struct cli_opts *o);

/*
** Try to consume the common option at argv[*i] (and its value).
** Returns 1 if consumed (*i advanced past it), 0 if it is not a common
** option, -1 on error (message printed, exit status 2 expected).
** Accepts "--opt value" and "--opt=value".
*/
int cli_opts_parse(struct cli_opts *o, int argc, char **argv, int *i);

/*
** A file of the wrong kind given to --state (a model) or --vocab (a model or
** a state file), told from its tensors' names (rwkv_ckpt_kind; regular
** files only) before anything loads: 0, or -1 after one line "CMD: --state
** PATH: a model, not a state file: give it as --model (...)" (CMD NULL: the
** full-screen client, no prefix); a usage error, exit 2.  cli_opts_check
** and cli_parse_args make it.
*/
int cli_file_kinds(const struct cli_opts *o, const char *cmd);

/* Help text for the common options, printed by each command's --help: WHAT
** CLI_HELP_SAMPLING with the sampling options, CLI_HELP_NO_FILES without
** --vocab and --state (a command whose files_ok is 0). */
#define CLI_HELP_SAMPLING 1
#define CLI_HELP_NO_FILES 2
void cli_opts_help(FILE *f, int what);
/* The subcommands' lines for --config and --theme (cli_opts_check), and
** with WITH_DB for --db (taken by a command that keeps no sessions). */
void cli_opts_help_client(FILE *f, int with_db);
/* One row of a help text: "  NAME" padded to column COL, then TEXT wrapped
** at 79 columns under it (NAME too long for its column gets a line of its
** own). */
void cli_help_row(FILE *f, int col, const char *name, const char *text);

/*
** Helper for command-specific options: if argv[*i] is --NAME (or
** --NAME=value), store its value in *VAL, advance *i and return 1; if it is
** --NAME without a value return -1 (message printed); else 0.
*/
int cli_take(int argc, char **argv, int *i, const char *name, const char **val);
/*
** The one rule for the value S of every integer option of every command
** (the tables' CLI_OPT_INT, --threads, the sampling integers --top-k
** --max-tokens --chunk --seed, chat's --session): plain decimal digits, led
** by a '-' only where MIN < 0 (no blank, '+', point, exponent or "0x"), in
** [MIN, MAX].  0, or -1 after one line "option --OPT: 'S' is not an integer
** in [MIN, MAX]" (the caller exits 2).
*/
int cli_int_check(const char *opt, const char *s, long long min, unsigned long long max);
/* cli_int_check, then the value into *OUT (0 <= MIN <= MAX). */
int cli_int(const char *opt, const char *s, long min, long max, long *out);

/*
** The one reader of the numbers and ids of the command line (options,
** `sessions` ids, the line chat's /regen N and /fork TURN, eval --tokens):
** strtoll in base 10, except that S must start with a digit or a sign
** followed by a digit -- strtoll skips leading blanks, so " 1" would pass
** where "1x" is refused.  cli_strtoll: the number at the start of S into
** *OUT, *END (OUT) just after it; 0, or -1 (no number there, or out of
** long long's range).  Nothing printed.
*/
int cli_strtoll(const char *s, long long *out, const char **end);
/* All of S is one such number in [MIN, MAX]: 0 with *OUT set, or -1
** (nothing printed: the caller names the option). */
int cli_parse_ll(const char *s, long long min, long long max, long long *out);

/* A command's own options as a table (NULL name ends it), so that the
** parsing, the value checks and the messages are the same everywhere. */
enum cli_opt_kind {
    CLI_OPT_FLAG,   /* --NAME: *(int *)dst = 1 */
    CLI_OPT_STR,    /* --NAME V: *(const char **)dst = V (borrowed from argv) */
    CLI_OPT_PATH,   /* CLI_OPT_STR naming a file: "" is refused (cli_path_arg) */
    CLI_OPT_INT     /* --NAME N: *(long *)dst = N, MIN <= N <= MAX (cli_int) */
};
struct cli_opt {
    const char       *name;   /* without the leading "--" */
    enum cli_opt_kind kind;
    void             *dst;
    long              min, max;
};
/*
** The one rule for the paths of the command line (the common options
** --model --vocab --state --db --config --theme, a command's CLI_OPT_PATH
** options, `sessions import FILE`): an empty V names no file.  0, or -1
** after one line "WHAT: empty path" (WHAT as given: "--state"); the caller
** exits 2 (a usage error).
*/
int cli_path_arg(const char *what, const char *v);
/* argv[*i] against TAB: 1 consumed (*i advanced, the value stored), 0 not
** in TAB, -1 error (printed). */
int cli_take_opt(const struct cli_opt *tab, int argc, char **argv, int *i);

/* cli_parse_args: every argument was taken, go on. */
#define CLI_ARGS_GO (-1)
/*
** A command's whole option loop: every argument after ARGV[0] is --help /
** -h, one of TAB, one of the framing options into FR, or a common option
** into O (TAB, FR, O may each be NULL: not accepted).  CLI_ARGS_GO when all
** were taken; else the exit status to return: 0 after USAGE(stdout) for
** --help (stdout closed) once every other argument was taken (a stray one
** is the usage error below, --help or not), or 2 after one line: a bad
** value, or "CMD: unknown
** option 'X' (see 'rwkv-tui CMD --help')" (CMD NULL: the full-screen client,
** "unknown option 'X' (see rwkv-tui --help-ui)"), or "CMD: --model and --demo
** exclude each other" (a subcommand given both), or what cli_opts_check
** (below) says for a subcommand.  An argument that is not an option is
** refused by cli_bad_arg (below).
*/
struct cli_frame;
int cli_parse_args(int argc, char **argv, const char *cmd, void (*usage)(FILE *),
                   const struct cli_opt *tab, struct cli_frame *fr, struct cli_opts *o);
/*
** The one line for ARG, which no option of command CMD (NULL: the
** full-screen client) took: "CMD: unknown option 'X' (see ...)" for one
** starting with '-'; else, when the command takes the common options
** (FILES), "CMD: unexpected argument 'X': give the model with --model PATH"
** for what names a file or looks like a path (a state file: "give a state
** file with --state PATH"), and "CMD: unexpected argument 'X' (see ...)"
** otherwise.  A positional path is never taken as the model.
*/
void cli_bad_arg(const char *cmd, const char *arg, int files);
/*
** The client's options a subcommand CMD takes but does not use, checked so
** that none is silently ignored (cli_parse_args calls it for generate,
** eval, info and bench; chat calls it itself).  --config: the file must be
** one the full-screen client would read (there, readable, a regular file,
** at most CFG_MAX_BYTES); its settings are the client's and are not
** applied.  --theme: loaded by the client's loader (theme_load: a name or a
** file).  (--db, a common option of the command-line contract, is taken by
** every command; those without sessions open nothing.)  CLI_ARGS_GO, or 2
** after one line "CMD: --config PATH: what is wrong".
*/
int cli_opts_check(const struct cli_opts *o, const char *cmd);

/* Print "rwkv-tui: MSG" on stderr (one line; on a terminal by the display
** rule, cli_write_text: a path or a title in MSG may hold anything). */
void cli_errorf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Print an rwkv_err as one line; returns 1 (the runtime-error exit status). */
int cli_fail(const rwkv_err *err);
/* After a model opened (IN its info): a strategy that leaves a stage no
** layers of it (a *N past its layer count, which the reference accepts) is
** said in one line on stderr, with the split (strat_split); a warning. */
struct rwkv_info;
void cli_strategy_note(const struct rwkv_info *in);

/*
** End of a command that wrote to stdout: flush and close stdout and, if any
** write to it failed (a full disk, /dev/full, a closed pipe with SIGPIPE
** ignored), print "rwkv-tui: stdout: No space left on device" (one line)
** and return 1; else return RC unchanged.  Use as `return
** cli_stdout_close(rc);` at the very end (nothing may print to stdout
** afterwards; a second call just returns RC).  A write error seen earlier
** through cli_write or cli_stdout_flush keeps its errno for the message.
*/
int cli_stdout_close(int rc);
/*
** The one writer of the commands' bytes (logits, decoded text, model text,
** JSON, exports): fwrite N bytes of P to F.  On stdout a short write keeps
** the errno of that failing point for cli_stdout_close ("No space left on
** device"), which a large block written past the buffer would otherwise
** lose ("Input/output error").  Returns the bytes written (N, or fewer on
** an error).
*/
size_t cli_write(FILE *f, const void *p, size_t n);
/* Text of any origin (a model's reply, a saved session) to F: on a
** terminal through the display rule (utf8_sanitize_for_terminal: no escape
** sequences, control characters or invalid UTF-8 reach the terminal); a
** pipe or a file gets the bytes. */
void cli_write_text(FILE *f, const char *text, size_t len);
/*
** TEXT (LEN bytes) to F as a JSON string literal holding the text's real
** content, escaped so that the line shown on a terminal moves nothing:
** \" \\ \n \r \t, \u00XX for the other C0 controls, DEL and the C1
** controls (U+0080..U+009F: 8-bit CSI and OSC), \uXXXX for U+2028/U+2029 and
** for the bidi controls and invisible format characters the display rule
** drops (core/text/utf8.h utf8_san_drops); every other character as it is.
** Only ill-formed UTF-8, which a JSON string cannot hold, changes: each
** maximal ill-formed subpart becomes one U+FFFD.  The output is valid JSON
** and valid UTF-8.
*/
void cli_json_text(FILE *f, const char *text, size_t len);
/* cli_json_text of the NUL-terminated TEXT. */
void cli_json_str(FILE *f, const char *text);
/*
** Read all of F into *BUF (malloc'ed, NUL-terminated after its *LEN bytes),
** at most MAX bytes (a power of two, 64 KiB or more).  0, or 1 with one line
** printed naming NAME: cannot read, out of memory, "larger than MAX bytes"
** (followed by "(too long for WHAT)" when WHAT is not NULL).
*/
int cli_read_stream(FILE *f, const char *name, size_t max, const char *what, char **buf,
                    size_t *len);
/* The same for PATH ("-" = stdin, named "stdin"); "cannot open" when it
** cannot be opened. */
int cli_read_input(const char *path, size_t max, const char *what, char **buf, size_t *len);
/* fflush(stdout) for streaming output, remembering the errno of the first
** failure for cli_stdout_close.  Returns 0 or -1. */
int cli_stdout_flush(void);

/*
** SIGPIPE keeps its default action everywhere (a closed pipe ends the
** process, like cat(1) and head(1) expect): nothing here ignores it.
**
** Install the SIGBUS handler for faults inside files we have mapped
** (core/io/mapfile.h guard table): a model or cache file truncated or
** rewritten in place while in use ends the process with one line
**     "rwkv-tui: PATH: the file changed size while in use (truncated or
**      replaced in place)"
** and exit status 1, not a crash.  Any other SIGBUS keeps its default
** action.  CLEANUP (may be NULL) runs first, in the signal handler: it must
** be async-signal-safe (restore the terminal with write/tcsetattr, say).
** Call again to change CLEANUP.
*/
void cli_guard_mapped_files(void (*cleanup)(void));

/* ---- the chat's framing options (cli/frame.c) ------------------------------ */

/* --greeting TEXT, --no-greeting, --user NAME, --bot NAME, --stop S
** (repeatable, \n escapes), --ban IDS: for `chat` and the full-screen
** client.  The value is storage/framing.h's: unset fields stay unset. */
struct cli_frame {
    framing fr;
};
/* Like cli_opts_parse for the framing options: 1 consumed, 0 not one, -1
** error (printed). */
int  cli_frame_parse(struct cli_frame *f, int argc, char **argv, int *i);
/* Point CFG's greeting, names, stops and bans at F (F must outlive CFG's use). */
void cli_frame_apply(const struct cli_frame *f, chat_config *cfg);
void cli_frame_fini(struct cli_frame *f);
void cli_frame_help(FILE *f);

/* ---- vocabulary discovery (cli/vocab.c) ---------------------------------- */

/* File name of the World vocabulary, as the rwkv pip package ships it. */
#define CLI_VOCAB_NAME "rwkv_vocab_v20230424.txt"

/*
** Find the World vocabulary.  Order: FLAG_VALUE (--vocab, may be NULL),
** $RWKV_VOCAB, CLI_VOCAB_NAME next to MODEL_PATH (may be NULL),
** $XDG_DATA_HOME/rwkv-tui/ (default ~/.local/share/rwkv-tui/).  An explicit
** --vocab or $RWKV_VOCAB is used as given (opening it reports a bad path).
** On success writes the path to OUT (capacity CAP) and returns 0; when none
** exists prints one line saying where it looked and where to get the file,
** and returns 1.
*/
int cli_find_vocab(const char *flag_value, const char *model_path, char *out, size_t cap);
/* The same search, printing nothing: 1 with the line in WHY when none is
** found (the full-screen client shows it in the UI). */
int cli_vocab_lookup(const char *flag_value, const char *model_path, char *out, size_t cap,
                     char *why, size_t why_cap);

/*
** Open the tokenizer for a model with N_VOCAB outputs: 256 -> the byte
** tokenizer, anything else (0 = unknown) -> the World vocabulary found by
** cli_find_vocab(O->vocab, O->model).  *OUT owned by caller (tok_close).
** Returns 0, or 1 with one line already printed.
*/
int cli_open_tokenizer(const struct cli_opts *o, int n_vocab, tok **out);

int cmd_tui(int argc, char **argv);
int cmd_chat(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_tokenize(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_sessions(int argc, char **argv);
/* `sessions state ID TURN [--vs TURN2] [--json]` (cmd_sessions_state.c):
** the exit status, after one line on an error. */
int sessions_state(store *st, int64_t session, int64_t turn, int64_t vs, int json);
/* `sessions budget [SIZE|off]` (cmd_sessions_state.c): ARG NULL prints the
** budget and the states' size. */
int sessions_budget(store *st, const char *arg);

#endif
