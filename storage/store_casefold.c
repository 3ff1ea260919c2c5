/*
** store_casefold.c -- the search's one case folding (store_int.h).
**
** Message bodies are searched through turns_fts, whose trigram tokenizer
** folds case with SQLite's own table (sqlite3Fts5UnicodeFold, not exported).
** Titles, words too short for the index and the [ ] of a snippet must fold
** the same way, or `search добро` finds a message but not its title nor its
** match.  So the table here is taken from that tokenizer itself, once: every
** code point below FOLD_N is tokenized (each trigram's first character is
** the fold of the character it starts at).  Above FOLD_N, or should FTS5 be
** missing, ASCII letters alone are folded.
*/
#include "store_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../core/text/utf8.h"

#define FOLD_N 0x20000u            /* the BMP and plane 1 (Deseret, ...) */

static uint32_t      *fold_tab;    /* [FOLD_N]; NULL: ASCII only */
static pthread_once_t fold_once = PTHREAD_ONCE_INIT;

struct fold_fill {
    const char *text;              /* what was tokenized */
    size_t      n;
    uint32_t   *tab;
};

/* fts5 xTokenize callback: the token at ISTART folds the code point there. */
static int
fold_token(void *ud, int flags, const char *tok, int ntok, int istart, int iend)
{
    struct fold_fill *f = ud;
    uint32_t orig, folded;

    (void)flags;
    (void)iend;
    if (istart < 0 || (size_t)istart >= f->n || ntok <= 0 ||
        utf8_decode((const unsigned char *)f->text + istart, f->n - (size_t)istart, &orig) <= 0 ||
        utf8_decode((const unsigned char *)tok, (size_t)ntok, &folded) <= 0)
        return SQLITE_OK;
    if (orig < FOLD_N)
        f->tab[orig] = folded;
    return SQLITE_OK;
}

/* Every code point below FOLD_N (surrogates skipped) in UTF-8, then two
** blanks so that the last ones start a trigram too.  NULL out of memory. */
static char *
all_code_points(size_t *n)
{
    char *buf = malloc((size_t)FOLD_N * 4 + 3);
    size_t o = 0;

    if (buf == NULL)
        return NULL;
    for (uint32_t cp = 0x80; cp < FOLD_N; cp++)
        o += (size_t)utf8_encode(cp, (unsigned char *)buf + o);   /* 0 for a surrogate */
    memcpy(buf + o, "  ", 3);
    *n = o + 2;
    return buf;
}

static void
fold_init(void)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    fts5_api *api = NULL;
    fts5_tokenizer tk;
    Fts5Tokenizer *t = NULL;
    void *ud = NULL;
    struct fold_fill f = {0};
    uint32_t *tab;

    if ((tab = malloc((size_t)FOLD_N * sizeof *tab)) == NULL)
        return;
    for (uint32_t cp = 0; cp < FOLD_N; cp++)
        tab[cp] = cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, NULL) != SQLITE_OK)
        goto done;
    sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", NULL);
    sqlite3_step(st);
    if (api == NULL || api->xFindTokenizer(api, "trigram", &ud, &tk) != SQLITE_OK ||
        tk.xCreate(ud, NULL, 0, &t) != SQLITE_OK)
        goto done;
    f.tab = tab;
    if ((f.text = all_code_points(&f.n)) != NULL)
        tk.xTokenize(t, &f, FTS5_TOKENIZE_DOCUMENT, f.text, (int)f.n, fold_token);
    free((char *)f.text);
    tk.xDelete(t);
done:
    sqlite3_finalize(st);
    sqlite3_close(db);
    fold_tab = tab;
}

uint32_t
store_casefold_cp(uint32_t cp)
{
    pthread_once(&fold_once, fold_init);
    if (fold_tab != NULL && cp < FOLD_N)
        return fold_tab[cp];
    return cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
}

char *
store_casefold_str(const char *s, size_t n, size_t *out_len)
{
    /* a fold is never longer than 4 bytes a character, nor than 3 times
    ** the 1-byte ones (U+0130 and U+212A fold to shorter characters) */
    char *o = malloc(n * 4 + 1);
    size_t k = 0;

    if (o == NULL)
        return NULL;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        int r = utf8_decode((const unsigned char *)s + i, n - i, &cp);
        if (r <= 0) {              /* ill-formed: the byte as it is */
            o[k++] = s[i++];
            continue;
        }
        k += (size_t)utf8_encode(store_casefold_cp(cp), (unsigned char *)o + k);
        i += (size_t)r;
    }
    o[k] = '\0';
    if (out_len)
        *out_len = k;
    return o;
}

/* SQL rwkv_fold(X): X folded (store_casefold_str); NULL stays NULL. */
static void
sql_fold(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    const char *s;
    char *f;
    size_t n;

    (void)argc;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
        return;
    s = (const char *)sqlite3_value_text(argv[0]);
    n = (size_t)sqlite3_value_bytes(argv[0]);
    if (s == NULL || (f = store_casefold_str(s, n, &n)) == NULL) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    sqlite3_result_text(ctx, f, (int)n, free);
}

int
store_casefold_register(store *s, rwkv_err *err)
{
    if (sqlite3_create_function_v2(s->db, "rwkv_fold", 1,
                                   SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
                                   sql_fold, NULL, NULL, NULL) != SQLITE_OK)
        return store_dberr(s, err, "search");
    return RWKV_OK;
}
