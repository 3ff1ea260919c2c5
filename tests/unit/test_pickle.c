/*
** test_pickle.c -- the restricted unpickler, opcode by opcode: what torch.save
** emits is accepted; any other global, opcode or type confusion is refused
** by name with one line; limits hold; nothing is ever executed.
*/
#include <stdint.h>
#include <time.h>

#include "../../core/io/ckpt.h"
#include "../../core/io/pickle.h"
#include "../harness.h"
#include "test_ckpt_build.h"

#define B(lit) lit, sizeof(lit) - 1

static rwkv_err err;

/* Run B as a pickle; return the status; leave the message in err. */
static int
run_lim(const tb_buf *b, const pkl_limits *lim, pkl_doc **out)
{
    pkl_doc *doc = (pkl_doc *)1;
    int rc = pkl_run(b->p, b->n, "p.pkl", lim, &doc, &err);
    if (rc != RWKV_OK && doc != NULL) {
        printf("     error path left a doc\n");
        return -1;
    }
    if (out)
        *out = doc;
    else
        pkl_free(doc);
    return rc;
}

static int
run(const tb_buf *b)
{
    return run_lim(b, NULL, NULL);
}

static int
msg_ok(const char *sub)
{
    int ok = strncmp(err.msg, "p.pkl: ", 7) == 0 && strchr(err.msg, '\n') == NULL &&
             (sub == NULL || strstr(err.msg, sub) != NULL);
    if (!ok)
        printf("     message: %s\n", err.msg);
    return ok;
}

#define EXPECT(descr, buf, code, sub)                                            \
    do {                                                                         \
        int rc_ = run(buf);                                                      \
        TEST_CONDF(rc_ == (code) && msg_ok(sub), "%s: rc %d (%s)", descr, rc_, err.msg); \
    } while (0)

/* PROTO 2 + body + STOP */
static tb_buf
pk(const char *body_ops, size_t n)
{
    tb_buf b = {0};
    tb_proto(&b);
    tb_put(&b, body_ops, n);
    return b;
}

static void
test_globals(void)
{
    static const char *const bad[][2] = {
        {"os", "system"}, {"builtins", "eval"}, {"builtins", "exec"}, {"posix", "system"},
        {"subprocess", "Popen"}, {"torch", "load"}, {"__builtin__", "getattr"},
        {"torch._utils", "_rebuild_parameter_with_state"}, {"collections", "Counter"},
        {"torch.serialization", "_get_layout"}, {"numpy.core.multiarray", "_reconstruct"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tb_buf b = {0};
        char want[128];
        tb_proto(&b);
        tb_global(&b, bad[i][0], bad[i][1]);
        tb_op(&b, ')');
        tb_op(&b, 'R');
        tb_op(&b, '.');
        snprintf(want, sizeof want, "pickle refers to global '%s.%s', refused", bad[i][0], bad[i][1]);
        EXPECT(want, &b, RWKV_EUNSAFE, want);
        tb_free(&b);
    }
    /* recognised but unsupported */
    {
        tb_buf b = {0};
        tb_proto(&b);
        tb_global(&b, "torch._utils", "_rebuild_tensor_v3");
        EXPECT("rebuild_tensor_v3", &b, RWKV_ENOTSUP, "_rebuild_tensor_v3");
        tb_free(&b);
        tb_proto(&b);
        tb_global(&b, "torch", "ComplexFloatStorage");
        EXPECT("complex storage", &b, RWKV_ENOTSUP, "complex");
        tb_free(&b);
    }
    /* malformed GLOBAL lines */
    {
        tb_buf b = pk("cos\nsystem", 10);
        EXPECT("GLOBAL name without newline", &b, RWKV_EFORMAT, "newline");
        tb_free(&b);
        b = pk("cos", 3);
        EXPECT("GLOBAL module without newline", &b, RWKV_EFORMAT, "newline");
        tb_free(&b);
        b = pk("co s\nsystem\n", 12);
        EXPECT("GLOBAL with a space", &b, RWKV_EUNSAFE, "non-printable");
        tb_free(&b);
        b = pk("c\x01\x02\nx\n", 6);
        EXPECT("GLOBAL with control bytes", &b, RWKV_EUNSAFE, "non-printable");
        tb_free(&b);
        tb_proto(&b);
        tb_u8(&b, 'c');
        for (int i = 0; i < 200; i++)
            tb_u8(&b, 'a');
        tb_str(&b, "\nx\n");
        EXPECT("GLOBAL line > 128 bytes", &b, RWKV_EFORMAT, "too long");
        tb_free(&b);
    }
}

static void
test_opcodes(void)
{
    static const struct { uint8_t op; const char *name; int code; } bad[] = {
        {0x69, "INST", RWKV_EUNSAFE}, {0x6f, "OBJ", RWKV_EUNSAFE}, {0x81, "NEWOBJ", RWKV_EUNSAFE},
        {0x92, "NEWOBJ_EX", RWKV_EUNSAFE}, {0x93, "STACK_GLOBAL", RWKV_EUNSAFE},
        {0x82, "EXT1", RWKV_EUNSAFE}, {0x83, "EXT2", RWKV_EUNSAFE}, {0x84, "EXT4", RWKV_EUNSAFE},
        {0x50, "PERSID", RWKV_EUNSAFE}, {0x42, "BINBYTES", RWKV_EFORMAT}, {0x30, "POP", RWKV_EFORMAT},
        {0x32, "DUP", RWKV_EFORMAT}, {0x95, "FRAME", RWKV_EFORMAT}, {0x8c, "SHORT_BINUNICODE", RWKV_EFORMAT},
        {0x94, "MEMOIZE", RWKV_EFORMAT}, {0x54, "BINSTRING", RWKV_EFORMAT}, {0x8b, "LONG4", RWKV_EFORMAT},
        {0x49, "INT", RWKV_EFORMAT}, {0x64, "DICT", RWKV_EFORMAT},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tb_buf b = {0};
        char want[64];
        tb_proto(&b);
        tb_op(&b, '}');
        tb_op(&b, bad[i].op);
        tb_str(&b, "os\nsystem\n");
        snprintf(want, sizeof want, "opcode %s (0x%02x) is not allowed", bad[i].name, bad[i].op);
        EXPECT(want, &b, bad[i].code, want);
        TEST_CONDF(strstr(err.msg, "offset 3") != NULL, "%s: offset in message: %s", bad[i].name, err.msg);
        tb_free(&b);
    }
    tb_buf b = pk("\xff", 1);
    EXPECT("unknown opcode", &b, RWKV_EFORMAT, "unknown pickle opcode 0xff");
    tb_free(&b);
    b = pk("\x00", 1);
    EXPECT("opcode 0x00", &b, RWKV_EFORMAT, "0x00");
    tb_free(&b);
}

static void
test_structure(void)
{
    struct { const char *descr; const char *bytes; size_t n; int code; const char *sub; } cases[] = {
        {"no PROTO", B("}."), RWKV_EFORMAT, "PROTO"},
        {"PROTO 4", B("\x80\x04}."), RWKV_ENOTSUP, "protocol 4"},
        {"PROTO twice", B("\x80\x02\x80\x02}."), RWKV_EFORMAT, "PROTO"},
        {"empty after PROTO", B("\x80\x02"), RWKV_EFORMAT, "without STOP"},
        {"no STOP", B("\x80\x02}"), RWKV_EFORMAT, "without STOP"},
        {"bytes after STOP", B("\x80\x02}.}"), RWKV_EFORMAT, "after STOP"},
        {"STOP on empty stack", B("\x80\x02."), RWKV_EFORMAT, "STOP"},
        {"STOP with two objects", B("\x80\x02}}."), RWKV_EFORMAT, "STOP"},
        {"STOP with a MARK left", B("\x80\x02}(."), RWKV_EFORMAT, "STOP"},
        {"TUPLE without MARK", B("\x80\x02}t."), RWKV_EFORMAT, "without MARK"},
        {"SETITEMS without MARK", B("\x80\x02}u."), RWKV_EFORMAT, "without MARK"},
        {"TUPLE2 underflow", B("\x80\x02}\x86."), RWKV_EFORMAT, "underflow"},
        {"TUPLE1 across MARK", B("\x80\x02}(\x85t."), RWKV_EFORMAT, "underflow"},
        {"REDUCE on empty", B("\x80\x02R."), RWKV_EFORMAT, "underflow"},
        {"BINPERSID on empty", B("\x80\x02Q."), RWKV_EFORMAT, "underflow"},
        {"SETITEM underflow", B("\x80\x02}K\x01s."), RWKV_EFORMAT, "underflow"},
        {"SETITEMS with no dict", B("\x80\x02(K\x01K\x02u."), RWKV_EFORMAT, "underflow"},
        {"APPEND underflow", B("\x80\x02]a."), RWKV_EFORMAT, "underflow"},
        {"BUILD underflow", B("\x80\x02}b."), RWKV_EFORMAT, "underflow"},
        {"SETITEM on a tuple", B("\x80\x02)K\x01K\x02s."), RWKV_EFORMAT, "SETITEM on a tuple"},
        {"SETITEM on a list", B("\x80\x02]K\x01K\x02s."), RWKV_EFORMAT, "SETITEM on a list"},
        {"SETITEM on an int", B("\x80\x02K\x05K\x01K\x02s."), RWKV_EFORMAT, "SETITEM on a int"},
        {"SETITEMS on a list", B("\x80\x02](K\x01K\x02u."), RWKV_EFORMAT, "SETITEMS on a list"},
        {"SETITEMS odd items", B("\x80\x02}(K\x01K\x02K\x03u."), RWKV_EFORMAT, "odd"},
        {"APPEND on a dict", B("\x80\x02}K\x01" "a."), RWKV_EFORMAT, "APPEND on a dict"},
        {"APPENDS on a dict", B("\x80\x02}(K\x01" "e."), RWKV_EFORMAT, "APPENDS on a dict"},
        {"BUILD on a dict", B("\x80\x02}}b."), RWKV_EUNSAFE, "BUILD on a dict"},
        {"BUILD on a list", B("\x80\x02]}b."), RWKV_EUNSAFE, "BUILD on a list"},
        {"REDUCE on a str", B("\x80\x02X\x01\x00\x00\x00" "a)R."), RWKV_EUNSAFE, "REDUCE"},
        {"REDUCE on a dict", B("\x80\x02})R."), RWKV_EUNSAFE, "REDUCE"},
        {"BINGET unset", B("\x80\x02h\x00."), RWKV_EFORMAT, "unset"},
        {"LONG_BINGET huge", B("\x80\x02}q\x00j\xff\xff\xff\xff."), RWKV_EFORMAT, "unset"},
        {"LONG_BINPUT huge", B("\x80\x02}r\xff\xff\xff\xff."), RWKV_EFORMAT, "skips ahead"},
        {"BINPUT with empty stack", B("\x80\x02q\x00}."), RWKV_EFORMAT, "nothing on the stack"},
        {"BINPUT above MARK only", B("\x80\x02}(q\x00t."), RWKV_EFORMAT, "nothing on the stack"},
        {"BINUNICODE length huge", B("\x80\x02X\xff\xff\xff\xff" "abc."), RWKV_EFORMAT, "truncated"},
        {"BINUNICODE truncated length", B("\x80\x02X\x01\x00"), RWKV_EFORMAT, "truncated"},
        {"BININT truncated", B("\x80\x02J\x01\x02"), RWKV_EFORMAT, "truncated"},
        {"BINFLOAT truncated", B("\x80\x02G\x01\x02\x03"), RWKV_EFORMAT, "truncated"},
        {"LONG1 wider than 64 bits", B("\x80\x02\x8a\x09\x01\x02\x03\x04\x05\x06\x07\x08\x09."), RWKV_EFORMAT, "64 bits"},
        {"LONG1 truncated", B("\x80\x02\x8a\x08\x01\x02"), RWKV_EFORMAT, "truncated"},
        {"overlong UTF-8", B("\x80\x02X\x02\x00\x00\x00\xc0\x80."), RWKV_EFORMAT, "UTF-8"},
        {"surrogate UTF-8", B("\x80\x02X\x03\x00\x00\x00\xed\xa0\x80."), RWKV_EFORMAT, "UTF-8"},
        {"truncated UTF-8", B("\x80\x02X\x01\x00\x00\x00\xe4."), RWKV_EFORMAT, "UTF-8"},
        {"persistent id not a tuple", B("\x80\x02}Q."), RWKV_EUNSAFE, "persistent id"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tb_buf b = {0};
        tb_put(&b, cases[i].bytes, cases[i].n);
        EXPECT(cases[i].descr, &b, cases[i].code, cases[i].sub);
        tb_free(&b);
    }
}

/* ints, floats, strings decode as Python does */
static void
test_values(void)
{
    tb_buf b = {0};
    pkl_doc *doc;

    tb_proto(&b);
    tb_op(&b, '(');
    tb_int(&b, 0);
    tb_int(&b, 255);
    tb_int(&b, 65535);
    tb_int(&b, -1);
    tb_int(&b, 2147483647);
    tb_int(&b, -5000000000LL);
    tb_put(&b, "\x8a\x01\xff", 3);             /* LONG1 -1 */
    tb_put(&b, "\x8a\x00", 2);                 /* LONG1 0 */
    tb_put(&b, "\x8a\x02\x00\x80", 4);         /* LONG1 -32768 */
    tb_float(&b, 1.5);
    tb_unicode(&b, "h\xc3\xa9llo");
    tb_op(&b, 0x88);
    tb_op(&b, 'N');
    tb_op(&b, 't');
    tb_op(&b, '.');
    int rc = run_lim(&b, NULL, &doc);
    TEST_CONDF(rc == RWKV_OK, "values: %s", err.msg);
    if (rc == RWKV_OK) {
        const pkl_obj *r = pkl_root(doc);
        static const int64_t want[] = {0, 255, 65535, -1, 2147483647, -5000000000LL, -1, 0, -32768};
        int ok = r->type == PKL_TUPLE && r->u.seq.n == 13;
        for (size_t i = 0; ok && i < 9; i++)
            ok = r->u.seq.items[i]->type == PKL_INT && r->u.seq.items[i]->u.i == want[i];
        TEST_COND("int encodings", ok);
        TEST_COND("binfloat big-endian", ok && r->u.seq.items[9]->type == PKL_FLOAT && r->u.seq.items[9]->u.f == 1.5);
        TEST_COND("unicode", ok && r->u.seq.items[10]->u.str.len == 6 &&
                             memcmp(r->u.seq.items[10]->u.str.s, "h\xc3\xa9llo", 6) == 0);
        TEST_COND("bool/none", ok && r->u.seq.items[11]->u.b == 1 && r->u.seq.items[12]->type == PKL_NONE);
        pkl_free(doc);
    }
    tb_free(&b);
}

static void
test_limits(void)
{
    tb_buf b = {0};
    pkl_limits lim = {0, 0, 0, 0};

    /* stack */
    tb_proto(&b);
    for (int i = 0; i < 20; i++)
        tb_op(&b, 'N');
    lim.max_stack = 10;
    TEST_COND("stack limit", run_lim(&b, &lim, NULL) == RWKV_EFORMAT && msg_ok("stack too deep"));
    tb_free(&b);
    /* marks: default 64 */
    tb_proto(&b);
    for (int i = 0; i < 100; i++)
        tb_op(&b, '(');
    EXPECT("mark limit", &b, RWKV_EFORMAT, "MARKs nested");
    tb_free(&b);
    /* memo */
    tb_proto(&b);
    tb_op(&b, 'N');
    for (int i = 0; i < 5; i++) {
        tb_op(&b, 'q');
        tb_u8(&b, (unsigned)i);
    }
    memset(&lim, 0, sizeof lim);
    lim.max_memo = 3;
    TEST_COND("memo limit", run_lim(&b, &lim, NULL) == RWKV_EFORMAT && msg_ok("memo too large"));
    tb_free(&b);
    /* objects */
    tb_proto(&b);
    tb_op(&b, ']');
    tb_op(&b, '(');
    for (int i = 0; i < 50; i++)
        tb_op(&b, 'N');
    tb_op(&b, 'e');
    tb_op(&b, '.');
    memset(&lim, 0, sizeof lim);
    lim.max_objects = 20;
    TEST_COND("object limit", run_lim(&b, &lim, NULL) == RWKV_EFORMAT && msg_ok("too many objects"));
    lim.max_objects = 0;
    TEST_COND("same pickle within limits", run_lim(&b, &lim, NULL) == RWKV_OK);
    tb_free(&b);
}

/* Memo entries are references: a doubling chain of 10000 tuples stays tiny
** and fast, and a dict containing itself neither hangs nor recurses. */
static void
test_memo_references(void)
{
    tb_buf b = {0};
    pkl_doc *doc;
    clock_t t0 = clock();

    tb_proto(&b);
    tb_op(&b, 'N');
    tb_op(&b, 'q');
    tb_u8(&b, 0);
    for (uint32_t i = 0; i < 10000; i++) {
        tb_op(&b, 'j');
        tb_u32(&b, i);
        tb_op(&b, 'j');
        tb_u32(&b, i);
        tb_op(&b, 0x86);
        tb_op(&b, 'r');
        tb_u32(&b, i + 1);                      /* no POP opcode: the stack keeps growing */
    }
    /* the stack now holds N and 10000 tuples; too many for STOP -> error, fast */
    tb_op(&b, '.');
    int rc = run_lim(&b, NULL, &doc);
    TEST_COND("doubling chain refused at STOP", rc == RWKV_EFORMAT && msg_ok("STOP"));
    TEST_COND("doubling chain is fast", (double)(clock() - t0) / CLOCKS_PER_SEC < 1.0);
    tb_free(&b);

    /* d = {}; d['a'] = d */
    tb_proto(&b);
    tb_op(&b, '}');
    tb_op(&b, 'q');
    tb_u8(&b, 0);
    tb_unicode(&b, "a");
    tb_op(&b, 'h');
    tb_u8(&b, 0);
    tb_op(&b, 's');
    tb_op(&b, '.');
    rc = run_lim(&b, NULL, &doc);
    TEST_COND("self-referencing dict parses", rc == RWKV_OK && pkl_root(doc)->u.seq.items[1] == pkl_root(doc));
    if (rc == RWKV_OK)
        pkl_free(doc);
    tb_free(&b);

    /* one memoised args tuple REDUCEd 1.5 million times into a dict: the
    ** arena cap (PKL_MAX_ARENA) stops it, not the machine's memory */
    int64_t sh[1] = {1}, st[1] = {1};
    tb_proto(&b);
    tb_op(&b, '}');
    tb_unicode(&b, "k");
    tb_op(&b, 'q');
    tb_u8(&b, 0);
    tb_global(&b, "torch._utils", "_rebuild_tensor_v2");
    tb_op(&b, 'q');
    tb_u8(&b, 1);
    tb_op(&b, '(');
    tb_pid(&b, "FloatStorage", "0", "cpu", 1);
    tb_int(&b, 0);
    tb_int_tuple(&b, sh, 1);
    tb_int_tuple(&b, st, 1);
    tb_op(&b, 0x89);
    tb_op(&b, '}');
    tb_op(&b, 't');
    tb_op(&b, 'q');
    tb_u8(&b, 2);
    tb_op(&b, 'R');
    tb_op(&b, 's');                              /* dict['k'] = tensor */
    for (int i = 0; i < 1500000; i++) {
        static const uint8_t it[] = {'h', 0, 'h', 1, 'h', 2, 'R', 's'};
        tb_put(&b, it, sizeof it);
    }
    tb_op(&b, '.');
    t0 = clock();
    rc = run_lim(&b, NULL, NULL);
    TEST_CONDF(rc == RWKV_ENOMEM && msg_ok("too much memory"), "arena cap: rc %d (%s)", rc, err.msg);
    TEST_INFO("arena-cap pickle (%zu bytes) refused in %.2f s", b.n, (double)(clock() - t0) / CLOCKS_PER_SEC);
    tb_free(&b);
}

/* Tensor records: the view must stay inside its storage, sizes sane. */
static void
tensor_case(const char *descr, const char *cls, int64_t numel, int64_t off, const int64_t *shape,
            const int64_t *stride, int nd, int code, const char *sub)
{
    tb_buf b = {0};
    tb_proto(&b);
    tb_tensor(&b, cls, "0", numel, off, shape, stride, nd);
    tb_op(&b, '.');
    EXPECT(descr, &b, code, sub);
    tb_free(&b);
}

static void
test_tensors(void)
{
    int64_t s2[2] = {2, 3}, st2[2] = {3, 1}, big[2] = {1LL << 40, 1LL << 40}, bst[2] = {1LL << 40, 1};
    int64_t neg[2] = {2, -3}, s9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};

    tensor_case("valid view", "FloatStorage", 6, 0, s2, st2, 2, RWKV_OK, NULL);
    tensor_case("view past storage", "FloatStorage", 5, 0, s2, st2, 2, RWKV_EFORMAT, "outside its storage");
    tensor_case("offset past storage", "FloatStorage", 6, 1, s2, st2, 2, RWKV_EFORMAT, "outside its storage");
    tensor_case("shape*stride overflow", "FloatStorage", 6, 0, big, bst, 2, RWKV_EFORMAT, "overflow");
    tensor_case("negative size", "FloatStorage", 6, 0, neg, st2, 2, RWKV_EFORMAT, ">= 0");
    tensor_case("negative stride", "FloatStorage", 6, 0, s2, neg, 2, RWKV_EFORMAT, ">= 0");
    tensor_case("9 dims", "FloatStorage", 6, 0, s9, s9, 9, RWKV_EFORMAT, "8 dimensions");
    tensor_case("empty view at end", "FloatStorage", 6, 6, (int64_t[]){0}, (int64_t[]){1}, 1, RWKV_OK, NULL);
    tensor_case("empty view past end", "FloatStorage", 6, 7, (int64_t[]){0}, (int64_t[]){1}, 1, RWKV_EFORMAT, "beyond");
    tensor_case("empty view with huge dims", "FloatStorage", 6, 0, (int64_t[]){0, 1LL << 40, 1LL << 40},
                (int64_t[]){1LL << 62, 1LL << 61, 1}, 3, RWKV_OK, NULL);
    tensor_case("negative numel", "FloatStorage", -1, 0, s2, st2, 2, RWKV_EFORMAT, "storage size");
    tensor_case("storage global not a storage", "Tensor", 6, 0, s2, st2, 2, RWKV_EFORMAT, "storage class");

    /* persistent id shapes */
    tb_buf b = {0};
    tb_proto(&b);
    tb_op(&b, '(');
    tb_unicode(&b, "module");
    tb_global(&b, "torch", "FloatStorage");
    tb_unicode(&b, "0");
    tb_unicode(&b, "cpu");
    tb_int(&b, 1);
    tb_op(&b, 't');
    tb_op(&b, 'Q');
    tb_op(&b, '.');
    EXPECT("pid not 'storage'", &b, RWKV_EUNSAFE, "persistent id");
    tb_free(&b);
    tb_proto(&b);
    tb_pid(&b, "FloatStorage", "../../etc/passwd", "cpu", 1);
    tb_op(&b, '.');
    EXPECT("storage key with a path", &b, RWKV_EFORMAT, "storage key");
    tb_free(&b);

    /* rebuild args: requires_grad not bool, hooks not empty, metadata, arity */
    static const struct { const char *descr, *tail; size_t n; int code; const char *sub; } args[] = {
        {"requires_grad not a bool", "K\x01}t", 4, RWKV_EFORMAT, "requires_grad"},
        {"hooks not empty", "\x89}K\x01K\x02st", 8, RWKV_EFORMAT, "backward hooks"},
        {"metadata non-empty", "\x89}}K\x01K\x02st", 9, RWKV_ENOTSUP, "metadata"},
        {"metadata empty", "\x89}}t", 4, RWKV_OK, NULL},
        {"too many args", "\x89}}}t", 5, RWKV_EFORMAT, "6- or 7-tuple"},
        {"too few args", "\x89t", 2, RWKV_EFORMAT, "6- or 7-tuple"},
    };
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
        tb_proto(&b);
        tb_global(&b, "torch._utils", "_rebuild_tensor_v2");
        tb_op(&b, '(');
        tb_pid(&b, "FloatStorage", "0", "cpu", 6);
        tb_int(&b, 0);
        tb_int_tuple(&b, s2, 2);
        tb_int_tuple(&b, st2, 2);
        tb_put(&b, args[i].tail, args[i].n);
        tb_op(&b, 'R');
        tb_op(&b, '.');
        EXPECT(args[i].descr, &b, args[i].code, args[i].sub);
        tb_free(&b);
    }
    /* REDUCE of an allowed but non-callable global */
    tb_proto(&b);
    tb_global(&b, "torch", "FloatStorage");
    tb_op(&b, ')');
    tb_op(&b, 'R');
    tb_op(&b, '.');
    EXPECT("REDUCE on a storage class", &b, RWKV_EUNSAFE, "REDUCE on 'FloatStorage' is not allowed");
    tb_free(&b);
    tb_proto(&b);
    tb_global(&b, "collections", "OrderedDict");
    tb_op(&b, ']');
    tb_op(&b, 0x85);
    tb_op(&b, 'R');
    tb_op(&b, '.');
    EXPECT("OrderedDict with args", &b, RWKV_EFORMAT, "OrderedDict");
    tb_free(&b);
    tb_proto(&b);
    tb_global(&b, "collections", "OrderedDict");
    tb_op(&b, '}');
    tb_op(&b, 'R');
    tb_op(&b, '.');
    EXPECT("REDUCE args not a tuple", &b, RWKV_EFORMAT, "not a tuple");
    tb_free(&b);
}

/* Through the whole loader: the message names the checkpoint file. */
static void
test_via_ckpt(void)
{
    tb_buf p = {0}, z = {0};
    ckpt *ck = (ckpt *)1;
    rwkv_err e;

    tb_proto(&p);
    tb_global(&p, "os", "system");
    tb_unicode(&p, "echo pwned");
    tb_op(&p, 0x85);
    tb_op(&p, 'R');
    tb_op(&p, '.');
    tb_torch_zip(&z, "archive", &p, NULL, 0, NULL, NULL);
    int rc = ckpt_open_mem(z.p, z.n, "m.pth", NULL, &ck, &e);
    TEST_CONDF(rc == RWKV_EUNSAFE && ck == NULL &&
               strncmp(e.msg, "m.pth: pickle refers to global 'os.system', refused", 51) == 0,
               "ckpt os.system: %s", e.msg);
    tb_free(&p);
    tb_free(&z);
}

int
main(void)
{
    test_globals();
    test_opcodes();
    test_structure();
    test_values();
    test_limits();
    test_memo_references();
    test_tensors();
    test_via_ckpt();
    return TEST_REPORT();
}
