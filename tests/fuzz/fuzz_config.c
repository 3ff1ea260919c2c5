/*
** fuzz_config.c -- libFuzzer harness: the YAML config loader (tui/config.c
** cfg_load) on a file holding the input.
**
**   make fuzz && build-fuzz/fuzz_config -dict=tests/fuzz/config.dict tests/fuzz/corpus/config
**
** Invariants: cfg_load returns 0 or -1; on -1 the message reports every
** problem, one line each, every line starting with the file's name
** ("config.yaml:LINE:COL: ..."); whatever the outcome every string of *OUT
** is NUL-terminated within its field and every action has a key that has
** a printable name.
*/
#include <stdint.h>

#include "../../tui/config.h"
#include "fuzz_tmp.h"

#include "fuzz_entry.h"

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    static tui_config c;
    char path[512], msg[512];
    int rc;

    fuzz_path(path, sizeof path, "config.yaml");
    if (!fuzz_put(path, data, size))
        return 0;
    memset(&c, 0x5a, sizeof c);   /* cfg_load fills every field */
    msg[0] = '\0';
    rc = cfg_load(path, &c, msg, sizeof msg);
    FUZZ_CHECK(rc == 0 || rc == -1);
    if (rc != 0) {
        const char *line = msg;
        FUZZ_CHECK(msg[0] != '\0');
        while (line != NULL && *line != '\0') {
            FUZZ_CHECK(strncmp(line, path, strlen(path)) == 0);
            line = strchr(line, '\n');
            line = line ? line + 1 : NULL;
        }
    }
    FUZZ_CHECK(memchr(c.model, '\0', sizeof c.model) && memchr(c.strategy, '\0', sizeof c.strategy) &&
               memchr(c.vocab, '\0', sizeof c.vocab) && memchr(c.state_dir, '\0', sizeof c.state_dir) &&
               memchr(c.preset, '\0', sizeof c.preset) && memchr(c.theme, '\0', sizeof c.theme) &&
               memchr(c.db, '\0', sizeof c.db));
    for (int a = 0; a < CFG_ACT_COUNT; a++) {
        char name[64];
        /* CFG_KEY_NONE where a binding of the file took the action's only
        ** default key; no key serves two actions */
        FUZZ_CHECK(c.keys[a] >= 0);
        for (int b = 0; b < a; b++)
            FUZZ_CHECK(c.keys[a] == CFG_KEY_NONE || c.keys[a] != c.keys[b]);
        cfg_key_name(c.keys[a], name, sizeof name);
        FUZZ_CHECK(memchr(name, '\0', sizeof name) != NULL && name[0] != '\0');
    }
    return 0;
}
