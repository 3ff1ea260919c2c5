/*
** mapfile.h -- a read-only, private mmap of a whole file.
**
** The mapping lives as long as the handle.  Replacing or truncating a file
** while it is mapped is unsupported (reads past the new end fault); callers
** validate every offset against mapfile_size() taken at open time.
*/
#ifndef RWKV_MAPFILE_H
#define RWKV_MAPFILE_H

#include <stdint.h>

#include "status.h"

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
/* Borrowed; valid until mapfile_close. */
const void *mapfile_data(const mapfile *m);
uint64_t    mapfile_size(const mapfile *m);

#endif
