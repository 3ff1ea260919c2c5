/*
** status.c -- rwkv_errf and friends.  See status.h.
**
** A message that does not fit the caller's RWKV_ERR_MSG buffer is not cut
** at its end -- that is where the reason is ("PATH: cannot open: No such
** file or directory"), and a long path in front pushed it out.  It is
** formatted whole into a stack buffer (error paths never allocate) and
** shortened where it is long: the middle of its longest words (a path, a
** quoted value) gives way to "...", each keeping its ends; only when that
** is not enough does the middle of the whole message go.
*/
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The longest message formatted whole before it is shortened: two paths of
** PATH_MAX (4096) and their words fit; a longer one loses what follows. */
#define ERR_FULL_MAX 16384
/* Bytes a shortened message leaves free in the buffer: a hint a caller
** appends to ERR->msg (sess_info_load_hint adds ~110) still fits. */
#define ERR_ROOM 128
/* Bytes kept at each end of a word that is shortened (the start and the
** file name of a path). */
#define ERR_WORD_KEEP 24

static const char ellipsis[] = "...";
#define ELL (sizeof ellipsis - 1)

/* 1 if byte C continues a UTF-8 sequence (cuts never split a character). */
static int
cont(char c)
{
    return ((unsigned char)c & 0xC0) == 0x80;
}

/* Replace S[FROM, TO) (S has N bytes) by "...": the new length. */
static size_t
elide(char *s, size_t n, size_t from, size_t to)
{
    memmove(s + from + ELL, s + to, n - to);
    memcpy(s + from, ellipsis, ELL);
    return n - (to - from) + ELL;
}

/*
** Shorten S (N bytes) to at most TARGET bytes in place, as the top says;
** returns the new length (S is NUL-terminated there).
*/
static size_t
shorten(char *s, size_t n, size_t target)
{
    while (n > target) {
        size_t best = 0, best_len = 0, cut, from, to;

        for (size_t i = 0; i < n;) {          /* the longest blank-free run */
            size_t j = i;
            while (j < n && s[j] != ' ')
                j++;
            if (j - i > best_len) {
                best = i;
                best_len = j - i;
            }
            i = j + 1;
        }
        if (best_len <= 2 * ERR_WORD_KEEP + ELL)
            break;
        cut = n - target + ELL;               /* > ELL: every pass gains */
        if (cut > best_len - 2 * ERR_WORD_KEEP)
            cut = best_len - 2 * ERR_WORD_KEEP;
        from = best + (best_len - cut) / 2;
        to = from + cut;
        while (from > best && cont(s[from]))
            from--;
        while (to < best + best_len && cont(s[to]))
            to++;
        n = elide(s, n, from, to);
    }
    if (n > target) {                         /* no word long enough: the middle */
        size_t from = target / 3, to = n - (target - from - ELL);
        while (from > 0 && cont(s[from]))
            from--;
        while (to < n && cont(s[to]))
            to++;
        n = elide(s, n, from, to);
    }
    s[n] = '\0';
    return n;
}

int
rwkv_errf(rwkv_err *err, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    rwkv_verrf(err, code, fmt, ap);
    va_end(ap);
    return code;
}

int
rwkv_verrf(rwkv_err *err, int code, const char *fmt, va_list ap)
{
    char full[ERR_FULL_MAX];
    int n;
    size_t len;

    if (err == NULL)
        return code;
    /* formatted apart from ERR->msg, so an argument may be ERR->msg itself */
    n = vsnprintf(full, sizeof full, fmt, ap);
    if (n < 0) {
        full[0] = '\0';
        n = 0;
    }
    len = (size_t)n < sizeof full ? (size_t)n : sizeof full - 1;
    if (len >= sizeof err->msg)
        len = shorten(full, len, sizeof err->msg - 1 - ERR_ROOM);
    memcpy(err->msg, full, len + 1);
    err->code = code;
    return code;
}

void
rwkv_err_clear(rwkv_err *err)
{
    if (err == NULL)
        return;
    err->code = RWKV_OK;
    err->msg[0] = '\0';
}

const char *
rwkv_strerror(int code)
{
    static const char *const names[RWKV_NSTATUS] = {
        [RWKV_OK] = "ok",
        [RWKV_EIO] = "i/o error",
        [RWKV_EFORMAT] = "format error",
        [RWKV_EUNSAFE] = "unsafe input refused",
        [RWKV_ESHAPE] = "shape error",
        [RWKV_ENOMEM] = "out of memory",
        [RWKV_EINVAL] = "invalid argument",
        [RWKV_ENOTSUP] = "not supported",
        [RWKV_ECANCEL] = "cancelled",
        [RWKV_EDB] = "database error",
        [RWKV_ECORRUPT] = "database damaged",
    };

    if (code < 0 || code >= RWKV_NSTATUS)
        return "unknown error";
    return names[code];
}

const char *
rwkv_err_past_path(const char *msg, const char *path)
{
    size_t n = path ? strlen(path) : 0;

    if (n == 0 || strncmp(msg, path, n) != 0 || strncmp(msg + n, ": ", 2) != 0 ||
        msg[n + 2] == '\0')
        return msg;
    return msg + n + 2;
}
