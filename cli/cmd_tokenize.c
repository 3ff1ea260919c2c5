/*
** cmd_tokenize.c -- `rwkv-tui tokenize`: text to token ids and back.
**
**   tokenize [--vocab P | --bytes] (--text T | --file F) [--decode]
**
** Encoding prints the ids space-separated on one line.  --file encodes the
** file's bytes exactly (nothing stripped; "-" is stdin).  --decode reads ids
** separated by spaces, commas or newlines (an empty item between commas is
** refused, naming where) and writes the raw bytes of the
** text, with no newline added, so `tokenize --file F | tokenize --decode
** --file -` reproduces F.
*/
#include "cli.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* --file larger than this is refused: the ids alone would take 4x in RAM. */
#define TOKENIZE_MAX_FILE (1u << 30)

static void
tokenize_help(FILE *f)
{
    fprintf(f,
            "usage: " PROG " tokenize [--vocab P | --bytes] (--text T | --file F) [--decode]\n\n"
            "Encode text to token ids (printed space-separated on one line), or with\n"
            "--decode turn ids back into text (raw bytes, no newline added).\n\n"
            "  --text T     the input text (with --decode: the ids)\n"
            "  --file F     read the input from file F ('-' = stdin); its bytes are\n"
            "               encoded exactly, nothing is stripped\n"
            "  --decode     input is ids separated by spaces, commas or newlines\n"
            "               (an empty item, as in '1,,2', is refused)\n"
            "  --bytes      the byte tokenizer of vocab-256 models (id = byte value)\n"
            "  --vocab P    World vocabulary (" CLI_VOCAB_NAME "); without it:\n"
            "               $RWKV_VOCAB, next to --model P, or\n"
            "               $XDG_DATA_HOME/rwkv-tui/ (default ~/.local/share/rwkv-tui/)\n"
            "  --model P    only used to find the vocabulary next to the model\n");
}

static int
is_sep(char c)
{
    return c == ' ' || c == ',' || c == '\n' || c == '\r' || c == '\t';
}

/* Parse the ids in S (LEN bytes) and write their text to stdout. */
static int
decode_ids(const tok *t, const char *what, const char *s, size_t len)
{
    int32_t *ids = NULL;
    size_t n = 0, cap = 0, i = 0;
    char *text = NULL;
    size_t tl;
    rwkv_err err;
    long lo = tok_is_bytes(t) ? 0 : 1;
    int rc = 1;
    size_t comma = 0;   /* 1 + the offset of a ',' no id followed yet, 0: none */

    while (i < len) {
        size_t j = i;
        long v = 0;
        const char *p;
        size_t pl;

        /* a comma ends an item: two with only blanks between them (or one
        ** first or last) leave one empty, a slip the ids must not hide */
        if (s[i] == ',' && (comma != 0 || n == 0)) {
            cli_errorf("%s: item %zu is empty (the ',' at byte %zu)", what, n + 1, i + 1);
            goto out;
        }
        if (is_sep(s[i])) {
            if (s[i] == ',')
                comma = i + 1;
            i++;
            continue;
        }
        comma = 0;
        while (j < len && !is_sep(s[j]))
            j++;
        for (size_t k = i; k < j && v >= 0; k++)
            v = s[k] >= '0' && s[k] <= '9' && j - i <= 9 ? v * 10 + (s[k] - '0') : -1;
        /* a World vocabulary has no id 0: the models' end of text, which
        ** tok_piece lets through as no bytes for generation's sake */
        if (v < lo || v > INT32_MAX || tok_piece(t, (int32_t)v, &p, &pl) != RWKV_OK) {
            cli_errorf("%s: '%.*s' (item %zu) is not a token id (%ld..%zu%s)", what,
                       (int)(j - i > 40 ? 40 : j - i), s + i, n + 1, lo, tok_vocab_size(t) - 1,
                       v == 0 ? "; 0 is the end of a text, not in the vocabulary" : "");
            goto out;
        }
        if (n == cap) {
            int32_t *nids;
            cap = cap ? cap * 2 : 256;
            if ((nids = realloc(ids, cap * sizeof *ids)) == NULL) {
                cli_errorf("%s: out of memory", what);
                goto out;
            }
            ids = nids;
        }
        ids[n++] = (int32_t)v;
        i = j;
    }
    if (comma != 0) {
        cli_errorf("%s: item %zu is empty (nothing after the ',' at byte %zu)", what, n + 1,
                   comma);
        goto out;
    }
    if (tok_decode(t, ids, n, &text, &tl, &err) != RWKV_OK) {
        rc = cli_fail(&err);
        goto out;
    }
    /* a failed write is reported once, by cli_stdout_close */
    (void)cli_write(stdout, text, tl);
    rc = 0;
out:
    free(ids);
    free(text);
    return rc;
}

static int
encode_text(const tok *t, const char *s, size_t len)
{
    int32_t *ids;
    size_t n;
    rwkv_err err;

    if (tok_encode(t, s, len, &ids, &n, &err) != RWKV_OK)
        return cli_fail(&err);
    for (size_t i = 0; i < n; i++)
        printf(i ? " %ld" : "%ld", (long)ids[i]);
    putchar('\n');
    free(ids);
    /* a failed write is reported once, by cli_stdout_close */
    return 0;
}

int
cmd_tokenize(int argc, char **argv)
{
    struct cli_opts o;
    const char *text = NULL, *file = NULL;
    int bytes = 0, decode = 0, rc, r;
    char *buf = NULL;
    size_t len;
    tok *t = NULL;
    rwkv_err err;
    const struct cli_opt tab[] = {
        { "bytes", CLI_OPT_FLAG, &bytes, 0, 0 },
        { "decode", CLI_OPT_FLAG, &decode, 0, 0 },
        { "text", CLI_OPT_STR, &text, 0, 0 },
        { "file", CLI_OPT_PATH, &file, 0, 0 },
        { "vocab", CLI_OPT_PATH, &o.vocab, 0, 0 },
        { "model", CLI_OPT_PATH, &o.model, 0, 0 },
        { NULL, CLI_OPT_FLAG, NULL, 0, 0 },
    };

    cli_opts_init(&o);
    r = cli_parse_args(argc, argv, "tokenize", tokenize_help, tab, NULL, NULL);
    if (r != CLI_ARGS_GO)
        return r;
    if ((text == NULL) == (file == NULL)) {
        cli_errorf("tokenize: give exactly one of --text T or --file F");
        return 2;
    }
    if (bytes && o.vocab != NULL) {
        cli_errorf("tokenize: --bytes and --vocab exclude each other");
        return 2;
    }
    if (cli_file_kinds(&o, "tokenize") != 0)
        return 2;

    if (bytes) {
        if (tok_create_bytes(&t, &err) != RWKV_OK)
            return cli_fail(&err);
    } else if (cli_open_tokenizer(&o, 0, &t) != 0) {
        return 1;
    }
    if (file != NULL) {
        if (cli_read_input(file, TOKENIZE_MAX_FILE, NULL, &buf, &len) != 0) {
            tok_close(t);
            return 1;
        }
    }
    if (decode)
        rc = decode_ids(t, file ? file : "--text", file ? buf : text, file ? len : strlen(text));
    else
        rc = encode_text(t, file ? buf : text, file ? len : strlen(text));
    free(buf);
    tok_close(t);
    return cli_stdout_close(rc);
}
