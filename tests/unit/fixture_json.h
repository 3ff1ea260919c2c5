/*
** fixture_json.h -- a JSON fixture (a manifest, a case file) read for a test:
** shared by the unit tests that check against the reference fixtures.
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

#endif
