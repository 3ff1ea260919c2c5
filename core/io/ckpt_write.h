/*
** ckpt_write.h -- write a PyTorch `torch.save`-compatible checkpoint (a
** state dict of float32 / bfloat16 / float16 tensors) without Python,
** streaming: tensors are written one at a time (in pieces if wanted), so a
** multi-gigabyte model never has to be in memory.
**
** The archive is what torch >= 2.1 writes (the reader's checks of it are in
** docs/pth-security.md):
** stored (uncompressed) zip entries under one prefix (default "archive"),
**   <prefix>/data/<key>   raw little-endian storage of tensor <key> (0, 1, ...),
**                         its first byte 64-byte aligned in the file (an
**                         "FB" padding extra field, as PyTorch's writer does),
**                         so our loader uses it in place from the mmap
**   <prefix>/data.pkl     pickle protocol 2: an OrderedDict name ->
**                         torch._utils._rebuild_tensor_v2(storage, 0, shape,
**                         contiguous stride, False, OrderedDict())
**   <prefix>/byteorder    "little"
**   <prefix>/version      "3\n"
** data.pkl is written last (it is only known once every tensor is) but
** listed first in the central directory, where readers look.  Local headers
** carry the real sizes and CRC-32 (no data descriptors).  ZIP64 fields and
** the ZIP64 end records are written when an entry, an offset or the
** central directory passes 4 GiB (ckw_opts.zip64_at lowers that threshold
** for tests).  The file is written to a fresh temporary file in PATH's
** directory (core/io/fileio.h rwkv_atomic_create: O_EXCL|O_NOFOLLOW, a random
** name, mode 0644 less the umask), fsync'ed and renamed over PATH by
** ckw_finish, so a failed or interrupted write never leaves a truncated PATH
** behind, a planted symlink is never followed, and an existing PATH that is
** not a regular file (a device, a FIFO, a directory) is refused.
**
** Use:  ckw_create(path, NULL, &w, &err);
**       for each tensor:  ckw_tensor(w, name, dt, nd, shape, data, &err);
**         or in pieces:   ckw_begin(...); ckw_write(...)...; ckw_end(...);
**       ckw_finish(w, &err);          -- or ckw_abort(w) to give up
** After any error, call ckw_abort (the writer is unusable).
**
** Owner: this file and ckpt_write.c.  Clients: core/model/model_gen.c (benchmark
** models), tests.  Not thread-safe per writer; CRC helpers are pure.
*/
#ifndef RWKV_CKPT_WRITE_H
#define RWKV_CKPT_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt.h"
#include "../status.h"

/* Alignment of every entry's data (PyTorch's kFieldAlignment). */
#define CKW_ALIGN 64
/* Default archive prefix (torch's writer-function default). */
#define CKW_PREFIX "archive"

typedef struct ckw_opts {
    const char *prefix;      /* NULL = CKW_PREFIX; [A-Za-z0-9_.-], 1..64 chars */
    uint64_t    zip64_at;    /* 0 = 0xFFFFFFFF: sizes / offsets / counts at or
                                above this use ZIP64 fields (tests lower it) */
} ckw_opts;

typedef struct ckw ckw;

/*
** Start writing PATH (through a temporary file, see above).  OPTS may be NULL.  On success *OUT
** is owned by the caller until ckw_finish or ckw_abort frees it.  A missing
** directory or an unwritable path fails here with one line naming PATH.
*/
int ckw_create(const char *path, const ckw_opts *opts, ckw **out, rwkv_err *err);

/*
** Begin tensor NAME (1..1024 bytes, no NUL, unique) of dtype DT (CK_F32,
** CK_BF16 or CK_F16), NDIM (0..CK_MAX_DIMS) dims SHAPE (>= 0 each, copied).
** Then exactly numel * elsize bytes must follow through ckw_write /
** ckw_write_crc before ckw_end.
*/
int ckw_begin(ckw *w, const char *name, ck_dtype dt, int ndim, const int64_t *shape,
              rwkv_err *err);
/* Append N bytes of the current tensor's data (row-major, little-endian);
** DATA is only read during the call. */
int ckw_write(ckw *w, const void *data, size_t n, rwkv_err *err);
/* Same when the caller already has CRC = zipr_crc32(0, DATA, N) (computed in
** parallel, say); the CRC is trusted. */
int ckw_write_crc(ckw *w, const void *data, size_t n, uint32_t crc, rwkv_err *err);
/* Finish the current tensor: RWKV_EINVAL if fewer or more bytes came than
** its shape needs. */
int ckw_end(ckw *w, rwkv_err *err);
/* ckw_begin + ckw_write of all numel * elsize bytes of DATA + ckw_end. */
int ckw_tensor(ckw *w, const char *name, ck_dtype dt, int ndim, const int64_t *shape,
               const void *data, rwkv_err *err);

/* Bytes written to the file so far. */
uint64_t ckw_bytes(const ckw *w);

/*
** Write data.pkl, byteorder, version and the central directory, close and
** rename the temporary file over PATH.  Frees W whatever the outcome (on failure the
** temporary file is removed).  *SIZE (may be NULL) receives the file size.
*/
int ckw_finish(ckw *w, uint64_t *size, rwkv_err *err);
/* Give up: close, remove the temporary file, free W.  NULL is fine. */
void ckw_abort(ckw *w);

/* The CRC-32 (zipr_crc32) of A followed by B from CRC(A), CRC(B) and B's length. */
uint32_t ckw_crc32_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

#endif
