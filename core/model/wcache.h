/*
** wcache.h -- internal: the cache of prepared weights ("weight cache").
**
** Converting a checkpoint to the strategy's weight dtypes (int8 least-
** squares quantization above all) takes seconds for a 1.5B model.  After a
** load that converted matrices, model.c hands every prepared buffer to this
** module, which writes them to one file (the "cache"); the next load of the
** same checkpoint under the same plan maps that file read-only and uses the
** buffers in place: no conversion, no copy.
**
** What is cached (each an "entry", found by name, tag, dtype and shape):
**   WC_MAT   a linear converted to its slot's dtype (data, + Q8 / Q4 scales)
**   WC_TRANS a LoRA-style matrix transposed to float32 [out][in]
**   WC_EMB   the embedding with ln0 folded in, float32 [V][C] (plans with
**            device stages; CPU plans keep the table in place)
** Entries of the same key are matched in the order they were recorded
** (v6's five time_maa_w2 slices).
**
** Where (first match):
**   1. OPTS->weight_cache_dir, else $RWKV_WEIGHT_CACHE_DIR, when set:
**      DIR/<model file name>.<path hash>.<plan hash>.rwkvc; DIR is made
**      when missing only if its parent is a folder (no parents are made:
**      a typo must not create folders: env_dir_check), else no cache at
**      all (env_notes says so);
**   2. next to the model: <model path>.<plan hash>.rwkvc, read when it
**      exists, written when the model's directory is writable (its mode
**      bits too: a read-only directory is respected even by root);
**   3. $XDG_CACHE_HOME/rwkv-tui/weights/ (default ~/.cache/...), named as
**      in 1.
** The plan hash covers the slot dtypes, the kernel table and the format and
** preparation versions, so strategies and machines do not overwrite each
** other's files.
**
** Validity: a cache is data from outside (STYLE G10).  The header carries
** the format version, the preparation version (WC_PREP_VERSION: bump it
** whenever model.c changes what a prepared buffer holds), a probe of the
** conversions themselves (a fixed matrix run through the bf16/f16/Q8
** conversions -- and the Q4 quantizer for plans with Q4 slots -- and hashed at open, so a changed rounding or quantization
** scheme invalidates old caches by itself), the
** Q8 block size, an endianness mark, the kernel table's name, the slot
** dtype plan, and the checkpoint's identity: size, mtime, the model's
** content fingerprint (sampled, so checking it costs microseconds, not a
** read of the whole file), the digest of the .pth's own per-entry CRC-32s
** (ckpt_crc_digest: any edit that keeps the zip consistent changes it), and
** the file's inode and ctime, which no user can set back (touch -d restores
** an mtime, not a ctime).  A cache whose key matches except for inode/ctime
** (the model was copied, moved, re-downloaded or edited in place) is used
** only after every entry of the .pth passes its CRC-32 (ckpt_verify: one
** read of the file, the price of not converting again), and is then
** rewritten with the new identity; a safetensors file has no checksums, so
** its cache is simply rebuilt.  Every offset and size is checked against the
** file size and alignment, the header and index carry checksums, and the
** whole data region is verified against per-MiB checksums (in parallel, at
** memory speed; the pass also faults the pages in, which the first token
** would do anyway).  Any mismatch: the file is ignored and, after the load
** converts again, replaced.  (As for the checkpoint, truncating a cache
** in place while a process has it mapped is not survivable; replacing it,
** as this module does, is.)
**
** Writing: on a background thread (niced) after the load, streaming the
** recorded buffers once, checksumming as it goes; into an unnamed temporary
** file (O_TMPFILE, else mkstemp) in the target directory, then rename(2), so
** a reader sees the old file or the new one, never a partial one; readers
** that mapped the old file keep it (same inode) until they close.  Any
** failure (no space: the free space is checked first, read-only file
** system, ...) leaves no file behind and the load succeeds all the same.
** Nothing here prints or fails a load: the cache only ever saves time.
*/
#ifndef RWKV_WCACHE_H
#define RWKV_WCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "../io/ckpt_verify.h"   /* ckpt, ckpt_crc_digest, ckpt_check_tensor (model.c) */
#include "../kernels/kernels.h"
#include "../status.h"
#include "../kernels/threadpool.h"

/* Bump when the bytes of a prepared buffer change for the same input
** (quantization scheme, ln0 folding, conversion rounding, layout). */
#define WC_PREP_VERSION 1

typedef struct wc_cache wc_cache;

enum wc_tag { WC_MAT = 1, WC_TRANS = 2, WC_EMB = 3 };

/* rwkv_open_opts.weight_cache: 0 = auto ($RWKV_WEIGHT_CACHE may say "0"/
** "off" or "1"/"on"; else on when at least 32 MiB of matrices were converted
** to int8 or 16 bits: widening to fp32 alone is not cached),
** WC_ON = write even small caches (tests), WC_OFF = never read or write. */
enum { WC_AUTO = 0, WC_ON = 1, WC_OFF = -1 };

/* What identifies a model's prepared weights; every pointer borrowed for
** the call. */
typedef struct wc_key {
    const char    *model_path;   /* the checkpoint as opened */
    uint64_t       fingerprint;  /* the model's content fingerprint */
    const uint8_t *plan;         /* weight dtype of each slot (enum kern_dtype),
                                  * 0x80 set where its LoRA factors are bf16 */
    size_t         n_plan;
    const char    *kernels;      /* simd_kernels_name() of the kernel table */
    const simd_kernels *k;       /* that table (NULL: kern_default_kernels()) */
    const ckpt    *ck;           /* (optional) the open checkpoint: its zip
                                  * CRC-32s join the key, and they vouch for a
                                  * cache made for another file identity */
} wc_key;

/* Whether PLAN (wc_key.plan, N slots) holds a 4-bit slot: then the 4-bit
** scheme's probe joins the key. */
int wc_plan_has_q4(const uint8_t *plan, size_t n);

/*
** Look for a valid cache of KEY (MODE and DIR from the open options; DIR
** may be NULL) and verify it on POOL.  Always succeeds unless out of memory
** (a missing, stale or corrupt cache is just not used): *OUT is owned by the
** caller (wc_close), NULL when MODE turns the cache off.
*/
int  wc_open(const wc_key *key, int mode, const char *dir, tpool *pool, wc_cache **out,
             rwkv_err *err);
/*
** The cached entry NAME/TAG/DTYPE/ROWSxCOLS, if the cache holds it: 1 with
** *DATA (and *SCALES for KERN_Q8; SCALES may be NULL otherwise) borrowed
** from the mapping, valid until wc_close.  0 otherwise.  C may be NULL.
*/
int  wc_get(wc_cache *c, const char *name, enum wc_tag tag, enum kern_dtype dt,
            int64_t rows, int64_t cols, const void **data, const float **scales);
/*
** Record a buffer just prepared (for the file wc_finish writes).  DATA and
** SCALES are borrowed and must stay valid and unchanged until wc_finish.
** CONVERTED: the buffer is a dtype conversion (what makes a cache worth
** writing).  C may be NULL; failure only means no cache is written.
*/
void wc_put(wc_cache *c, const char *name, enum wc_tag tag, enum kern_dtype dt,
            int64_t rows, int64_t cols, const void *data, const float *scales,
            int converted);
/*
** After a successful build: when the load converted weights and did not
** come whole from a valid cache, start writing the cache on a background
** thread (atomically; failures are silent), so the load does not wait for
** the disk.  The recorded buffers must stay unchanged until wc_wait or
** wc_close.  C may be NULL.
*/
void wc_finish(wc_cache *c);
/* Wait for a background write; 1 if the cache file is now valid (hit or
** written).  C may be NULL (0). */
int  wc_wait(wc_cache *c);
/* "hit", "writing" (in the background), "written", "none" (nothing worth
** caching, or it could not be written) or "off" (C NULL); borrowed. */
const char *wc_status(const wc_cache *c);
/* The cache file used or written ("" if none); borrowed, valid until
** wc_close. */
const char *wc_path(const wc_cache *c);
/* Why no new cache is written though one was worth writing (its folder
** cannot be written, no room on its disk), "" when nothing is said;
** wc_path is then where it would have gone. */
const char *wc_why(const wc_cache *c);
/* 1 when a hit's file was read into anonymous memory in huge pages rather
** than mapped (RWKV_WEIGHT_CACHE_LOAD; wcache.c, wc_want_copy). */
int  wc_read_in(const wc_cache *c);
/* Waits for a background write, then unmaps the cache: every pointer
** wc_get gave becomes invalid. */
void wc_close(wc_cache *c);                       /* NULL is fine */

/* 64-bit checksum of N bytes (exposed for tests). */
uint64_t wc_checksum(const void *p, size_t n);

/*
** The other files of the weight-cache folders (`info` lists them and
** removes the stale ones on request).  Only files this program wrote are
** ever named: a regular file (not a link) whose name ends in ".rwkvc" and
** whose first bytes are the cache's magic; anything else in a folder is
** never looked at twice.
*/
#define WC_FILE_PATH 4096
typedef struct wc_file {
    char     path[WC_FILE_PATH];
    uint64_t bytes;
    int      stale;                   /* can never be used again: its model is
                                       * gone or changed since, or another
                                       * version of the format, or damaged */
    char     what[WC_FILE_PATH + 128];   /* what it is, or why it is stale */
} wc_file;
/* The folders caches of MODEL_PATH (NULL: none, the demo) may be in, each
** once, those that exist: $RWKV_WEIGHT_CACHE_DIR, the model's folder, the
** per-user one (wcache.h's list).  Into DIRS (up to MAX); returns how many. */
int  wc_dirs(const char *model_path, char dirs[][WC_FILE_PATH], int max);
/* The cache files in DIR but SKIP (the one in use; NULL: none), sorted by
** name, into *OUT (free()d by the caller; NULL when none), MODEL the
** checkpoint loaded (NULL: none), whose caches are told apart by their
** name's hash.  Returns how many. */
size_t wc_scan(const char *dir, const char *model, const char *skip, wc_file **out);
/* Remove PATH when it is still a cache file this program wrote: 0, or -1
** (errno; EINVAL: not such a file). */
int  wc_remove(const char *path);

#endif
