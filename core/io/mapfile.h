/*
** mapfile.h -- a read-only, private mmap of a whole file.
**
** The mapping lives as long as the handle.  Replacing or truncating a file
** while it is mapped is unsupported (reads past the new end fault with
** SIGBUS); callers validate every offset against mapfile_size() taken at
** open time.  Every mapping is entered in the guard table below so that the
** program's SIGBUS handler (cli/opts.c) can tell a fault in one of our
** mapped files -- the file changed size under us -- from any other, and end
** with one clear line naming the file instead of a crash.
**
** Only regular files are opened (core/io/fileio.h, rwkv_open_regular): a FIFO
** or a device is refused at once, never waited on.
*/
#ifndef RWKV_MAPFILE_H
#define RWKV_MAPFILE_H

#include <stdint.h>

#include "../status.h"

typedef struct mapfile mapfile;

/* Map PATH.  *OUT is owned by the caller; free with mapfile_close.  An empty
** file gives a handle with size 0 and a non-NULL data pointer. */
int mapfile_open(const char *path, mapfile **out, rwkv_err *err);
void mapfile_close(mapfile *m);                     /* NULL is fine */
/*
** A hint that the bytes [P, P + N) of the mapping (P inside it) will not be
** read again soon: the whole pages inside that range leave this process's
** resident set (madvise MADV_DONTNEED).  Nothing changes for a reader: the
** mapping is private and never written, so a later read faults the same
** bytes back in from the page cache.  A no-op for an empty file.
*/
void mapfile_release(const mapfile *m, const void *p, uint64_t n);
/*
** Copy the bytes [P, P + N) of the mapping (P inside it) into DST by reading
** the mapped file (pread on the descriptor kept open since mapfile_open: the
** same file, even if its path was replaced since).  Copying gigabytes out of
** the mapping took a page fault per 4 KiB-64 KiB -- 4x the time of reading
** them on a Zen 5 VM.  0, or -1 when the range is outside the mapping, the
** file is empty, or the read fails or ends early (the file shrank).
*/
int mapfile_read(const mapfile *m, const void *p, uint64_t n, void *dst);
/* Borrowed; valid until mapfile_close. */
const void *mapfile_data(const mapfile *m);
uint64_t    mapfile_size(const mapfile *m);
/* PATH as given to mapfile_open.  Borrowed; valid until mapfile_close. */
const char *mapfile_path(const mapfile *m);

/*
** The guard table: a fixed, lock-free table of the byte ranges of mapped
** files, read from a signal handler.  mapfile_open/close add and remove
** their mappings; other code that mmaps a file (the weight cache) may add
** its own.  PATH is borrowed and must stay valid until the range is
** removed.  A full table (MAPFILE_GUARD_SLOTS) just leaves the range
** unguarded: mapfile_guard_add returns -1.
*/
#define MAPFILE_GUARD_SLOTS 64
int  mapfile_guard_add(const void *base, uint64_t len, const char *path);
void mapfile_guard_remove(const void *base);
/* The path of the guarded mapping containing ADDR, or NULL.  Async-signal-
** safe (only atomic loads): meant for a SIGBUS handler's si_addr. */
const char *mapfile_guard_find(const void *addr);

#endif
