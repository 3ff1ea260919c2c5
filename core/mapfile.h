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
/* Borrowed; valid until mapfile_close. */
const void *mapfile_data(const mapfile *m);
uint64_t    mapfile_size(const mapfile *m);

#endif
