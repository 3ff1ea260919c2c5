/*
** gen_corpus.c -- writes the seed corpus for the checkpoint fuzzers into
** tests/fuzz/corpus/{zipr,pickle,st}/ (run from the repo root; the output is
** checked in, so this only needs re-running when seeds are added):
**
**   cc -std=c11 -D_DEFAULT_SOURCE -o /tmp/gen_corpus tests/fuzz/gen_corpus.c && /tmp/gen_corpus
**
** Seeds are small valid files of every shape the loader accepts (plain dict,
** OrderedDict + _metadata, ZIP64 fields, misaligned data, views, wrappers,
** metadata scalars) plus one file per attack class, so a replay exercises
** both the success paths and the refusal paths.
*/
#include "../unit/test_ckpt_build.h"

static void
save(const char *dir, const char *name, const void *p, size_t n)
{
    char path[256];
    FILE *f;

    snprintf(path, sizeof path, "tests/fuzz/corpus/%s/%s", dir, name);
    f = fopen(path, "wb");
    if (f == NULL || fwrite(p, 1, n, f) != n) {
        perror(path);
        exit(1);
    }
    fclose(f);
}

static float f12[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
static uint16_t b4[4] = {0x3f80, 0x4000, 0xbf00, 0x4040};

static void
torch_file(const char *name, const tb_tensor_spec *t, size_t n, int ordered, const tb_zipopt *opt)
{
    tb_buf pk = {0}, z = {0};
    tb_state_pickle(&pk, t, n, ordered);
    tb_torch_zip(&z, "archive", &pk, t, n, opt, NULL);
    save("zipr", name, z.p, z.n);
    save("pickle", name, pk.p, pk.n);
    tb_free(&pk);
    tb_free(&z);
}

static void
pickle_seed(const char *name, const char *bytes, size_t n)
{
    tb_buf b = {0};
    tb_proto(&b);
    tb_put(&b, bytes, n);
    save("pickle", name, b.p, b.n);
    tb_free(&b);
}

#define B(lit) lit, sizeof(lit) - 1

int
main(void)
{
    tb_tensor_spec t[] = {
        {"emb.weight", "FloatStorage", 4, f12, 12, 0, 2, {3, 4}, {4, 1}},
        {"blocks.0.att.time_state", "BFloat16Storage", 2, b4, 4, 0, 3, {1, 2, 2}, {4, 2, 1}},
        {"tr", "FloatStorage", 4, f12, 12, 1, 2, {3, 2}, {1, 3}},
        {"s", "FloatStorage", 4, f12, 1, 0, 0, {0}, {0}},
    };
    tb_zipopt z64 = {64, 0, 1, 1}, mis = {64, 3, 1, 0}, plain = {0, 0, 0, 0};

    torch_file("valid-dict", t, 4, 0, NULL);
    torch_file("valid-odict", t, 4, 1, NULL);
    torch_file("valid-zip64-fields", t, 2, 0, &z64);
    torch_file("valid-misaligned", t, 2, 0, &mis);
    torch_file("valid-classic-eocd", t, 1, 0, &plain);

    /* attacks at the zip layer */
    {
        tb_buf pk = {0}, z = {0};
        tb_zipinfo info;
        tb_state_pickle(&pk, t, 1, 0);
        tb_torch_zip(&z, "archive", &pk, t, 1, NULL, &info);
        tb_set16(&z, info.central[0] + 10, 8);
        save("zipr", "bad-deflate", z.p, z.n);
        tb_set16(&z, info.central[0] + 10, 0);
        tb_set64(&z, info.eocd64 + 48, 1ull << 40);
        save("zipr", "bad-cd-outside", z.p, z.n);
        tb_free(&z);
        tb_torch_zip(&z, "archive", &pk, t, 1, NULL, &info);
        z.n = info.eocd64 + 10;
        save("zipr", "bad-truncated", z.p, z.n);
        tb_free(&z);
        tb_free(&pk);
    }
    /* attacks in the pickle (also wrapped as whole files by fuzz_pickle) */
    {
        tb_buf b = {0};
        tb_proto(&b);
        tb_global(&b, "os", "system");
        tb_unicode(&b, "echo pwned");
        tb_op(&b, 0x85);
        tb_op(&b, 'R');
        tb_op(&b, '.');
        save("pickle", "bad-os-system", b.p, b.n);
        tb_free(&b);
        tb_proto(&b);
        tb_global(&b, "builtins", "eval");
        tb_op(&b, '.');
        save("pickle", "bad-eval", b.p, b.n);
        tb_free(&b);
    }
    pickle_seed("bad-inst", B("}ios\nsystem\n."));
    pickle_seed("bad-setitem-tuple", B(")K\x01K\x02s."));
    pickle_seed("bad-memo", B("}j\xff\xff\xff\xff."));
    pickle_seed("bad-build-dict", B("}}b."));
    pickle_seed("selfref-dict", B("}q\x00X\x01\x00\x00\x00" "ah\x00s."));
    pickle_seed("meta-values", B("}(X\x01\x00\x00\x00" "aK\x05X\x01\x00\x00\x00" "bG?\xf8\x00\x00\x00\x00\x00\x00"
                                 "X\x01\x00\x00\x00" "cX\x02\x00\x00\x00hiu."));
    {
        /* a tensor on storage 3 (4096 bytes in fuzz_pickle's wrapper): 1024 floats */
        tb_buf b = {0};
        int64_t sh[2] = {32, 32}, st[2] = {32, 1}, sv[2] = {16, 8}, stv[2] = {1, 64};
        tb_proto(&b);
        tb_op(&b, '}');
        tb_op(&b, '(');
        tb_unicode(&b, "w");
        tb_tensor(&b, "FloatStorage", "3", 1024, 0, sh, st, 2);
        tb_unicode(&b, "v");
        tb_tensor(&b, "FloatStorage", "3", 1024, 3, sv, stv, 2);
        tb_unicode(&b, "h");
        tb_tensor(&b, "HalfStorage", "2", 128, 0, (int64_t[]){128}, (int64_t[]){1}, 1);
        tb_op(&b, 'u');
        tb_op(&b, '.');
        save("pickle", "wrapped-storages", b.p, b.n);
        tb_free(&b);
    }
    /* safetensors */
    {
        tb_buf b = {0};
        uint8_t d[24] = {0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0x80, 0x3f};
        tb_safetensors(&b, "{\"__metadata__\":{\"format\":\"pt\"},"
                           "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                           "\"b\":{\"dtype\":\"BF16\",\"shape\":[1,3],\"data_offsets\":[8,14]},"
                           "\"c\":{\"dtype\":\"I8\",\"shape\":[2],\"data_offsets\":[14,16]},"
                           "\"d\":{\"dtype\":\"F64\",\"shape\":[],\"data_offsets\":[16,24]}}", d, 24);
        save("st", "valid", b.p, b.n);
        tb_free(&b);
        tb_safetensors(&b, "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                           "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", d, 12);
        save("st", "bad-overlap", b.p, b.n);
        tb_free(&b);
        tb_safetensors(&b, "{\"a\":{\"dtype\":\"X9\",\"shape\":[2],\"data_offsets\":[0,8]}}", d, 8);
        save("st", "bad-dtype", b.p, b.n);
        tb_free(&b);
        const char *hdr = "{\"w\":{\"dtype\":\"F16\",\"shape\":[4,8],\"data_offsets\":[0,64]}}";
        save("st", "header-only", hdr, strlen(hdr));   /* fuzz_st adds prefix + 64 bytes */
    }
    return 0;
}
