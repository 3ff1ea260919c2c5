/*
** test_zipr.c -- the ZIP/ZIP64 reader on archives built byte by byte:
** valid stored archives (classic and ZIP64), and every structural attack
** from pth_format.md section 6.4 A (each must give one clean error line).
*/
#include <stdint.h>

#include "../../core/io/ckpt.h"
#include "../../core/io/ckpt_verify.h"
#include "../../core/io/ckpt_write.h"
#include "../../core/io/zipr.h"
#include "../harness.h"
#include "test_ckpt_build.h"

/* rc == want, message names the file, is one line and contains SUB. */
static int
err_is(int rc, int want, const rwkv_err *err, const char *sub)
{
    if (rc != want) {
        printf("     got rc %d (%s), want %d\n", rc, err->msg, want);
        return 0;
    }
    if (strncmp(err->msg, "z.zip: ", 7) != 0 || strchr(err->msg, '\n') != NULL ||
        (sub && strstr(err->msg, sub) == NULL)) {
        printf("     message: %s\n", err->msg);
        return 0;
    }
    return 1;
}

static int
zopen(const tb_buf *b, zipr **z, rwkv_err *err)
{
    return zipr_open(b->p, b->n, "z.zip", 0, z, err);
}

static const char pay_a[] = "hello, world";
static const char pay_b[] = "0123456789abcdef0123456789abcdef";

static void
build_two(tb_buf *b, const tb_zipopt *opt, tb_zipinfo *info)
{
    tb_entry e[2] = {{"dir/a", pay_a, sizeof pay_a - 1, 0}, {"dir/data/b", pay_b, sizeof pay_b - 1, 0}};
    tb_zip(b, e, 2, opt, info);
}

static void
test_valid(void)
{
    for (int mode = 0; mode < 4; mode++) {
        tb_zipopt opt = {mode & 1 ? 64 : 0, 0, mode >= 2, mode == 3};
        tb_buf b = {0};
        zipr *z;
        rwkv_err err;
        build_two(&b, &opt, NULL);
        int rc = zopen(&b, &z, &err);
        TEST_CONDF(rc == RWKV_OK, "valid zip mode %d: %s", mode, err.msg);
        if (rc == RWKV_OK) {
            const zipr_entry *a = zipr_find(z, "dir/a"), *c = zipr_find(z, "dir/data/b");
            TEST_CONDF(zipr_count(z) == 2 && a && c && zipr_at(z, 0) == a && zipr_at(z, 2) == NULL,
                       "mode %d: entries", mode);
            TEST_CONDF(a && a->size == 12 && memcmp(b.p + a->data_off, pay_a, 12) == 0,
                       "mode %d: entry a data", mode);
            TEST_CONDF(c && c->size == 32 && memcmp(b.p + c->data_off, pay_b, 32) == 0 &&
                       (!(mode & 1) || c->data_off % 64 == 0), "mode %d: entry b data/alignment", mode);
            TEST_CONDF(a && a->crc32 == zipr_crc32(0, pay_a, 12) && zipr_crc32(0, "123456789", 9) == 0xcbf43926u,
                       "mode %d: crc", mode);
            TEST_COND("find absent", zipr_find(z, "dir/zzz") == NULL && zipr_find(z, "") == NULL);
            zipr_close(z);
        }
        tb_free(&b);
    }
    /* an EOCD signature inside the archive comment does not confuse the scan */
    {
        tb_buf b = {0};
        zipr *z;
        rwkv_err err;
        build_two(&b, NULL, NULL);
        tb_set16(&b, b.n - 2, 26);
        tb_u32(&b, 0x06054b50u);
        tb_str(&b, "fake eocd in comment");
        tb_u16(&b, 0);
        TEST_COND("comment with fake EOCD", zopen(&b, &z, &err) == RWKV_OK && zipr_count(z) == 2);
        zipr_close(z);
        tb_free(&b);
    }
}

static void
test_truncated(void)
{
    tb_buf b = {0};
    tb_zipopt opt = {64, 0, 1, 0};
    zipr *z;
    rwkv_err err;
    int bad = 0;

    build_two(&b, &opt, NULL);
    for (size_t n = 0; n < b.n; n++) {
        int rc = zipr_open(b.p, n, "z.zip", 0, &z, &err);
        if (rc == RWKV_OK || z != NULL || strncmp(err.msg, "z.zip: ", 7) != 0)
            bad++;
    }
    TEST_CONDF(bad == 0, "truncations: %d accepted or badly reported", bad);
    TEST_COND("not a zip", err_is(zipr_open("just some text, no zip here", 27, "z.zip", 0, &z, &err),
                                  RWKV_EFORMAT, &err, "not a zip"));
    tb_free(&b);
}

/* Build, corrupt with FN, expect an error. */
typedef void (*corrupt_fn)(tb_buf *b, const tb_zipinfo *info);

static void
expect_bad(const char *what, const tb_zipopt *opt, corrupt_fn fn, int want, const char *sub)
{
    tb_buf b = {0};
    tb_zipinfo info;
    zipr *z = (zipr *)1;
    rwkv_err err;

    build_two(&b, opt, &info);
    fn(&b, &info);
    int rc = zopen(&b, &z, &err);
    TEST_CONDF(err_is(rc, want, &err, sub) && z == NULL, "%s", what);
    if (rc == RWKV_OK)
        zipr_close(z);
    tb_free(&b);
}

static void c_cd_outside(tb_buf *b, const tb_zipinfo *i) { tb_set32(b, i->eocd + 16, 0x7fffff00u); }
static void c_cd_size(tb_buf *b, const tb_zipinfo *i) { tb_set32(b, i->eocd + 12, 0x7fffff00u); }
static void c_count_huge(tb_buf *b, const tb_zipinfo *i) { tb_set16(b, i->eocd + 8, 0xfff0); tb_set16(b, i->eocd + 10, 0xfff0); }
static void c_method(tb_buf *b, const tb_zipinfo *i) { tb_set16(b, i->central[1] + 10, 8); }
static void c_encrypted(tb_buf *b, const tb_zipinfo *i) { tb_set16(b, i->central[0] + 8, 0x0809); }
static void c_csize(tb_buf *b, const tb_zipinfo *i) { tb_set32(b, i->central[0] + 20, 5); }
static void c_local_sig(tb_buf *b, const tb_zipinfo *i) { tb_set32(b, i->lho[1], 0x12345678u); }
static void c_local_name(tb_buf *b, const tb_zipinfo *i) { b->p[i->lho[0] + 30] = 'X'; }
static void c_lho_outside(tb_buf *b, const tb_zipinfo *i) { tb_set32(b, i->central[1] + 42, 0x7ffffff0u); }
static void c_data_past_cd(tb_buf *b, const tb_zipinfo *i) { tb_set32(b, i->central[1] + 20, 4000); tb_set32(b, i->central[1] + 24, 4000); }
static void c_overlap(tb_buf *b, const tb_zipinfo *i) { tb_set32(b, i->central[0] + 20, 40); tb_set32(b, i->central[0] + 24, 40); }
static void c_dup(tb_buf *b, const tb_zipinfo *i) { memcpy(b->p + i->central[1] + 46, "dir/a\0\0\0\0\0", 10); tb_set16(b, i->central[1] + 28, 5); memcpy(b->p + i->lho[1] + 30, "dir/a", 5); tb_set16(b, i->lho[1] + 26, 5);
    /* shorten the name in place: the freed bytes become (ignored) comment */
    tb_set16(b, i->central[1] + 32, 5); tb_set16(b, i->lho[1] + 28, (unsigned)(b->p[i->lho[1] + 28] | (b->p[i->lho[1] + 29] << 8)) + 5); }
static void c_name_dotdot(tb_buf *b, const tb_zipinfo *i) { memcpy(b->p + i->central[0] + 46, "../a_", 5); }
static void c_name_abs(tb_buf *b, const tb_zipinfo *i) { b->p[i->central[0] + 46] = '/'; }
static void c_name_bslash(tb_buf *b, const tb_zipinfo *i) { b->p[i->central[0] + 49] = '\\'; }
static void c_name_nul(tb_buf *b, const tb_zipinfo *i) { b->p[i->central[0] + 48] = 0; }
static void c_name_empty(tb_buf *b, const tb_zipinfo *i) { tb_set16(b, i->central[0] + 28, 0); tb_set16(b, i->central[0] + 32, 5); }
static void c_name_long(tb_buf *b, const tb_zipinfo *i) { tb_set16(b, i->central[0] + 28, 0xffff); }
static void c_extra_overrun(tb_buf *b, const tb_zipinfo *i) { tb_set16(b, i->central[1] + 30, 3); tb_set16(b, i->central[1] + 28, 7); }
static void c_eocd_comment(tb_buf *b, const tb_zipinfo *i) { tb_set16(b, i->eocd + 20, 100); }
static void c_multidisk(tb_buf *b, const tb_zipinfo *i) { tb_set16(b, i->eocd + 4, 1); }
/* ZIP64 variants (built with zip64 = 1) */
static void c_loc_outside(tb_buf *b, const tb_zipinfo *i) { tb_set64(b, i->loc64 + 8, 0x7fffffffffull); }
static void c_eocd64_sig(tb_buf *b, const tb_zipinfo *i) { tb_set32(b, i->eocd64, 0x06064b51u); }
static void c_eocd64_disk(tb_buf *b, const tb_zipinfo *i) { tb_set32(b, i->eocd64 + 16, 3); }
static void c_eocd64_cd(tb_buf *b, const tb_zipinfo *i) { tb_set64(b, i->eocd64 + 48, 1ull << 40); }
static void c_eocd64_count(tb_buf *b, const tb_zipinfo *i) { tb_set64(b, i->eocd64 + 24, 1ull << 40); tb_set64(b, i->eocd64 + 32, 1ull << 40); }
static void c_classic_disagree(tb_buf *b, const tb_zipinfo *i) { tb_set16(b, i->eocd + 10, 7); }
/* ZIP64 extra fields (built with zip64_fields = 1) */
static void c_x64_short(tb_buf *b, const tb_zipinfo *i) { tb_set16(b, i->central[0] + 46 + 5 + 2, 16); }
static void c_x64_missing(tb_buf *b, const tb_zipinfo *i) { tb_set16(b, i->central[0] + 46 + 5, 0x9999); }
static void c_x64_lho(tb_buf *b, const tb_zipinfo *i) { tb_set64(b, i->central[1] + 46 + 10 + 4 + 16, 0xffffffff0ull); }
static void c_x64_size(tb_buf *b, const tb_zipinfo *i) { tb_set64(b, i->central[1] + 46 + 10 + 4, 1ull << 62); tb_set64(b, i->central[1] + 46 + 10 + 12, 1ull << 62); }

static void
test_attacks(void)
{
    tb_zipopt z64 = {64, 0, 1, 0}, x64 = {64, 0, 1, 1};

    expect_bad("CD offset outside the file", NULL, c_cd_outside, RWKV_EFORMAT, "outside");
    expect_bad("CD size outside the file", NULL, c_cd_size, RWKV_EFORMAT, "outside");
    expect_bad("entry count > CD capacity", NULL, c_count_huge, RWKV_EFORMAT, "entries");
    expect_bad("deflate entry refused", NULL, c_method, RWKV_ENOTSUP, "compressed");
    expect_bad("encrypted entry refused", NULL, c_encrypted, RWKV_ENOTSUP, "encrypted");
    expect_bad("csize != usize", NULL, c_csize, RWKV_EFORMAT, "compressed size");
    expect_bad("bad local header signature", NULL, c_local_sig, RWKV_EFORMAT, "local header");
    expect_bad("local name != central name", NULL, c_local_name, RWKV_EFORMAT, "local header");
    expect_bad("local header offset outside", NULL, c_lho_outside, RWKV_EFORMAT, "local header");
    expect_bad("data past the CD", NULL, c_data_past_cd, RWKV_EFORMAT, "runs past");
    expect_bad("overlapping entries", NULL, c_overlap, RWKV_EFORMAT, "overlap");
    expect_bad("duplicate names", NULL, c_dup, RWKV_EFORMAT, "duplicate");
    expect_bad("name with ..", NULL, c_name_dotdot, RWKV_EFORMAT, "'..'");
    expect_bad("absolute name", NULL, c_name_abs, RWKV_EFORMAT, "absolute");
    expect_bad("backslash name", NULL, c_name_bslash, RWKV_EFORMAT, "backslash");
    expect_bad("NUL in name", NULL, c_name_nul, RWKV_EFORMAT, "NUL");
    expect_bad("empty name", NULL, c_name_empty, RWKV_EFORMAT, "empty name");
    expect_bad("name length past CD", NULL, c_name_long, RWKV_EFORMAT, "runs past");
    expect_bad("extra field overrun", NULL, c_extra_overrun, RWKV_EFORMAT, "extra field");
    expect_bad("EOCD comment past EOF", NULL, c_eocd_comment, RWKV_EFORMAT, "end-of-central");
    expect_bad("multi-disk", NULL, c_multidisk, RWKV_EFORMAT, "multi-disk");
    expect_bad("zip64 locator outside", &z64, c_loc_outside, RWKV_EFORMAT, "zip64 end record");
    expect_bad("zip64 record bad signature", &z64, c_eocd64_sig, RWKV_EFORMAT, "signature");
    expect_bad("zip64 disk numbers", &z64, c_eocd64_disk, RWKV_EFORMAT, "multi-disk");
    expect_bad("zip64 CD offset huge", &z64, c_eocd64_cd, RWKV_EFORMAT, "outside");
    expect_bad("zip64 count huge", &z64, c_eocd64_count, RWKV_EFORMAT, "entries");
    expect_bad("classic EOCD disagrees with zip64", &z64, c_classic_disagree, RWKV_EFORMAT, "disagrees");
    expect_bad("zip64 extra too short", &x64, c_x64_short, RWKV_EFORMAT, "missing sizes");
    expect_bad("zip64 extra absent", &x64, c_x64_missing, RWKV_EFORMAT, "missing");
    expect_bad("zip64 local offset outside", &x64, c_x64_lho, RWKV_EFORMAT, "local header");
    expect_bad("zip64 size 2^62", &x64, c_x64_size, RWKV_EFORMAT, "runs past");

    /* entry cap */
    {
        tb_buf b = {0};
        zipr *z;
        rwkv_err err;
        build_two(&b, NULL, NULL);
        TEST_COND("max_entries", err_is(zipr_open(b.p, b.n, "z.zip", 1, &z, &err), RWKV_EFORMAT, &err, "limit"));
        tb_free(&b);
    }
    /* duplicate zip64 extra */
    {
        tb_buf b = {0};
        tb_entry e[1] = {{"d/a", pay_a, 12, 0}};
        zipr *z;
        rwkv_err err;
        tb_zipinfo info;
        tb_zip(&b, e, 1, &(tb_zipopt){0, 0, 0, 0}, &info);
        /* rebuild the central entry by hand with two 0x0001 fields */
        tb_buf c = {0};
        tb_put(&c, b.p, info.cd_ofs);
        tb_put(&c, b.p + info.central[0], 28);
        tb_u16(&c, 3);
        tb_u16(&c, 24);
        tb_u16(&c, 0); tb_u16(&c, 0); tb_u16(&c, 0); tb_u32(&c, 0); tb_u32(&c, 0);
        tb_str(&c, "d/a");
        for (int k = 0; k < 2; k++) {
            tb_u16(&c, 1);
            tb_u16(&c, 8);
            tb_u64(&c, 12);
        }
        size_t cd_size = c.n - info.cd_ofs;
        tb_u32(&c, 0x06054b50u); tb_u16(&c, 0); tb_u16(&c, 0); tb_u16(&c, 1); tb_u16(&c, 1);
        tb_u32(&c, (uint32_t)cd_size); tb_u32(&c, (uint32_t)info.cd_ofs); tb_u16(&c, 0);
        TEST_COND("duplicate zip64 extra", err_is(zopen(&c, &z, &err), RWKV_EFORMAT, &err, "duplicate zip64"));
        tb_free(&b);
        tb_free(&c);
    }
}

/* A large-offset ZIP64 archive without writing gigabytes: the local header
** offsets are > 4 GiB only in the sense of the 0xFFFFFFFF + extra encoding;
** check that the 64-bit values from the extra field are the ones used. */
static void
test_zip64_values(void)
{
    tb_buf b = {0};
    tb_zipinfo info;
    tb_zipopt x64 = {64, 0, 1, 1};
    zipr *z;
    rwkv_err err;

    build_two(&b, &x64, &info);
    TEST_COND("zip64 marker fields", b.p[info.central[1] + 20] == 0xff && b.p[info.central[1] + 42] == 0xff &&
                                     b.p[info.eocd + 16] == 0xff);
    int rc = zopen(&b, &z, &err);
    TEST_CONDF(rc == RWKV_OK, "zip64 extra fields: %s", err.msg);
    if (rc == RWKV_OK) {
        const zipr_entry *c = zipr_find(z, "dir/data/b");
        TEST_COND("zip64 entry b", c && c->size == 32 && c->data_off == info.data[1] &&
                                   memcmp(b.p + c->data_off, pay_b, 32) == 0);
        zipr_close(z);
    }
    tb_free(&b);
}

/* The whole loader on ZIP64-encoded torch archives. */
static void
test_ckpt_zip64(void)
{
    float s[4] = {1, 2, 3, 4};
    tb_tensor_spec t[] = {{"w", "FloatStorage", 4, s, 4, 0, 2, {2, 2}, {2, 1}}};
    tb_zipopt x64 = {64, 0, 1, 1};
    tb_buf pk = {0}, z = {0};
    ckpt *ck;
    rwkv_err err;
    float v[4];

    tb_state_pickle(&pk, t, 1, 0);
    tb_torch_zip(&z, "archive", &pk, t, 1, &x64, NULL);
    int rc = ckpt_open_mem(z.p, z.n, "z64.pth", NULL, &ck, &err);
    TEST_CONDF(rc == RWKV_OK, "ckpt zip64: %s", err.msg);
    if (rc == RWKV_OK) {
        TEST_COND("ckpt zip64 values", ckpt_find(ck, "w") && ckpt_to_f32(ckpt_find(ck, "w"), v, 4, &err) == 0 &&
                                       v[0] == 1 && v[3] == 4);
        ckpt_close(ck);
    }
    tb_free(&pk);
    tb_free(&z);
}

/* CRC-32 known answers, and parts combined equal the whole. */
static void
test_crc(void)
{
    static unsigned char buf[100003];
    uint32_t whole;

    TEST_COND("crc32('123456789') = cbf43926", zipr_crc32(0, "123456789", 9) == 0xcbf43926u);
    TEST_COND("crc32('') = 0", zipr_crc32(0, "", 0) == 0);
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i * 2654435761u >> 13);
    whole = zipr_crc32(0, buf, sizeof buf);
    TEST_COND("crc32 continued = whole",
              zipr_crc32(zipr_crc32(0, buf, 777), buf + 777, sizeof buf - 777) == whole);
    TEST_COND("crc32: the table-driven version agrees", zipr_crc32_portable(0, buf, sizeof buf) == whole &&
              zipr_crc32_portable(0, "123456789", 9) == 0xcbf43926u);
    {
        /* every length and alignment around the folding's thresholds, from
         * any starting CRC: the carry-less version equals the table */
        int bad = 0;
        for (size_t len = 0; len < 1100; len++)
            for (size_t off = 0; off < 4; off++) {
                uint32_t c0 = (uint32_t)(len * 2654435761u + off);
                if (zipr_crc32(c0, buf + off, len) != zipr_crc32_portable(c0, buf + off, len))
                    bad++;
            }
        for (size_t len = sizeof buf - 200; len + 3 <= sizeof buf; len += 7)
            if (zipr_crc32(1, buf + 3, len) != zipr_crc32_portable(1, buf + 3, len))
                bad++;
        TEST_CONDF(bad == 0, "crc32: %d lengths/alignments where the two versions differ", bad);
    }
    for (size_t cut = 0; cut <= sizeof buf; cut += 9973)
        TEST_CONDF(ckw_crc32_combine(zipr_crc32(0, buf, cut), zipr_crc32(0, buf + cut, sizeof buf - cut),
                                     sizeof buf - cut) == whole, "combine at %zu", cut);
}

/* The checksums a .pth carries (core/io/ckpt_verify.c): a large entry is
** checked only when asked (split over a pool: parts combined), a small one
** at open; damage is named by tensor; the digest follows the CRC-32s. */
static void
test_verify(void)
{
    char path[512];
    const size_t big_n = (6u << 20) / 4 + 3;   /* 6 MiB + 12 bytes of float32: parallel path */
    float *big = malloc(big_n * sizeof *big), small[64];
    int64_t big_shape[1] = { (int64_t)big_n }, small_shape[1] = { 64 };
    ckw *w;
    ckpt *ck = NULL;
    tpool *pool = NULL;
    rwkv_err err;
    uint64_t digest = 0, nchk = 0;
    unsigned char *file = NULL;
    size_t n = 0, big_off = 0, small_off = 0;
    FILE *f;
    int rc;

    if (big == NULL || test_tmpdir("rwkv-zipr") == NULL || tpool_create(4, &pool, &err) != RWKV_OK) {
        TEST_COND("verify: setup", 0);
        free(big);
        return;
    }
    for (size_t i = 0; i < big_n; i++)
        big[i] = (float)(i % 1000) * 0.5f;
    for (int i = 0; i < 64; i++)
        small[i] = (float)i;
    test_tmp_path(path, sizeof path, "v.pth");
    TEST_COND("verify: write", ckw_create(path, NULL, &w, &err) == RWKV_OK &&
              ckw_tensor(w, "blocks.0.big.weight", CK_F32, 1, big_shape, big, &err) == RWKV_OK &&
              ckw_tensor(w, "blocks.0.small", CK_F32, 1, small_shape, small, &err) == RWKV_OK &&
              ckw_finish(w, NULL, &err) == RWKV_OK);
    rc = ckpt_open(path, NULL, &ck, &err);
    TEST_CONDF(rc == RWKV_OK, "verify: open: %s", err.msg);
    if (rc == RWKV_OK) {
        digest = ckpt_crc_digest(ck);
        TEST_COND("verify: a .pth has a checksum digest", digest != 0);
        TEST_COND("verify: good tensor, pool", ckpt_check_tensor(ck, ckpt_find(ck, "blocks.0.big.weight"), pool,
                                                                &err) == RWKV_OK);
        TEST_COND("verify: good file", ckpt_verify(ck, NULL, &err) == RWKV_OK);
        TEST_COND("verify: NULL ckpt", ckpt_check_tensor(NULL, NULL, pool, &err) == RWKV_OK &&
                  ckpt_crc_digest(NULL) == 0);
        ckpt_close(ck);
        ck = NULL;
    }
    TEST_COND("verify: file", ckpt_verify_file(path, 2, &nchk, &err) == RWKV_OK && nchk >= 4);
    /* find the two tensors' bytes in the file (their values are known) */
    file = test_slurp(path, &n);
    for (size_t i = 0; i + 256 <= n; i += 64) {
        if (big_off == 0 && memcmp(file + i, big, 256) == 0)
            big_off = i;
        if (small_off == 0 && memcmp(file + i, small, 256) == 0)
            small_off = i;
    }
    TEST_COND("verify: tensors found in the file", big_off != 0 && small_off != 0);
    if (big_off != 0 && small_off != 0) {
        char ppath[512];
        rwkv_err e1, e2;
        /* damage in the big entry, far into it (the last part of a split) */
        file[big_off + big_n * 4 - 5] ^= 0x40;
        test_tmp_path(ppath, sizeof ppath, "big.pth");
        f = fopen(ppath, "wb");
        TEST_COND("verify: write damaged copy", f && fwrite(file, 1, n, f) == n && fclose(f) == 0);
        rc = ckpt_open(ppath, NULL, &ck, &err);
        TEST_CONDF(rc == RWKV_OK, "a damaged large entry is not read at open: %s", err.msg);
        if (rc == RWKV_OK) {
            TEST_COND("verify: same digest (the CRC was not fixed)", ckpt_crc_digest(ck) == digest);
            rc = ckpt_check_tensor(ck, ckpt_find(ck, "blocks.0.big.weight"), pool, &e1);
            TEST_CONDF(rc == RWKV_EFORMAT && strstr(e1.msg, "big.pth: blocks.0.big.weight: checksum mismatch (CRC-32 ") &&
                       strstr(e1.msg, "): the file is damaged"), "damaged large tensor: '%s'", e1.msg);
            TEST_COND("verify: the small tensor is fine",
                      ckpt_check_tensor(ck, ckpt_find(ck, "blocks.0.small"), NULL, &err) == RWKV_OK);
            ckpt_close(ck);
            ck = NULL;
        }
        /* the same answer on one thread (the parts' CRCs combine exactly) */
        rc = ckpt_verify_file(ppath, 1, NULL, &e2);
        TEST_CONDF(rc == RWKV_EFORMAT && strcmp(e1.msg, e2.msg) == 0, "one thread: '%s' vs '%s'", e2.msg,
                   e1.msg);
        file[big_off + big_n * 4 - 5] ^= 0x40;
        /* damage in the small entry: refused at open */
        file[small_off + 17] ^= 0x01;
        test_tmp_path(ppath, sizeof ppath, "small.pth");
        f = fopen(ppath, "wb");
        TEST_COND("verify: write damaged copy 2", f && fwrite(file, 1, n, f) == n && fclose(f) == 0);
        rc = ckpt_open(ppath, NULL, &ck, &err);
        TEST_CONDF(rc == RWKV_EFORMAT && strstr(err.msg, "small.pth: blocks.0.small: checksum mismatch") &&
                   ck == NULL, "damaged small entry at open: rc %d '%s'", rc, err.msg);
        ckpt_close(ck);
        ck = NULL;
        /* memory buffers are the caller's: no check at open */
        rc = ckpt_open_mem(file, n, "mem", NULL, &ck, &err);
        TEST_CONDF(rc == RWKV_OK && ckpt_verify(ck, pool, &err) == RWKV_EFORMAT, "memory: rc %d", rc);
        ckpt_close(ck);
        ck = NULL;
    }
    free(file);
    free(big);
    tpool_destroy(pool);
    test_tmpdir_remove();
}

int
main(void)
{
    test_crc();
    test_verify();
    test_valid();
    test_truncated();
    test_attacks();
    test_zip64_values();
    test_ckpt_zip64();
    return TEST_REPORT();
}
