/*
** pickle.c -- restricted pickle VM.  See pickle.h and docs/pth-security.md
** (what a checkpoint's pickle may contain, and what is refused).
**
** Shape: one loop over opcodes; a value stack of object pointers; a mark
** stack of stack heights (the "fence": no opcode may pop below the newest
** mark except the ones that consume it); a memo of object *references*
** (BINGET never copies, so a hostile file cannot blow up in size); all
** objects in an arena freed at once.  Every opcode checks the types of what
** it consumes (SETITEM only on dicts, APPEND only on lists, ...).
*/
#include "pickle.h"

#include <stdlib.h>
#include <string.h>

#include "../mem.h"

/* Arena block size: small pickles need one block; big ones amortise. */
#define ARENA_BLOCK (64u * 1024u)
/* Longest GLOBAL module or name line accepted (torch's are < 40 bytes). */
#define PKL_MAX_GLOBAL_LINE 128u

/* ---- opcode table ------------------------------------------------------ */

enum {
    OK_ALLOWED = 1,  /* implemented */
    OK_UNSAFE  = 2   /* imports or calls things: refused as unsafe */
};

static const struct opinfo {
    uint8_t     byte;
    const char *name;
    int         flags;
} op_table[] = {
    {0x28, "MARK", OK_ALLOWED},        {0x2e, "STOP", OK_ALLOWED},
    {0x30, "POP", 0},                  {0x31, "POP_MARK", 0},
    {0x32, "DUP", 0},                  {0x46, "FLOAT", 0},
    {0x49, "INT", 0},                  {0x4a, "BININT", OK_ALLOWED},
    {0x4b, "BININT1", OK_ALLOWED},     {0x4c, "LONG", 0},
    {0x4d, "BININT2", OK_ALLOWED},     {0x4e, "NONE", OK_ALLOWED},
    {0x50, "PERSID", OK_UNSAFE},       {0x51, "BINPERSID", OK_ALLOWED},
    {0x52, "REDUCE", OK_ALLOWED},      {0x53, "STRING", 0},
    {0x54, "BINSTRING", 0},            {0x55, "SHORT_BINSTRING", 0},
    {0x56, "UNICODE", 0},              {0x58, "BINUNICODE", OK_ALLOWED},
    {0x61, "APPEND", OK_ALLOWED},      {0x62, "BUILD", OK_ALLOWED},
    {0x63, "GLOBAL", OK_ALLOWED},      {0x64, "DICT", 0},
    {0x7d, "EMPTY_DICT", OK_ALLOWED},  {0x65, "APPENDS", OK_ALLOWED},
    {0x67, "GET", 0},                  {0x68, "BINGET", OK_ALLOWED},
    {0x69, "INST", OK_UNSAFE},         {0x6a, "LONG_BINGET", OK_ALLOWED},
    {0x6c, "LIST", 0},                 {0x5d, "EMPTY_LIST", OK_ALLOWED},
    {0x6f, "OBJ", OK_UNSAFE},          {0x70, "PUT", 0},
    {0x71, "BINPUT", OK_ALLOWED},      {0x72, "LONG_BINPUT", OK_ALLOWED},
    {0x73, "SETITEM", OK_ALLOWED},     {0x74, "TUPLE", OK_ALLOWED},
    {0x29, "EMPTY_TUPLE", OK_ALLOWED}, {0x75, "SETITEMS", OK_ALLOWED},
    {0x47, "BINFLOAT", OK_ALLOWED},    {0x80, "PROTO", OK_ALLOWED},
    {0x81, "NEWOBJ", OK_UNSAFE},       {0x82, "EXT1", OK_UNSAFE},
    {0x83, "EXT2", OK_UNSAFE},         {0x84, "EXT4", OK_UNSAFE},
    {0x85, "TUPLE1", OK_ALLOWED},      {0x86, "TUPLE2", OK_ALLOWED},
    {0x87, "TUPLE3", OK_ALLOWED},      {0x88, "NEWTRUE", OK_ALLOWED},
    {0x89, "NEWFALSE", OK_ALLOWED},    {0x8a, "LONG1", OK_ALLOWED},
    {0x8b, "LONG4", 0},                {0x42, "BINBYTES", 0},
    {0x43, "SHORT_BINBYTES", 0},       {0x8c, "SHORT_BINUNICODE", 0},
    {0x8d, "BINUNICODE8", 0},          {0x8e, "BINBYTES8", 0},
    {0x8f, "EMPTY_SET", 0},            {0x90, "ADDITEMS", 0},
    {0x91, "FROZENSET", 0},            {0x92, "NEWOBJ_EX", OK_UNSAFE},
    {0x93, "STACK_GLOBAL", OK_UNSAFE}, {0x94, "MEMOIZE", 0},
    {0x95, "FRAME", 0},                {0x96, "BYTEARRAY8", 0},
    {0x97, "NEXT_BUFFER", 0},          {0x98, "READONLY_BUFFER", 0},
};

static const struct opinfo *
op_lookup(uint8_t b)
{
    for (size_t i = 0; i < sizeof op_table / sizeof op_table[0]; i++)
        if (op_table[i].byte == b)
            return &op_table[i];
    return NULL;
}

/* ---- global allowlist -------------------------------------------------- */

#define G_REFUSE (-1)

static const struct gentry {
    const char *mod, *name;
    int         id;        /* enum pkl_global, or G_REFUSE */
    ck_dtype    dtype;     /* PKL_G_STORAGE only */
    const char *why;       /* G_REFUSE: what to say */
} g_table[] = {
    {"torch._utils", "_rebuild_tensor_v2", PKL_G_REBUILD_TENSOR_V2, CK_F32, NULL},
    {"torch._utils", "_rebuild_parameter", PKL_G_REBUILD_PARAMETER, CK_F32, NULL},
    {"torch._tensor", "_rebuild_from_type_v2", PKL_G_REBUILD_FROM_TYPE_V2, CK_F32, NULL},
    {"torch", "Tensor", PKL_G_TENSOR_CLASS, CK_F32, NULL},
    {"torch.nn.parameter", "Parameter", PKL_G_PARAMETER_CLASS, CK_F32, NULL},
    {"collections", "OrderedDict", PKL_G_ORDERED_DICT, CK_F32, NULL},
    {"torch", "FloatStorage", PKL_G_STORAGE, CK_F32, NULL},
    {"torch", "HalfStorage", PKL_G_STORAGE, CK_F16, NULL},
    {"torch", "BFloat16Storage", PKL_G_STORAGE, CK_BF16, NULL},
    {"torch", "DoubleStorage", PKL_G_STORAGE, CK_F64, NULL},
    {"torch", "ByteStorage", PKL_G_STORAGE, CK_U8, NULL},
    {"torch", "CharStorage", PKL_G_STORAGE, CK_I8, NULL},
    {"torch", "ShortStorage", PKL_G_STORAGE, CK_I16, NULL},
    {"torch", "IntStorage", PKL_G_STORAGE, CK_I32, NULL},
    {"torch", "LongStorage", PKL_G_STORAGE, CK_I64, NULL},
    {"torch", "BoolStorage", PKL_G_STORAGE, CK_BOOL, NULL},
    /* Known torch globals we recognise but do not support: a clearer
    ** message than "refused". */
    {"torch._utils", "_rebuild_tensor_v3", G_REFUSE, CK_F32,
     "tensors of torch 2.x new dtypes (_rebuild_tensor_v3) are not supported"},
    {"torch", "UntypedStorage", G_REFUSE, CK_F32,
     "untyped storages (torch 2.x new dtypes) are not supported"},
    {"torch", "ComplexFloatStorage", G_REFUSE, CK_F32, "complex tensors are not supported"},
    {"torch", "ComplexDoubleStorage", G_REFUSE, CK_F32, "complex tensors are not supported"},
    {"torch", "QInt8Storage", G_REFUSE, CK_F32, "quantized tensors are not supported"},
    {"torch", "QUInt8Storage", G_REFUSE, CK_F32, "quantized tensors are not supported"},
    {"torch", "QInt32Storage", G_REFUSE, CK_F32, "quantized tensors are not supported"},
    {"torch", "QUInt4x2Storage", G_REFUSE, CK_F32, "quantized tensors are not supported"},
    {"torch", "QUInt2x4Storage", G_REFUSE, CK_F32, "quantized tensors are not supported"},
};

/* ---- arena ------------------------------------------------------------- */

struct block {
    struct block *next;
    size_t        used, cap;
    max_align_t   data[];
};

struct pkl_doc {
    struct block  *blocks;
    const pkl_obj *root;
    uint64_t       bytes;      /* arena bytes allocated, capped at PKL_MAX_ARENA */
};

static void *
arena_alloc(pkl_doc *d, size_t n)
{
    struct block *b = d->blocks;
    void *p;

    n = (n + 15u) & ~(size_t)15u;
    if (b == NULL || b->cap - b->used < n) {
        size_t cap = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;
        struct block *nb;
        if (d->bytes + cap > PKL_MAX_ARENA)
            return NULL;
        nb = malloc(sizeof *nb + cap);
        if (nb == NULL)
            return NULL;
        d->bytes += cap;
        nb->used = 0;
        nb->cap = cap;
        if (b != NULL && cap != ARENA_BLOCK) {
            /* a big one-off: keep the current block on top for small allocs */
            nb->next = b->next;
            b->next = nb;
            nb->used = n;
            return (char *)nb->data;
        }
        nb->next = b;
        d->blocks = b = nb;
    }
    p = (char *)b->data + b->used;
    b->used += n;
    return p;
}

/* ---- VM state ---------------------------------------------------------- */

typedef struct vm {
    pkl_doc       *doc;
    const uint8_t *p;
    size_t         len, pos, at;   /* at: offset of the current opcode */
    const char    *what;
    rwkv_err      *err;
    pkl_limits     lim;
    pkl_obj      **stack;
    size_t         sp, stack_cap;
    size_t        *marks;
    size_t         nmarks;
    pkl_obj      **memo;
    size_t         memo_n, memo_cap;
    uint64_t       nobj;
} vm;

static int
verr(vm *v, int code, const char *msg)
{
    return rwkv_errf(v->err, code, "%s: data.pkl offset %zu: %s", v->what, v->at, msg);
}

static pkl_obj *
new_obj(vm *v, pkl_type t)
{
    pkl_obj *o;

    if (v->nobj >= v->lim.max_objects) {
        verr(v, RWKV_EFORMAT, "pickle creates too many objects (limit reached)");
        return NULL;
    }
    o = arena_alloc(v->doc, sizeof *o);
    if (o == NULL) {
        verr(v, RWKV_ENOMEM, "pickle needs too much memory (limit reached)");
        return NULL;
    }
    memset(o, 0, sizeof *o);
    o->type = t;
    v->nobj++;
    return o;
}

static size_t
fence(const vm *v)
{
    return v->nmarks ? v->marks[v->nmarks - 1] : 0;
}

static int
push(vm *v, pkl_obj *o)
{
    if (o == NULL)
        return v->err->code;
    if (v->sp == v->stack_cap) {
        size_t cap = v->stack_cap ? v->stack_cap * 2 : 64;
        pkl_obj **ns;
        if (v->sp >= v->lim.max_stack)
            return verr(v, RWKV_EFORMAT, "pickle stack too deep (limit reached)");
        if (cap > v->lim.max_stack)
            cap = (size_t)v->lim.max_stack;
        ns = realloc(v->stack, cap * sizeof *ns);
        if (ns == NULL)
            return verr(v, RWKV_ENOMEM, "pickle needs too much memory (limit reached)");
        v->stack = ns;
        v->stack_cap = cap;
    }
    v->stack[v->sp++] = o;
    return RWKV_OK;
}

/* Pop one object above the fence into *O. */
static int
pop(vm *v, pkl_obj **o)
{
    if (v->sp <= fence(v))
        return verr(v, RWKV_EFORMAT, "pickle stack underflow");
    *o = v->stack[--v->sp];
    return RWKV_OK;
}

static int
need(vm *v, size_t n)
{
    if (v->len - v->pos < n)
        return verr(v, RWKV_EFORMAT, "pickle truncated inside an operand");
    return RWKV_OK;
}

static uint32_t
rd_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Strict UTF-8 (no overlongs, no surrogates, <= U+10FFFF). */
static int
utf8_ok(const uint8_t *s, size_t n)
{
    size_t i = 0;

    while (i < n) {
        uint8_t c = s[i];
        size_t k;
        uint32_t cp, min;
        if (c < 0x80) {
            i++;
            continue;
        }
        if ((c & 0xe0) == 0xc0)
            k = 1, cp = c & 0x1f, min = 0x80;
        else if ((c & 0xf0) == 0xe0)
            k = 2, cp = c & 0x0f, min = 0x800;
        else if ((c & 0xf8) == 0xf0)
            k = 3, cp = c & 0x07, min = 0x10000;
        else
            return 0;
        if (n - i <= k)
            return 0;
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xc0) != 0x80)
                return 0;
            cp = (cp << 6) | (s[i + j] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        i += k + 1;
    }
    return 1;
}

static pkl_obj *
new_seq(vm *v, pkl_type t, pkl_obj **items, size_t n)
{
    pkl_obj *o = new_obj(v, t);

    if (o == NULL)
        return NULL;
    if (n) {
        o->u.seq.items = arena_alloc(v->doc, n * sizeof *items);
        if (o->u.seq.items == NULL) {
            verr(v, RWKV_ENOMEM, "pickle needs too much memory (limit reached)");
            return NULL;
        }
        memcpy(o->u.seq.items, items, n * sizeof *items);
    }
    o->u.seq.n = o->u.seq.cap = n;
    return o;
}

/* Append N items to a LIST or DICT (doubling inside the arena). */
static int
seq_append(vm *v, pkl_obj *o, pkl_obj **items, size_t n)
{
    if (n == 0)
        return RWKV_OK;
    if (o->u.seq.cap - o->u.seq.n < n) {
        size_t cap = o->u.seq.cap ? o->u.seq.cap : 8;
        pkl_obj **ni;
        while (cap - o->u.seq.n < n)
            cap *= 2;
        if (cap > v->lim.max_objects * 2)
            return verr(v, RWKV_EFORMAT, "pickle container too large (limit reached)");
        ni = arena_alloc(v->doc, cap * sizeof *ni);
        if (ni == NULL)
            return verr(v, RWKV_ENOMEM, "pickle needs too much memory (limit reached)");
        if (o->u.seq.n)
            memcpy(ni, o->u.seq.items, o->u.seq.n * sizeof *ni);
        o->u.seq.items = ni;
        o->u.seq.cap = cap;
    }
    memcpy(o->u.seq.items + o->u.seq.n, items, n * sizeof *items);
    o->u.seq.n += n;
    return RWKV_OK;
}

const char *
pkl_type_name(const pkl_obj *o)
{
    static const char *const names[] = {
        "None", "bool", "int", "float", "str", "tuple", "list", "dict",
        "global", "storage", "tensor"
    };
    if (o == NULL)
        return "nothing";
    if (o->type == PKL_DICT && o->u.seq.odict)
        return "OrderedDict";
    return names[o->type];
}

/* ---- natively computed REDUCE targets ---------------------------------- */

static int
is_empty_dict(const pkl_obj *o)
{
    return o->type == PKL_DICT && o->u.seq.n == 0;
}

/* _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata]) */
static int
rebuild_tensor(vm *v, const pkl_obj *args, pkl_obj **out)
{
    pkl_obj *const *a = args->u.seq.items;
    const pkl_obj *st;
    pkl_obj *t;
    uint64_t numel = 1, last = 0;
    int nd;

    if (args->type != PKL_TUPLE || (args->u.seq.n != 6 && args->u.seq.n != 7))
        return verr(v, RWKV_EFORMAT, "_rebuild_tensor_v2 expects a 6- or 7-tuple of arguments");
    st = a[0];
    if (st->type != PKL_STORAGE)
        return verr(v, RWKV_EFORMAT, "_rebuild_tensor_v2: argument 1 is not a storage");
    if (a[1]->type != PKL_INT || a[1]->u.i < 0)
        return verr(v, RWKV_EFORMAT, "_rebuild_tensor_v2: storage offset is not an int >= 0");
    if (a[2]->type != PKL_TUPLE || a[3]->type != PKL_TUPLE || a[2]->u.seq.n != a[3]->u.seq.n)
        return verr(v, RWKV_EFORMAT, "_rebuild_tensor_v2: size and stride are not tuples of equal length");
    if (a[2]->u.seq.n > CK_MAX_DIMS)
        return verr(v, RWKV_EFORMAT, "_rebuild_tensor_v2: tensor has more than 8 dimensions");
    if (a[4]->type != PKL_BOOL)
        return verr(v, RWKV_EFORMAT, "_rebuild_tensor_v2: requires_grad is not a bool");
    if (!is_empty_dict(a[5]))
        return verr(v, RWKV_EFORMAT, "_rebuild_tensor_v2: backward hooks are not an empty OrderedDict");
    if (args->u.seq.n == 7 && !is_empty_dict(a[6]) && a[6]->type != PKL_NONE)
        return verr(v, RWKV_ENOTSUP, "_rebuild_tensor_v2: tensor metadata (conj/neg bits) is not supported");
    t = new_obj(v, PKL_TENSOR);
    if (t == NULL)
        return v->err->code;
    t->u.tensor = arena_alloc(v->doc, sizeof *t->u.tensor);
    if (t->u.tensor == NULL)
        return verr(v, RWKV_ENOMEM, "pickle needs too much memory (limit reached)");
    memset(t->u.tensor, 0, sizeof *t->u.tensor);
    nd = (int)a[2]->u.seq.n;
    t->u.tensor->storage = st;
    t->u.tensor->offset = (uint64_t)a[1]->u.i;
    t->u.tensor->ndim = nd;
    t->u.tensor->requires_grad = a[4]->u.b;
    t->u.tensor->at = v->at;
    for (int i = 0; i < nd; i++) {
        const pkl_obj *sz = a[2]->u.seq.items[i], *sd = a[3]->u.seq.items[i];
        if (sz->type != PKL_INT || sd->type != PKL_INT || sz->u.i < 0 || sd->u.i < 0)
            return verr(v, RWKV_EFORMAT, "_rebuild_tensor_v2: size/stride entries must be ints >= 0");
        t->u.tensor->shape[i] = sz->u.i;
        t->u.tensor->stride[i] = sd->u.i;
        if (!mem_mul_ok(numel, (uint64_t)sz->u.i, &numel))
            return verr(v, RWKV_EFORMAT, "_rebuild_tensor_v2: element count overflows");
    }
    t->u.tensor->numel = numel;
    if (numel > 0) {
        /* last element index = offset + sum (size_i - 1) * stride_i, must be < numel(storage) */
        last = t->u.tensor->offset;
        for (int i = 0; i < nd; i++) {
            uint64_t step;
            if (!mem_mul_ok((uint64_t)t->u.tensor->shape[i] - 1, (uint64_t)t->u.tensor->stride[i], &step) ||
                !mem_add_ok(last, step, &last))
                return verr(v, RWKV_EFORMAT, "_rebuild_tensor_v2: shape * stride overflows");
        }
        if (last >= st->u.storage.numel)
            return rwkv_errf(v->err, RWKV_EFORMAT,
                             "%s: data.pkl offset %zu: tensor view (offset %llu, last element %llu) "
                             "is outside its storage '%.*s' of %llu elements",
                             v->what, v->at, (unsigned long long)t->u.tensor->offset,
                             (unsigned long long)last, (int)st->u.storage.key_len,
                             st->u.storage.key, (unsigned long long)st->u.storage.numel);
        t->u.tensor->span = last + 1 - t->u.tensor->offset;
    } else if (t->u.tensor->offset > st->u.storage.numel) {
        return verr(v, RWKV_EFORMAT, "_rebuild_tensor_v2: storage offset beyond its storage");
    }
    *out = t;
    return RWKV_OK;
}

static int
do_reduce(vm *v, pkl_obj *fn, pkl_obj *args, pkl_obj **out)
{
    pkl_obj *const *a = args->u.seq.items;

    if (fn->type != PKL_GLOBAL)
        return verr(v, RWKV_EUNSAFE, "REDUCE on something that is not an allowed callable, refused");
    if (args->type != PKL_TUPLE)
        return verr(v, RWKV_EFORMAT, "REDUCE arguments are not a tuple");
    switch (fn->u.glob.id) {
    case PKL_G_REBUILD_TENSOR_V2:
        return rebuild_tensor(v, args, out);
    case PKL_G_REBUILD_PARAMETER:
        /* (tensor, requires_grad, OrderedDict()) -> the same tensor */
        if (args->u.seq.n != 3 || a[0]->type != PKL_TENSOR || a[1]->type != PKL_BOOL ||
            !is_empty_dict(a[2]))
            return verr(v, RWKV_EFORMAT, "_rebuild_parameter expects (tensor, bool, OrderedDict())");
        *out = a[0];
        return RWKV_OK;
    case PKL_G_REBUILD_FROM_TYPE_V2:
        /* (_rebuild_tensor_v2, torch.Tensor | Parameter, args, state) */
        if (args->u.seq.n != 4 || a[0]->type != PKL_GLOBAL ||
            a[0]->u.glob.id != PKL_G_REBUILD_TENSOR_V2 || a[1]->type != PKL_GLOBAL ||
            (a[1]->u.glob.id != PKL_G_TENSOR_CLASS && a[1]->u.glob.id != PKL_G_PARAMETER_CLASS) ||
            (a[3]->type != PKL_NONE && !is_empty_dict(a[3])))
            return verr(v, RWKV_EFORMAT,
                        "_rebuild_from_type_v2 expects (_rebuild_tensor_v2, Tensor, args, {})");
        if (a[2]->type != PKL_TUPLE)
            return verr(v, RWKV_EFORMAT, "_rebuild_from_type_v2: args are not a tuple");
        return rebuild_tensor(v, a[2], out);
    case PKL_G_ORDERED_DICT:
        if (args->u.seq.n != 0)
            return verr(v, RWKV_EFORMAT, "OrderedDict() with arguments is not supported");
        *out = new_obj(v, PKL_DICT);
        if (*out == NULL)
            return v->err->code;
        (*out)->u.seq.odict = 1;
        return RWKV_OK;
    default:
        return rwkv_errf(v->err, RWKV_EUNSAFE, "%s: data.pkl offset %zu: REDUCE on '%s' is not allowed",
                         v->what, v->at, fn->u.glob.name);
    }
}

/* ('storage', <storage class>, key, location, numel) -> STORAGE */
static int
persistent_load(vm *v, const pkl_obj *pid, pkl_obj **out)
{
    pkl_obj *const *a = pid->u.seq.items;
    pkl_obj *s;

    if (pid->type != PKL_TUPLE || pid->u.seq.n != 5 || a[0]->type != PKL_STR ||
        a[0]->u.str.len != 7 || memcmp(a[0]->u.str.s, "storage", 7) != 0)
        return verr(v, RWKV_EUNSAFE, "persistent id is not a ('storage', ...) 5-tuple, refused");
    if (a[1]->type != PKL_GLOBAL || a[1]->u.glob.id != PKL_G_STORAGE)
        return verr(v, RWKV_EFORMAT, "persistent id does not name a storage class");
    if (a[2]->type != PKL_STR || a[2]->u.str.len == 0 || a[2]->u.str.len > 64)
        return verr(v, RWKV_EFORMAT, "storage key is not a string of 1..64 characters");
    for (size_t i = 0; i < a[2]->u.str.len; i++) {
        char c = a[2]->u.str.s[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'))
            return verr(v, RWKV_EFORMAT, "storage key has characters outside [0-9A-Za-z_]");
    }
    if (a[3]->type != PKL_STR || a[3]->u.str.len > 64)
        return verr(v, RWKV_EFORMAT, "storage location is not a short string");
    if (a[4]->type != PKL_INT || a[4]->u.i < 0)
        return verr(v, RWKV_EFORMAT, "storage size is not an int >= 0");
    s = new_obj(v, PKL_STORAGE);
    if (s == NULL)
        return v->err->code;
    s->u.storage.key = a[2]->u.str.s;
    s->u.storage.key_len = a[2]->u.str.len;
    s->u.storage.dtype = a[1]->u.glob.dtype;
    s->u.storage.numel = (uint64_t)a[4]->u.i;
    s->u.storage.at = v->at;
    *out = s;
    return RWKV_OK;
}

static int
printable(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x21 || s[i] > 0x7e)
            return 0;
    return n > 0;
}

static int
do_global(vm *v, pkl_obj **out)
{
    const uint8_t *mod = v->p + v->pos, *nl1, *name, *nl2;
    size_t rem = v->len - v->pos, ml, nlen;

    nl1 = memchr(mod, '\n', rem < PKL_MAX_GLOBAL_LINE + 1 ? rem : PKL_MAX_GLOBAL_LINE + 1);
    if (nl1 == NULL)
        return verr(v, RWKV_EFORMAT, "GLOBAL module line is missing its newline or too long");
    ml = (size_t)(nl1 - mod);
    name = nl1 + 1;
    rem -= ml + 1;
    nl2 = memchr(name, '\n', rem < PKL_MAX_GLOBAL_LINE + 1 ? rem : PKL_MAX_GLOBAL_LINE + 1);
    if (nl2 == NULL)
        return verr(v, RWKV_EFORMAT, "GLOBAL name line is missing its newline or too long");
    nlen = (size_t)(nl2 - name);
    v->pos += ml + 1 + nlen + 1;
    if (!printable(mod, ml) || !printable(name, nlen))
        return verr(v, RWKV_EUNSAFE, "pickle GLOBAL with a non-printable name, refused");
    for (size_t i = 0; i < sizeof g_table / sizeof g_table[0]; i++) {
        const struct gentry *g = &g_table[i];
        if (strlen(g->mod) == ml && memcmp(g->mod, mod, ml) == 0 && strlen(g->name) == nlen &&
            memcmp(g->name, name, nlen) == 0) {
            if (g->id == G_REFUSE)
                return rwkv_errf(v->err, RWKV_ENOTSUP, "%s: data.pkl offset %zu: %s (%s.%s)",
                                 v->what, v->at, g->why, g->mod, g->name);
            *out = new_obj(v, PKL_GLOBAL);
            if (*out == NULL)
                return v->err->code;
            (*out)->u.glob.id = g->id;
            (*out)->u.glob.dtype = g->dtype;
            (*out)->u.glob.name = g->name;
            return RWKV_OK;
        }
    }
    return rwkv_errf(v->err, RWKV_EUNSAFE,
                     "%s: pickle refers to global '%.*s.%.*s', refused (data.pkl offset %zu)",
                     v->what, (int)ml, (const char *)mod, (int)nlen, (const char *)name, v->at);
}

static int
memo_put(vm *v, uint64_t idx)
{
    if (v->sp <= fence(v))
        return verr(v, RWKV_EFORMAT, "memo PUT with nothing on the stack");
    /* The pickler assigns memo ids densely from 0: allow overwrite or append. */
    if (idx > v->memo_n)
        return verr(v, RWKV_EFORMAT, "memo PUT index skips ahead");
    if (idx >= v->lim.max_memo)
        return verr(v, RWKV_EFORMAT, "memo too large (limit reached)");
    if (idx == v->memo_cap) {
        size_t cap = v->memo_cap ? v->memo_cap * 2 : 256;
        pkl_obj **nm = realloc(v->memo, cap * sizeof *nm);
        if (nm == NULL)
            return verr(v, RWKV_ENOMEM, "pickle needs too much memory (limit reached)");
        v->memo = nm;
        v->memo_cap = cap;
    }
    v->memo[idx] = v->stack[v->sp - 1];
    if (idx == v->memo_n)
        v->memo_n++;
    return RWKV_OK;
}

static int
memo_get(vm *v, uint64_t idx)
{
    if (idx >= v->memo_n)
        return verr(v, RWKV_EFORMAT, "memo GET of an unset index");
    return push(v, v->memo[idx]);
}

/* Pop to the newest mark: items are v->stack[*base .. v->sp). */
static int
pop_mark(vm *v, size_t *base, const char *opname)
{
    if (v->nmarks == 0)
        return rwkv_errf(v->err, RWKV_EFORMAT, "%s: data.pkl offset %zu: %s without MARK",
                         v->what, v->at, opname);
    *base = v->marks[--v->nmarks];
    return RWKV_OK;
}

static int
run(vm *v)
{
    int rc;

    while (v->pos < v->len) {
        uint8_t op = v->p[v->pos];
        const struct opinfo *oi = op_lookup(op);
        pkl_obj *a, *b, *o;
        size_t base = 0;

        v->at = v->pos++;
        if (oi == NULL)
            return rwkv_errf(v->err, RWKV_EFORMAT,
                             "%s: data.pkl offset %zu: unknown pickle opcode 0x%02x", v->what,
                             v->at, op);
        if (!(oi->flags & OK_ALLOWED))
            return rwkv_errf(v->err, (oi->flags & OK_UNSAFE) ? RWKV_EUNSAFE : RWKV_EFORMAT,
                             "%s: data.pkl offset %zu: pickle opcode %s (0x%02x) is not allowed",
                             v->what, v->at, oi->name, op);
        if (v->at == 0 && op != 0x80)
            return verr(v, RWKV_EFORMAT, "pickle does not start with PROTO 2");
        switch (op) {
        case 0x80: /* PROTO */
            if ((rc = need(v, 1)) != 0)
                return rc;
            if (v->at != 0)
                return verr(v, RWKV_EFORMAT, "PROTO not at the start of the pickle");
            if (v->p[v->pos] != 2)
                return rwkv_errf(v->err, RWKV_ENOTSUP,
                                 "%s: pickle protocol %u is not supported (torch.save writes 2)",
                                 v->what, v->p[v->pos]);
            v->pos++;
            break;
        case 0x2e: /* STOP */
            if (v->nmarks != 0 || v->sp != 1)
                return verr(v, RWKV_EFORMAT, "STOP with marks or more than one object left on the stack");
            if (v->pos != v->len)
                return verr(v, RWKV_EFORMAT, "bytes after STOP");
            v->doc->root = v->stack[0];
            return RWKV_OK;
        case 0x7d: /* EMPTY_DICT */
            if ((rc = push(v, new_obj(v, PKL_DICT))) != 0)
                return rc;
            break;
        case 0x5d: /* EMPTY_LIST */
            if ((rc = push(v, new_obj(v, PKL_LIST))) != 0)
                return rc;
            break;
        case 0x29: /* EMPTY_TUPLE */
            if ((rc = push(v, new_obj(v, PKL_TUPLE))) != 0)
                return rc;
            break;
        case 0x28: /* MARK */
            if (v->nmarks >= v->lim.max_marks)
                return verr(v, RWKV_EFORMAT, "MARKs nested too deeply (limit reached)");
            v->marks[v->nmarks++] = v->sp;
            break;
        case 0x74: /* TUPLE */
            if ((rc = pop_mark(v, &base, "TUPLE")) != 0)
                return rc;
            o = new_seq(v, PKL_TUPLE, v->stack + base, v->sp - base);
            v->sp = base;
            if ((rc = push(v, o)) != 0)
                return rc;
            break;
        case 0x85: case 0x86: case 0x87: { /* TUPLE1/2/3 */
            size_t n = (size_t)(op - 0x84);
            if (v->sp < fence(v) + n)
                return verr(v, RWKV_EFORMAT, "pickle stack underflow");
            o = new_seq(v, PKL_TUPLE, v->stack + v->sp - n, n);
            v->sp -= n;
            if ((rc = push(v, o)) != 0)
                return rc;
            break;
        }
        case 0x58: { /* BINUNICODE */
            uint32_t n;
            if ((rc = need(v, 4)) != 0)
                return rc;
            n = rd_u32(v->p + v->pos);
            v->pos += 4;
            if ((rc = need(v, n)) != 0)
                return rc;
            if (!utf8_ok(v->p + v->pos, n))
                return verr(v, RWKV_EFORMAT, "string is not valid UTF-8");
            o = new_obj(v, PKL_STR);
            if (o == NULL)
                return v->err->code;
            o->u.str.s = (const char *)v->p + v->pos;
            o->u.str.len = n;
            v->pos += n;
            if ((rc = push(v, o)) != 0)
                return rc;
            break;
        }
        case 0x4b: case 0x4d: case 0x4a: case 0x8a: { /* BININT1, BININT2, BININT, LONG1 */
            int64_t val = 0;
            if (op == 0x4b) {
                if ((rc = need(v, 1)) != 0)
                    return rc;
                val = v->p[v->pos++];
            } else if (op == 0x4d) {
                if ((rc = need(v, 2)) != 0)
                    return rc;
                val = v->p[v->pos] | (v->p[v->pos + 1] << 8);
                v->pos += 2;
            } else if (op == 0x4a) {
                if ((rc = need(v, 4)) != 0)
                    return rc;
                val = (int32_t)rd_u32(v->p + v->pos);
                v->pos += 4;
            } else {
                uint64_t u = 0;
                size_t n;
                if ((rc = need(v, 1)) != 0)
                    return rc;
                n = v->p[v->pos++];
                if (n > 8)
                    return verr(v, RWKV_EFORMAT, "LONG1 integer wider than 64 bits");
                if ((rc = need(v, n)) != 0)
                    return rc;
                for (size_t i = 0; i < n; i++)
                    u |= (uint64_t)v->p[v->pos + i] << (8 * i);
                if (n > 0 && n < 8 && (v->p[v->pos + n - 1] & 0x80))
                    u |= ~(uint64_t)0 << (8 * n);          /* sign-extend */
                memcpy(&val, &u, sizeof val);
                v->pos += n;
            }
            o = new_obj(v, PKL_INT);
            if (o == NULL)
                return v->err->code;
            o->u.i = val;
            if ((rc = push(v, o)) != 0)
                return rc;
            break;
        }
        case 0x47: { /* BINFLOAT: big-endian f64 */
            uint64_t u = 0;
            if ((rc = need(v, 8)) != 0)
                return rc;
            for (int i = 0; i < 8; i++)
                u = (u << 8) | v->p[v->pos + (size_t)i];
            v->pos += 8;
            o = new_obj(v, PKL_FLOAT);
            if (o == NULL)
                return v->err->code;
            memcpy(&o->u.f, &u, sizeof u);
            if ((rc = push(v, o)) != 0)
                return rc;
            break;
        }
        case 0x4e: /* NONE */
            if ((rc = push(v, new_obj(v, PKL_NONE))) != 0)
                return rc;
            break;
        case 0x88: case 0x89: /* NEWTRUE, NEWFALSE */
            o = new_obj(v, PKL_BOOL);
            if (o == NULL)
                return v->err->code;
            o->u.b = op == 0x88;
            if ((rc = push(v, o)) != 0)
                return rc;
            break;
        case 0x63: /* GLOBAL */
            o = NULL;
            if ((rc = do_global(v, &o)) != 0)
                return rc;
            if ((rc = push(v, o)) != 0)
                return rc;
            break;
        case 0x71: /* BINPUT */
            if ((rc = need(v, 1)) != 0)
                return rc;
            if ((rc = memo_put(v, v->p[v->pos++])) != 0)
                return rc;
            break;
        case 0x72: /* LONG_BINPUT */
            if ((rc = need(v, 4)) != 0)
                return rc;
            v->pos += 4;
            if ((rc = memo_put(v, rd_u32(v->p + v->pos - 4))) != 0)
                return rc;
            break;
        case 0x68: /* BINGET */
            if ((rc = need(v, 1)) != 0)
                return rc;
            if ((rc = memo_get(v, v->p[v->pos++])) != 0)
                return rc;
            break;
        case 0x6a: /* LONG_BINGET */
            if ((rc = need(v, 4)) != 0)
                return rc;
            v->pos += 4;
            if ((rc = memo_get(v, rd_u32(v->p + v->pos - 4))) != 0)
                return rc;
            break;
        case 0x51: /* BINPERSID */
            if ((rc = pop(v, &a)) != 0)
                return rc;
            o = NULL;
            if ((rc = persistent_load(v, a, &o)) != 0)
                return rc;
            if ((rc = push(v, o)) != 0)
                return rc;
            break;
        case 0x52: /* REDUCE */
            if ((rc = pop(v, &b)) != 0 || (rc = pop(v, &a)) != 0)
                return rc;
            o = NULL;
            if ((rc = do_reduce(v, a, b, &o)) != 0)
                return rc;
            if ((rc = push(v, o)) != 0)
                return rc;
            break;
        case 0x62: /* BUILD: only OrderedDict with a dict state (ignored) */
            if ((rc = pop(v, &b)) != 0)
                return rc;
            if (v->sp <= fence(v))
                return verr(v, RWKV_EFORMAT, "pickle stack underflow");
            a = v->stack[v->sp - 1];
            if (a->type != PKL_DICT || !a->u.seq.odict || b->type != PKL_DICT)
                return rwkv_errf(v->err, RWKV_EUNSAFE,
                                 "%s: data.pkl offset %zu: BUILD on a %s with a %s state is not allowed",
                                 v->what, v->at, pkl_type_name(a), pkl_type_name(b));
            break;
        case 0x73: /* SETITEM */
            if ((rc = pop(v, &b)) != 0 || (rc = pop(v, &a)) != 0)
                return rc;
            if (v->sp <= fence(v))
                return verr(v, RWKV_EFORMAT, "pickle stack underflow");
            o = v->stack[v->sp - 1];
            if (o->type != PKL_DICT)
                return rwkv_errf(v->err, RWKV_EFORMAT,
                                 "%s: data.pkl offset %zu: SETITEM on a %s, expected a dict",
                                 v->what, v->at, pkl_type_name(o));
            {
                pkl_obj *kv[2] = {a, b};
                if ((rc = seq_append(v, o, kv, 2)) != 0)
                    return rc;
            }
            break;
        case 0x75: /* SETITEMS */
        case 0x65: /* APPENDS */
            if ((rc = pop_mark(v, &base, op == 0x75 ? "SETITEMS" : "APPENDS")) != 0)
                return rc;
            if (base == 0 || base - 1 < fence(v))
                return verr(v, RWKV_EFORMAT, "pickle stack underflow");
            o = v->stack[base - 1];
            if (op == 0x75 && o->type != PKL_DICT)
                return rwkv_errf(v->err, RWKV_EFORMAT,
                                 "%s: data.pkl offset %zu: SETITEMS on a %s, expected a dict",
                                 v->what, v->at, pkl_type_name(o));
            if (op == 0x65 && o->type != PKL_LIST)
                return rwkv_errf(v->err, RWKV_EFORMAT,
                                 "%s: data.pkl offset %zu: APPENDS on a %s, expected a list",
                                 v->what, v->at, pkl_type_name(o));
            if (op == 0x75 && (v->sp - base) % 2 != 0)
                return verr(v, RWKV_EFORMAT, "SETITEMS with an odd number of items");
            if ((rc = seq_append(v, o, v->stack + base, v->sp - base)) != 0)
                return rc;
            v->sp = base;
            break;
        case 0x61: /* APPEND */
            if ((rc = pop(v, &b)) != 0)
                return rc;
            if (v->sp <= fence(v))
                return verr(v, RWKV_EFORMAT, "pickle stack underflow");
            o = v->stack[v->sp - 1];
            if (o->type != PKL_LIST)
                return rwkv_errf(v->err, RWKV_EFORMAT,
                                 "%s: data.pkl offset %zu: APPEND on a %s, expected a list",
                                 v->what, v->at, pkl_type_name(o));
            if ((rc = seq_append(v, o, &b, 1)) != 0)
                return rc;
            break;
        default:
            return verr(v, RWKV_EFORMAT, "internal: opcode marked allowed but not handled");
        }
    }
    return rwkv_errf(v->err, RWKV_EFORMAT, "%s: data.pkl ends without STOP (truncated pickle)",
                     v->what);
}

int
pkl_run(const void *data, size_t len, const char *what, const pkl_limits *lim,
        pkl_doc **out, rwkv_err *err)
{
    rwkv_err scratch;
    vm v;
    int rc;

    *out = NULL;
    if (err == NULL)
        err = &scratch;
    memset(&v, 0, sizeof v);
    v.p = data;
    v.len = len;
    v.what = what;
    v.err = err;
    v.lim.max_memo = lim && lim->max_memo ? lim->max_memo : PKL_MAX_MEMO;
    v.lim.max_stack = lim && lim->max_stack ? lim->max_stack : PKL_MAX_STACK;
    v.lim.max_marks = lim && lim->max_marks ? lim->max_marks : PKL_MAX_MARKS;
    v.lim.max_objects = lim && lim->max_objects ? lim->max_objects : PKL_MAX_OBJECTS;
    if (v.lim.max_marks > 4096)
        v.lim.max_marks = 4096;
    if (len == 0)
        return rwkv_errf(err, RWKV_EFORMAT, "%s: data.pkl is empty", what);
    v.doc = calloc(1, sizeof *v.doc);
    v.marks = malloc((size_t)v.lim.max_marks * sizeof *v.marks);
    /* never NULL, so "stack + base" is valid even before the first push */
    v.stack_cap = v.lim.max_stack < 64 ? (size_t)v.lim.max_stack : 64;
    v.stack = malloc((v.stack_cap ? v.stack_cap : 1) * sizeof *v.stack);
    if (v.doc == NULL || v.marks == NULL || v.stack == NULL) {
        rc = rwkv_errf(err, RWKV_ENOMEM, "%s: out of memory", what);
    } else {
        rc = run(&v);
    }
    free(v.stack);
    free(v.marks);
    free(v.memo);
    if (rc != RWKV_OK) {
        pkl_free(v.doc);
        return rc;
    }
    *out = v.doc;
    return RWKV_OK;
}

void
pkl_free(pkl_doc *doc)
{
    struct block *b, *n;

    if (doc == NULL)
        return;
    for (b = doc->blocks; b != NULL; b = n) {
        n = b->next;
        free(b);
    }
    free(doc);
}

const pkl_obj *
pkl_root(const pkl_doc *doc)
{
    return doc->root;
}
