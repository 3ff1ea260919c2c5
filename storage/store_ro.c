/*
** store_ro.c -- whether this process may write a database file, and why
** not (store.h, store_read_only_reason); the URI that opens one read-only
** as an immutable file (store.c, open_read_only).
**
** What counts (tried on real files: tests/cli/sessions_readonly.sh):
**   - a read-only file system (a ro mount or bind mount): statvfs ST_RDONLY;
**   - a file with no write bit at all (chmod 444): refused for root too,
**     who passes every permission check -- the rule every output of the
**     program follows (store_output_check);
**   - an immutable file or folder (chattr +i): statx's attributes, where
**     the file system reports them (root too: the kernel refuses it);
**   - no write permission on the file, or on its folder, where SQLite
**     makes the -wal and -shm (or -journal) files a write needs: access().
** Nothing here opens the database file: closing a descriptor of it would
** drop the POSIX locks this process holds on it through SQLite.
*/
#define _GNU_SOURCE   /* statx */

#include "store_int.h"

#include "../core/io/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* 1 when the file system says P is immutable (chattr +i). */
static int
immutable(const char *p)
{
#if defined(STATX_ATTR_IMMUTABLE)
    struct statx sx;

    return statx(AT_FDCWD, p, 0, STATX_BASIC_STATS, &sx) == 0 &&
           (sx.stx_attributes_mask & STATX_ATTR_IMMUTABLE) != 0 &&
           (sx.stx_attributes & STATX_ATTR_IMMUTABLE) != 0;
#else
    (void)p;
    return 0;
#endif
}

/* 1 when access(P, W_OK) refuses for a reason of permission (its errno
** into *E), 0 when it allows it or fails otherwise (no verdict). */
static int
no_write(const char *p, int *e)
{
    if (access(p, W_OK) == 0)
        return 0;
    *e = errno;
    return *e == EACCES || *e == EPERM || *e == EROFS;
}

int
store_read_only_reason(const char *path, char *why, size_t cap)
{
    char dir[STORE_PATH_MAX];
    struct statvfs vfs;
    struct stat sb;
    int e = 0;

    rwkv_path_dir(path, dir, sizeof dir);
    if ((statvfs(path, &vfs) == 0 || statvfs(dir, &vfs) == 0) && (vfs.f_flag & ST_RDONLY)) {
        snprintf(why, cap, "on a read-only file system");
        return 1;
    }
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
        if ((sb.st_mode & 0222) == 0) {
            snprintf(why, cap, "mode %03o: no write permission for anyone",
                     (unsigned)(sb.st_mode & 0777));
            return 1;
        }
        if (immutable(path)) {
            snprintf(why, cap, "an immutable file, chattr +i");
            return 1;
        }
        if (no_write(path, &e)) {
            if (e == EACCES)
                snprintf(why, cap, "no write permission on it for this user, mode %03o",
                         (unsigned)(sb.st_mode & 0777));
            else
                snprintf(why, cap, "writing it is refused: %s", strerror(e));
            return 1;
        }
    }
    if (immutable(dir)) {
        snprintf(why, cap, "its folder %s is immutable, chattr +i: SQLite cannot make its -wal "
                           "and -shm files there", dir);
        return 1;
    }
    if (no_write(dir, &e)) {
        if (e == EACCES)
            snprintf(why, cap, "no write permission on its folder %s, where SQLite makes its -wal "
                               "and -shm files", dir);
        else
            snprintf(why, cap, "its folder %s cannot be written (%s), where SQLite makes its -wal "
                               "and -shm files", dir, strerror(e));
        return 1;
    }
    return 0;
}

int
store_ro_uri(const char *path, char *buf, size_t cap)
{
    static const char hex[] = "0123456789ABCDEF";
    static const char tail[] = "?immutable=1";
    size_t n = 0;

    if (cap < sizeof "file://" + sizeof tail)
        return -1;
    /* "file://" (an empty authority) before an absolute path, so that one
    ** starting with "//" is not read as a host */
    n = path[0] == '/' ? 7 : 5;
    memcpy(buf, "file://", n);
    /* every byte but the unreserved ones and '/' escaped: '?', '#' and '%'
    ** in a file name stay part of it */
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || strchr("-._~/", *p) != NULL;
        if (n + 3 + sizeof tail > cap)
            return -1;
        if (plain) {
            buf[n++] = (char)*p;
        } else {
            buf[n++] = '%';
            buf[n++] = hex[*p >> 4];
            buf[n++] = hex[*p & 15];
        }
    }
    memcpy(buf + n, tail, sizeof tail);
    return 0;
}
