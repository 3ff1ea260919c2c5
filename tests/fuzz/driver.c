/*
** driver.c -- a small stand-in for libFuzzer's main(), linked into the
** harnesses when `make fuzz` finds no clang (then built with $(CC) and
** AddressSanitizer/UBSan where the compiler has them).
**
**   build-fuzz/fuzz_X [-runs=N] [-seed=N] [-max_total_time=S] [-max_len=N] DIR|FILE...
**
** Every file named (directly or inside a DIR, not recursively) is run once;
** then N mutants (default 0; -max_total_time=S alone means "until S
** seconds") of randomly chosen inputs: bit flips, random and "interesting"
** bytes, inserts, deletions, duplicated ranges, truncation and splices of
** two inputs, one to eight of them per mutant.  No coverage feedback: it
** finds what random mutation finds.  The mutants are a function of -seed
** (printed at start), so a crash is reproduced by the same command line;
** -save_dir=DIR writes each mutant to DIR/current before running it.
** Other -flags (libFuzzer's -dict, -timeout, ...) are accepted and ignored.
*/
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Largest input kept or made (bytes). */
#define DRV_MAX_LEN_DEFAULT 65536
/* Most corpus files loaded. */
#define DRV_MAX_FILES 100000

struct drv_in {
    uint8_t *p;
    size_t   n;
};

static struct drv_in *drv_ins;
static size_t drv_n, drv_cap;

static uint64_t drv_rng;

static uint64_t
drv_next(void)
{
    /* splitmix64 */
    uint64_t z = (drv_rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static size_t
drv_below(size_t n)
{
    return n ? (size_t)(drv_next() % n) : 0;
}

static void
drv_add_file(const char *path, size_t max_len)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    uint8_t *p;
    size_t n;

    if (f == NULL)
        return;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || drv_n >= DRV_MAX_FILES) {
        fclose(f);
        return;
    }
    n = (size_t)st.st_size < max_len ? (size_t)st.st_size : max_len;
    p = malloc(n ? n : 1);
    if (p == NULL || fread(p, 1, n, f) != n) {
        free(p);
        fclose(f);
        return;
    }
    fclose(f);
    if (drv_n == drv_cap) {
        size_t cap = drv_cap ? drv_cap * 2 : 64;
        struct drv_in *ni = realloc(drv_ins, cap * sizeof *ni);
        if (ni == NULL) {
            free(p);
            return;
        }
        drv_ins = ni;
        drv_cap = cap;
    }
    drv_ins[drv_n].p = p;
    drv_ins[drv_n].n = n;
    drv_n++;
}

static void
drv_add(const char *path, size_t max_len)
{
    DIR *d = opendir(path);
    struct dirent *e;
    char buf[4096];

    if (d == NULL) {
        drv_add_file(path, max_len);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(buf, sizeof buf, "%s/%s", path, e->d_name);
        drv_add_file(buf, max_len);
    }
    closedir(d);
}

/* One mutation of B[0..*N) (capacity CAP) in place. */
static void
drv_mutate_once(uint8_t *b, size_t *n, size_t cap)
{
    static const int64_t interesting[] = { 0, 1, -1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
                                           0x7fffffff, (int64_t)0x80000000u, (int64_t)0xffffffffu,
                                           INT64_MAX, INT64_MIN, 16, 64, 4096 };
    size_t i, k;

    switch (drv_below(9)) {
    case 0:   /* flip a bit */
        if (*n)
            b[drv_below(*n)] ^= (uint8_t)(1u << drv_below(8));
        break;
    case 1:   /* a random byte */
        if (*n)
            b[drv_below(*n)] = (uint8_t)drv_next();
        break;
    case 2: { /* an interesting 1/2/4/8-byte value, little-endian */
        int64_t v = interesting[drv_below(sizeof interesting / sizeof interesting[0])];
        size_t w = (size_t)1 << drv_below(4);
        if (*n >= w) {
            i = drv_below(*n - w + 1);
            for (k = 0; k < w; k++)
                b[i + k] = (uint8_t)((uint64_t)v >> (8 * k));
        }
        break;
    }
    case 3:   /* insert bytes */
        k = 1 + drv_below(8);
        if (*n + k <= cap) {
            i = drv_below(*n + 1);
            memmove(b + i + k, b + i, *n - i);
            for (size_t j = 0; j < k; j++)
                b[i + j] = (uint8_t)drv_next();
            *n += k;
        }
        break;
    case 4:   /* delete a range */
        if (*n) {
            i = drv_below(*n);
            k = 1 + drv_below(*n - i < 16 ? *n - i : 16);
            memmove(b + i, b + i + k, *n - i - k);
            *n -= k;
        }
        break;
    case 5:   /* duplicate a range */
        if (*n) {
            i = drv_below(*n);
            k = 1 + drv_below(*n - i < 64 ? *n - i : 64);
            if (*n + k <= cap) {
                size_t at = drv_below(*n + 1);
                uint8_t tmp[64];
                memcpy(tmp, b + i, k);
                memmove(b + at + k, b + at, *n - at);
                memcpy(b + at, tmp, k);
                *n += k;
            }
        }
        break;
    case 6:   /* truncate */
        if (*n)
            *n = drv_below(*n);
        break;
    case 7: { /* splice: a range of another input over ours */
        const struct drv_in *o = &drv_ins[drv_below(drv_n)];
        if (o->n) {
            size_t from = drv_below(o->n), len = 1 + drv_below(o->n - from), at = drv_below(*n + 1);
            if (at + len > cap)
                len = cap - at;
            memcpy(b + at, o->p + from, len);
            if (at + len > *n)
                *n = at + len;
        }
        break;
    }
    default:  /* copy a range within the input */
        if (*n > 1) {
            size_t from = drv_below(*n), to = drv_below(*n);
            k = 1 + drv_below(*n - (from > to ? from : to));
            memmove(b + to, b + from, k);
        }
        break;
    }
}

int
main(int argc, char **argv)
{
    uint64_t runs = 0, seed = (uint64_t)time(NULL);
    size_t max_len = DRV_MAX_LEN_DEFAULT;
    long max_time = 0;
    const char *save_dir = NULL;
    uint8_t *buf;
    time_t t0 = time(NULL);
    uint64_t done = 0;
    static const uint8_t empty[1];

    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "-runs=", 6) == 0)
            runs = strtoull(argv[i] + 6, NULL, 10);
        else if (strncmp(argv[i], "-seed=", 6) == 0)
            seed = strtoull(argv[i] + 6, NULL, 10);
        else if (strncmp(argv[i], "-max_len=", 9) == 0)
            max_len = (size_t)strtoull(argv[i] + 9, NULL, 10);
        else if (strncmp(argv[i], "-max_total_time=", 16) == 0)
            max_time = strtol(argv[i] + 16, NULL, 10);
        else if (strncmp(argv[i], "-save_dir=", 10) == 0)
            save_dir = argv[i] + 10;
    }
    if (max_len == 0)
        max_len = DRV_MAX_LEN_DEFAULT;
    for (int i = 1; i < argc; i++)
        if (argv[i][0] != '-')
            drv_add(argv[i], max_len);
    drv_rng = seed;
    fprintf(stderr, "driver: %zu inputs, seed %llu\n", drv_n, (unsigned long long)seed);
    for (size_t i = 0; i < drv_n; i++)
        LLVMFuzzerTestOneInput(drv_ins[i].p, drv_ins[i].n);
    if (drv_n == 0)
        drv_add_file("/dev/null", max_len);
    if (drv_n == 0) {
        LLVMFuzzerTestOneInput(empty, 0);
        return 0;
    }
    if (max_time > 0 && runs == 0)
        runs = UINT64_MAX;
    if ((buf = malloc(max_len)) == NULL)
        return 1;
    for (; done < runs; done++) {
        const struct drv_in *in = &drv_ins[drv_below(drv_n)];
        size_t n = in->n < max_len ? in->n : max_len;
        int ops = 1 + (int)drv_below(8);

        if (max_time > 0 && (done & 63) == 0 && time(NULL) - t0 >= max_time)
            break;
        memcpy(buf, in->p, n);
        for (int k = 0; k < ops; k++)
            drv_mutate_once(buf, &n, max_len);
        if (save_dir != NULL) {
            char path[4096];
            FILE *f;
            snprintf(path, sizeof path, "%s/current", save_dir);
            if ((f = fopen(path, "wb")) != NULL) {
                if (n)
                    fwrite(buf, 1, n, f);
                fclose(f);
            }
        }
        LLVMFuzzerTestOneInput(buf, n);
    }
    fprintf(stderr, "driver: %zu inputs replayed, %llu mutants run in %lds, no failure\n", drv_n,
            (unsigned long long)done, (long)(time(NULL) - t0));
    free(buf);
    return 0;
}
