/*
** ckpt_internal.h -- what ckpt.c shares with the format readers
** (ckpt_pth.c, ckpt_st.c).  Not part of the public interface.
**
** A format reader validates its input and calls ckpt_add_tensor /
** ckpt_add_meta_* for each item, in file order; ckpt.c then sorts names for
** ckpt_find and refuses duplicates.  Everything a reader allocates for the
** ckpt's lifetime goes through ckpt_own so ckpt_close frees it.
*/
#ifndef RWKV_CKPT_INTERNAL_H
#define RWKV_CKPT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt.h"
#include "mapfile.h"

/* Defaults for ckpt_limits (0 = default).  Why these numbers: */
/* data.pkl of a real RWKV checkpoint is < 1 MiB even for 14B models. */
#define CKPT_MAX_PICKLE_BYTES (64u * 1024u * 1024u)
/* A 14B RWKV has ~1000 tensors; more than this is not a model. */
#define CKPT_MAX_TENSORS      (1u << 16)
/* Tensor / metadata names: RWKV names are < 64 bytes. */
#define CKPT_MAX_NAME         1024u
/* safetensors header cap, the reference implementation's MAX_HEADER_SIZE. */
#define CKPT_ST_MAX_HEADER    100000000u

enum ckpt_meta_type { CKM_INT, CKM_FLOAT, CKM_STR };

/* A stored unit with its own checksum: a .pth zip entry (ckpt_verify.c). */
enum { CKPT_U_UNCHECKED = 0, CKPT_U_GOOD = 1, CKPT_U_BAD = 2 };
struct ckpt_unit {
    const uint8_t *p;          /* first data byte, in CK's buffer */
    uint64_t       size;
    uint32_t       crc;        /* expected, from the central directory */
    uint32_t       got;        /* computed, once state is CKPT_U_BAD */
    const char    *zname;      /* zip entry name (owned by the ckpt) */
    const char    *tname;      /* first tensor stored in it, or NULL (owned) */
    int            state;      /* CKPT_U_*, read/written atomically */
};

struct ckpt_meta {
    char               *key;
    enum ckpt_meta_type type;
    int64_t             i;
    double              f;
    char               *s;
};

struct ckpt {
    char          *path;       /* name used in messages (owned) */
    const char    *format;     /* "pth" / "safetensors" (static) */
    mapfile       *mf;         /* NULL for ckpt_open_mem */
    int            index_only; /* ckpt_open_index: names and shapes, no data */
    const uint8_t *base;       /* whole file */
    uint64_t       size;
    ckpt_limits    lim;        /* defaults filled in */
    ckpt_tensor   *t;
    size_t         n, cap;
    size_t        *sorted;     /* tensor indices sorted by name */
    struct ckpt_meta *meta;
    size_t         nmeta, meta_cap;
    void         **owned;      /* mem_alloc'ed blocks freed by ckpt_close */
    size_t         nowned, owned_cap;
    uint64_t       copied;     /* bytes of unaligned tensor data copied so far */
    /* checksums (pth only; see ckpt_verify.h) */
    struct ckpt_unit *units;   /* [nunits], zip central-directory order */
    size_t         nunits;
    uint32_t      *t_unit;     /* [cap] per tensor: unit index + 1, 0 = none */
    uint32_t       cur_unit;   /* set by a reader before ckpt_add_tensor */
    uint64_t       crc_digest; /* ckpt_crc_digest; 0 = no checksums */
};

/* Room for a name quoted in an error message (longer names are cut). */
#define CKPT_CLEAN_CAP 96

/*
** Copy S[0..N) into BUF[CAP] for quoting in a one-line message: bytes below
** 0x20 and 0x7f become '?', a long name is cut and ends in "...".  Returns BUF.
*/
const char *ckpt_clean(const char *s, size_t n, char *buf, size_t cap);

/* mem_alloc N bytes owned by CK (freed by ckpt_close); NULL on failure. */
void *ckpt_own(ckpt *ck, uint64_t n);

/*
** Add a tensor view.  NAME[0..NAME_LEN) is copied.  DATA points at the first
** element inside CK's buffer and SPAN_BYTES bytes from it are readable (the
** caller has validated that); if DATA is not aligned to the element size the
** span is copied into an aligned buffer.  STRIDE NULL = row-major.
*/
int ckpt_add_tensor(ckpt *ck, const char *name, size_t name_len, ck_dtype dt, int ndim,
                    const int64_t *shape, const int64_t *stride, const uint8_t *data,
                    uint64_t span_bytes, rwkv_err *err);
int ckpt_add_meta(ckpt *ck, const char *key, size_t key_len, enum ckpt_meta_type type,
                  int64_t i, double f, const char *s, size_t s_len, rwkv_err *err);

int ckpt_pth_load(ckpt *ck, rwkv_err *err);
/* ckpt_verify.c: check every unit of at most MAX bytes (ckpt_open). */
int ckpt_check_small(const ckpt *ck, uint64_t max, rwkv_err *err);
int ckpt_st_load(ckpt *ck, rwkv_err *err);

#endif
