/*
** status.c -- rwkv_errf and friends.  See status.h.
*/
#include "status.h"

#include <stdarg.h>
#include <stdio.h>

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
    if (err == NULL)
        return code;
    err->code = code;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
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
    };

    if (code < 0 || code >= RWKV_NSTATUS)
        return "unknown error";
    return names[code];
}
