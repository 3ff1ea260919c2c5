/*
** fileio.c -- safe opening of input files and atomic creation of output
** files.  See fileio.h.
**
** Invariants: rwkv_open_regular never blocks (O_NONBLOCK until the type is
** known) and never returns a descriptor for anything but a regular file;
** rwkv_atomic never opens an existing name for writing (O_EXCL|O_NOFOLLOW
** on a fresh random name) but a character device's (/dev/null: nothing
** there to replace), and PATH only ever changes by rename(2).
*/
#define _GNU_SOURCE   /* fopencookie: the stream keeps the failing write's errno */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Fresh temporary names tried before giving up (each collision is another
** process's temporary file or a planted name; 64 misses in a row means
** something is wrong with the directory). */
#define FIO_TMP_TRIES 64
/* The longest path followed, and the most links followed in a row (as the
** kernel's own limit, 40: more is a loop). */
#define FIO_PATH_MAX 4096
#define FIO_MAX_HOPS 40

int
rwkv_pread_full(int fd, void *dst, uint64_t n, uint64_t off, const int *stop)
{
    char *d = dst;

    while (n > 0) {
        size_t len = n < ((uint64_t)1 << 30) ? (size_t)n : (size_t)1 << 30;
        ssize_t r;
        if (stop != NULL && __atomic_load_n(stop, __ATOMIC_RELAXED))
            return -1;
        r = pread(fd, d, len, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        d += r;
        off += (uint64_t)r;
        n -= (uint64_t)r;
    }
    return 0;
}

const char *
rwkv_file_kind(mode_t mode)
{
    if (S_ISREG(mode))
        return "a regular file";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

void
rwkv_path_dir(const char *path, char *dir, size_t cap)
{
    const char *slash = strrchr(path, '/');

    if (slash == NULL)
        snprintf(dir, cap, ".");
    else if (slash == path)
        snprintf(dir, cap, "/");
    else
        snprintf(dir, cap, "%.*s", (int)(slash - path), path);
}

int
rwkv_open_regular(const char *path, int *fd, rwkv_err *err)
{
    struct stat st;
    int f, fl;

    *fd = -1;
    /* Refuse by type before opening when we can: opening some devices has
     * side effects; the fstat below closes the race with a swapped file. */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return rwkv_errf(err, RWKV_EIO, "%s: not a regular file (%s)", path,
                         rwkv_file_kind(st.st_mode));
    f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (f < 0)
        return rwkv_errf(err, RWKV_EIO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(f, &st) != 0) {
        int e = errno;
        close(f);
        return rwkv_errf(err, RWKV_EIO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(f);
        return rwkv_errf(err, RWKV_EIO, "%s: not a regular file (%s)", path,
                         rwkv_file_kind(st.st_mode));
    }
    /* a regular file: blocking reads from here on (O_NONBLOCK means nothing
     * for regular files on Linux, but be exact) */
    fl = fcntl(f, F_GETFL);
    if (fl < 0 || fcntl(f, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(f);
        return rwkv_errf(err, RWKV_EIO, "%s: cannot open: %s", path, strerror(e));
    }
    *fd = f;
    return RWKV_OK;
}

int
rwkv_fopen_regular(const char *path, FILE **out, rwkv_err *err)
{
    int fd, rc;

    *out = NULL;
    if ((rc = rwkv_open_regular(path, &fd, err)) != RWKV_OK)
        return rc;
    *out = fdopen(fd, "rb");
    if (*out == NULL) {
        int e = errno;
        close(fd);
        return rwkv_errf(err, RWKV_EIO, "%s: cannot open: %s", path, strerror(e));
    }
    return RWKV_OK;
}

int
rwkv_fopen_stream(const char *path, FILE **out, rwkv_err *err)
{
    struct stat st;
    int f, fl;

    *out = NULL;
    if (stat(path, &st) != 0 || !S_ISFIFO(st.st_mode))
        return rwkv_fopen_regular(path, out, err);
    /* O_NONBLOCK: the open of a FIFO with no writer must not wait for one;
    ** blocking reads after it (no writer: end of file at once) */
    f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (f < 0)
        return rwkv_errf(err, RWKV_EIO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(f, &st) != 0 || !S_ISFIFO(st.st_mode) || (fl = fcntl(f, F_GETFL)) < 0 ||
        fcntl(f, F_SETFL, fl & ~O_NONBLOCK) != 0 || (*out = fdopen(f, "rb")) == NULL) {
        close(f);
        return rwkv_errf(err, RWKV_EIO, "%s: cannot open: it changed while opened", path);
    }
    return RWKV_OK;
}

/* ---- atomic creation ---- */

struct rwkv_atomic {
    char *path;    /* as given, owned */
    char *dst;     /* what is renamed over: PATH, or where a link there leads; owned */
    char *tmp;     /* the temporary file, owned; NULL once renamed */
    char *dir;     /* DST's directory (for the directory fsync), owned */
    int   fd;      /* -1 once closed; the stream writes it, never closes it */
    FILE *stream;  /* fio_stream_write on fd, made on demand */
    int   werr;    /* errno of the stream's first failed write(2), 0: none */
    int   flags;
    int   device;  /* PATH is a character device, written in place (tmp NULL) */
};

/* splitmix64: a well-mixed 64-bit value from a counter-like input. */
static uint64_t
fio_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A random-enough 8-letter suffix: only uniqueness matters (O_EXCL makes a
** collision harmless), so time, pid, an address and the attempt number
** are enough. */
static void
fio_suffix(char out[9], unsigned attempt, const void *salt)
{
    static const char abc[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    struct timespec ts;
    uint64_t x;

    clock_gettime(CLOCK_REALTIME, &ts);
    x = fio_mix((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
                ((uint64_t)getpid() << 16) ^ (uint64_t)(uintptr_t)salt ^
                ((uint64_t)attempt << 48));
    for (int i = 0; i < 8; i++) {
        out[i] = abc[x % 36];
        x /= 36;
    }
    out[8] = '\0';
}

static void
fio_free(rwkv_atomic *a)
{
    free(a->path);
    free(a->dst);
    free(a->tmp);
    free(a->dir);
    free(a);
}

/* PATH, a character device or a FIFO (FIFO set), opened for writing in
** place into *OUT.  A FIFO no program reads is refused at once, never
** waited on (O_NONBLOCK: ENXIO). */
static int
fio_device(const char *path, int fifo, int flags, rwkv_atomic **out, rwkv_err *err)
{
    rwkv_atomic *a = calloc(1, sizeof *a);
    int fl;

    if (a == NULL || (a->path = strdup(path)) == NULL) {
        free(a);
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    }
    a->flags = flags;
    a->device = 1;
    a->fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | (fifo ? O_NONBLOCK : 0));
    if (a->fd < 0) {
        int e = errno;
        fio_free(a);
        if (fifo && e == ENXIO)
            return rwkv_errf(err, RWKV_EIO, "%s: cannot create: it is a FIFO no program "
                             "reads", path);
        return rwkv_errf(err, RWKV_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    if (fifo && ((fl = fcntl(a->fd, F_GETFL)) < 0 || fcntl(a->fd, F_SETFL, fl & ~O_NONBLOCK) != 0)) {
        int e = errno;
        close(a->fd);
        fio_free(a);
        return rwkv_errf(err, RWKV_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    *out = a;
    return RWKV_OK;
}

/* 1 when the link PATH (LST its lstat; its folder the first DL bytes of
** PATH, "dir/", or "." when DL is 0) may be followed: not in a sticky,
** world-writable folder, or made by us or the folder's owner. */
static int
fio_link_trusted(const char *path, size_t dl, const struct stat *lst)
{
    char dir[FIO_PATH_MAX];
    struct stat ds;

    if (dl == 0)
        memcpy(dir, ".", 2);
    else {
        memcpy(dir, path, dl);
        dir[dl] = '\0';
    }
    if (stat(dir, &ds) != 0)
        return 0;
    if (!(ds.st_mode & S_ISVTX) || !(ds.st_mode & S_IWOTH))
        return 1;
    return lst->st_uid == geteuid() || lst->st_uid == ds.st_uid;
}

int
rwkv_output_target(const char *path, char *out, size_t cap)
{
    char cur[FIO_PATH_MAX], next[FIO_PATH_MAX], link[FIO_PATH_MAX];
    size_t n = strlen(path);
    struct stat st;

    if (n >= sizeof cur) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(cur, path, n + 1);
    for (int hops = 0; lstat(cur, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
        const char *slash = strrchr(cur, '/');
        size_t dl = slash ? (size_t)(slash - cur) + 1 : 0;   /* "dir/" kept */
        ssize_t k;
        if (hops == FIO_MAX_HOPS) {
            errno = ELOOP;
            return -1;
        }
        /* the kernel's protected_symlinks rule: in a sticky folder anyone
        ** may write to (/tmp), a link neither we nor the folder's owner
        ** made is not followed -- another user's link planted at the
        ** output path is replaced, never written through */
        if (!fio_link_trusted(cur, dl, &st))
            break;
        if ((k = readlink(cur, link, sizeof link)) < 0)
            return -1;
        if ((size_t)k >= sizeof link || (link[0] != '/' && dl + (size_t)k >= sizeof cur)) {
            errno = ENAMETOOLONG;
            return -1;
        }
        /* an absolute link replaces the path; a relative one is read
        ** from the link's own folder */
        if (link[0] == '/')
            dl = 0;
        memcpy(next, cur, dl);
        memcpy(next + dl, link, (size_t)k);
        next[dl + (size_t)k] = '\0';
        /* a link the kernel follows where its text names nothing -- /proc's
        ** (/dev/stdout -> /proc/self/fd/1 -> "pipe:[123]") -- is kept as
        ** it is: opening it reaches the file */
        if (lstat(next, &st) != 0 && stat(cur, &st) == 0)
            break;
        memcpy(cur, next, dl + (size_t)k + 1);
    }
    if ((n = strlen(cur)) >= cap) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(out, cur, n + 1);
    return 0;
}

/* "PATH" for the messages, or "PATH (a link to DST)" where they differ. */
static void
fio_name(char *buf, size_t cap, const char *path, const char *dst)
{
    if (strcmp(path, dst) == 0)
        snprintf(buf, cap, "%s", path);
    else
        snprintf(buf, cap, "%s (a link to %s)", path, dst);
}

int
rwkv_atomic_create(const char *path, unsigned mode, int flags, rwkv_atomic **out,
                   rwkv_err *err)
{
    rwkv_atomic *a;
    const char *slash, *base;
    char dst[FIO_PATH_MAX], name[2 * FIO_PATH_MAX + 32];
    size_t dl, bl;
    struct stat st;

    *out = NULL;
    if (path == NULL || *path == '\0')
        return rwkv_errf(err, RWKV_EINVAL, "no output path given");
    /* written THROUGH a symlink at PATH: the link stays, its target (there
    ** or not) gets the new file */
    if (rwkv_output_target(path, dst, sizeof dst) != 0)
        return rwkv_errf(err, RWKV_EIO, "%s: cannot create: %s", path, strerror(errno));
    fio_name(name, sizeof name, path, dst);
    /* a character device (/dev/null, /dev/stdout on a terminal) or a FIFO
    ** a program reads (/dev/stdout on a pipe, >(cmd)) has nothing to
    ** replace, and writing it is what the user asked for */
    if (stat(dst, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
        return fio_device(path, S_ISFIFO(st.st_mode), flags, out, err);
    if (stat(dst, &st) == 0 && !S_ISREG(st.st_mode))
        return rwkv_errf(err, RWKV_EIO, "%s: cannot create: it is %s", name,
                         rwkv_file_kind(st.st_mode));
    slash = strrchr(dst, '/');
    base = slash ? slash + 1 : dst;
    if (*base == '\0')
        return rwkv_errf(err, RWKV_EIO, "%s: cannot create: it names a directory", name);
    dl = slash ? (size_t)(slash - dst) : 1;
    bl = strlen(base);
    a = calloc(1, sizeof *a);
    if (a == NULL)
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    a->fd = -1;
    a->flags = flags;
    a->path = strdup(path);
    a->dst = strdup(dst);
    a->dir = malloc(dl + 1);
    /* DIR/.BASE.XXXXXXXX.tmp */
    a->tmp = malloc(dl + 1 + 1 + bl + 1 + 8 + 4 + 1);
    if (a->path == NULL || a->dst == NULL || a->dir == NULL || a->tmp == NULL) {
        fio_free(a);
        return rwkv_errf(err, RWKV_ENOMEM, "out of memory");
    }
    if (slash == dst)
        memcpy(a->dir, "/", 2);               /* "/x" lives in "/" */
    else if (slash != NULL) {
        memcpy(a->dir, dst, dl);
        a->dir[dl] = '\0';
    } else
        memcpy(a->dir, ".", 2);
    for (unsigned k = 0; k < FIO_TMP_TRIES; k++) {
        char sfx[9];
        fio_suffix(sfx, k, a);
        snprintf(a->tmp, dl + 1 + 1 + bl + 1 + 8 + 4 + 1, "%s/.%s.%s.tmp",
                 slash == dst ? "" : a->dir, base, sfx);
        a->fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                     (mode_t)mode);
        if (a->fd >= 0 || errno != EEXIST)
            break;
    }
    if (a->fd < 0) {
        int e = errno;
        fio_free(a);
        return rwkv_errf(err, RWKV_EIO, "%s: cannot create: %s", name, strerror(e));
    }
    *out = a;
    return RWKV_OK;
}

int
rwkv_atomic_fd(const rwkv_atomic *a)
{
    return a->fd;
}

const char *
rwkv_atomic_path(const rwkv_atomic *a)
{
    return a->path;
}

/*
** The stream's write function: all of BUF to the descriptor (retried on
** EINTR and short writes).  stdio keeps only an error flag, and a failed
** write that stdio made directly (a block as large as its buffer) leaves
** nothing for the final fflush to fail on, so the commit would only know
** "Input/output error": the first failure's errno is kept here instead
** ("No space left on device").
*/
static ssize_t
fio_stream_write(void *cookie, const char *buf, size_t len)
{
    rwkv_atomic *a = cookie;
    size_t done = 0;

    while (done < len) {
        ssize_t k = write(a->fd, buf + done, len - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (a->werr == 0)
                a->werr = k < 0 ? errno : EIO;
            /* what was written is counted (stdio keeps the rest); nothing
            ** written is an error (0, as fopencookie(3) asks) */
            return (ssize_t)done;
        }
        done += (size_t)k;
    }
    return (ssize_t)done;
}

FILE *
rwkv_atomic_stream(rwkv_atomic *a, rwkv_err *err)
{
    static const cookie_io_functions_t io = { NULL, fio_stream_write, NULL, NULL };

    if (a->stream == NULL) {
        /* the descriptor stays A's: fclose of the stream leaves it open */
        a->stream = fopencookie(a, "wb", io);
        if (a->stream == NULL) {
            rwkv_errf(err, RWKV_EIO, "%s: cannot write: %s", a->path, strerror(errno));
            return NULL;
        }
    }
    return a->stream;
}

/* fsync directory DIR so a rename in it survives a crash.  Best effort:
** some file systems refuse fsync on a directory (EINVAL). */
static int
fio_sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = 0;

    if (fd < 0)
        return 0;
    if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
        rc = -1;
    close(fd);
    return rc;
}

int
rwkv_atomic_commit(rwkv_atomic *a, rwkv_err *err)
{
    int e = 0;
    const char *what = "cannot write";

    if (a->stream != NULL) {
        /* the failing write(2)'s own errno (fio_stream_write), whichever
        ** call of the stream's met it */
        errno = 0;
        if (fflush(a->stream) != 0 || ferror(a->stream))
            e = a->werr ? a->werr : errno ? errno : EIO;
        fclose(a->stream);   /* nothing left to write: its fd stays open */
        a->stream = NULL;
    }
    if (e == 0 && (a->flags & RWKV_ATOMIC_SYNC) && !a->device && fsync(a->fd) != 0)
        e = errno;
    if (close(a->fd) != 0 && e == 0)
        e = errno;
    a->fd = -1;
    if (e == 0 && !a->device && rename(a->tmp, a->dst) != 0) {
        e = errno;
        what = "cannot move the finished file into place";
    }
    if (e != 0) {
        int rc = rwkv_errf(err, RWKV_EIO, "%s: %s: %s", a->path, what, strerror(e));
        rwkv_atomic_abort(a);
        return rc;
    }
    free(a->tmp);
    a->tmp = NULL;
    if ((a->flags & RWKV_ATOMIC_SYNC) && !a->device && fio_sync_dir(a->dir) != 0) {
        e = errno;
        /* the file is complete and in place; only its durability is unsure */
        rwkv_errf(err, RWKV_EIO, "%s: written, but syncing its directory failed: %s", a->path,
                  strerror(e));
        fio_free(a);
        return RWKV_EIO;
    }
    fio_free(a);
    return RWKV_OK;
}

int
rwkv_write_file(const char *path, const void *buf, size_t len, unsigned mode, int flags,
                rwkv_err *err)
{
    rwkv_atomic *a;
    FILE *f;
    int rc;

    if ((rc = rwkv_atomic_create(path, mode, flags, &a, err)) != RWKV_OK)
        return rc;
    if ((f = rwkv_atomic_stream(a, err)) == NULL) {
        rwkv_atomic_abort(a);
        return RWKV_EIO;
    }
    (void)fwrite(buf, 1, len, f);   /* a write error is the commit's */
    return rwkv_atomic_commit(a, err);
}

void
rwkv_atomic_abort(rwkv_atomic *a)
{
    if (a == NULL)
        return;
    if (a->stream != NULL)
        fclose(a->stream);   /* its buffer may fail to go out: no matter */
    if (a->fd >= 0)
        close(a->fd);
    if (a->tmp != NULL)
        unlink(a->tmp);
    fio_free(a);
}

/* Device and inode of the directory PATH lies in, and its last component
** (at most CAP bytes with the NUL, into NAME).  0, or -1. */
static int
dir_entry(const char *path, struct stat *dir, char *name, size_t cap)
{
    char *a = strdup(path), *b = strdup(path);
    int rc = -1;

    if (a != NULL && b != NULL && stat(dirname(a), dir) == 0 &&
        (size_t)snprintf(name, cap, "%s", basename(b)) < cap)
        rc = 0;
    free(a);
    free(b);
    return rc;
}

int
rwkv_same_file(const char *out, const char *in)
{
    struct stat o, lo, i, li;
    char on[4096], inn[4096], ro[FIO_PATH_MAX], ri[FIO_PATH_MAX];

    if (out == NULL || in == NULL || strcmp(out, "-") == 0 || strcmp(in, "-") == 0)
        return 0;
    /* what a write to OUT replaces: the file a symlink there leads to (the
    ** writers write through it); a path that cannot be followed (a loop)
    ** is refused by the writer itself */
    if (rwkv_output_target(out, ro, sizeof ro) != 0)
        return 0;
    /* writing a character device or a FIFO (/dev/null) replaces nothing */
    if (stat(ro, &o) == 0 && (S_ISCHR(o.st_mode) || S_ISFIFO(o.st_mode)))
        return 0;
    if (lstat(ro, &lo) == 0) {
        if (lstat(in, &li) == 0 && li.st_dev == lo.st_dev && li.st_ino == lo.st_ino)
            return 1;
        if (stat(in, &i) == 0 && i.st_dev == lo.st_dev && i.st_ino == lo.st_ino)
            return 1;
        return 0;
    }
    /* OUT's file does not exist: IN is the same only if IN's is not there
    ** either and is the same directory entry */
    if (rwkv_output_target(in, ri, sizeof ri) != 0 || lstat(ri, &li) == 0)
        return 0;
    if (dir_entry(ro, &o, on, sizeof on) != 0 || dir_entry(ri, &i, inn, sizeof inn) != 0)
        return 0;
    return o.st_dev == i.st_dev && o.st_ino == i.st_ino && strcmp(on, inn) == 0;
}
