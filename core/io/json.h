/*
** json.h -- a small strict JSON parser (RFC 8259) producing a read-only tree.
**
** Used for the safetensors header and by the tests to read the fixture
** manifests.  The whole tree lives in one allocation chain owned by the
** json_doc; every pointer returned by the accessors is borrowed from the doc
** and valid until json_free().  Strings are decoded to UTF-8 and NUL
** terminated (an embedded \u0000 makes len larger than strlen).
*/
#ifndef RWKV_JSON_H
#define RWKV_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "../status.h"

/* Nesting deeper than this is refused: recursion depth is bounded by input. */
#define JSON_MAX_DEPTH 128

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

typedef struct json_value json_value;
struct json_value {
    enum json_type type;
    double         num;      /* JSON_NUMBER; JSON_BOOL: 0 or 1 */
    int            is_int;   /* number had no fraction/exponent and fits int64 */
    int64_t        i64;      /* exact value when is_int */
    const char    *str;      /* JSON_STRING: UTF-8, NUL terminated */
    size_t         len;      /* string byte length, or number of children */
    json_value   **items;    /* JSON_ARRAY / JSON_OBJECT children, in order */
    const char   **keys;     /* JSON_OBJECT: key of each child */
};

typedef struct json_doc json_doc;

/*
** Parse LEN bytes at TEXT.  On success *OUT is a document owned by the caller
** (free with json_free).  WHAT names the input in error messages.
*/
int json_parse(const char *text, size_t len, const char *what, json_doc **out,
               rwkv_err *err);
/* Read and parse a whole file. */
int json_parse_file(const char *path, json_doc **out, rwkv_err *err);
void json_free(json_doc *doc);

/* The root value (borrowed). */
const json_value *json_root(const json_doc *doc);

/* Object member KEY, or NULL when absent or V is not an object. */
const json_value *json_get(const json_value *v, const char *key);
/* Array element I, or NULL when out of range or V is not an array. */
const json_value *json_at(const json_value *v, size_t i);
/* Convenience: number / string of member KEY, or DEF / NULL when absent. */
double      json_num(const json_value *obj, const char *key, double def);
const char *json_str(const json_value *obj, const char *key);

/*
** Writing: S (LEN bytes) as a JSON string literal, quotes included, through
** PUT(UD, bytes, n), the one escaper of the project (exports, `sessions
** list --json`, the framing column).  '"' and '\\' and newline, carriage
** return and tab get their two-character escapes (\" \\ \n \r \t); every
** other byte below 0x20, and DEL, is written \u00XX (lower-case hex), and
** so are, as \uXXXX, the C1 controls (U+0080..U+009F: 8-bit CSI, OSC, which
** a terminal in 8-bit mode acts on), U+2028/U+2029 and the bidi controls and
** invisible format characters the display rule drops (U+202E ...), as
** cli/'s cli_json_text escapes them; all other bytes are copied, so the
** caller gives valid UTF-8 (storage's store_text_clean makes any text so)
** and the output is valid JSON that moves nothing on a terminal.
*/
typedef void (*json_put_fn)(void *ud, const char *bytes, size_t n);
void json_write_string(const char *s, size_t len, json_put_fn put, void *ud);

#endif
