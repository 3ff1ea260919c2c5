/*
** zipr.h -- a minimal, strict ZIP / ZIP64 central-directory reader for
** stored (uncompressed) entries, as written by PyTorch's miniz-based writer.
**
** The reader never inflates anything: a compressed or encrypted entry is an
** error.  Sizes come from the central directory (miniz leaves the local
** header sizes at zero); each entry's data offset comes from its local header.
** Every offset is validated against the buffer: on success, for each entry,
** [data_off, data_off + size) lies inside the buffer, before the central
** directory, and no entry's local header + data overlaps another's.
*/
#ifndef RWKV_ZIPR_H
#define RWKV_ZIPR_H

#include <stddef.h>
#include <stdint.h>

#include "../status.h"

/* Default cap on the number of entries (a 7B RWKV has ~600 tensors; a real
** torch archive never approaches this, a hostile CD can claim billions). */
#define ZIPR_MAX_ENTRIES 1000000u
/* Longest entry name accepted (PATH_MAX-ish; torch names are short). */
#define ZIPR_MAX_NAME 4096u

typedef struct zipr_entry {
    const char *name;       /* NUL-terminated copy, borrowed from the zipr */
    size_t      name_len;
    uint64_t    data_off;   /* offset of the first data byte in the buffer */
    uint64_t    size;       /* bytes (stored: compressed == uncompressed) */
    uint32_t    crc32;      /* from the central directory */
} zipr_entry;

typedef struct zipr zipr;

/*
** Parse the archive in BUF[0..LEN).  BUF is borrowed and must outlive the
** zipr.  WHAT names the file in messages.  MAX_ENTRIES 0 = ZIPR_MAX_ENTRIES.
** On success *OUT is owned by the caller (zipr_close).
*/
int zipr_open(const void *buf, uint64_t len, const char *what,
              uint64_t max_entries, zipr **out, rwkv_err *err);
void zipr_close(zipr *z);                                  /* NULL is fine */

size_t            zipr_count(const zipr *z);
const zipr_entry *zipr_at(const zipr *z, size_t i);       /* central-directory order */
const zipr_entry *zipr_find(const zipr *z, const char *name); /* NULL if absent */

/* CRC-32 (zip polynomial) of N bytes, continuing from CRC (start with 0):
** carry-less multiplication where the CPU has it (x86-64 PCLMULQDQ, ~10 GB/s
** per core; RWKV_KERNELS=portable turns it off), else table-driven (~1-2
** GB/s).  The checkpoint writer uses it too. */
uint32_t zipr_crc32(uint32_t crc, const void *p, size_t n);
/* The table-driven version always (tests compare the two). */
uint32_t zipr_crc32_portable(uint32_t crc, const void *p, size_t n);

#endif
