/*
** ckpt.h -- read-only view of a checkpoint's tensors, whatever the format.
**
** Formats: PyTorch `torch.save` zip archives (torch 1.6 .. 2.x, any archive
** prefix, ZIP64; data.pkl read by a restricted unpickler that never executes
** anything) and safetensors.  Tensor data points into a read-only mmap of the
** file when dtype and alignment allow, otherwise into a private copy; either
** way it is borrowed from the ckpt and valid until ckpt_close().
**
** Owner: the loader (ckpt.c, ckpt_pth.c, ckpt_st.c, zipr.c, pickle.c,
** mapfile.c).  The model (model.c) and state-tuning loader are the clients.
*/
#ifndef RWKV_CKPT_H
#define RWKV_CKPT_H

#include <stddef.h>
#include <stdint.h>

#include "../status.h"

typedef enum {
    CK_F32, CK_F16, CK_BF16, CK_F64, CK_U8, CK_I8, CK_I16, CK_I32, CK_I64, CK_BOOL
} ck_dtype;

#define CK_MAX_DIMS 8

typedef struct ckpt_tensor {
    const char *name;                 /* borrowed; valid until ckpt_close() */
    ck_dtype    dtype;
    int         ndim;
    int64_t     shape[CK_MAX_DIMS];
    int64_t     stride[CK_MAX_DIMS];  /* in elements */
    const void *data;                 /* first element; may be unaligned (use memcpy-safe reads) */
    uint64_t    numel;
    uint64_t    nbytes;               /* numel * elsize */
    int         contiguous;           /* row-major contiguous */
} ckpt_tensor;

typedef struct ckpt_limits {          /* 0 = default (see ckpt.c for the values and why) */
    uint64_t max_pickle_bytes, max_entries, max_tensors, max_memo, max_stack, max_marks;
} ckpt_limits;

typedef struct ckpt ckpt;

/*
** The file a model path names, as the reference finds it: PATH, or PATH
** ".pth" when PATH does not exist and does not end in ".pth" (into BUF,
** CAP bytes).  Returns PATH or BUF; NULL when BUF is too small.
*/
const char *ckpt_file_name(const char *path, char *buf, size_t cap);
/*
** The file a state-file path names: PATH, or PATH ".pth" (into BUF, CAP
** bytes) when PATH does not exist and PATH ".pth" does -- the chat demo
** loads STATE_NAME + ".pth", so its users give the name without it.  A
** name found neither way stays PATH (the error names what was typed).
*/
const char *ckpt_state_file_name(const char *path, char *buf, size_t cap);

/*
** Open PATH (format sniffed from content).  LIM may be NULL.  On success *OUT
** is owned by the caller; close with ckpt_close.  Errors name PATH and the
** problem in one line (e.g. "m.pth: pickle refers to global 'os.system', refused").
*/
int ckpt_open(const char *path, const ckpt_limits *lim, ckpt **out, rwkv_err *err);
/* Same from memory (tests, fuzzers, the --demo model).  BUF is borrowed and
** must outlive the ckpt. NAME is used in messages. */
int ckpt_open_mem(const void *buf, size_t len, const char *name,
                  const ckpt_limits *lim, ckpt **out, rwkv_err *err);
/*
** ckpt_open for what a file holds rather than its weights (a listing that
** tells models from state files): the tensors' names, dtypes and shapes
** from the archive's index -- a .pth's directory and data.pkl, a
** safetensors header -- without the small entries' checksums that
** ckpt_open checks (ckpt_verify.h), reads spread over the whole file.
** Tensor data is not read; a file to be used is opened with ckpt_open.
*/
int ckpt_open_index(const char *path, const ckpt_limits *lim, ckpt **out, rwkv_err *err);
void ckpt_close(ckpt *ck);                       /* NULL is fine */
/* Tensor bytes [P, P + N) of CK will not be read again soon (they were
** converted into a private copy): drop them from the resident set when CK is
** a mapped file (mapfile_release; the bytes stay the same); no-op for
** ckpt_open_mem. */
void ckpt_release(const ckpt *ck, const void *p, uint64_t n);
/* Copy the N bytes at P (inside CK's data) into DST: read from the file
** for a mapped one (mapfile_read), copied for ckpt_open_mem and for a
** tensor the reader realigned (ckpt_copied).  0, or -1 when the file could
** not be read (it shrank since it was opened). */
int ckpt_read(const ckpt *ck, const void *p, uint64_t n, void *dst);
/* 1 when P, a tensor's data of CK opened from a file, lies outside the
** mapped file: a copy the reader made of a tensor misaligned for its dtype
** (a zip or safetensors writer other than torch.save), already in memory;
** else 0 (ckpt_open_mem included). */
int ckpt_copied(const ckpt *ck, const void *p);

size_t             ckpt_count(const ckpt *ck);
const ckpt_tensor *ckpt_at(const ckpt *ck, size_t i);            /* file order */
const ckpt_tensor *ckpt_find(const ckpt *ck, const char *name);  /* NULL if absent */
/* The file name used in messages (borrowed). */
const char        *ckpt_path(const ckpt *ck);
/* "pth" or "safetensors". */
const char        *ckpt_format(const ckpt *ck);
uint64_t           ckpt_file_size(const ckpt *ck);

/* Plain (non-tensor) values of the pip package's converted files, e.g.
** "_strategy" (str), "_rescale_layer" (int), "_version" (str).
** Return RWKV_OK and set *OUT, or RWKV_EINVAL if absent / other type. */
int ckpt_meta_str(const ckpt *ck, const char *key, const char **out);
int ckpt_meta_int(const ckpt *ck, const char *key, int64_t *out);
int ckpt_meta_float(const ckpt *ck, const char *key, double *out);

const char *ck_dtype_name(ck_dtype t);   /* "float32", "bfloat16", ... */
size_t      ck_dtype_size(ck_dtype t);

/*
** Convert the N elements of T (any float dtype, any strides) to float32 in
** DST, in row-major order.  Returns RWKV_ESHAPE if N != numel or the dtype is
** not a float type.
*/
int ckpt_to_f32(const ckpt_tensor *t, float *dst, uint64_t n, rwkv_err *err);

#endif
