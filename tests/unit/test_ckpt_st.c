/*
** test_ckpt_st.c -- safetensors: a valid small file built in memory (header
** JSON + data) read back with the right names, shapes, dtypes and values;
** bad headers (length beyond the file, over the cap, offsets overlapping,
** leaving holes or outside the buffer, bad dtypes, shape/size mismatches).
*/
#include <stdint.h>

#include "../../core/io/ckpt.h"
#include "../harness.h"
#include "test_ckpt_build.h"

static rwkv_err err;

/* Build a safetensors file into B (owned by the caller, who frees it after
** closing the ckpt that borrows it) and open it. */
static int
open_st(tb_buf *b, const char *header, const void *data, size_t len, ckpt **out)
{
    ckpt *ck = (ckpt *)1;
    int rc;

    b->n = 0;
    tb_safetensors(b, header, data, len);
    rc = ckpt_open_mem(b->p, b->n, "m.safetensors", NULL, &ck, &err);
    if (rc != RWKV_OK && ck != NULL)
        rc = -1;
    if (rc == RWKV_OK && out != NULL)
        *out = ck;
    else if (rc == RWKV_OK)
        ckpt_close(ck);
    return rc;
}

static int
msg_ok(const char *sub)
{
    int ok = strncmp(err.msg, "m.safetensors: ", 15) == 0 && strchr(err.msg, '\n') == NULL &&
             (sub == NULL || strstr(err.msg, sub) != NULL);
    if (!ok)
        printf("     message: %s\n", err.msg);
    return ok;
}

static void
test_valid(void)
{
    uint8_t data[32];
    float a[4] = {1.5f, -2, 3, 4};
    uint16_t b3[3] = {0x3f80, 0xc000, 0x4040};   /* bf16 1, -2, 3 */
    uint16_t h = 0x3800;                          /* fp16 0.5 */
    ckpt *ck;
    tb_buf fb = {0};

    memcpy(data, a, 16);
    memcpy(data + 16, b3, 6);
    memcpy(data + 22, &h, 2);
    const char *hdr = "{\"__metadata__\":{\"format\":\"pt\"},"
                      "\"a\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]},"
                      "\"b\":{\"dtype\":\"BF16\",\"shape\":[3],\"data_offsets\":[16,22]},"
                      "\"c\":{\"shape\":[],\"dtype\":\"F16\",\"data_offsets\":[22,24]},"
                      "\"e\":{\"dtype\":\"I64\",\"shape\":[0,4],\"data_offsets\":[24,24]}}";
    int rc = open_st(&fb, hdr, data, 24, &ck);
    TEST_CONDF(rc == RWKV_OK, "valid safetensors: %s", err.msg);
    if (rc != RWKV_OK) {
        tb_free(&fb);
        return;
    }
    float v[4];
    const char *s;
    const ckpt_tensor *t = ckpt_find(ck, "a");
    TEST_COND("format", strcmp(ckpt_format(ck), "safetensors") == 0 && ckpt_count(ck) == 4);
    TEST_COND("a", t && t->dtype == CK_F32 && t->ndim == 2 && t->shape[0] == 2 && t->shape[1] == 2 &&
                   t->contiguous && t->stride[0] == 2 && t->stride[1] == 1 &&
                   ckpt_to_f32(t, v, 4, &err) == RWKV_OK && v[0] == 1.5f && v[1] == -2 && v[3] == 4);
    t = ckpt_find(ck, "b");
    TEST_COND("b", t && t->dtype == CK_BF16 && ckpt_to_f32(t, v, 3, &err) == RWKV_OK &&
                   v[0] == 1 && v[1] == -2 && v[2] == 3);
    t = ckpt_find(ck, "c");
    TEST_COND("c 0-d f16", t && t->ndim == 0 && t->numel == 1 && ckpt_to_f32(t, v, 1, &err) == RWKV_OK &&
                           v[0] == 0.5f);
    t = ckpt_find(ck, "e");
    TEST_COND("e empty int", t && t->numel == 0 && t->dtype == CK_I64 &&
                             ckpt_to_f32(t, v, 0, &err) == RWKV_ESHAPE);
    TEST_COND("file order", strcmp(ckpt_at(ck, 0)->name, "a") == 0 && strcmp(ckpt_at(ck, 3)->name, "e") == 0);
    TEST_COND("metadata", ckpt_meta_str(ck, "format", &s) == RWKV_OK && strcmp(s, "pt") == 0);
    ckpt_close(ck);

    /* misaligned F32 (after a 2-byte I8 tensor): copied, values intact */
    uint8_t d2[18] = {7, 8};
    memcpy(d2 + 2, a, 16);
    rc = open_st(&fb, "{\"x\":{\"dtype\":\"I8\",\"shape\":[2],\"data_offsets\":[0,2]},"
                 "\"y\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[2,18]}}", d2, 18, &ck);
    TEST_CONDF(rc == RWKV_OK, "misaligned safetensors: %s", err.msg);
    if (rc == RWKV_OK) {
        t = ckpt_find(ck, "y");
        TEST_COND("misaligned copy", t && (uintptr_t)t->data % 4 == 0 &&
                                     ckpt_to_f32(t, v, 4, &err) == RWKV_OK && v[0] == 1.5f && v[3] == 4);
        ckpt_close(ck);
    }
    tb_free(&fb);
}

static void
test_bad(void)
{
    static const uint8_t z[64];
    static const struct { const char *descr, *hdr; size_t data; int code; const char *sub; } c[] = {
        {"overlap", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                    "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12, RWKV_EFORMAT, "overlap"},
        {"same bytes twice", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                    "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, RWKV_EFORMAT, "overlap"},
        {"hole", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12, RWKV_EFORMAT, "hole"},
        {"outside the buffer", "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 8, RWKV_EFORMAT, "data section has 8"},
        {"trailing bytes", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 12, RWKV_EFORMAT, "data section has 12"},
        {"huge offsets", "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[9007199254740000,9007199254740001]}}", 1, RWKV_EFORMAT, "starts at"},
        {"size mismatch", "{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8, RWKV_EFORMAT, "need 12"},
        {"unknown dtype", "{\"a\":{\"dtype\":\"F33\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, RWKV_EFORMAT, "unknown dtype 'F33'"},
        {"unsupported dtype", "{\"a\":{\"dtype\":\"F8_E4M3\",\"shape\":[8],\"data_offsets\":[0,8]}}", 8, RWKV_ENOTSUP, "not supported"},
        {"dtype not a string", "{\"a\":{\"dtype\":4,\"shape\":[2],\"data_offsets\":[0,8]}}", 8, RWKV_EFORMAT, "needs dtype"},
        {"negative shape", "{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", 8, RWKV_EFORMAT, "shape"},
        {"float shape", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2.0],\"data_offsets\":[0,8]}}", 8, RWKV_EFORMAT, "shape"},
        {"shape overflow", "{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,4],\"data_offsets\":[0,8]}}", 8, RWKV_EFORMAT, "overflow"},
        {"9 dims", "{\"a\":{\"dtype\":\"U8\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,1]}}", 1, RWKV_EFORMAT, "dimensions"},
        {"end < begin", "{\"a\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,0]}}", 8, RWKV_EFORMAT, "data_offsets"},
        {"offsets not two", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0]}}", 8, RWKV_EFORMAT, "data_offsets"},
        {"extra field", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"x\":1}}", 8, RWKV_EFORMAT, "unexpected"},
        {"entry not an object", "{\"a\":[1,2]}", 0, RWKV_EFORMAT, "not an object"},
        {"duplicate names", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                            "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8, RWKV_EFORMAT, "duplicate"},
        {"metadata not strings", "{\"__metadata__\":{\"n\":1}}", 0, RWKV_EFORMAT, "not a string"},
        {"metadata not an object", "{\"__metadata__\":[]}", 0, RWKV_EFORMAT, "not an object"},
        {"invalid JSON", "{\"a\":", 0, RWKV_EFORMAT, "JSON"},
        {"trailing JSON garbage", "{} x", 0, RWKV_EFORMAT, "JSON"},
        {"empty object ok", "{}", 0, RWKV_OK, NULL},
        {"zero-size tensor with huge dims", "{\"a\":{\"dtype\":\"F32\",\"shape\":[0,4294967296,4294967296,4],\"data_offsets\":[0,0]}}", 0, RWKV_OK, NULL},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        tb_buf fb = {0};
        int rc = open_st(&fb, c[i].hdr, z, c[i].data, NULL);
        tb_free(&fb);
        TEST_CONDF(rc == c[i].code && (rc == RWKV_OK || msg_ok(c[i].sub)), "%s: rc %d (%s)",
                   c[i].descr, rc, err.msg);
    }

    /* header length beyond the file, and over the cap */
    tb_buf b = {0};
    ckpt *ck = (ckpt *)1;
    tb_u64(&b, 1000);
    tb_str(&b, "{}      ");
    TEST_COND("header length beyond file", ckpt_open_mem(b.p, b.n, "m.safetensors", NULL, &ck, &err) ==
                                               RWKV_EFORMAT && ck == NULL && msg_ok("past the end"));
    tb_set64(&b, 0, 200000000ull);
    TEST_COND("header over the cap", ckpt_open_mem(b.p, b.n, "m.safetensors", NULL, &ck, &err) ==
                                         RWKV_EFORMAT && msg_ok("limit"));
    tb_set64(&b, 0, ~0ull);
    TEST_COND("header length 2^64-1", ckpt_open_mem(b.p, b.n, "m.safetensors", NULL, &ck, &err) ==
                                          RWKV_EFORMAT && msg_ok("limit"));
    tb_set64(&b, 0, 0);
    TEST_COND("header length 0", ckpt_open_mem(b.p, b.n, "m.safetensors", NULL, &ck, &err) ==
                                     RWKV_EFORMAT && msg_ok("JSON"));
    /* every truncation of a valid file fails cleanly */
    tb_free(&b);
    float a[2] = {1, 2};
    tb_safetensors(&b, "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", a, 8);
    int bad = 0;
    for (size_t n = 0; n < b.n; n++) {
        int rc = ckpt_open_mem(b.p, n, "m.safetensors", NULL, &ck, &err);
        if (rc == RWKV_OK) {
            bad++;
            ckpt_close(ck);
        }
    }
    TEST_CONDF(bad == 0, "safetensors truncations: %d accepted", bad);
    tb_free(&b);
}

int
main(void)
{
    test_valid();
    test_bad();
    return TEST_REPORT();
}
