/*
** ckpt_verify.h -- the checksums a checkpoint carries: checking them, and a
** digest of them for the weight cache's key.
**
** A torch.save .pth is a zip archive whose central directory holds a CRC-32
** of every entry (each tensor storage, data.pkl, ...).  Nothing else in a
** checkpoint says whether a weight byte was flipped on disk or in transit,
** so the loader checks them:
**   - at ckpt_open (a file): every entry of at most CKPT_CRC_EAGER bytes
**     (vectors, LoRA matrices, state-tuning files: cheap) and data.pkl;
**   - when a large matrix is converted (its bytes are read then anyway):
**     ckpt_check_tensor, called by the model loader; or read into memory
**     to be used as stored (ckpt_check_copy, on the copy);
**   - on request, every entry: ckpt_verify / ckpt_verify_file (`rwkv-tui
**     info --verify`), for loads that use the mapping in place and never
**     read most bytes (`cpu bf16` of a bf16 file, where it stays mapped).
** A mismatch is one line naming the tensor:
**   "m.pth: blocks.3.att.key.weight: checksum mismatch (CRC-32 1a2b3c4d,
**    expected 5e6f7a8b): the file is damaged"
** safetensors files carry no checksums: every call below is then RWKV_OK
** (and the digest 0).  In-memory checkpoints (ckpt_open_mem: the demo
** model, fuzzers) are not checked at open; the calls below work on them.
**
** Each entry is checked at most once per ckpt (the result is remembered);
** large entries are split over POOL's threads and the parts' CRCs combined.
*/
#ifndef RWKV_CKPT_VERIFY_H
#define RWKV_CKPT_VERIFY_H

#include <stdint.h>

#include "ckpt.h"
#include "../status.h"
#include "../kernels/threadpool.h"

/* Entries up to this size are checked when a file is opened (bigger ones
** when converted or verified): a 1.5B model's vectors and LoRA matrices,
** a few MiB in all, while the big matrices (64 MiB each) wait. */
#define CKPT_CRC_EAGER ((uint64_t)1 << 20)

/*
** A digest of the archive's own checksums: every entry's name, size and
** CRC-32 from the central directory (nothing is read from the data).  Two
** files with the same digest hold the same bytes unless an entry's data was
** changed without its CRC (which ckpt_verify finds).  0 when CK carries no
** checksums (safetensors).  CK may be NULL (0).
*/
uint64_t ckpt_crc_digest(const ckpt *ck);

/*
** Check the CRC-32 of the zip entry that stores T (a tensor of CK, from
** ckpt_at/ckpt_find).  RWKV_EFORMAT with the line above on a mismatch.
** POOL (may be NULL) splits a large entry over its threads.  CK NULL: OK.
*/
int ckpt_check_tensor(const ckpt *ck, const ckpt_tensor *t, tpool *pool, rwkv_err *err);
/*
** ckpt_check_tensor for a tensor whose N bytes were just copied to COPY
** (the model loader reads in-place matrices into huge pages): the CRC is
** computed over the copy when the entry holds exactly those bytes -- what
** is checked is then what is used, and the mapping is not read again --
** else over the file's bytes as ckpt_check_tensor does.
*/
int ckpt_check_copy(const ckpt *ck, const ckpt_tensor *t, const void *copy, uint64_t n,
                    tpool *pool, rwkv_err *err);

/* Check every entry of CK (reads the whole file once).  As above. */
int ckpt_verify(const ckpt *ck, tpool *pool, rwkv_err *err);

/*
** Open PATH (or PATH.pth when PATH does not exist, like the model loader),
** check every entry on N_THREADS threads (0 = all cores), close.  *N_CHECKED
** (may be NULL) receives the number of entries checked (0: the format has
** no checksums).  Errors as ckpt_open and ckpt_verify.
*/
int ckpt_verify_file(const char *path, int n_threads, uint64_t *n_checked, rwkv_err *err);

#endif
