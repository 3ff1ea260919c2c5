/*
** test_wcache.c -- the cache of prepared weights (core/model/wcache.c).
**
** For fixture models of every version under converting strategies: the
** first load writes the cache (in a temporary directory), the second maps
** it ("hit"), and the logits of both equal the uncached load's bit for bit.
** Then damaged caches -- truncated, bit-flipped in header, index and data,
** another format version or byte order (with valid checksums), entries
** pointing outside the file (valid checksums), another model's cache, a
** stale checkpoint mtime -- are each rejected and rebuilt with identical
** logits.  The checkpoint's identity (test_identity): a weight byte
** changed outside the fingerprint's sample with size and mtime restored --
** with the zip CRC fixed up or not, in place or as a new inode -- never gets
** the old cache; a byte-identical copy (new inode) reuses it after its
** CRC-32s are checked.  Also: the location rules (next to a writable model, the XDG
** directory for a read-only one, never the fixtures directory), the auto
** size threshold, the off switches, concurrent writers, and the checksum.
**
** Nothing is ever written next to the fixtures: every load names a cache
** directory in a temporary tree or loads a copy of the model there (the
** read-only case is a 0555 temporary directory, which stays clean even for
** root because core/model/wcache.c checks the mode bits, not only access(2)).
** Without the fixtures, the plan, damage and location checks run on models
** written by the project's own generator (core/model/model_gen.h).
*/
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../core/model/model_gen.h"
#include "../../core/io/ckpt_verify.h"
#include "../../core/model/model_gen.h"
#include "../../core/rwkv.h"
#include "../../core/model/wcache.h"
#include "../../core/io/zipr.h"
#include "../harness.h"

/* Header field offsets (core/model/wcache.c's struct wc_header). */
#define H_ENDIAN 8
#define H_VERSION 12
#define H_PREP 16
#define H_PROBE 80
#define H_INDEX_OFF 136
#define H_INDEX_BYTES 144
#define H_INDEX_SUM 168
#define H_HEADER_SUM 208
#define H_SIZE 216
/* Entry field offsets (struct wc_entry). */
#define E_DATA_OFF 120
#define N_TOK 7

static char tmpdir[256];
/* The models of the plan/location checks (v7, fp32), the damage checks (v6,
** bf16) and "another model" (v6, fp32): fixtures, or generated ones. */
static char m7[1024], m6[1024], m6other[1024];

static const int32_t toks[N_TOK] = { 72, 101, 108, 108, 111, 33, 10 };

/* Logits after a 6-token prompt (sequence path) and one more token (RNN
** path), concatenated into OUT [2 * n_vocab]. */
struct run {
    rwkv_model *m;
    char        status[12];
    char        path[4096];
    float      *logits;
    size_t      n;
};

static int
run_model(const char *model, const char *strategy, int mode, const char *dir, struct run *r)
{
    rwkv_open_opts oo;
    rwkv_state *s = NULL;
    rwkv_err err;
    const rwkv_info *in;
    int ok = 0;

    memset(r, 0, sizeof *r);
    memset(&oo, 0, sizeof oo);
    oo.strategy = strategy;
    oo.n_threads = 2;
    oo.weight_cache = mode;
    oo.weight_cache_dir = dir;
    if (rwkv_model_open(model, &oo, &r->m, &err) != RWKV_OK) {
        printf("     open %s (%s): %s\n", model, strategy, err.msg);
        return 0;
    }
    in = rwkv_model_info(r->m);
    snprintf(r->status, sizeof r->status, "%s", in->weight_cache);
    snprintf(r->path, sizeof r->path, "%s", in->weight_cache_path);
    r->n = (size_t)in->n_vocab;
    r->logits = malloc(2 * r->n * sizeof(float));
    if (r->logits != NULL && rwkv_state_create(r->m, &s, &err) == RWKV_OK &&
        rwkv_eval(r->m, toks, N_TOK - 1, s, r->logits, &err) == RWKV_OK &&
        rwkv_eval(r->m, toks + N_TOK - 1, 1, s, r->logits + r->n, &err) == RWKV_OK)
        ok = 1;
    rwkv_state_destroy(s);
    rwkv_model_close(r->m);
    r->m = NULL;
    return ok;
}

static int
same_logits(const struct run *a, const struct run *b)
{
    return a->logits && b->logits && a->n == b->n &&
           memcmp(a->logits, b->logits, 2 * a->n * sizeof(float)) == 0;
}

/* The load wrote a cache: "writing" in the background (finished by the
** close in run_model), or "written" if no thread could be started. */
static int
wrote(const struct run *r)
{
    return (strcmp(r->status, "writing") == 0 || strcmp(r->status, "written") == 0) &&
           r->path[0] != '\0' && access(r->path, R_OK) == 0;
}

static void
run_free(struct run *r)
{
    free(r->logits);
    r->logits = NULL;
}

static unsigned char *
slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = NULL;
    long sz;

    *n = 0;
    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)sz + 1)) != NULL && fread(b, 1, (size_t)sz, f) == (size_t)sz)
        *n = (size_t)sz;
    fclose(f);
    return b;
}

static int
spit(const char *path, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok;

    if (f == NULL)
        return 0;
    ok = fwrite(b, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

static uint64_t
rd64(const unsigned char *b, size_t off)
{
    uint64_t v;
    memcpy(&v, b + off, 8);
    return v;
}

static void
wr64(unsigned char *b, size_t off, uint64_t v)
{
    memcpy(b + off, &v, 8);
}

/* Recompute the index and header checksums after an edit (a "hostile"
** file: well-formed checksums around bad content). */
static void
reseal(unsigned char *b, size_t n)
{
    uint64_t io = rd64(b, H_INDEX_OFF), ib = rd64(b, H_INDEX_BYTES);

    if (io > n || ib > n - io)   /* a hostile size: keep the old sum */
        return (void)wr64(b, H_HEADER_SUM, wc_checksum(b, H_HEADER_SUM));
    wr64(b, H_INDEX_SUM, wc_checksum(b + io, (size_t)ib));
    wr64(b, H_HEADER_SUM, wc_checksum(b, H_HEADER_SUM));
}

/* Files in DIR whose name contains SUB. */
static int
count_files(const char *dir, const char *sub)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && strstr(e->d_name, sub) != NULL)
            n++;
    closedir(d);
    return n;
}

static void
rm_tree(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("     could not remove %s\n", dir);
}

/* Write then hit, both equal to the uncached load. */
static void
test_roundtrip(const char *rel, const char *strategy, int k)
{
    char model[1024], dir[512];
    struct run ref, w, h;

    test_fixture_path(model, sizeof model, rel);
    snprintf(dir, sizeof dir, "%s/rt%d", tmpdir, k);
    TEST_CONDF(run_model(model, strategy, WC_OFF, NULL, &ref), "%s %s: uncached run", rel, strategy);
    TEST_CONDF(strcmp(ref.status, "off") == 0, "%s: status '%s' with the cache off", rel, ref.status);
    TEST_CONDF(run_model(model, strategy, WC_ON, dir, &w), "%s %s: first run", rel, strategy);
    TEST_CONDF(wrote(&w) && w.path[0] != '\0' && access(w.path, R_OK) == 0,
               "%s %s: first load '%s' (%s)", rel, strategy, w.status, w.path);
    TEST_CONDF(run_model(model, strategy, WC_ON, dir, &h), "%s %s: second run", rel, strategy);
    TEST_CONDF(strcmp(h.status, "hit") == 0 && strcmp(h.path, w.path) == 0,
               "%s %s: second load '%s' (%s)", rel, strategy, h.status, h.path);
    TEST_CONDF(same_logits(&ref, &w), "%s %s: written-load logits differ from uncached", rel, strategy);
    TEST_CONDF(same_logits(&ref, &h), "%s %s: cache-hit logits differ from uncached", rel, strategy);
    TEST_CONDF(count_files(dir, ".tmp-") == 0, "%s: a temporary file was left behind", rel);
    run_free(&ref);
    run_free(&w);
    run_free(&h);
}

/*
** 4-bit plans: before i4 was built, "cpu fp16i4" ran (and cached) fp16
** weights under the fp16 plan.  A cache of that plan -- made here by
** "cpu fp16" -- must never be read for "cpu fp16i4", which now converts to
** Q4 and writes its own file; a second load hits that one.
*/
static void
test_i4_plan(void)
{
    char dir[512];
    struct run f16, q, again;

    snprintf(dir, sizeof dir, "%s/i4plan", tmpdir);
    TEST_COND("i4 plan: fp16 load writes its cache",
              run_model(m7, "cpu fp16", WC_ON, dir, &f16) && wrote(&f16));
    TEST_CONDF(run_model(m7, "cpu fp16i4", WC_ON, dir, &q) && wrote(&q) &&
                   strcmp(q.path, f16.path) != 0,
               "i4 plan: 'cpu fp16i4' load '%s' (%s), the fp16 cache is %s", q.status, q.path,
               f16.path);
    TEST_COND("i4 plan: 4-bit logits are not the fp16 ones",
              f16.logits && q.logits && !same_logits(&f16, &q));
    TEST_CONDF(run_model(m7, "cpu fp16i4", WC_ON, dir, &again) && strcmp(again.status, "hit") == 0 &&
                   strcmp(again.path, q.path) == 0 && same_logits(&q, &again),
               "i4 plan: second 'cpu fp16i4' load '%s' (%s)", again.status, again.path);
    run_free(&f16);
    run_free(&q);
    run_free(&again);
}

/* The 4-bit probe joins a plan's key wherever a slot is 4-bit, with or
** without the bf16-LoRA flag (a v7 layer's byte has it: the 1.5B's 4-bit
** caches once outlived a change of the 4-bit layout). */
static void
test_plan_q4(void)
{
    const uint8_t flagged[] = { KERN_F32 | 0x80, KERN_Q4 | 0x80, KERN_F32 };
    const uint8_t bare[] = { KERN_Q4 };
    const uint8_t none[] = { KERN_Q8 | 0x80, KERN_BF16, KERN_F32 | 0x80 };

    TEST_COND("a flagged 4-bit slot counts", wc_plan_has_q4(flagged, sizeof flagged));
    TEST_COND("a bare 4-bit slot counts", wc_plan_has_q4(bare, sizeof bare));
    TEST_COND("no 4-bit slot", !wc_plan_has_q4(none, sizeof none));
}

/* One damaged cache: written over the good one, rejected, rebuilt. */
static void
damaged(const char *model, const char *strategy, const char *dir, const char *path,
        const struct run *ref, const char *what, const unsigned char *b, size_t n)
{
    struct run r, again;

    if (!spit(path, b, n)) {
        TEST_CONDF(0, "%s: cannot write %s", what, path);
        return;
    }
    TEST_CONDF(run_model(model, strategy, WC_ON, dir, &r), "%s: load failed", what);
    TEST_CONDF(wrote(&r), "%s: status '%s', expected rejected and rebuilt",
               what, r.status);
    TEST_CONDF(same_logits(ref, &r), "%s: logits differ", what);
    TEST_CONDF(run_model(model, strategy, WC_ON, dir, &again) && strcmp(again.status, "hit") == 0 &&
               same_logits(ref, &again), "%s: the rebuilt cache is not used ('%s')", what,
               again.status);
    run_free(&r);
    run_free(&again);
}

static void
test_damage(void)
{
    const char *strategy = "cpu fp32i8";
    char model[1024], other[1024], dir[512];
    struct run ref, w, wo;
    unsigned char *good, *b, *ob;
    size_t n, on;
    uint64_t io, ib, doff;

    snprintf(model, sizeof model, "%s", m6);
    snprintf(other, sizeof other, "%s", m6other);
    snprintf(dir, sizeof dir, "%s/dmg", tmpdir);
    if (!run_model(model, strategy, WC_OFF, NULL, &ref) ||
        !run_model(model, strategy, WC_ON, dir, &w) || !wrote(&w) ||
        (good = slurp(w.path, &n)) == NULL || n < 8192) {
        TEST_COND("damage: setup", 0);
        return;
    }
    b = malloc(n);
    io = rd64(good, H_INDEX_OFF);
    ib = rd64(good, H_INDEX_BYTES);
    doff = io + ib;
    TEST_COND("damage: layout as expected", io == H_SIZE && ib > 0 && doff < n);

    damaged(model, strategy, dir, w.path, &ref, "empty file", good, 0);
    damaged(model, strategy, dir, w.path, &ref, "header only", good, H_SIZE);
    damaged(model, strategy, dir, w.path, &ref, "cut in half", good, n / 2);
    damaged(model, strategy, dir, w.path, &ref, "last byte missing", good, n - 1);
    {
        unsigned char *b2 = malloc(n + 64);
        memcpy(b2, good, n);
        memset(b2 + n, 0, 64);
        damaged(model, strategy, dir, w.path, &ref, "64 bytes appended", b2, n + 64);
        free(b2);
    }
    {
        static const struct {
            const char *what;
            size_t      off;
            int         bit;
        } flips[] = { { "bit flip in the magic", 3, 1 },
                      { "bit flip in the key", 100, 4 },
                      { "bit flip in the header checksum", H_HEADER_SUM + 2, 0 },
                      { "bit flip in the index", H_SIZE + 10, 2 } };
        for (size_t k = 0; k < sizeof flips / sizeof flips[0]; k++) {
            memcpy(b, good, n);
            b[flips[k].off] ^= (unsigned char)(1u << flips[k].bit);
            damaged(model, strategy, dir, w.path, &ref, flips[k].what, b, n);
        }
        /* data: the first byte, the middle, the last */
        memcpy(b, good, n);
        b[(n + doff) / 2] ^= 0x10;
        damaged(model, strategy, dir, w.path, &ref, "bit flip in the data", b, n);
        memcpy(b, good, n);
        b[n - 1] ^= 0x80;
        damaged(model, strategy, dir, w.path, &ref, "bit flip in the last byte", b, n);
    }
    /* well-formed checksums around bad content */
    memcpy(b, good, n);
    b[H_VERSION] += 1;
    reseal(b, n);
    damaged(model, strategy, dir, w.path, &ref, "another format version", b, n);
    memcpy(b, good, n);
    b[H_PREP] += 1;
    reseal(b, n);
    damaged(model, strategy, dir, w.path, &ref, "another preparation version", b, n);
    memcpy(b, good, n);
    b[H_PROBE] ^= 1;
    reseal(b, n);
    damaged(model, strategy, dir, w.path, &ref, "another conversion probe", b, n);
    memcpy(b, good, n);
    {
        uint32_t e = 0x04030201u;
        memcpy(b + H_ENDIAN, &e, 4);
    }
    reseal(b, n);
    damaged(model, strategy, dir, w.path, &ref, "the other byte order", b, n);
    memcpy(b, good, n);
    wr64(b, io + E_DATA_OFF, (uint64_t)n + 4096);
    reseal(b, n);
    damaged(model, strategy, dir, w.path, &ref, "entry past the end", b, n);
    memcpy(b, good, n);
    wr64(b, io + E_DATA_OFF, UINT64_MAX - 63);
    reseal(b, n);
    damaged(model, strategy, dir, w.path, &ref, "entry offset overflowing", b, n);
    memcpy(b, good, n);
    wr64(b, io + E_DATA_OFF, rd64(good, io + E_DATA_OFF) + 4);
    reseal(b, n);
    damaged(model, strategy, dir, w.path, &ref, "misaligned entry", b, n);
    memcpy(b, good, n);
    wr64(b, io + E_DATA_OFF, 0);
    reseal(b, n);
    damaged(model, strategy, dir, w.path, &ref, "entry over the header", b, n);
    /* well-formed but not this model's entries: a partial hit, rebuilt */
    memcpy(b, good, n);
    b[io + 1 * 152] ^= 0x20;   /* the second entry's name, first letter */
    reseal(b, n);
    damaged(model, strategy, dir, w.path, &ref, "an entry of another name", b, n);
    memcpy(b, good, n);
    wr64(b, H_INDEX_BYTES, UINT64_MAX - 8);
    reseal(b, n);
    damaged(model, strategy, dir, w.path, &ref, "huge index size", b, n);

    /* not a regular file: a FIFO would block an open(2) */
    unlink(w.path);
    if (mkfifo(w.path, 0644) == 0) {
        struct run r;
        TEST_COND("a FIFO in the cache's place is skipped", run_model(model, strategy, WC_ON, dir, &r) &&
                  wrote(&r) && same_logits(&ref, &r));
        run_free(&r);
    }
    /* another model's cache (same plan) under this model's name */
    if (run_model(other, strategy, WC_ON, dir, &wo) && wrote(&wo) &&
        (ob = slurp(wo.path, &on)) != NULL) {
        damaged(model, strategy, dir, w.path, &ref, "another model's cache", ob, on);
        free(ob);
    } else {
        TEST_COND("other model's cache written", 0);
    }
    run_free(&wo);
    free(b);
    free(good);
    run_free(&ref);
    run_free(&w);
}

/* The default location, a stale mtime and concurrent writers, on a copy
** of a fixture in a writable directory. */
static void
test_location(void)
{
    char model[1024], copy[512], xdg[512], rodir[512], path[1024];
    const char *strategy = "cpu fp16";
    struct run ref, r, r2;
    unsigned char *b;
    size_t n;
    int before;

    snprintf(copy, sizeof copy, "%s/loc/m.pth", tmpdir);
    snprintf(xdg, sizeof xdg, "%s/xdg", tmpdir);
    snprintf(path, sizeof path, "%s/loc", tmpdir);
    /* a read-only model directory: a copy in a 0555 temporary directory
     * (never the fixtures directory itself) */
    snprintf(rodir, sizeof rodir, "%s/romodel", tmpdir);
    snprintf(model, sizeof model, "%s/m.pth", rodir);
    mkdir(path, 0755);
    mkdir(rodir, 0755);
    b = slurp(m7, &n);
    TEST_COND("copy the model", b != NULL && spit(copy, b, n) && spit(model, b, n) &&
              chmod(rodir, 0555) == 0);
    free(b);
    unsetenv("RWKV_WEIGHT_CACHE_DIR");
    unsetenv("RWKV_WEIGHT_CACHE");
    setenv("XDG_CACHE_HOME", xdg, 1);
    before = count_files(rodir, "");

    TEST_COND("reference", run_model(copy, strategy, WC_OFF, NULL, &ref));
    /* auto mode: a tiny conversion is not worth a file */
    TEST_COND("auto, small", run_model(copy, strategy, WC_AUTO, NULL, &r));
    TEST_CONDF(strcmp(r.status, "none") == 0 && count_files(path, ".rwkvc") == 0,
               "auto mode wrote a cache for a tiny model ('%s')", r.status);
    run_free(&r);
    /* on: next to the model */
    TEST_COND("on, next to the model", run_model(copy, strategy, WC_ON, NULL, &r));
    TEST_CONDF(wrote(&r) && strncmp(r.path, copy, strlen(copy)) == 0 &&
               count_files(path, ".rwkvc") == 1, "next to the model: '%s' %s", r.status, r.path);
    run_free(&r);
    /* the environment switches it off (auto mode) */
    setenv("RWKV_WEIGHT_CACHE", "0", 1);
    TEST_COND("env off", run_model(copy, strategy, WC_AUTO, NULL, &r) && strcmp(r.status, "off") == 0);
    run_free(&r);
    setenv("RWKV_WEIGHT_CACHE", "1", 1);
    TEST_COND("env on: hit", run_model(copy, strategy, WC_AUTO, NULL, &r) && strcmp(r.status, "hit") == 0 &&
              same_logits(&ref, &r));
    run_free(&r);
    unsetenv("RWKV_WEIGHT_CACHE");
    /* a newer checkpoint (same bytes, new mtime) makes the cache stale */
    {
        struct timespec ts[2] = { { 0, UTIME_NOW }, { 1000000000, 0 } };
        TEST_COND("touch the copy", utimensat(AT_FDCWD, copy, ts, 0) == 0);
    }
    TEST_COND("stale", run_model(copy, strategy, WC_ON, NULL, &r));
    TEST_CONDF(wrote(&r) && same_logits(&ref, &r) &&
               count_files(path, ".rwkvc") == 1, "stale cache: '%s'", r.status);
    run_free(&r);

    /* a read-only model directory: the XDG directory */
    TEST_COND("read-only dir", run_model(model, strategy, WC_ON, NULL, &r));
    TEST_CONDF(wrote(&r) && strncmp(r.path, xdg, strlen(xdg)) == 0,
               "read-only model directory: '%s' %s", r.status, r.path);
    TEST_COND("read-only dir, second load",
              run_model(model, strategy, WC_ON, NULL, &r2) && strcmp(r2.status, "hit") == 0 &&
              same_logits(&r, &r2));
    TEST_CONDF(count_files(rodir, "") == before && count_files(rodir, ".rwkvc") == 0,
               "the read-only model directory changed (%d files before, %d after)", before,
               count_files(rodir, ""));
    run_free(&r);
    run_free(&r2);
    /* a directory that cannot be written: no cache, no failure */
    snprintf(path, sizeof path, "%s/ro", tmpdir);
    mkdir(path, 0555);
    TEST_COND("unwritable cache dir", run_model(copy, strategy, WC_ON, path, &r) &&
              strcmp(r.status, "none") == 0 && count_files(path, "") == 0 && same_logits(&ref, &r));
    run_free(&r);

    /* concurrent first loads into one directory */
    snprintf(path, sizeof path, "%s/conc", tmpdir);
    {
        pid_t kids[4];
        int all_ok = 1;
        for (int k = 0; k < 4; k++) {
            kids[k] = fork();
            if (kids[k] == 0) {
                struct run c;
                int ok = run_model(copy, strategy, WC_ON, path, &c) && same_logits(&ref, &c);
                _exit(ok ? 0 : 1);
            }
        }
        for (int k = 0; k < 4; k++) {
            int st = 0;
            if (kids[k] < 0 || waitpid(kids[k], &st, 0) != kids[k] || !WIFEXITED(st) ||
                WEXITSTATUS(st) != 0)
                all_ok = 0;
        }
        TEST_COND("concurrent loads all succeed with the right logits", all_ok);
        TEST_CONDF(count_files(path, ".rwkvc") == 1 && count_files(path, ".tmp-") == 0,
                   "concurrent writers left %d caches, %d temporary files",
                   count_files(path, ".rwkvc"), count_files(path, ".tmp-"));
        TEST_COND("after concurrent writers: hit", run_model(copy, strategy, WC_ON, path, &r) &&
                  strcmp(r.status, "hit") == 0 && same_logits(&ref, &r));
        run_free(&r);
    }
    /* a process that dies while its writer runs leaves no temporary file */
    snprintf(path, sizeof path, "%s/killed", tmpdir);
    {
        pid_t kid = fork();
        int st = 0;
        if (kid == 0) {
            rwkv_open_opts oo;
            rwkv_model *m;
            rwkv_err e;
            memset(&oo, 0, sizeof oo);
            oo.strategy = strategy;
            oo.weight_cache = WC_ON;
            oo.weight_cache_dir = path;
            _exit(rwkv_model_open(copy, &oo, &m, &e) == RWKV_OK ? 0 : 1);   /* no close */
        }
        TEST_COND("killed writer: child ran", kid > 0 && waitpid(kid, &st, 0) == kid &&
                  WIFEXITED(st) && WEXITSTATUS(st) == 0);
        TEST_CONDF(count_files(path, ".tmp-") <= 0, "a killed writer left %d temporary files",
                   count_files(path, ".tmp-"));
    }
    run_free(&ref);
    unsetenv("XDG_CACHE_HOME");
    chmod(rodir, 0755);   /* so that rm_tree can empty it */
}

/* ---- the checkpoint's identity ---- */

static uint32_t
get32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void
put32(unsigned char *b, uint32_t v)
{
    b[0] = (unsigned char)v;
    b[1] = (unsigned char)(v >> 8);
    b[2] = (unsigned char)(v >> 16);
    b[3] = (unsigned char)(v >> 24);
}

/* Recompute the CRC-32 of the zip entry whose data starts at DOFF, in its
** local header and its central-directory record (what a careful forger
** does).  1 when both were found. */
static int
fix_zip_crc(unsigned char *b, size_t n, size_t doff)
{
    int fixed = 0;

    for (size_t p = 0; p + 30 <= n; p++) {
        size_t nl, xl, sz;
        uint32_t crc;
        if (memcmp(b + p, "PK\x03\x04", 4) != 0)
            continue;
        nl = b[p + 26] | (size_t)b[p + 27] << 8;
        xl = b[p + 28] | (size_t)b[p + 29] << 8;
        sz = get32(b + p + 22);
        if (p + 30 + nl + xl != doff || doff + sz > n)
            continue;
        crc = zipr_crc32(0, b + doff, sz);
        put32(b + p + 14, crc);
        for (size_t q = 0; q + 46 <= n; q++) {
            if (memcmp(b + q, "PK\x01\x02", 4) != 0 || (b[q + 28] | (size_t)b[q + 29] << 8) != nl ||
                q + 46 + nl > n || memcmp(b + q + 46, b + p + 30, nl) != 0)
                continue;
            put32(b + q + 16, crc);
            fixed = 1;
        }
        break;
    }
    return fixed;
}

/* Overwrite PATH's bytes in place (same inode, same size), then give it
** back mtime MT, as `touch -d` would. */
static int
rewrite_in_place(const char *path, const unsigned char *b, size_t n, struct timespec mt)
{
    int fd = open(path, O_WRONLY);
    struct timespec ts[2] = { mt, mt };
    int ok;

    if (fd < 0)
        return 0;
    ok = pwrite(fd, b, n, 0) == (ssize_t)n;
    ok = close(fd) == 0 && ok;
    return ok && utimensat(AT_FDCWD, path, ts, 0) == 0;
}

/* Replace PATH by a new file (a new inode) of bytes B with mtime MT: a
** copy, a download or an rsync over the model. */
static int
replace_file(const char *path, const unsigned char *b, size_t n, struct timespec mt)
{
    char tmp[600];
    struct timespec ts[2] = { mt, mt };

    snprintf(tmp, sizeof tmp, "%s.new", path);
    return spit(tmp, b, n) && utimensat(AT_FDCWD, tmp, ts, 0) == 0 && rename(tmp, path) == 0;
}

static void
test_identity(void)
{
    const char *strategy = "cpu fp32i8", *victim = "blocks.0.ffn.key.weight";
    char dir[512], model[600];
    struct run ref, w, h, r, edited;
    mgen_opts mo;
    rwkv_err err;
    unsigned char *orig = NULL, *b = NULL;
    size_t n = 0, toff = 0, off, step;
    struct stat st;
    struct timespec mt;
    const ckpt_tensor *t;
    ckpt *ck = NULL;
    uint64_t checked = 0;

    snprintf(dir, sizeof dir, "%s/ident", tmpdir);
    snprintf(model, sizeof model, "%s/ident/m.pth", tmpdir);
    mkdir(dir, 0755);
    memset(&mo, 0, sizeof mo);
    mo.dtype = CK_BF16;
    mo.seed = 7;
    mo.n_threads = 1;
    if (mgen_save("demo", model, &mo, NULL, &err) != RWKV_OK || stat(model, &st) != 0 ||
        (orig = slurp(model, &n)) == NULL || (b = malloc(n)) == NULL ||
        ckpt_open_mem(orig, n, "m.pth", NULL, &ck, &err) != RWKV_OK ||
        (t = ckpt_find(ck, victim)) == NULL || t->nbytes < 8192) {
        TEST_COND("identity: setup (write a demo model)", 0);
        ckpt_close(ck);
        free(orig);
        free(b);
        return;
    }
    mt = st.st_mtim;
    toff = (size_t)((const unsigned char *)t->data - orig);
    /* model.c's fingerprint hashes 64 slices of 64 bytes, STEP apart: a byte
     * halfway between two slices (the high byte of a bf16: its sign) is
     * outside the sample */
    step = (size_t)(t->nbytes - 64) / 63;
    off = (64 + step / 2) | 1;
    TEST_COND("identity: the edited byte is outside the sampled slices",
              off % step >= 64 && off < t->nbytes);
    ckpt_close(ck);

    TEST_COND("identity: the model verifies", ckpt_verify_file(model, 2, &checked, &err) == RWKV_OK &&
              checked > 10);
    TEST_COND("identity: reference", run_model(model, strategy, WC_OFF, NULL, &ref));
    TEST_COND("identity: first load writes", run_model(model, strategy, WC_ON, dir, &w) && wrote(&w));
    TEST_COND("identity: second load hits", run_model(model, strategy, WC_ON, dir, &h) &&
              strcmp(h.status, "hit") == 0 && same_logits(&ref, &h));

    /* 1. edited in place, zip CRC fixed up, mtime restored: the digest of the
     *    CRC-32s (and the ctime) changed: the cache must not be used */
    memcpy(b, orig, n);
    b[toff + off] ^= 0x80;
    TEST_COND("identity: CRC fixed up", fix_zip_crc(b, n, toff));
    TEST_COND("identity: edit in place, CRC fixed", rewrite_in_place(model, b, n, mt));
    TEST_COND("identity: edited file: same size and mtime",
              stat(model, &st) == 0 && (size_t)st.st_size == n && st.st_mtim.tv_sec == mt.tv_sec &&
              st.st_mtim.tv_nsec == mt.tv_nsec);
    TEST_COND("identity: edited model, uncached", run_model(model, strategy, WC_OFF, NULL, &edited));
    TEST_COND("identity: the edit changes the logits", !same_logits(&ref, &edited));
    TEST_COND("identity: edited model (CRC fixed), cached load", run_model(model, strategy, WC_ON, dir, &r));
    TEST_CONDF(strcmp(r.status, "hit") != 0 && same_logits(&edited, &r),
               "CRC-fixed edit with the mtime restored: cache '%s', %s logits", r.status,
               same_logits(&ref, &r) ? "the OLD model's" : "other");
    run_free(&r);
    run_free(&edited);

    /* 2. back to the original bytes (in place, mtime restored): the cache
     *    the edited model rewrote does not serve it either */
    TEST_COND("identity: restore", rewrite_in_place(model, orig, n, mt));
    TEST_COND("identity: restored model", run_model(model, strategy, WC_ON, dir, &r));
    TEST_CONDF(strcmp(r.status, "hit") != 0 && same_logits(&ref, &r),
               "restored model: cache '%s'", r.status);
    run_free(&r);

    /* 3. edited in place, CRC left stale, mtime restored: the data fails its
     *    CRC when converted: the load names the tensor */
    memcpy(b, orig, n);
    b[toff + off] ^= 0x80;
    TEST_COND("identity: edit in place, CRC stale", rewrite_in_place(model, b, n, mt));
    memset(&err, 0, sizeof err);
    {
        rwkv_open_opts oo;
        rwkv_model *m = NULL;
        int rc;
        memset(&oo, 0, sizeof oo);
        oo.strategy = strategy;
        oo.n_threads = 2;
        oo.weight_cache = WC_ON;
        oo.weight_cache_dir = dir;
        rc = rwkv_model_open(model, &oo, &m, &err);
        TEST_CONDF(rc == RWKV_EFORMAT && strstr(err.msg, "blocks.0.ffn.key.weight: checksum mismatch") &&
                   strstr(err.msg, "the file is damaged") && strchr(err.msg, '\n') == NULL,
                   "stale CRC, converting load: rc %d '%s'", rc, err.msg);
        rwkv_model_close(m);
        /* in place (bf16 stays mapped): this entry is small enough
         * (CKPT_CRC_EAGER) to be checked at open anyway */
        oo.strategy = "cpu bf16";
        rc = rwkv_model_open(model, &oo, &m, &err);
        TEST_CONDF(rc == RWKV_EFORMAT && strstr(err.msg, "blocks.0.ffn.key.weight: checksum mismatch"),
                   "stale CRC, in-place load: rc %d '%s'", rc, err.msg);
        rwkv_model_close(m);
        rc = ckpt_verify_file(model, 2, NULL, &err);
        TEST_CONDF(rc == RWKV_EFORMAT && strstr(err.msg, "blocks.0.ffn.key.weight: checksum mismatch"),
                   "verify of a damaged file: rc %d '%s'", rc, err.msg);
    }

    /* 4. a byte-identical copy (new inode, mtime kept): the cache made for
     *    the old file is vouched for by the CRC-32s, then rekeyed */
    TEST_COND("identity: restore again", rewrite_in_place(model, orig, n, mt));
    TEST_COND("identity: rebuild", run_model(model, strategy, WC_ON, dir, &r) && same_logits(&ref, &r));
    run_free(&r);
    TEST_COND("identity: hit before the copy", run_model(model, strategy, WC_ON, dir, &r) &&
              strcmp(r.status, "hit") == 0);
    run_free(&r);
    TEST_COND("identity: copy over (new inode)", replace_file(model, orig, n, mt));
    TEST_COND("identity: load of the copy", run_model(model, strategy, WC_ON, dir, &r));
    TEST_CONDF(wrote(&r) && same_logits(&ref, &r), "copy: cache '%s' (expected checked and rekeyed)",
               r.status);
    run_free(&r);
    TEST_COND("identity: then hits", run_model(model, strategy, WC_ON, dir, &r) &&
              strcmp(r.status, "hit") == 0 && same_logits(&ref, &r));
    run_free(&r);

    /* 5. a new inode with a changed byte and a stale CRC (a corrupted copy):
     *    the CRC-32s do not vouch for it */
    memcpy(b, orig, n);
    b[toff + off] ^= 0x80;
    TEST_COND("identity: damaged copy over", replace_file(model, b, n, mt));
    memset(&err, 0, sizeof err);
    {
        rwkv_open_opts oo;
        rwkv_model *m = NULL;
        int rc;
        memset(&oo, 0, sizeof oo);
        oo.strategy = strategy;
        oo.weight_cache = WC_ON;
        oo.weight_cache_dir = dir;
        rc = rwkv_model_open(model, &oo, &m, &err);
        TEST_CONDF(rc == RWKV_EFORMAT && strstr(err.msg, "checksum mismatch"),
                   "damaged copy: rc %d '%s' (the old cache must not serve it)", rc, err.msg);
        rwkv_model_close(m);
    }
    run_free(&ref);
    run_free(&w);
    run_free(&h);
    free(orig);
    free(b);
}

/* The file is per plan of slot dtypes: fp32i8 and bf16i8 both prepare Q8
** matrices (the same bytes), fp16 does not. */
static void
test_plans(void)
{
    char model[1024], dir[512];
    struct run a, b, c;

    snprintf(model, sizeof model, "%s", m7);
    snprintf(dir, sizeof dir, "%s/plans", tmpdir);
    TEST_COND("plans: fp32i8", run_model(model, "cpu fp32i8", WC_ON, dir, &a) &&
              wrote(&a));
    TEST_COND("plans: bf16i8 shares the Q8 cache", run_model(model, "cpu bf16i8", WC_ON, dir, &b) &&
              strcmp(b.status, "hit") == 0 && strcmp(a.path, b.path) == 0);
    TEST_COND("plans: fp16 has its own", run_model(model, "cpu fp16", WC_ON, dir, &c) &&
              wrote(&c) && strcmp(a.path, c.path) != 0 &&
              count_files(dir, ".rwkvc") == 2);
    run_free(&a);
    run_free(&b);
    run_free(&c);
    TEST_COND("plans: a mixed plan has its own",
              run_model(model, "cpu fp32i8 *1 -> cpu fp16", WC_ON, dir, &a) &&
              wrote(&a) && count_files(dir, ".rwkvc") == 3);
    run_free(&a);
}

static void
test_checksum(void)
{
    unsigned char buf[300];
    uint64_t base;
    int distinct = 1, flips = 1;

    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i * 7 + 3);
    base = wc_checksum(buf, sizeof buf);
    for (size_t i = 0; i < sizeof buf; i++)
        for (int bit = 0; bit < 8; bit++) {
            buf[i] ^= (unsigned char)(1u << bit);
            flips &= wc_checksum(buf, sizeof buf) != base;
            buf[i] ^= (unsigned char)(1u << bit);
        }
    TEST_COND("checksum: every single-bit flip changes it", flips);
    for (size_t a = 0; a < 80; a++)
        for (size_t b = a + 1; b < 80; b++)
            distinct &= wc_checksum(buf, a) != wc_checksum(buf, b);
    TEST_COND("checksum: prefixes of different lengths differ", distinct);
    memset(buf, 0, sizeof buf);
    TEST_COND("checksum: zero runs of different lengths differ",
              wc_checksum(buf, 32) != wc_checksum(buf, 64) && wc_checksum(buf, 0) != wc_checksum(buf, 8));
}

int
main(void)
{
    static const char *models[] = { "models/tiny-4v0-bf16.pth", "models/tiny-5v1-fp32.pth",
                                    "models/tiny-5v2-bf16.pth", "models/tiny-6v0-bf16.pth",
                                    "models/tiny-7v0-fp32.pth", "models/tiny-7v0-bf16.pth" };
    static const char *strategies[] = { "cpu fp32i8", "cpu fp16", "cpu bf16i8",
                                        "cpu fp16 *1 -> cpu fp32i8", "cpu fp32i4",
                                        "cpu bf16i4 *1 -> cpu fp32i8" };
    char fixdir[1024];
    int before;

    snprintf(tmpdir, sizeof tmpdir, "/tmp/rwkv-wcache-XXXXXX");
    if (mkdtemp(tmpdir) == NULL) {
        printf("FAIL cannot create a temporary directory\n");
        return 1;
    }
    test_fixture_path(fixdir, sizeof fixdir, "models");
    before = count_files(fixdir, "");
    test_checksum();
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        if (!test_have_fixture(models[i], 9 * (int)(sizeof strategies / sizeof strategies[0])))
            /* 9 checks per strategy */
            continue;
        for (size_t k = 0; k < sizeof strategies / sizeof strategies[0]; k++)
            test_roundtrip(models[i], strategies[k], (int)k);
    }
    if (test_fixture_exists("models/tiny-7v0-fp32.pth") &&
        test_fixture_exists("models/tiny-6v0-bf16.pth") &&
        test_fixture_exists("models/tiny-6v0-fp32.pth")) {
        test_fixture_path(m7, sizeof m7, "models/tiny-7v0-fp32.pth");
        test_fixture_path(m6, sizeof m6, "models/tiny-6v0-bf16.pth");
        test_fixture_path(m6other, sizeof m6other, "models/tiny-6v0-fp32.pth");
    } else {
        rwkv_err err;
        TEST_INFO("fixture models missing: plans, damage and location on generated models");
        snprintf(m7, sizeof m7, "%s/gen-v7.pth", tmpdir);
        snprintf(m6, sizeof m6, "%s/gen-v6-bf16.pth", tmpdir);
        snprintf(m6other, sizeof m6other, "%s/gen-v6-fp32.pth", tmpdir);
        TEST_CONDF(mgen_save("demo", m7, &(mgen_opts){ .dtype = CK_F32, .seed = 1 }, NULL,
                             &err) == RWKV_OK &&
                   mgen_save("demo-v6", m6, &(mgen_opts){ .dtype = CK_BF16, .seed = 1 }, NULL,
                             &err) == RWKV_OK &&
                   mgen_save("demo-v6", m6other, &(mgen_opts){ .dtype = CK_F32, .seed = 1 },
                             NULL, &err) == RWKV_OK,
                   "generate models: %s", err.msg);
    }
    test_plans();
    test_i4_plan();
    test_plan_q4();
    test_damage();
    test_identity();
    test_location();
    TEST_CONDF(count_files(fixdir, "") == before, "fixtures directory: %d files, was %d",
               count_files(fixdir, ""), before);
    rm_tree(tmpdir);
    return TEST_REPORT();
}
