/*
** status.h -- status codes and the caller-owned error buffer used by every
** function in core/, storage/ and gpu/.
**
** Nothing below tui/ and cli/ prints or exits: a failing function fills an
** rwkv_err (a fixed buffer, so error paths never allocate) and returns the
** code.  Messages are one line that names the file, the object and what was
** expected, e.g. "m.pth: tensor 'blocks.0.ln1.weight' has shape [3], expected [64]".
*/
#ifndef RWKV_STATUS_H
#define RWKV_STATUS_H

#include <stdarg.h>

enum rwkv_status {
    RWKV_OK = 0,
    RWKV_EIO,        /* a file could not be opened, read or mapped */
    RWKV_EFORMAT,    /* input is malformed (zip, pickle, json, vocab, blob) */
    RWKV_EUNSAFE,    /* a pickle asked for something we never execute */
    RWKV_ESHAPE,     /* a tensor is missing or has the wrong shape/dtype */
    RWKV_ENOMEM,     /* allocation failed or a size overflowed */
    RWKV_EINVAL,     /* a bad argument (strategy string, option value) */
    RWKV_ENOTSUP,    /* valid but not supported (yet) by this build */
    RWKV_ECANCEL,    /* the operation was cancelled by the caller */
    RWKV_EDB,        /* the session database failed */
    RWKV_ECORRUPT,   /* the session database is damaged (SQLITE_CORRUPT, a
                        page that no longer reads as a database, a row
                        that breaks the schema): no retry mends it */
    RWKV_NSTATUS
};

#define RWKV_ERR_MSG 512

typedef struct rwkv_err {
    int  code;
    char msg[RWKV_ERR_MSG];
} rwkv_err;

/*
** Fill ERR (which may be NULL) with CODE and a printf-style message; returns
** CODE so that `return rwkv_errf(err, RWKV_EFORMAT, "...")` reads naturally.
** A message longer than the buffer keeps its end (the reason): the middle
** of its longest words (a long path) becomes "...", and the shortened
** message leaves room for a hint appended after it (status.c).  An argument
** may be ERR->msg itself ("%s (while ...)", err->msg).
*/
int rwkv_errf(rwkv_err *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* rwkv_errf with the arguments as a va_list, for functions that take a
** message format of their own. */
int rwkv_verrf(rwkv_err *err, int code, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 0)))
#endif
    ;

/* MSG past a leading "PATH: " (the file a message names first, as above),
** for a caller whose own sentence names PATH already: "PATH: not loaded:
** REASON", not the path twice.  MSG itself when it does not start so, or
** PATH is NULL or empty. */
const char *rwkv_err_past_path(const char *msg, const char *path);

/* Reset ERR to RWKV_OK with an empty message. NULL is fine. */
void rwkv_err_clear(rwkv_err *err);

/* A short static description of CODE ("format error", ...). */
const char *rwkv_strerror(int code);

#endif
