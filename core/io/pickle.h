/*
** pickle.h -- a restricted pickle VM for torch.save's data.pkl.
**
** It understands the protocol-2 opcodes torch.save emits for a dict of
** tensors and a fixed allowlist of GLOBALs (see the tables in pickle.c).  It
** never imports or calls anything: REDUCE on an allowlisted rebuild function
** builds a PKL_TENSOR record natively, every other callable, opcode or global
** is an error naming it.  The result is a graph of small objects in an arena
** owned by the pkl_doc; no recursion is used anywhere (cycles built through
** the memo cannot hang anything).
*/
#ifndef RWKV_PICKLE_H
#define RWKV_PICKLE_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt.h"
#include "../status.h"

/* Defaults for pkl_limits (0 = default).  Why these numbers: */
/* Memo slots: a real 7B state dict uses ~4 per tensor (a few thousand). */
#define PKL_MAX_MEMO    (1u << 20)
/* Value stack depth: SETITEMS batches are <= 1000 pairs (2000 items). */
#define PKL_MAX_STACK   (1u << 16)
/* MARK nesting: torch.save emits at most 3 (items, args, pid). */
#define PKL_MAX_MARKS   64u
/* Objects created: a few per opcode; bounds the arena for hostile input. */
#define PKL_MAX_OBJECTS (1u << 22)
/* Arena bytes: a real state dict of 1000 tensors needs < 1 MiB; this caps
** what a hostile pickle (e.g. one memoised args tuple REDUCEd millions of
** times) can make us allocate. */
#define PKL_MAX_ARENA   (256u * 1024u * 1024u)

typedef struct pkl_limits {
    uint64_t max_memo, max_stack, max_marks, max_objects;
} pkl_limits;

typedef enum pkl_type {
    PKL_NONE, PKL_BOOL, PKL_INT, PKL_FLOAT, PKL_STR,
    PKL_TUPLE, PKL_LIST, PKL_DICT,  /* DICT: also collections.OrderedDict (odict=1) */
    PKL_GLOBAL,                     /* an allowlisted global (enum pkl_global) */
    PKL_STORAGE,                    /* result of persistent_load */
    PKL_TENSOR                      /* result of _rebuild_tensor_v2 */
} pkl_type;

enum pkl_global {
    PKL_G_REBUILD_TENSOR_V2, PKL_G_REBUILD_PARAMETER, PKL_G_REBUILD_FROM_TYPE_V2,
    PKL_G_TENSOR_CLASS, PKL_G_PARAMETER_CLASS, PKL_G_ORDERED_DICT, PKL_G_STORAGE
};

typedef struct pkl_obj pkl_obj;

/* Result of _rebuild_tensor_v2: a view of a storage, validated against the
** storage's declared numel (offset + span <= numel). */
struct pkl_tensor {
    const pkl_obj *storage;                         /* a PKL_STORAGE */
    uint64_t offset;                                /* elements */
    int      ndim;
    int64_t  shape[CK_MAX_DIMS], stride[CK_MAX_DIMS];
    uint64_t numel;
    uint64_t span;                                  /* elements from offset to last+1 (0 if empty) */
    int      requires_grad;
    size_t   at;                                    /* pickle offset (messages) */
};

struct pkl_obj {
    pkl_type type;
    union {
        int     b;                                  /* BOOL */
        int64_t i;                                  /* INT */
        double  f;                                  /* FLOAT */
        struct { const char *s; size_t len; } str;  /* STR: valid UTF-8, borrowed from the pickle bytes, not NUL-terminated */
        struct {                                    /* TUPLE, LIST; DICT as k0,v0,k1,v1... */
            pkl_obj **items;
            size_t    n, cap;
            int       odict;
        } seq;
        struct { int id; ck_dtype dtype; const char *name; } glob;   /* GLOBAL */
        struct {                                    /* STORAGE */
            const char *key;                        /* borrowed, not NUL-terminated */
            size_t      key_len;
            ck_dtype    dtype;
            uint64_t    numel;                      /* elements of dtype */
            size_t      at;                         /* pickle offset (messages) */
        } storage;
        struct pkl_tensor *tensor;                  /* TENSOR (kept out of line: big) */
    } u;
};

typedef struct pkl_doc pkl_doc;

/*
** Run the pickle DATA[0..LEN).  DATA is borrowed and must outlive the doc
** (strings point into it).  WHAT names the file in messages.  LIM may be NULL.
** On success *OUT is owned by the caller (pkl_free).
*/
int pkl_run(const void *data, size_t len, const char *what, const pkl_limits *lim,
            pkl_doc **out, rwkv_err *err);
void pkl_free(pkl_doc *doc);                       /* NULL is fine */
/* The object STOP returned; borrowed from DOC. */
const pkl_obj *pkl_root(const pkl_doc *doc);
/* "dict", "tuple", ... for messages. */
const char *pkl_type_name(const pkl_obj *o);

#endif
