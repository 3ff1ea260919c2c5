/*
** fixture_json.h -- a JSON fixture (a manifest, a case file) read for a test,
** and the tiny models' manifests run in turn: shared by the unit tests that
** check against the reference fixtures.
** Include after tests/harness.h and core/io/json.h.
*/
#ifndef RWKV_TEST_FIXTURE_JSON_H
#define RWKV_TEST_FIXTURE_JSON_H

/* The fixture REL (a path under test_fixtures()) parsed, owned by the caller
** (json_free); NULL, with one failed check naming REL and why, when it
** cannot be read or parsed. */
static inline json_doc *
test_fixture_json(const char *rel)
{
    char path[1024];
    json_doc *doc = NULL;
    rwkv_err err;

    if (json_parse_file(test_fixture_path(path, sizeof path, rel), &doc, &err) != RWKV_OK) {
        TEST_CONDF(0, "%s: %s", rel, err.msg);
        return NULL;
    }
    return doc;
}

/* The manifests of the tiny reference models, in the order tests run them. */
#define TEST_N_TINY 8
static const char *const test_tiny_manifests[TEST_N_TINY] = {
    "tiny/tiny-7v0.json", "tiny/rand7h2.json", "tiny/tiny-5v2.json", "tiny/tiny-6v0.json",
    "tiny/tiny-4v0.json", "tiny/randv4.json", "tiny/tiny-5v1.json", "tiny/randv51.json",
};

/* NAME is chosen by FILTER (a test's first argument): NULL takes all, else
** the names holding it. */
static inline int
test_picked(const char *filter, const char *name)
{
    return filter == NULL || strstr(name, filter) != NULL;
}

/* FN(manifest) for each tiny manifest FILTER picks whose fixture is there;
** NCHECKS[i], the checks manifest i makes, are counted as skipped without
** it. */
static inline void
test_each_tiny(const char *filter, const int nchecks[TEST_N_TINY], void (*fn)(const char *rel))
{
    for (int i = 0; i < TEST_N_TINY; i++)
        if (test_picked(filter, test_tiny_manifests[i]) &&
            test_have_fixture(test_tiny_manifests[i], nchecks[i]))
            fn(test_tiny_manifests[i]);
}

#endif
