/*
** test_status.c -- rwkv_errf (core/status.c): a message longer than the
** buffer keeps its reason.  A long path in front of "cannot open: ..." used
** to push the reason out of the 512-byte buffer; now the path's middle
** gives way to "...", its start and its file name stay, and room is left
** for a hint appended after it.
*/
#include "../harness.h"

#include "../../core/status.h"
#include "../../core/text/utf8.h"

/* A path of about LEN bytes: /tmp/dddd.../eeee.../model.pth */
static void
long_path(char *out, size_t len)
{
    size_t n = 0;

    n += (size_t)snprintf(out, len + 1, "/tmp/");
    for (; n + 20 < len; n++)
        out[n] = (n % 60 == 0) ? '/' : (char)('a' + n % 26);
    snprintf(out + n, len + 1 - n, "/model.pth");
}

static int
ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

int
main(void)
{
    static char path[4200], path2[4200], big[20000];
    rwkv_err err;
    size_t n;

    /* short messages are as formatted */
    rwkv_errf(&err, RWKV_EIO, "%s: cannot open: %s", "m.pth", "No such file or directory");
    TEST_COND("short message unchanged",
              strcmp(err.msg, "m.pth: cannot open: No such file or directory") == 0 &&
              err.code == RWKV_EIO);

    /* a 4000-byte path: the reason and the file name survive */
    long_path(path, 4000);
    TEST_COND("return value is the code",
              rwkv_errf(&err, RWKV_EIO, "%s: cannot open: %s", path,
                        "No such file or directory") == RWKV_EIO);
    n = strlen(err.msg);
    TEST_CONDF(n < RWKV_ERR_MSG, "length %zu", n);
    TEST_CONDF(ends_with(err.msg, "/model.pth: cannot open: No such file or directory"),
               "reason lost: ...%s", n > 80 ? err.msg + n - 80 : err.msg);
    TEST_CONDF(strncmp(err.msg, "/tmp/", 5) == 0, "start lost: %.40s", err.msg);
    TEST_COND("the cut is marked", strstr(err.msg, "...") != NULL);
    /* room for a hint appended after it (sess_info_load_hint) */
    TEST_CONDF(n + 110 < RWKV_ERR_MSG, "no room left for a hint: %zu bytes", n);

    /* two long paths: both shortened, every word between them kept */
    long_path(path2, 3000);
    rwkv_errf(&err, RWKV_EIO, "cannot rename %s to %s: %s", path, path2, "Permission denied");
    n = strlen(err.msg);
    TEST_CONDF(n < RWKV_ERR_MSG && strncmp(err.msg, "cannot rename /tmp/", 19) == 0 &&
               strstr(err.msg, ".pth to /tmp/") != NULL &&
               ends_with(err.msg, "/model.pth: Permission denied"),
               "two paths: %s", err.msg);

    /* the message may be an argument of its own rewrite */
    rwkv_errf(&err, RWKV_EIO, "%s: cannot open: %s", path, "No such file or directory");
    rwkv_errf(&err, RWKV_EDB, "migrating schema v3: %s", err.msg);
    TEST_CONDF(strncmp(err.msg, "migrating schema v3: /tmp/", 26) == 0 &&
               ends_with(err.msg, ": cannot open: No such file or directory") &&
               err.code == RWKV_EDB, "wrapped: %s", err.msg);

    /* no long word: the middle of the message goes, both ends stay */
    big[0] = '\0';
    for (int i = 0; i < 300; i++)
        strcat(big, "word ");
    rwkv_errf(&err, RWKV_EINVAL, "start %send of it", big);
    n = strlen(err.msg);
    TEST_CONDF(n < RWKV_ERR_MSG && strncmp(err.msg, "start word", 10) == 0 &&
               ends_with(err.msg, "word end of it") && strstr(err.msg, "...") != NULL,
               "no long word: %s", err.msg);

    /* a long word of multi-byte characters is cut between characters */
    big[0] = '\0';
    for (int i = 0; i < 1500; i++)
        strcat(big, "\xe4\xb8\xad");               /* U+4E2D, 3 bytes */
    rwkv_errf(&err, RWKV_EFORMAT, "/tmp/%s.pth: not a zip archive", big);
    TEST_CONDF(utf8_valid(err.msg, strlen(err.msg)) &&
               ends_with(err.msg, ".pth: not a zip archive"), "UTF-8 cut: %.60s", err.msg);

    /* longer than the stack buffer: still bounded, still a string */
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    rwkv_errf(&err, RWKV_EINVAL, "%s", big);
    TEST_COND("huge message bounded", strlen(err.msg) < RWKV_ERR_MSG);

    /* a NULL error is fine */
    TEST_COND("NULL err", rwkv_errf(NULL, RWKV_EIO, "%s", path) == RWKV_EIO);
    return TEST_REPORT();
}
