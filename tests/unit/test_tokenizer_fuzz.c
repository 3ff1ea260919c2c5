/*
** test_tokenizer_fuzz.c -- replay tests/fuzz/corpus/tok/ through the
** tokenizer fuzz harness (tests/fuzz/fuzz_tok.c), so that the seeds and
** every regression input run in `make test` without libFuzzer.
*/
#include "../harness.h"

#define FUZZ_CHECK(c) TEST_CONDF((c), "%s: %s", fuzz_current, #c)
static const char *fuzz_current = "";

#include "../fuzz/fuzz_tok.c"

#include <dirent.h>

#define FUZZ_CORPUS "tests/fuzz/corpus/tok"
/* Corpus files are small seeds; anything larger is a mistake. */
#define FUZZ_MAX_INPUT (1 << 20)

int
main(void)
{
    DIR *d = opendir(FUZZ_CORPUS);
    struct dirent *e;
    int n = 0;

    TEST_CONDF(d != NULL, "cannot open %s (run from the repository root)", FUZZ_CORPUS);
    while (d && (e = readdir(d)) != NULL) {
        char path[1024];
        unsigned char *buf;
        size_t len;
        FILE *f;

        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", FUZZ_CORPUS, e->d_name);
        if ((f = fopen(path, "rb")) == NULL)
            continue;
        buf = malloc(FUZZ_MAX_INPUT);
        len = fread(buf, 1, FUZZ_MAX_INPUT, f);
        fclose(f);
        fuzz_current = e->d_name;
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
        n++;
    }
    if (d)
        closedir(d);
    TEST_CONDF(n >= 20, "only %d corpus files", n);
    TEST_INFO("replayed %d corpus inputs", n);
    tok_close(fuzz_vocab());
    return TEST_REPORT();
}
