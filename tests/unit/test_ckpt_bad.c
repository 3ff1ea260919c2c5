/*
** test_ckpt_bad.c -- hostile or broken torch.save archives through the
** whole loader (ckpt_open_mem): archive layout rules, storage/entry
** reconciliation, state-dict shape, limits, truncation of real fixtures.
** Each must fail with one line that names the file; none may crash.
*/
#include <stdint.h>
#include <sys/stat.h>

#include "../../core/io/ckpt.h"
#include "../harness.h"
#include "test_ckpt_build.h"

static rwkv_err err;

static int
open_lim(const tb_buf *b, const ckpt_limits *lim)
{
    ckpt *ck = (ckpt *)1;
    int rc = ckpt_open_mem(b->p, b->n, "bad.pth", lim, &ck, &err);
    if (rc == RWKV_OK)
        ckpt_close(ck);
    else if (ck != NULL)
        return -1;
    return rc;
}

static int
msg_ok(const char *sub)
{
    int ok = strncmp(err.msg, "bad.pth: ", 9) == 0 && strchr(err.msg, '\n') == NULL &&
             (sub == NULL || strstr(err.msg, sub) != NULL);
    if (!ok)
        printf("     message: %s\n", err.msg);
    return ok;
}

#define EXPECT_LIM(descr, buf, lim, code, sub)                                   \
    do {                                                                         \
        int rc_ = open_lim(buf, lim);                                            \
        TEST_CONDF(rc_ == (code) && ((code) == RWKV_OK || msg_ok(sub)), "%s: rc %d (%s)", \
                   descr, rc_, err.msg);                                         \
    } while (0)
#define EXPECT(descr, buf, code, sub) EXPECT_LIM(descr, buf, NULL, code, sub)

#define B(lit) lit, sizeof(lit) - 1

static float f6[6] = {1, 2, 3, 4, 5, 6};

/* A valid two-tensor archive with custom entries: NAMES/DATA override. */
static void
zip_with(tb_buf *out, const tb_entry *e, size_t n)
{
    tb_zipopt opt = {64, 0, 1, 0};
    tb_zip(out, e, n, &opt, NULL);
}

static void
pickle_one(tb_buf *pk, const char *cls, const char *key, int64_t numel, int64_t off, int64_t n)
{
    int64_t sh[1] = {n}, st[1] = {1};
    tb_proto(pk);
    tb_op(pk, '}');
    tb_unicode(pk, "w");
    tb_tensor(pk, cls, key, numel, off, sh, st, 1);
    tb_op(pk, 's');
    tb_op(pk, '.');
}

static void
test_layout(void)
{
    tb_buf pk = {0}, z = {0};

    pickle_one(&pk, "FloatStorage", "0", 6, 0, 6);
    {
        tb_entry e[] = {{"a/data.pkl", pk.p, pk.n, 0}, {"a/data/0", f6, 24, 0}};
        zip_with(&z, e, 2);
        EXPECT("minimal valid", &z, RWKV_OK, NULL);
        tb_free(&z);
    }
    {
        tb_entry e[] = {{"a/data/0", f6, 24, 0}, {"a/version", "3\n", 2, 0}};
        zip_with(&z, e, 2);
        EXPECT("missing data.pkl", &z, RWKV_EFORMAT, "no a/data.pkl");
        tb_free(&z);
    }
    {
        tb_entry e[] = {{"a/data.pkl", pk.p, pk.n, 0}};
        zip_with(&z, e, 1);
        EXPECT("missing storage", &z, RWKV_EFORMAT, "storage '0' (a/data/0) is missing");
        tb_free(&z);
    }
    {
        tb_entry e[] = {{"data.pkl", pk.p, pk.n, 0}, {"data/0", f6, 24, 0}};
        zip_with(&z, e, 2);
        EXPECT("no archive folder", &z, RWKV_EFORMAT, "not inside a folder");
        tb_free(&z);
    }
    {
        tb_entry e[] = {{"a/data.pkl", pk.p, pk.n, 0}, {"b/data/0", f6, 24, 0}};
        zip_with(&z, e, 2);
        EXPECT("entry outside the folder", &z, RWKV_EFORMAT, "outside the archive folder");
        tb_free(&z);
    }
    {
        tb_entry e[] = {{"a/data.pkl", pk.p, pk.n, 0}, {"a/data/0", f6, 24, 0}, {"a/constants.pkl", "x", 1, 0}};
        zip_with(&z, e, 3);
        EXPECT("TorchScript archive", &z, RWKV_ENOTSUP, "TorchScript");
        tb_free(&z);
    }
    {
        tb_entry e[] = {{"a/data.pkl", pk.p, pk.n, 0}, {"a/data/0", f6, 24, 0}, {"a/byteorder", "big", 3, 0}};
        zip_with(&z, e, 3);
        EXPECT("big endian", &z, RWKV_ENOTSUP, "big-endian");
        tb_free(&z);
        e[2].data = "middle", e[2].len = 6;
        zip_with(&z, e, 3);
        EXPECT("bad byteorder", &z, RWKV_EFORMAT, "byteorder");
        tb_free(&z);
        e[2].data = "little", e[2].len = 6;
        zip_with(&z, e, 3);
        EXPECT("byteorder little", &z, RWKV_OK, NULL);
        tb_free(&z);
        e[2].name = "a/version", e[2].data = "three", e[2].len = 5;
        zip_with(&z, e, 3);
        EXPECT("bad version record", &z, RWKV_EFORMAT, "version");
        tb_free(&z);
    }
    {
        tb_entry e[] = {{"a/data.pkl", pk.p, pk.n, 8}, {"a/data/0", f6, 24, 0}};
        zip_with(&z, e, 2);
        EXPECT("deflated data.pkl", &z, RWKV_ENOTSUP, "compressed");
        tb_free(&z);
    }
    {
        tb_entry e[] = {{"a/data.pkl", pk.p, pk.n, 0}, {"a/data/0", f6, 24, 0}};
        zip_with(&z, e, 2);
        z.p[64 + 5] ^= 0x20;                 /* flip a byte inside data.pkl */
        EXPECT("data.pkl CRC", &z, RWKV_EFORMAT, "CRC");
        tb_free(&z);
    }
    tb_free(&pk);
}

static void
test_storage_reconcile(void)
{
    static const struct { const char *descr, *cls; int64_t numel, off, n; size_t entry; int code; const char *sub; } c[] = {
        {"numel > entry", "FloatStorage", 7, 0, 6, 24, RWKV_EFORMAT, "declares 7 float32 elements but its entry has 24 bytes"},
        {"numel < entry", "FloatStorage", 5, 0, 5, 24, RWKV_EFORMAT, "declares 5"},
        {"dtype size mismatch", "DoubleStorage", 6, 0, 6, 24, RWKV_EFORMAT, "declares 6 float64"},
        {"numel overflow", "DoubleStorage", INT64_MAX, 0, 1, 24, RWKV_EFORMAT, "declares"},
        {"view beyond storage", "FloatStorage", 6, 4, 3, 24, RWKV_EFORMAT, "outside its storage"},
        {"int64 storage ok", "LongStorage", 3, 0, 3, 24, RWKV_OK, NULL},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        tb_buf pk = {0}, z = {0};
        pickle_one(&pk, c[i].cls, "0", c[i].numel, c[i].off, c[i].n);
        tb_entry e[] = {{"a/data.pkl", pk.p, pk.n, 0}, {"a/data/0", f6, c[i].entry, 0}};
        zip_with(&z, e, 2);
        EXPECT(c[i].descr, &z, c[i].code, c[i].sub);
        tb_free(&pk);
        tb_free(&z);
    }
    /* the same key with two dtypes */
    tb_buf pk = {0}, z = {0};
    int64_t sh[1] = {6}, st[1] = {1}, sh2[1] = {12};
    tb_proto(&pk);
    tb_op(&pk, '}');
    tb_op(&pk, '(');
    tb_unicode(&pk, "a");
    tb_tensor(&pk, "FloatStorage", "0", 6, 0, sh, st, 1);
    tb_unicode(&pk, "b");
    tb_tensor(&pk, "HalfStorage", "0", 12, 0, sh2, st, 1);
    tb_op(&pk, 'u');
    tb_op(&pk, '.');
    tb_entry e[] = {{"a/data.pkl", pk.p, pk.n, 0}, {"a/data/0", f6, 24, 0}};
    zip_with(&z, e, 2);
    EXPECT("one storage, two dtypes", &z, RWKV_EFORMAT, "different dtypes");
    tb_free(&pk);
    tb_free(&z);
}

static void
test_dict_shape(void)
{
    static const struct { const char *descr; const char *body; size_t n; int code; const char *sub; } c[] = {
        {"top level a list", B("]."), RWKV_EFORMAT, "holds a list"},
        {"top level an int", B("K\x01."), RWKV_EFORMAT, "holds a int"},
        {"int key", B("}K\x01K\x02s."), RWKV_EFORMAT, "key 0 is a int"},
        {"list value", B("}X\x01\x00\x00\x00x]s."), RWKV_EFORMAT, "value of 'x' is a list"},
        {"global value", B("}X\x01\x00\x00\x00xctorch\nFloatStorage\ns."), RWKV_EFORMAT, "value of 'x' is a global"},
        {"duplicate meta key", B("}(X\x01\x00\x00\x00xK\x01X\x01\x00\x00\x00xK\x02u."), RWKV_EFORMAT, "duplicate key 'x'"},
        {"self-referencing dict", B("}q\x00X\x01\x00\x00\x00xh\x00s."), RWKV_EFORMAT, "is a dict"},
        {"empty dict ok", B("}."), RWKV_OK, NULL},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        tb_buf pk = {0}, z = {0};
        tb_proto(&pk);
        tb_put(&pk, c[i].body, c[i].n);
        tb_entry e[] = {{"a/data.pkl", pk.p, pk.n, 0}};
        zip_with(&z, e, 1);
        EXPECT(c[i].descr, &z, c[i].code, c[i].sub);
        tb_free(&pk);
        tb_free(&z);
    }
    /* duplicate tensor names */
    tb_buf pk = {0}, z = {0};
    int64_t sh[1] = {6}, st[1] = {1};
    tb_proto(&pk);
    tb_op(&pk, '}');
    tb_op(&pk, '(');
    for (int k = 0; k < 2; k++) {
        tb_unicode(&pk, "w");
        tb_tensor(&pk, "FloatStorage", "0", 6, 0, sh, st, 1);
    }
    tb_op(&pk, 'u');
    tb_op(&pk, '.');
    tb_entry e[] = {{"a/data.pkl", pk.p, pk.n, 0}, {"a/data/0", f6, 24, 0}};
    zip_with(&z, e, 2);
    EXPECT("duplicate tensor name", &z, RWKV_EFORMAT, "duplicate tensor name 'w'");
    /* limits */
    ckpt_limits lim = {0};
    lim.max_tensors = 1;
    EXPECT_LIM("max_tensors", &z, &lim, RWKV_EFORMAT, "more than 1 tensors");
    memset(&lim, 0, sizeof lim);
    lim.max_pickle_bytes = 16;
    EXPECT_LIM("max_pickle_bytes", &z, &lim, RWKV_EFORMAT, "limit is 16");
    memset(&lim, 0, sizeof lim);
    lim.max_entries = 1;
    EXPECT_LIM("max_entries", &z, &lim, RWKV_EFORMAT, "limit is 1");
    memset(&lim, 0, sizeof lim);
    lim.max_memo = 1;
    lim.max_stack = 3;
    EXPECT_LIM("max_stack", &z, &lim, RWKV_EFORMAT, "stack too deep");
    memset(&lim, 0, sizeof lim);
    lim.max_marks = 1;
    EXPECT_LIM("max_marks", &z, &lim, RWKV_EFORMAT, "MARKs");
    tb_free(&pk);
    tb_free(&z);
}

/* Real fixtures cut short, or with bytes flipped in headers: errors, never crashes. */
static void
test_fixture_damage(void)
{
    char path[512];
    size_t n = 0;
    uint8_t *p = test_slurp(test_fixture_path(path, sizeof path, "states/state-7v0-A.pth"), &n);
    ckpt *ck;
    int accepted = 0, badmsg = 0, tried = 0;

    TEST_COND("read state-7v0-A.pth", p != NULL && n > 1000);
    if (p == NULL)
        return;
    /* every cut in the last 2 KiB (where the directory lives), and every 97th before */
    for (size_t cut = 0; cut < n; cut += cut + 2048 < n ? 97 : 1) {
        tried++;
        int rc = ckpt_open_mem(p, cut, "cut.pth", NULL, &ck, &err);
        if (rc == RWKV_OK) {
            accepted++;
            ckpt_close(ck);
        } else if (strncmp(err.msg, "cut.pth: ", 9) != 0 || strchr(err.msg, '\n')) {
            badmsg++;
        }
    }
    TEST_CONDF(accepted == 0 && badmsg == 0, "truncations (%d tried): %d accepted, %d bad messages",
               tried, accepted, badmsg);
    /* flip each byte of the first 2 KiB (headers + data.pkl) and the last 2 KiB */
    int crashes_would_show = 0;
    for (size_t i = 0; i < n; i += (i < 2048 || i + 2048 >= n) ? 1 : 4096) {
        uint8_t save = p[i];
        p[i] ^= 0x5a;
        if (ckpt_open_mem(p, n, "flip.pth", NULL, &ck, &err) == RWKV_OK)
            ckpt_close(ck);
        else if (strncmp(err.msg, "flip.pth: ", 10) != 0 || strchr(err.msg, '\n'))
            crashes_would_show++;
        p[i] = save;
    }
    TEST_CONDF(crashes_would_show == 0, "byte flips: %d bad messages", crashes_would_show);
    free(p);
}

/* Valid variants that real writers produce: torch 2.x extra records,
** storages shared by several views, decimal-pointer storage keys (torch 1.x). */
static void
test_valid_variants(void)
{
    tb_buf pk = {0}, z = {0};
    int64_t sh[1] = {2}, st[1] = {1};
    ckpt *ck;

    tb_proto(&pk);
    tb_op(&pk, '}');
    tb_op(&pk, '(');
    tb_unicode(&pk, "lo");
    tb_tensor(&pk, "FloatStorage", "140310931862528", 6, 0, sh, st, 1);
    tb_unicode(&pk, "hi");
    tb_tensor(&pk, "FloatStorage", "140310931862528", 6, 4, sh, st, 1);
    tb_op(&pk, 'u');
    tb_op(&pk, '.');
    tb_entry e[] = {{"RWKV-x060-World-1B6-v2.1/data.pkl", pk.p, pk.n, 0},
                    {"RWKV-x060-World-1B6-v2.1/.format_version", "1", 1, 0},
                    {"RWKV-x060-World-1B6-v2.1/.storage_alignment", "64", 2, 0},
                    {"RWKV-x060-World-1B6-v2.1/byteorder", "little", 6, 0},
                    {"RWKV-x060-World-1B6-v2.1/data/140310931862528", f6, 24, 0},
                    {"RWKV-x060-World-1B6-v2.1/version", "3\n", 2, 0},
                    {"RWKV-x060-World-1B6-v2.1/.data/serialization_id", "1234567890123456789012345678901234567890", 40, 0}};
    zip_with(&z, e, 7);
    int rc = ckpt_open_mem(z.p, z.n, "bad.pth", NULL, &ck, &err);
    TEST_CONDF(rc == RWKV_OK, "torch 2.x layout, shared storage: %s", err.msg);
    if (rc == RWKV_OK) {
        const ckpt_tensor *lo = ckpt_find(ck, "lo"), *hi = ckpt_find(ck, "hi");
        float v[2];
        TEST_COND("shared storage views", lo && hi && (const uint8_t *)hi->data - (const uint8_t *)lo->data == 16 &&
                                          ckpt_to_f32(hi, v, 2, &err) == RWKV_OK && v[0] == 5 && v[1] == 6);
        ckpt_close(ck);
    }
    tb_free(&pk);
    tb_free(&z);
}

int
main(void)
{
    test_valid_variants();
    test_layout();
    test_storage_reconcile();
    test_dict_shape();
    if (test_have_fixture("states/state-7v0-A.pth", 3))
        test_fixture_damage();
    return TEST_REPORT();
}
